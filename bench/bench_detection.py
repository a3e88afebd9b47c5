"""Time to detection: the contract's generators against a naive property test.

For every known-defective chunker in ``tests/defects/chunkers.py`` (``DEFECTS``: name -> the
invariant it breaks) and several seeds, two Hypothesis searches run with the same budget of
``--examples`` examples and stop at the first example that breaks the expected invariant:

* ``contract``: what ``chunk-contract run`` tries: the seed corpus (``contract.generation.corpus``),
then
  ``contract.generation.strategies.cases(kind="text", max_length=2000)`` (degenerate configs
  included);
* ``naive``: ``@given(st.text(), st.integers(1, 100), st.integers(0, 99))``, the property test
  one would write by hand (overlap taken modulo max_size, so every config is valid).

Each example goes through the engine itself (``contract.engine.session.Session.observe``: the
isolated worker, every invariant, reruns and CRLF twins), so both sides are judged by the same
checks and only the inputs differ. Reported per defect: in how many seeds it was found, and the
median number of examples and seconds until the first detection (over the seeds that found it).
``scales_linearly`` is decided by the engine's timing probe, not by examples: its row gives the
probe's time for the contract and "n/a" for the naive test, which has no such probe. Ids from
``hash()`` (``hash_ids``) are likewise seen only by the runner, which re-chunks explored inputs
in a fresh interpreter: that row times a whole ``run(only=("deterministic",))``.

    python bench/bench_detection.py                 # all defects, 3 seeds, 200 examples
    python bench/bench_detection.py --seeds 5 --only overlap_on_top,lines_from_find
    python bench/bench_detection.py --no-write      # print the table, leave RESULTS.md alone

The table replaces the "## Detection" section of bench/RESULTS.md (other sections are kept).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from contract.engine import scaling  # noqa: E402
from contract.engine.loading import load  # noqa: E402
from contract.engine.session import Session  # noqa: E402
from contract.generation import strategies  # noqa: E402
from contract.generation.corpus import corpus_for  # noqa: E402
from contract.integrations.mutation.suite import stabilize_generation  # noqa: E402
from contract.spec.model import Config  # noqa: E402
from contract.spec.registry import registry  # noqa: E402

DEFECTS_FILE = ROOT / "tests" / "defects" / "chunkers.py"
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## Detection"
#: Defects that hang on many inputs: a short timeout keeps each hanging example cheap.
HANG_TIMEOUT = 0.5
TIMEOUT = 2.0


def _defects() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("_bench_defects", DEFECTS_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.DEFECTS)


def contract_cases() -> st.SearchStrategy[tuple[str, Config]]:
    return strategies.cases(kind="text", max_length=2000, degenerate=True)


def naive_cases() -> st.SearchStrategy[tuple[str, Config]]:
    return st.tuples(st.text(), st.integers(1, 100), st.integers(0, 99)).map(
        lambda t: (t[0], Config(max_size=t[1], overlap=t[2] % t[1])))


GENERATORS = {"contract": contract_cases, "naive": naive_cases}


@dataclass
class Search:
    """One seeded search: whether and when the expected invariant was first broken."""

    found: bool = False
    examples: int = 0
    seconds: float = 0.0
    hangs: int = 0


class _Stop(Exception):
    pass


def search(target: str, invariant: str, generator: str, the_seed: int, examples: int,
           timeout: float) -> Search:
    """Run ``examples`` examples of ``generator`` until ``invariant`` is broken."""
    out = Search()
    plugin = load(target)
    started = time.perf_counter()
    with Session(plugin, timeout=timeout, memory_mb=512, selected=list(registry())) as session:
        # chunk-contract run replays the seed corpus before generating: so does its search.
        for case in corpus_for("text") if generator == "contract" else ():
            out.examples += 1
            if session.observe(*case).of(invariant):
                out.found, out.seconds, out.hangs = True, time.perf_counter() - started, 0
                return out

        @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                  phases=(Phase.generate,), suppress_health_check=list(HealthCheck),
                  verbosity=Verbosity.quiet)
        @seed(the_seed)
        @given(GENERATORS[generator]())
        def probe(case: tuple[str, Config]) -> None:
            if out.found:
                raise _Stop  # Hypothesis replays the failing example: do not call again
            out.examples += 1
            seen = session.observe(*case)
            if seen.of(invariant):
                out.found = True
                out.seconds = time.perf_counter() - started
                raise _Stop

        with contextlib.suppress(_Stop):
            probe()
        out.hangs = session.hangs
    if not out.found:
        out.seconds = time.perf_counter() - started
    return out


#: Defects that only the runner's after-exploration checks see (not one Session.observe):
#: measured with a whole ``run(only=(invariant,))`` per seed.
RUNNER_LEVEL = {"hash_ids"}


def runner_search(target: str, invariant: str, the_seed: int, examples: int) -> Search:
    """Whether ``contract.engine.runner.run`` reports ``invariant`` (its own cross-checks
    included)."""
    from contract.engine.runner import RunSettings, run

    started = time.perf_counter()
    result = run(target, RunSettings(max_examples=examples, seed=the_seed, only=(invariant,),
                                     reproducers=None, shrink_seconds=1.0))
    found = any(item.id == invariant for item in result.violated)
    return Search(found=found, examples=result.examples, seconds=time.perf_counter() - started)


def scaling_probe(target: str) -> Search:
    """``scales_linearly`` comes from the engine's timing probe, not from examples."""
    plugin = load(target)
    started = time.perf_counter()
    with Session(plugin, timeout=TIMEOUT, memory_mb=512, selected=list(registry())) as session:
        found = scaling.probe(session.worker, timeout=TIMEOUT)
    return Search(found=bool(found), examples=0, seconds=time.perf_counter() - started)


