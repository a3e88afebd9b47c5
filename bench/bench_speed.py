"""What a default ``run`` costs against a plain Hypothesis test of the same chunker.

    python bench/bench_speed.py [--repeats N] [--only NAME,...] [--slow] [--label TEXT]

For each chunker, alternating and ``--repeats`` times (3 by default):

- **plain**: a plain Hypothesis test in a fresh interpreter: ``st.text()`` and a config
  (``max_size`` 1-200, ``overlap`` below it), the chunker called in process and its cap checked
  (in its unit; one codepoint may be over it),
  for as many examples as the contract run checked;
- **contract**: ``python -m chunk_contract run TARGET --seed 1`` with the default budget and a JSON
  report, whose ``phases`` say where the time went.

Both share one Hypothesis storage folder (its Unicode tables built once) and run with Python's
bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed), after one untimed warm-up run each, as
a user's runs do after ``pip install``. CPU is user + system of the process and every process
it started (``RUSAGE_CHILDREN``), wall the clock; the machine's load average is read before and
after each pair. A ratio is the median of each pair's own ratio (the two commands of a pair run
back to back, so a host that slows down for a while slows both), with the lowest and highest
pair's. The gate-only ratio leaves out of the contract run the CPU of the processes the
plugin ran in (the worker and the fresh interpreter, from the report's ``total_time``): what
the gate itself costs, apart from what the chunker takes on the run's larger documents.
Medians go to bench/RESULTS-speed.md, under a heading named by ``--label``;
the sections of earlier labels are kept, so a before and an after sit side by side. Targets
(idle 2-core machine, fast chunker): contract CPU at most 5x the plain test's, at most 6 s
wall.

``--slow`` also runs ``bench/slow.py`` (50 ms a call), contract only: its wall time, and
whether a budget cut the run (a run cut short says so in its report).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS-speed.md"
PYTHON_CHUNKERS = ("fixed", "recursive", "markdown", "header", "grapheme")
JS = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
SLOW = HERE / "slow.py"

#: The plain Hypothesis test, run in a fresh interpreter: argv[1] the target, argv[2] examples.
PLAIN = '''
import importlib.util, sys
from hypothesis import HealthCheck, given, seed, settings, strategies as st
path, _, name = sys.argv[1].rpartition(":")
spec = importlib.util.spec_from_file_location("chunker", path)
module = importlib.util.module_from_spec(spec)
sys.path.insert(0, sys.argv[3])
spec.loader.exec_module(module)
split = getattr(module, name)
unit = getattr(split, "unit", "chars")
clusters = "grapheme_integrity" in getattr(split, "promises", ())
if clusters:  # one grapheme cluster may be over a small cap (the chunker imports regex too)
    import regex
    ONE = regex.compile(r"\\X")
count = getattr(split, "count_tokens", None) or getattr(module, "count_tokens", None)
if unit == "bytes":
    size = lambda text: len(text.encode("utf-8", "surrogatepass"))
elif unit == "tokens":
    size = count
else:
    size = len

@st.composite
def configs(draw):
    cap = draw(st.integers(1, 200))
    return cap, draw(st.integers(0, cap - 1))

@settings(max_examples=int(sys.argv[2]), database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@seed(1)
@given(st.text(), configs())
def test(text, config):
    cap, overlap = config
    for chunk in split(text, max_size=cap, overlap=overlap):
        body = chunk if isinstance(chunk, str) else chunk["text"]
        # one codepoint may be over a small cap, and one grapheme cluster if promised whole
        assert size(body) <= cap or len(body) == 1 or clusters and ONE.fullmatch(body)

test()
'''


def _measured(command: list[str], *, cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the command and its whole tree, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)  # bytecode cached, as after an install (see warm_up)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=900)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
    return wall, cpu, done.returncode


def plain(target: str, examples: int, work: Path) -> tuple[float, float]:
    wall, cpu, code = _measured(
        [sys.executable, "-c", PLAIN, target, str(examples), str(ROOT)], cwd=work
    )
    if code != 0:  # a failing plain test shrinks: its time is no baseline
        print(f"warning: the plain test of {target} failed (exit {code})", file=sys.stderr)
    return wall, cpu


def contract(target: str, work: Path) -> tuple[float, float, dict[str, Any]]:
    report = work / "report.json"
    command = [sys.executable, "-m", "chunk_contract", "run", target, "--seed", "1", "-q",
               "--json", str(report), "--reproducers", str(work / "reproducers")]
    wall, cpu, code = _measured(command, cwd=work)
    data = json.loads(report.read_text()) if report.exists() else {}
    data["exit"] = code
    return wall, cpu, data


def targets(only: set[str] | None, slow: bool) -> list[tuple[str, str, bool]]:
    """(name, target, has a plain in-process test)."""
    found = [(n, f"{ROOT / 'chunk_contract_reference' / n}.py:split", True)
             for n in PYTHON_CHUNKERS]
    if shutil.which("node"):
        found.append(("js (exec:)", f"exec:node {JS}", False))
    if slow:
        found.append(("slow (50 ms a call)", f"{SLOW}:split", False))
    return [t for t in found if only is None or t[0].split()[0] in only]


def warm_up(target: str, has_plain: bool) -> None:
    """One untimed run of each command first: both then start from cached bytecode, as they
    do for a user after ``pip install`` (an environment that disables bytecode caching would
    otherwise charge every run the compilation of every module it imports)."""
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as tmp:
        contract(target, Path(tmp))
        if has_plain:
            plain(target, 10, Path(tmp))


def measure(repeats: int, only: set[str] | None, slow: bool) -> list[dict[str, Any]]:
    """Every target's samples. Both commands keep Hypothesis's Unicode tables in one folder
    for the whole bench (built by the warm-up run, removed at the end): each run is in a fresh
    folder, and a table built in one of them would be charged to one side only."""
    before = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    with tempfile.TemporaryDirectory(prefix="bench-speed-hypothesis-") as home:
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = home  # inherited by both commands
        try:
            return _measure_all(repeats, only, slow)
        finally:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY")
            if before is not None:
                os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = before


def _measure_all(repeats: int, only: set[str] | None, slow: bool) -> list[dict[str, Any]]:
    rows = []
    for name, target, has_plain in targets(only, slow):
        warm_up(target, has_plain)
        samples: list[dict[str, Any]] = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="bench-speed-") as tmp:
                load = os.getloadavg()[0]
                c_wall, c_cpu, report = contract(target, Path(tmp))
                examples = int(report.get("examples", 443))
                p_wall, p_cpu = plain(target, examples, Path(tmp)) if has_plain else (0.0, 0.0)
                samples.append({
                    "c_wall": c_wall, "c_cpu": c_cpu, "p_wall": p_wall, "p_cpu": p_cpu,
                    "examples": examples, "phases": report.get("phases", {}),
                    "c_plugin": (report.get("total_time") or {}).get("plugin_cpu", 0.0),
                    "exit": report["exit"], "stopped": report.get("stopped_early"),
                    "load": (load, os.getloadavg()[0]),
                })
            print(f"{name}: contract {c_wall:.2f} s wall {c_cpu:.2f} s CPU; plain "
                  f"{p_wall:.2f} / {p_cpu:.2f}; load {samples[-1]['load']}", flush=True)
        rows.append({"name": name, "samples": samples, "plain": has_plain})
    return rows


def _median(samples: list[dict[str, Any]], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def _paired(samples: list[dict[str, Any]], key: str) -> str:
    """The median of each pair's contract / plain ratio of ``key`` (``cpu`` or ``wall``), and
    the lowest and highest: ``5.1x (4.6-5.8)``."""
    ratios = sorted(s[f"c_{key}"] / s[f"p_{key}"] for s in samples if s[f"p_{key}"])
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.1f}x ({ratios[0]:.1f}-{ratios[-1]:.1f})"


def _gate_only(samples: list[dict[str, Any]]) -> str:
    """The paired CPU ratio with the plugin's processes left out of the contract run (the
    worker's and the fresh interpreter's CPU, from the report's ``total_time``): what the gate
    itself costs, whatever the chunker takes on the run's larger documents."""
    gate = [{**s, "c_cpu": s["c_cpu"] - s["c_plugin"]} for s in samples]
    return _paired(gate, "cpu")


