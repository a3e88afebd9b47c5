"""Regenerate ``docs/conformance.md``: the contract run on every built-in adapter, on several seeds.

    python -m chunk_contract.integrations.adapters.conformance [--only NAME ...] [--seeds N]
        [--max-examples N] [--jobs N] [--strict]
    python -m chunk_contract.integrations.adapters.conformance --render-only [--strict]

A run plays the contract on each adapter (every installed one, or the ones named with
``--only``) on ``--seeds`` seeds, and stores what each (adapter, seed) run gave in the committed
evidence file (``docs/conformance-evidence.json``): the versions, the examples actually run,
every invariant's status, and each violation with its message, its shrunk counterexample and the
command that finds it again. Adapters not run keep the evidence they had, so ``--only`` re-runs
some and keeps the others.

The page is rendered from the evidence and the reviewed findings
(:mod:`chunk_contract.integrations.adapters.findings`, TOML data) alone, so ``--render-only`` needs
no library.
A violation with no finding, a finding whose ``expect`` does not match a seed's message, a
finding that no seed reproduced (unless it is marked ``by_hand``, with the direct call), one
cause with different verdicts in different rows, a process death or unbounded growth whose
finding does not say so (``severity``) or plays it down (``design``, ``disputed``), and an
adapter's note that speaks of a rule whose cell is ✓ are problems: the page marks them, and
``--strict`` exits 1. A violation that follows from another rule's (SPEC: one cause, one
verdict) needs no finding of its own; its cell names the cause.
Explanations are written by a person who read the library's source, never generated.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunk_contract import exactjson
from chunk_contract.integrations.adapters import (
    ADAPTERS,
    BY_NAME,
    AdapterInfo,
    findings,
    library_version,
)
from chunk_contract.integrations.adapters.findings import VERDICTS, Finding, Notes, label_problems
from chunk_contract.spec.model import escape
from chunk_contract.spec.registry import registry
from chunk_contract.transport.targets import LOAD_TIMEOUT_VAR

DEFAULT_EVIDENCE = Path("docs/conformance-evidence.json")
DEFAULT_DOC = Path("docs/conformance.md")
DEFAULT_SEEDS = 5
DEFAULT_EXAMPLES = 500
#: The first seed; seed k of a run is FIRST_SEED + k.
FIRST_SEED = 1
#: The per-call limit: above the contract's 2 s default, so that a shared, loaded machine does
#: not turn a slow call into a `terminates` violation (see the page's "How it was made").
DEFAULT_TIMEOUT = 5.0
#: How long a worker may take to start (import the library, warm up) on a loaded machine:
#: ``$CHUNK_CONTRACT_LOAD_TIMEOUT`` for the matrix runs, unless it is set (the default, 10 s,
#: was exceeded by LlamaIndex's sentence splitter at load average 15, which turned into
#: `no_crash` violations that said nothing of the library).
LOAD_TIMEOUT = "60"
#: The exploration budgets, in seconds (the CLI's default is 45 s): the first seed of an adapter
#: (corpus, covering schedule, generated examples), and each further seed (generated examples).
EXPLORE_SECONDS = 90.0
EXPLORE_MORE_SECONDS = 60.0
#: The shrink budget per violation, in seconds (the CLI's default is 10 s).
SHRINK_SECONDS = 3.0
#: How much of a message and of a counterexample document the evidence keeps.
MESSAGE_CHARS = 4000
DOCUMENT_CHARS = 2000
STORED_CHUNKS = 6
EVIDENCE_FORMAT = 1

#: Invariants that only apply to workbook plugins: left out of the (text) matrix.
_WORKBOOK_ONLY = ("tight_range", "cells_covered")

# ----------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Budget:
    """What one (adapter, seed) run is given."""

    max_examples: int
    timeout: float
    #: The exploration budget of the first seed (which also plays the corpus and the covering
    #: schedule) and of each further seed.
    explore_seconds: float = EXPLORE_SECONDS
    explore_more_seconds: float = EXPLORE_MORE_SECONDS
    shrink_seconds: float = SHRINK_SECONDS


def run_one(name: str, seed: int, budget: Budget, *, first: bool = True) -> dict[str, Any]:
    """Run the contract on one adapter with one seed; the evidence of that run.

    The seed corpus, the covering schedule and the ``scales_linearly`` probe do not depend on
    the seed: only the ``first`` run of an adapter plays them, and reruns clean inputs in a
    fresh interpreter for ``deterministic``; the other seeds add generated examples (checked
    for ``deterministic`` by a second call in the same worker).
    """
    from chunk_contract.engine.runner import RunSettings, run  # lazy: Hypothesis
    from chunk_contract.reporting.json_report import report_json  # lazy: not for --render-only
    from chunk_contract.transport.loading import load  # lazy: --render-only needs no engine
    from chunk_contract.transport.targets import TargetError  # lazy: --render-only needs no engine

    try:
        plugin = load(name, timeout=60.0)
    except TargetError as exc:
        return {"seed": seed, "not_run": str(exc)}
    with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
        settings = RunSettings(
            max_examples=budget.max_examples,
            seed=seed,
            timeout=budget.timeout,
            explore_seconds=budget.explore_seconds if first else budget.explore_more_seconds,
            reproducers=Path(folder),
            shrink_seconds=budget.shrink_seconds,
            diagnose=False,
            corpus=first,
            schedule=first,
            probe=first,
            measure=first,
        )
        report = report_json(run(plugin, settings))
    return seed_evidence(name, seed, budget, report, first=first)


def seed_evidence(
    name: str, seed: int, budget: Budget, report: Mapping[str, Any], *, first: bool = True
) -> dict[str, Any]:
    """The evidence kept of one run, from its JSON report (SPEC §7)."""
    items = [i for i in report["invariants"] if i["id"] not in _WORKBOOK_ONLY]
    return {
        "seed": seed,
        "first": first,
        "max_examples": budget.max_examples,
        "timeout": budget.timeout,
        "explore_seconds": budget.explore_seconds if first else budget.explore_more_seconds,
        "shrink_seconds": budget.shrink_seconds,
        "examples": report["examples"],
        "examples_asked": report["examples_asked"],
        "stopped_early": report.get("stopped_early"),
        "elapsed": report["elapsed"],
        "statuses": {i["id"]: i["status"] for i in items},
        "checked": {i["id"]: i["examples"] for i in items if i["status"] == "passed"},
        "violations": {
            i["id"]: _violation(i["counterexample"] or {})
            for i in items
            if i["status"] == "violated"
        },
        "reproduce": reproduce_command(name, seed, budget),
    }


def _violation(found: Mapping[str, Any]) -> dict[str, Any]:
    """A counterexample as the evidence keeps it (message and document cut to a bound)."""
    document = found.get("document", "")
    out: dict[str, Any] = {
        "message": (found.get("message") or "")[:MESSAGE_CHARS],
        "config": found.get("config", {}),
        "shrunk": bool(found.get("shrunk")),
    }
    if found.get("follows_from"):
        out["follows_from"] = found["follows_from"]
    if isinstance(document, str) and len(document) > DOCUMENT_CHARS:
        out["document"] = document[:DOCUMENT_CHARS]
        out["document_length"] = len(document)
    else:
        out["document"] = document
    out["chunks"] = [_chunk(c) for c in (found.get("chunks") or [])[:STORED_CHUNKS]]
    out["chunk_count"] = len(found.get("chunks") or [])
    return out


def _chunk(chunk: Mapping[str, Any]) -> dict[str, Any]:
    """A stored chunk: its text (cut to 200 characters) and where it lies."""
    keep = ("start", "end", "section")
    return {"text": str(chunk.get("text", ""))[:200], **{k: chunk[k] for k in keep if k in chunk}}


def reproduce_command(name: str, seed: int, budget: Budget) -> str:
    """The command that runs the same search again (and writes the reproducers)."""
    return (
        f"chunk-contract run {name} --seed {seed} --max-examples {budget.max_examples} "
        f"--timeout {budget.timeout:g}"
    )


def environment() -> dict[str, Any]:
    """The versions a run was made with (the libraries' are per adapter)."""
    return {
        "python": platform.python_version(),
        "chunk-contract": library_version("chunk-contract"),
        "hypothesis": library_version("hypothesis"),
    }


def run_adapters(
    plan: Mapping[str, Sequence[int]],
    budget: Budget,
    *,
    jobs: int,
    on_run: Callable[[str, dict[str, Any]], None] = lambda name, evidence: None,
    kept: Mapping[str, list[dict[str, Any]]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Run each adapter of ``plan`` on its seeds, ``jobs`` runs at a time; the evidence.

    Every adapter's first seed runs first, then every second seed, and so on; ``on_run`` is
    called with an adapter's evidence after each of its runs, so that an interrupted run keeps
    every seed it finished. With ``kept`` (the runs an adapter already has), the new runs are
    added to them and none of them replays the seed-independent part (corpus, schedule, probe).
    """
    runs = {name: list((kept or {}).get(name, [])) for name in plan}
    order = [(n, k) for k in range(max(map(len, plan.values()), default=0)) for n in plan]
    out: dict[str, dict[str, Any]] = {}
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {
            pool.submit(run_one, n, plan[n][k], budget, first=kept is None and k == 0): n
            for n, k in order
            if k < len(plan[n])
        }
        for future, name in futures.items():
            result = future.result()
            runs[name].append(result)
            print(f"  {name:<28} seed {result['seed']}: {_progress(result)}", flush=True)
            out[name] = adapter_evidence(BY_NAME[name], runs[name], budget)
            on_run(name, out[name])
    print(f"ran {len(futures)} run(s) in {time.monotonic() - started:.0f} s", flush=True)
    return out


def _progress(result: Mapping[str, Any]) -> str:
    """One line on one finished run."""
    if "not_run" in result:
        return f"not run: {result['not_run']}"
    found = ", ".join(result["violations"]) or "no violation"
    return f"{result['elapsed']:.0f} s, {result['examples']} examples, {found}"


def adapter_evidence(
    info: AdapterInfo, runs: list[dict[str, Any]], budget: Budget
) -> dict[str, Any]:
    """One adapter's evidence: its library version, the budget and every seed's run."""
    ran = [r for r in runs if "not_run" not in r]
    out: dict[str, Any] = {
        "library": info.distribution,
        "version": info.installed_version,
        "environment": environment(),
        "max_examples": budget.max_examples,
        "timeout": budget.timeout,
        "explore_seconds": budget.explore_seconds,
        "explore_more_seconds": budget.explore_more_seconds,
        "shrink_seconds": budget.shrink_seconds,
        "runs": sorted(ran, key=lambda r: int(r["seed"])),
    }
    if len(ran) < len(runs):
        out["not_run"] = next(r["not_run"] for r in runs if "not_run" in r)
    return out


# ----------------------------------------------------------------------------- evidence file


def load_evidence(path: Path) -> dict[str, Any]:
    """The evidence file's adapters (an empty mapping when there is no file yet)."""
    if not path.exists():
        return {}
    data = exactjson.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != EVIDENCE_FORMAT:
        raise SystemExit(
            f"{path}: evidence format {data.get('format')!r}, expected {EVIDENCE_FORMAT}; "
            "regenerate it with python -m chunk_contract.integrations.adapters.conformance"
        )
    return dict(data["adapters"])


def save_evidence(path: Path, adapters: Mapping[str, Any]) -> None:
    """Write the evidence, adapters in catalogue order."""
    ordered = {a.name: adapters[a.name] for a in ADAPTERS if a.name in adapters}
    ordered.update({k: v for k, v in adapters.items() if k not in ordered})
    data = {"format": EVIDENCE_FORMAT, "adapters": ordered}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(exactjson.dumps(data, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------- reviewing


@dataclass(frozen=True)
class Cell:
    """One (adapter, invariant) of the matrix, with its evidence."""

    status: str  # passed | skipped | violated | not run
    examples: int  # examples checked, summed over the seeds (passed cells)
    seeds: int  # seeds run
    seen: int  # seeds on which it was violated
    finding: Finding | None
    problem: str | None
    #: The rule every seed's violation follows from (SPEC: one cause, one verdict), or None
    #: when some seed violated this rule on its own.
    follows: str | None = None


#: What the contract's message says when the call killed the process or grew without bound,
#: and the severity a finding of it must declare (see the findings' schema).
SEVERE_SIGNS = {"the worker process died": "abort", "memory grew past the": "unbounded"}


def review(
    name: str, rule: str, evidence: Mapping[str, Any], findings: Mapping[tuple[str, str], Finding]
) -> Cell:
    """The cell of ``rule`` for adapter ``name``: its status over the seeds and the review.

    A seed whose violation follows from another rule's (wrong offsets, a cut character) needs
    no finding of its own: the cause's finding explains it. When every seed's does, the cell
    shows the cause instead of a verdict, and a finding of its own is stale."""
    runs = evidence.get("runs", [])
    finding = findings.get((name, rule))
    found = [r["violations"][rule] for r in runs if rule in r["violations"]]
    own = [v["message"] for v in found if not v.get("follows_from")]
    causes = {v["follows_from"] for v in found if v.get("follows_from")}
    statuses = {r["statuses"].get(rule, "skipped") for r in runs}
    examples = sum(int(r["checked"].get(rule, 0)) for r in runs)
    if found:
        status = "violated"
    elif not runs:
        status = "not run"
    else:
        status = "skipped" if statuses == {"skipped"} else "passed"
    follows = causes.pop() if found and not own and len(causes) == 1 else None
    problem = (
        _follower_problem(finding, follows)
        if follows
        else _problem(status, finding, own, len(runs))
    )
    return Cell(status, examples, len(runs), len(found), finding, problem, follows)


def _follower_problem(finding: Finding | None, cause: str) -> str | None:
    """A finding of its own for a rule whose every violation follows from ``cause``."""
    if finding is None:
        return None
    return (
        f"FOLLOWS FROM {cause} on every seed: the finding ({finding.source}) explains a "
        f"violation the contract now attributes to `{cause}`; remove it"
    )


def _problem(status: str, finding: Finding | None, messages: list[str], seeds: int) -> str | None:
    """What disagrees between the evidence and the findings, or None."""
    if status == "violated" and finding is None:
        return "NOT REVIEWED: no finding explains this violation yet"
    if status == "violated" and finding is not None:
        unmatched = [m for m in messages if not finding.matches(m)]
        if unmatched:
            return (
                f"REVIEW AGAIN: {len(unmatched)} seed(s) gave a message that the finding's "
                f"expect {finding.expect!r} does not match: {unmatched[0][:160]!r}"
            )
        if finding.by_hand:
            return (
                f"NOW FOUND BY THE CONTRACT: {finding.source} says the runs miss this "
                "(by_hand), but a seed showed it; remove by_hand"
            )
        return _severity_problem(finding, messages)
    if status == "passed" and finding is not None and finding.by_hand:
        return None
    if status in ("passed", "skipped") and finding is not None:
        return (
            f"NOT REPRODUCED: a finding ({finding.source}) says this is violated, but no seed "
            f"of {seeds} showed it; re-run with a larger budget or remove the finding"
        )
    return None


def _severity_problem(finding: Finding, messages: list[str]) -> str | None:
    """A seed that killed the process (or grew without bound) and a finding that does not say
    so in its ``severity``."""
    for sign, severity in SEVERE_SIGNS.items():
        if any(sign in m for m in messages) and finding.severity != severity:
            return (
                f"SEVERITY MISSING: a seed's message says {sign!r}, but the finding "
                f"({finding.source}) has severity = {finding.severity or 'none'!r}; set "
                f"severity = {severity!r} (and a verdict that does not play it down)"
            )
    return None


def _note_problem(cell: Cell, rule: str, note: str | None, name: str) -> str | None:
    """A ✓ cell whose adapter note names the rule: the note contradicts the cell (a behaviour
    seen by hand belongs in a finding the evidence reproduces)."""
    if cell.status != "passed" or not note or f"`{rule}`" not in note:
        return None
    return (
        f"CONTRADICTED BY A NOTE: the cell is ✓ on every seed, but the note of {name} "
        f"(notes.toml, [adapters]) speaks of `{rule}`; reproduce it (a finding) or drop the note"
    )


def matrix_ids(evidence: Mapping[str, Any]) -> list[str]:
    """The invariants in the evidence, in registry order."""
    seen = {rule for e in evidence.values() for r in e.get("runs", []) for rule in r["statuses"]}
    return [rule for rule in registry() if rule in seen]


def review_all(
    evidence: Mapping[str, Any],
    findings: Mapping[tuple[str, str], Finding],
    notes: Notes | None = None,
) -> dict[tuple[str, str], Cell]:
    """Every cell of the matrix, with what contradicts it: the evidence, another finding of the
    same cause (or its severity), or the adapter's note."""
    labels = label_problems(findings)
    by_adapter = notes.adapters if notes else {}
    cells = {}
    for name in evidence:
        for rule in matrix_ids(evidence):
            cell = review(name, rule, evidence[name], findings)
            note = _note_problem(cell, rule, by_adapter.get(name), name)
            cells[(name, rule)] = _with_problems(cell, labels.get((name, rule)), note)
    return cells


def _with_problems(cell: Cell, *problems: str | None) -> Cell:
    """``cell`` with further problems added to its own."""
    if not any(problems):
        return cell
    return dataclasses.replace(cell, problem="; ".join(p for p in [cell.problem, *problems] if p))


def problems_of(
    cells: Mapping[tuple[str, str], Cell], findings: Mapping[tuple[str, str], Finding] | None = None
) -> list[str]:
    """Every disagreement between evidence and findings, one line each; with ``findings``,
    also the label problems of rows the matrix has no cell for."""
    out = [f"{name} / {rule}: {c.problem}" for (name, rule), c in cells.items() if c.problem]
    rest = {k: v for k, v in label_problems(findings or {}).items() if k not in cells}
    return out + [f"{name} / {rule}: {text}" for (name, rule), text in sorted(rest.items())]


# ----------------------------------------------------------------------------- rendering

_SHORT = {"bug": "✗ bug", "documented": "✗ doc", "design": "✗ design", "disputed": "✗ disputed"}


def cell_text(cell: Cell) -> str:
    """What the matrix shows for one cell."""
    if cell.status == "passed" and cell.finding and cell.finding.by_hand and not cell.problem:
        return f"{_SHORT[cell.finding.verdict]} by hand"
    if cell.status == "passed":
        return f"✓ {cell.examples:,}"
    if cell.status == "skipped":
        return "·"
    if cell.status == "not run":
        return "—"
    if cell.follows and not cell.problem:
        return f"✗ ← `{cell.follows}` {cell.seen}/{cell.seeds}"
    verdict = _SHORT[cell.finding.verdict] if cell.finding and not cell.problem else "✗ ?"
    return f"{verdict} {cell.seen}/{cell.seeds}"


def render(
    evidence: Mapping[str, Any], findings: Mapping[tuple[str, str], Finding], notes: Notes
) -> tuple[str, list[str]]:
    """The page from the evidence and the findings, and the problems found while reviewing."""
    cells = review_all(evidence, findings, notes)
    adapters = [a for a in ADAPTERS if a.name in evidence]
    ids = matrix_ids(evidence)
    shown = [r for r in ids if any(cells[(a.name, r)].status != "skipped" for a in adapters)]
    lines = _header(adapters, evidence, notes.run)
    lines += _matrix(adapters, shown, cells, [r for r in ids if r not in shown])
    lines += _summary(adapters, ids, cells)
    for info in adapters:
        lines += _section(info, evidence[info.name], ids, cells, notes)
    lines += ["## Notes on the contract itself", "", *notes.contract, ""]
    return "\n".join(lines).rstrip() + "\n", problems_of(cells, findings)


def _values(runs: Iterable[Mapping[str, Any]], key: str) -> str:
    """The distinct values of ``key`` over ``runs``, for the page ("5", "30/60", "?")."""
    found = sorted({r[key] for r in runs if r.get(key) is not None})
    return "/".join(f"{v:g}" if isinstance(v, float) else str(v) for v in found) or "?"


def _budget_line(evidence: Mapping[str, Any]) -> str:
    """How the runs were made, from the runs themselves (their budgets may differ)."""
    runs = [r for e in evidence.values() for r in e.get("runs", [])]
    if not runs:
        return "no run"
    counts = sorted({len(e["runs"]) for e in evidence.values() if e.get("runs")})
    seeds = "/".join(map(str, counts))
    first = [r for r in runs if r.get("first", True)]
    more = [r for r in runs if not r.get("first", True)]
    return (
        f"every adapter on {seeds} seed(s), {_values(runs, 'max_examples')} generated examples "
        "asked per seed, the first seed after the seed corpus and the covering schedule; "
        f"per-call limit {_values(runs, 'timeout')} s; exploration budget "
        f"{_values(first, 'explore_seconds')} s for the first seed and "
        f"{_values(more, 'explore_seconds')} s for each other; shrink budget "
        f"{_values(runs, 'shrink_seconds')} s per violation"
    )


def _header(adapters: list[AdapterInfo], evidence: Mapping[str, Any], run: str) -> list[str]:
    """The title, how the page was made, and the adapters' records."""
    env: Mapping[str, Any] = next(
        (e["environment"] for e in evidence.values() if e.get("environment")), {}
    )
    seeds = sorted({r["seed"] for e in evidence.values() for r in e.get("runs", [])})
    out = [
        "# Conformance of popular chunkers",
        "",
        "<!-- Generated by `nox -s peers` "
        "(python -m chunk_contract.integrations.adapters.conformance)",
        "     from docs/conformance-evidence.json and",
        "     chunk_contract/integrations/adapters/findings/*.toml. Do not edit by hand:",
        "     python -m chunk_contract.integrations.adapters.conformance --render-only -->",
        "",
        "The contract run on the built-in adapters (`chunk_contract.integrations.adapters`), "
        "one per",
        "splitter of the libraries below, Python and JavaScript (LangChain.js, out of process",
        "through `chunk_contract/integrations/adapters/js/bridge.mjs`). Each adapter passes "
        "`max_size`",
        "and `overlap` to the library's own size and overlap parameters, counts size the way",
        "the library counts it",
        "(codepoints, with the offline tokenizers the libraries ship), and reports the library's",
        "own offsets, heading paths and ids. Every violation below was reproduced and traced to",
        "the library's source by hand; the verdict says whether it is a bug, documented",
        "behaviour, or a design choice the documentation does not mention.",
        "",
        "## How it was made",
        "",
        f"Runs: {_budget_line(evidence)}. Seeds {', '.join(map(str, seeds)) or '—'}; a "
        "violation on any seed counts. The corpus, the schedule and the `scales_linearly` probe "
        "do not depend on the seed, so only the first seed plays them. Python "
        f"{env.get('python', '?')}, chunk-contract {env.get('chunk-contract', '?')}, "
        f"Hypothesis {env.get('hypothesis', '?')}. Each run is `chunk-contract run ADAPTER "
        "--seed S` with the budget above and without diagnoses; the per-call limit is above the "
        "2 s default because the matrix is made on a shared two-core machine, where load alone "
        "must not become a `terminates` verdict (for the same reason a worker may take 60 s to "
        "start: `$CHUNK_CONTRACT_LOAD_TIMEOUT`). Each adapter's section gives the command that "
        "finds each violation again.",
        "",
        *([run, ""] if run else []),
        *_records(adapters, evidence),
    ]
    missing = [a.name for a in ADAPTERS if a.name not in evidence]
    if missing:
        out += ["", "Not run: " + ", ".join(f"`{n}`" for n in missing) + "."]
    return [*out, ""]


def _records(adapters: list[AdapterInfo], evidence: Mapping[str, Any]) -> list[str]:
    """The adapters' records: library and version, splitter, unit, offsets, choices."""
    out = [
        "| adapter | library | splitter | unit | documents | promises | offsets from | choices |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for info in adapters:
        version = evidence[info.name].get("version") or info.version
        choices = "; ".join(f"{k}: {v}" for k, v in info.choices.items()) or "—"
        out.append(
            f"| `{info.name}` | {info.distribution} {version} | `{info.splitter}` | {info.unit} "
            f"| {info.documents} | {', '.join(sorted(info.promises)) or '—'} | {info.offsets} "
            f"| {choices} |"
        )
    return out


def _matrix(
    adapters: list[AdapterInfo],
    ids: list[str],
    cells: Mapping[tuple[str, str], Cell],
    never: list[str],
) -> list[str]:
    """The matrix, an adapter per row, and its legend."""
    out = [
        "## Matrix",
        "",
        "**✓ N**: held on every example of every seed; N is the examples checked against that",
        "invariant, summed over the seeds (examples x seeds). **✗ verdict k/n**: violated on k",
        "of the n seeds run, with the reviewed verdict: **bug** (contradicts the library's own",
        "documentation or evident intent), **doc** (documented behaviour), **design**",
        "(deliberate in the code, not documented), **disputed** (the contract's rule is arguable",
        "here; see the notes at the end). **✗ ← `rule` k/n**: violated only as a consequence of",
        "`rule`'s violation on that example (offsets that do not hold the chunk's text, or a",
        "character cut in two): with each chunk placed by its text alone, this invariant held,",
        "so the verdict is `rule`'s. **✗ verdict by hand**: held on every example of every",
        "seed, but a direct call of the library breaks it (the adapter's section gives the call",
        "and why the contract misses it). **✗ ?**: not reviewed, or not what the review saw.",
        "**·**: not applicable (opt-in and not promised, or a field the library never reports).",
        "A seed whose exploration budget ran out checked fewer examples than it asked for; the",
        "counts are those actually checked (each adapter's section lists them per seed).",
        "",
        "| adapter | " + " | ".join(f"`{r}`" for r in ids) + " |",
        "|---|" + "---|" * len(ids),
    ]
    for info in adapters:
        row = " | ".join(cell_text(cells[(info.name, r)]) for r in ids)
        out.append(f"| `{info.name}` | {row} |")
    if never:
        out += ["", "Not applicable to any adapter: " + ", ".join(f"`{r}`" for r in never) + "."]
    return [*out, ""]


def _summary(
    adapters: list[AdapterInfo], ids: list[str], cells: Mapping[tuple[str, str], Cell]
) -> list[str]:
    """One line per adapter: its violations and their summaries."""
    out = ["## In one line each", ""]
    for info in adapters:
        found = [
            (r, cells[(info.name, r)])
            for r in ids
            if cells[(info.name, r)].status == "violated" or _by_hand(cells[(info.name, r)])
        ]
        parts = [_summary_part(rule, c) for rule, c in found]
        out.append(
            f"- `{info.name}`: " + ("; ".join(parts) if parts else "no violation found") + "."
        )
    return [*out, ""]


def _summary_part(rule: str, cell: Cell) -> str:
    """One violated rule in an adapter's one-line summary."""
    if cell.follows and not cell.problem:
        return f"`{rule}` follows from `{cell.follows}`"
    found = cell.finding
    if _by_hand(cell) and found:
        return f"`{rule}` ({found.verdict}, by hand): {found.summary}"
    return f"`{rule}` ({found.verdict if found else '?'}): " + (
        found.summary if found else "not reviewed yet"
    )


def _section(
    info: AdapterInfo,
    evidence: Mapping[str, Any],
    ids: list[str],
    cells: Mapping[tuple[str, str], Cell],
    notes: Notes,
) -> list[str]:
    """One adapter's violations: counterexample, review, and how to find it again."""
    version = evidence.get("version") or info.version
    out = [f"## `{info.name}`: {info.distribution} {version}, `{info.splitter}`", ""]
    if info.name in notes.adapters:
        out += [f"Note: {notes.adapters[info.name]}", ""]
    if evidence.get("not_run"):
        out += [f"Not run on every seed: {evidence['not_run']}", ""]
    out += _examples_line(evidence)
    stale = [
        r
        for r in ids
        if cells[(info.name, r)].status != "violated" and cells[(info.name, r)].problem
    ]
    for rule in stale:
        out += [f"**`{rule}`: {cells[(info.name, rule)].problem}.**", ""]
    violated = [r for r in ids if cells[(info.name, r)].status == "violated"]
    by_hand = [r for r in ids if _by_hand(cells[(info.name, r)])]
    if not violated and not by_hand:
        return [*out, "Every applicable invariant held on every example of every seed.", ""]
    for rule in violated:
        out += _violation_section(rule, evidence, cells[(info.name, rule)])
    for rule in by_hand:
        out += _by_hand_section(rule, cells[(info.name, rule)])
    return out


def _by_hand(cell: Cell) -> Finding | None:
    """The reviewed finding of a cell that held on every seed but breaks on a direct call."""
    found = cell.finding
    return found if cell.status == "passed" and found and found.by_hand else None


def _by_hand_section(rule: str, cell: Cell) -> list[str]:
    """A violation the runs did not show: the direct call, then the review."""
    found = _by_hand(cell)
    assert found is not None
    out = [f"### `{rule}`: {VERDICTS[found.verdict]}, found by hand", ""]
    out += [f"Held on every example of {cell.seeds} seed(s); by hand: {found.by_hand}", ""]
    out += [found.explanation, "", f"Where: {found.where}."]
    return [*out, *(["", f"Documentation: {found.docs}"] if found.docs else []), ""]


def _examples_line(evidence: Mapping[str, Any]) -> list[str]:
    """Examples run per seed, and why a seed stopped before the examples asked."""
    runs = evidence.get("runs", [])
    if not runs:
        return []
    each = ", ".join(
        f"seed {r['seed']}: {r['examples']} of {r['examples_asked']}"
        + (f" ({r['stopped_early']})" if r.get("stopped_early") else "")
        for r in runs
    )
    return [f"Examples run: {each}.", ""]


def _violation_section(rule: str, evidence: Mapping[str, Any], cell: Cell) -> list[str]:
    """One violated invariant of one adapter."""
    found = cell.finding
    verdict = VERDICTS[found.verdict] if found else "not reviewed"
    if cell.follows and not cell.problem:
        verdict = f"follows from `{cell.follows}`"
    runs = [r for r in evidence["runs"] if rule in r["violations"]]
    smallest = min(runs, key=lambda r: _size(r["violations"][rule]["document"]))
    seeds = ", ".join(str(r["seed"]) for r in runs)
    out = [f"### `{rule}`: {verdict}", ""]
    out += _counterexample(smallest["violations"][rule])
    out += [
        f"Seen on seed(s) {seeds} of {cell.seeds}. Find it again: `{smallest['reproduce']}`.",
        "",
    ]
    if cell.problem:
        out += [f"**{cell.problem}.**", ""]
    out += _follows_lines(rule, runs)
    if found and not (cell.follows and not cell.problem):
        out += [found.explanation, "", f"Where: {found.where}."]
        if found.docs:
            out += ["", f"Documentation: {found.docs}"]
        out.append("")
    return out


def _follows_lines(rule: str, runs: list[dict[str, Any]]) -> list[str]:
    """Which seeds' violations of ``rule`` follow from another rule's, and what that means."""
    causes: dict[str, list[str]] = {}
    for run in runs:
        cause = run["violations"][rule].get("follows_from")
        if cause:
            causes.setdefault(cause, []).append(str(run["seed"]))
    return [
        f"On seed(s) {', '.join(seeds)} this follows from `{cause}`: with each chunk placed by its "
        f"text alone, `{rule}` held, so the cause and its verdict are `{cause}`'s (see there).\n"
        for cause, seeds in causes.items()
    ]


def _size(document: Any) -> int:
    """How big a stored document is, for choosing the smallest counterexample."""
    return len(document) if isinstance(document, str) else len(json.dumps(document))


def _counterexample(found: Mapping[str, Any]) -> list[str]:
    """The stored counterexample as a code block."""
    config = found.get("config", {})
    document = found.get("document", "")
    shown = escape(document, 240) if isinstance(document, str) else json.dumps(document)[:240]
    message = (found.get("message") or "").splitlines()[0] if found.get("message") else ""
    out = [
        "```",
        f"document = {shown}",
        f"config   = max_size={config.get('max_size')}, overlap={config.get('overlap')}",
        f"message  = {message}",
    ]
    for k, chunk in enumerate(found.get("chunks") or []):
        where = f" [{chunk['start']}:{chunk['end']})" if "start" in chunk and "end" in chunk else ""
        extra = f" section={chunk['section']}" if chunk.get("section") else ""
        out.append(f"chunk[{k}]{where} = {escape(chunk.get('text', ''), 80)}{extra}")
    more = int(found.get("chunk_count", 0)) - len(found.get("chunks") or [])
    if more > 0:
        out.append(f"... {more} more chunk(s)")
    return [*out, "```", ""]


# ----------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    """The command's flags."""
    parser = argparse.ArgumentParser(
        prog="python -m chunk_contract.integrations.adapters.conformance",
        description="Run the contract on the built-in adapters, store the evidence, and "
        "regenerate docs/conformance.md from it and the reviewed findings.",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        default=[],
        help="run only these adapters; the others keep their evidence",
    )
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds per adapter")
    parser.add_argument(
        "--add-seeds",
        type=int,
        default=0,
        metavar="N",
        help="keep each adapter's runs and add N more seeds (after the ones it has)",
    )
    parser.add_argument(
        "--explore-seconds",
        type=float,
        default=EXPLORE_SECONDS,
        help="exploration budget of the first seed (corpus, schedule, examples)",
    )
    parser.add_argument(
        "--explore-more-seconds",
        type=float,
        default=EXPLORE_MORE_SECONDS,
        help="exploration budget of every further seed",
    )
    parser.add_argument(
        "--shrink-seconds", type=float, default=SHRINK_SECONDS, help="shrink budget per violation"
    )
    parser.add_argument(
        "--max-examples", type=int, default=DEFAULT_EXAMPLES, help="generated examples per run"
    )
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="per-call limit")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (at most 2 here)")
    parser.add_argument("--evidence", type=Path, default=DEFAULT_EVIDENCE)
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC, help="the page to write")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="render the page from the evidence and findings; run nothing",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 if the evidence and the findings disagree"
    )
    return parser


def _plan(
    names: Sequence[str], count: int, kept: Mapping[str, list[dict[str, Any]]] | None
) -> dict[str, list[int]]:
    """The seeds each adapter runs: FIRST_SEED on, or after the seeds it already has."""
    plan = {}
    for name in names:
        start = max((int(r["seed"]) for r in (kept or {}).get(name, [])), default=FIRST_SEED - 1)
        plan[name] = (
            [start + 1 + k for k in range(count)]
            if kept is not None
            else [FIRST_SEED + k for k in range(count)]
        )
    return plan


def _chosen(parser: argparse.ArgumentParser, only: Iterable[str]) -> list[str]:
    """The adapters to run: the named ones, else every installed one."""
    unknown = [n for n in only if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown adapter(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    return list(only) or [a.name for a in ADAPTERS if a.installed]


def main(argv: Sequence[str] | None = None) -> int:
    """Run (unless --render-only), store the evidence, render the page, report problems."""
    parser = _parser()
    args = parser.parse_args(argv)
    evidence = load_evidence(args.evidence)
    os.environ.setdefault(LOAD_TIMEOUT_VAR, LOAD_TIMEOUT)
    if not args.render_only:
        names = _chosen(parser, args.only)
        if not names:
            print("no adapter can run here: pip install 'chunk-contract[peers]'", file=sys.stderr)
            return 2
        budget = Budget(
            args.max_examples,
            args.timeout,
            explore_seconds=args.explore_seconds,
            explore_more_seconds=args.explore_more_seconds,
            shrink_seconds=args.shrink_seconds,
        )
        kept = {n: evidence.get(n, {}).get("runs", []) for n in names} if args.add_seeds else None
        plan = _plan(names, args.add_seeds or args.seeds, kept)

        def keep(name: str, found: dict[str, Any]) -> None:
            evidence[name] = found
            save_evidence(args.evidence, evidence)

        run_adapters(plan, budget, jobs=args.jobs, on_run=keep, kept=kept)
        print(f"wrote {args.evidence}")
    page, problems = render(evidence, findings.load(), findings.notes())
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(page, encoding="utf-8")
    print(f"wrote {args.doc}")
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    return 1 if problems and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Budget", "Cell", "load_evidence", "main", "render", "review", "run_one"]