@dataclass
class Row:
    name: str
    invariant: str
    results: dict[str, list[Search]] = field(default_factory=dict)


def measure(name: str, invariant: str, seeds: list[int], examples: int) -> Row:
    target = f"{DEFECTS_FILE}:{name}"
    row = Row(name, invariant)
    if invariant == "scales_linearly":
        row.results["contract"] = [scaling_probe(target) for _ in seeds]
        return row
    if name in RUNNER_LEVEL:
        row.results["contract"] = [runner_search(target, invariant, s, examples) for s in seeds]
        return row
    timeout = HANG_TIMEOUT if invariant in ("terminates", "config_validation") else TIMEOUT
    for generator in GENERATORS:
        row.results[generator] = [search(target, invariant, generator, s, examples, timeout)
                                  for s in seeds]
    return row


def _cell(searches: list[Search] | None, *, probe: bool = False) -> tuple[str, str, str]:
    if searches is None:
        return "n/a", "n/a", "n/a"
    hits = [s for s in searches if s.found]
    rate = f"{len(hits)}/{len(searches)}"
    if not hits:
        return rate, "-", "-"
    examples = "probe" if probe else f"{statistics.median(s.examples for s in hits):g}"
    seconds = f"{statistics.median(s.seconds for s in hits):.2f}"
    return rate, examples, seconds