def _phase_medians(samples: list[dict[str, Any]]) -> dict[str, tuple[float, float, float]]:
    names = list(dict.fromkeys(n for s in samples for n in s["phases"]))
    return {
        name: tuple(
            statistics.median(s["phases"].get(name, {}).get(key, 0.0) for s in samples)
            for key in ("wall", "cpu", "plugin_cpu")
        )
        for name in names
    }


def render(rows: list[dict[str, Any]], label: str, repeats: int) -> str:
    loads = [x for row in rows for s in row["samples"] for x in s["load"]]
    out = [
        f"## {label}",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · {platform.python_version()} · "
        f"{os.cpu_count()} CPUs · medians of {repeats} alternating repeats (ratios: of each "
        f"pair's, lowest-highest in brackets) · load average "
        f"{min(loads):.2f}-{max(loads):.2f} while measuring (the machine is shared: CPU "
        "figures move little with load, wall figures move with it)",
        "",
        "| chunker | examples | contract wall | contract CPU | of which plugin | plain wall "
        "| plain CPU | CPU ratio | gate-only CPU ratio | wall ratio | exit | stopped early |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        s = row["samples"]
        c_wall, c_cpu = _median(s, "c_wall"), _median(s, "c_cpu")
        p_wall, p_cpu = _median(s, "p_wall"), _median(s, "p_cpu")
        ratio = _paired(s, "cpu") if row["plain"] else "-"
        gate = _gate_only(s) if row["plain"] else "-"
        wall_ratio = _paired(s, "wall") if row["plain"] else "-"
        plain_cells = f"{p_wall:.2f} s | {p_cpu:.2f} s" if row["plain"] else "- | -"
        stopped = s[-1]["stopped"] or "no"
        out.append(
            f"| {row['name']} | {s[-1]['examples']} | {c_wall:.2f} s | {c_cpu:.2f} s | "
            f"{_median(s, 'c_plugin'):.2f} s | {plain_cells} | {ratio} | {gate} | {wall_ratio} | "
            f"{s[-1]['exit']} | {stopped} |"
        )
    out += ["", "Per phase (median wall / CPU / of which the plugin's processes, seconds, from "
            "the JSON report's `phases`):", ""]
    for row in rows:
        phases = _phase_medians(row["samples"])
        cells = ", ".join(f"{n} {w:.2f}/{c:.2f}/{p:.2f}" for n, (w, c, p) in phases.items())
        out.append(f"- {row['name']}: {cells or '(no phases reported)'}")
    return "\n".join(out) + "\n"


def write(section: str, label: str) -> None:
    """Replace the section of ``label`` in RESULTS-speed.md (others are kept)."""
    head = "# Speed: a default run against a plain Hypothesis test\n\n"
    text = RESULTS.read_text() if RESULTS.exists() else head
    parts = text.split("\n## ")
    kept = [parts[0].rstrip("\n") + "\n"] + [
        "## " + p.rstrip("\n") + "\n" for p in parts[1:] if not p.startswith(label + "\n")
    ]
    RESULTS.write_text("\n".join([*kept, section]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="chunker names, comma-separated")
    parser.add_argument("--slow", action="store_true", help="also the 50 ms a call chunker")
    parser.add_argument("--label", default="after", help="the section of RESULTS-speed.md")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    rows = measure(args.repeats, only, args.slow)
    section = render(rows, args.label, args.repeats)
    print(section)
    if not args.no_write:
        write(section, args.label)


if __name__ == "__main__":
    main()