def table(rows: list[Row], seeds: list[int], examples: int, elapsed: float,
          load: tuple[float, float]) -> str:
    head = [
        SECTION,
        "",
        f"Generated by `python bench/bench_detection.py` ({len(seeds)} seeds: "
        f"{', '.join(map(str, seeds))}; budget {examples} examples per search; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {load[0]:.1f} before and {load[1]:.1f} after; whole run "
        f"{elapsed:.0f} s). For each known-defective chunker of `tests/defects/chunkers.py`: "
        "in how many seeds the expected invariant was broken within the budget, and the median "
        "examples / seconds to the first detection. *contract*: the inputs of "
        "`chunk-contract run`: "
        "its seed corpus (`contract.generation.corpus`, "
        f"{len(corpus_for('text'))} probes) first, then "
        "`contract.generation.strategies.cases`; *naive*: `@given(st.text(), st.integers(1, 100), "
        "st.integers(0, 99))` with overlap taken modulo max_size. Both are judged by the same "
        "engine (`Session.observe`), so only the inputs differ (and neither gets the string "
        "constants Hypothesis would otherwise mix in from this project's source). "
        "Seconds include the worker's "
        "timeouts on hanging examples; the naive baseline never draws a degenerate config, so "
        "`config_validation` is out of its reach by construction. *probe* and *run* rows are "
        "decided by the runner's own checks (the timing probe; the fresh-interpreter rerun), "
        "not by single examples, and have no naive counterpart.",
        "",
        "| defect | invariant | contract found | contract examples | contract s "
        "| naive found | naive examples | naive s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines = []
    totals = {"contract": [0, 0], "naive": [0, 0]}
    for row in rows:
        probe = row.invariant == "scales_linearly"
        c = _cell(row.results.get("contract"), probe=probe)
        if row.name in RUNNER_LEVEL and c[1] != "-":
            c = (c[0], "run", c[2])
        n = _cell(row.results.get("naive"))
        lines.append(f"| `{row.name}` | {row.invariant} | {c[0]} | {c[1]} | {c[2]} "
                     f"| {n[0]} | {n[1]} | {n[2]} |")
        for gen in totals:
            searches = row.results.get(gen)
            if searches:
                totals[gen][0] += sum(s.found for s in searches)
                totals[gen][1] += len(searches)
    always = {gen: sum(1 for r in rows
                       if r.results.get(gen) and all(s.found for s in r.results[gen]))
              for gen in totals}
    race = _race(rows)
    never = {gen: [r.name for r in rows if r.results.get(gen)
                   and not any(s.found for s in r.results[gen])] for gen in totals}
    summary = [
        "",
        f"Searches that found their defect: contract {totals['contract'][0]}/"
        f"{totals['contract'][1]}, naive {totals['naive'][0]}/{totals['naive'][1]}. "
        f"Defects found on every seed: contract {always['contract']}/{len(rows)}, naive "
        f"{always['naive']}/{sum(1 for r in rows if r.results.get('naive'))}.",
        "",
        f"Median examples to detection, contract against naive (a search that misses counts as "
        f"past the budget): contract faster on {race['faster']}, tied on {race['tied']} "
        f"({race['floor']} of them at the floor: both find it on their first or second input, "
        f"the empty document or the first non-trivial one), slower on {race['slower']}"
        + (f" ({', '.join(race['slower_names'])})" if race["slower_names"] else "") + ".",
        "",
        "Never found by the contract's generators: "
        + (", ".join(f"`{n}`" for n in never["contract"]) or "none") + ".",
        "",
        "Found by the contract's generators on some seeds only: "
        + (", ".join(f"`{r.name}` ({_cell(r.results['contract'])[0]})" for r in rows
                     if r.name not in never["contract"]
                     and not all(s.found for s in r.results["contract"])) or "none") + ".",
        "",
        "Never found by the naive baseline: "
        + (", ".join(f"`{n}`" for n in never["naive"]) or "none") + ".",
        "",
    ]
    return "\n".join(head + lines + summary)


def _median_examples(searches: list[Search], budget: float) -> float:
    """Median examples to detection over all seeds, a miss counted as past the budget."""
    return statistics.median(s.examples if s.found else budget + 1 for s in searches)


def _race(rows: list[Row]) -> dict[str, Any]:
    """Per defect with both searches: is the contract's median faster, tied or slower?"""
    out: dict[str, Any] = {"faster": 0, "tied": 0, "floor": 0, "slower": 0, "slower_names": []}
    for row in rows:
        if "naive" not in row.results:
            continue
        budget = max(s.examples for gen in row.results.values() for s in gen)
        ours = _median_examples(row.results["contract"], budget)
        theirs = _median_examples(row.results["naive"], budget)
        verdict = "faster" if ours < theirs else "tied" if ours == theirs else "slower"
        out[verdict] += 1
        out["floor"] += verdict == "tied" and ours <= 2
        if verdict == "slower":
            out["slower_names"].append(f"`{row.name}`")
    return out


def write_section(text: str, path: Path = RESULTS) -> None:
    """Replace the ``## Detection`` section of ``path`` (or append it), keeping the others."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        tail = "\n" + "".join(lines[end:]) if end < len(lines) else ""
        new = "".join(lines[:start]) + text + tail
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(new if new.endswith("\n") else new + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds per defect (default 3)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--examples", type=int, default=200, help="budget per search")
    parser.add_argument("--only", default="", help="comma-separated defect names")
    parser.add_argument("--no-write", action="store_true", help="do not touch bench/RESULTS.md")
    args = parser.parse_args(argv)
    # Hypothesis mixes string constants from this project's own modules into generation (the
    # corpus, the strategies' pieces): a naive test elsewhere would not get them. Off for both.
    stabilize_generation()
    defects = _defects()
    names = [n for n in args.only.split(",") if n] or list(defects)
    unknown = [n for n in names if n not in defects]
    if unknown:
        parser.error(f"unknown defect(s): {', '.join(unknown)}")
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows = []
    for name in names:
        t = time.perf_counter()
        row = measure(name, defects[name], seeds, args.examples)
        rows.append(row)
        cells = {g: _cell(r) for g, r in row.results.items()}
        print(f"{name:32s} {row.invariant:20s} " + "  ".join(
            f"{g}: {c[0]} ex={c[1]} s={c[2]}" for g, c in cells.items())
            + f"  ({time.perf_counter() - t:.1f}s)", flush=True)
    text = table(rows, seeds, args.examples, time.perf_counter() - started,
                 (load_before, os.getloadavg()[0]))
    print()
    print(text)
    if not args.no_write:
        write_section(text)
        print(f"wrote {SECTION!r} into {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
