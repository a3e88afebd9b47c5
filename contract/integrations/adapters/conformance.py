"""Regenerate ``docs/conformance.md``: the contract run on every built-in adapter.

    python -m contract.integrations.adapters.conformance [ADAPTER ...] [--out DIR] [--doc PATH]
                                            [--max-examples N] [--seed N] [--jobs N] [--strict]
    python -m contract.integrations.adapters.conformance --render-only [--out DIR] [--doc PATH]

The run writes one JSON report per adapter (SPEC §7) and ``versions.json`` into ``--out``
(every installed adapter, or the ones named); the render turns the reports there into the
markdown page: the matrix (adapter x invariant), the library
versions, and for every violation the shrunk counterexample with the reviewed explanation of its
cause from :mod:`contract.integrations.adapters.findings`.

A violation that has no reviewed explanation, or whose counterexample does not match what the
review saw, is marked as such in the page, and ``--strict`` makes the command exit 1 for it:
explanations are written by a person who read the library's source, never generated.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from contract.engine.loading import load
from contract.engine.reproducers import write_atomic
from contract.engine.results import RunSettings
from contract.engine.targets import TargetError
from contract.integrations.adapters import (
    ADAPTERS,
    BY_NAME,
    DISTRIBUTIONS,
    AdapterInfo,
    library_version,
)
from contract.integrations.adapters import library_version as version
from contract.integrations.adapters.findings import (
    ADAPTER_NOTES,
    CONTRACT_NOTES,
    FINDINGS,
    VERDICTS,
    Finding,
)
from contract.reporting.json_report import report_json
from contract.spec.model import escape

DEFAULT_OUT = Path(".chunk-contract/conformance")
DEFAULT_DOC = Path("docs/conformance.md")
DEFAULT_SEED = 20240611
DEFAULT_EXAMPLES = 150

#: Invariants that only apply to workbook plugins: left out of the (text) matrix.
_WORKBOOK_ONLY = ("tight_range", "cells_covered")

# ----------------------------------------------------------------------------- running


def run_one(name: str, out: str, max_examples: int, seed: int, timeout: float) -> dict[str, Any]:
    """Run the contract on one adapter and write ``out/NAME.json``; returns a summary."""
    from contract.engine.runner import run  # lazy: Hypothesis

    info = BY_NAME[name]
    folder = Path(out)
    try:
        plugin = load(info.target)
    except TargetError as exc:
        return {"name": name, "skipped": str(exc)}
    settings = RunSettings(
        max_examples=max_examples, seed=seed, timeout=timeout, reproducers=folder / "reproducers"
    )
    result = run(plugin, settings)
    report = report_json(result)
    report["adapter"] = name
    write_atomic(folder / f"{name}.json", report)
    violated = [r.id for r in result.results if r.status == "violated"]
    return {"name": name, "violated": violated, "elapsed": round(result.elapsed, 1)}


def run_all(
    out: Path, names: Sequence[str], *, max_examples: int, seed: int, jobs: int, timeout: float
) -> int:
    """Run every named adapter (``jobs`` at a time); returns how many ran."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.json"):
        stale.unlink()
    (out / "versions.json").write_text(
        json.dumps(_versions(max_examples, seed), indent=2) + "\n", encoding="utf-8"
    )
    started = time.monotonic()
    ran = 0
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(run_one, n, str(out), max_examples, seed, timeout) for n in names]
        for future in futures:
            summary = future.result()
            if "skipped" in summary:
                print(f"  {summary['name']:<28} not run: {summary['skipped']}", flush=True)
                continue
            ran += 1
            shown = ", ".join(summary["violated"]) or "no violation"
            print(f"  {summary['name']:<28} {summary['elapsed']:>6.1f} s  {shown}", flush=True)
    print(f"ran {ran} adapter(s) in {time.monotonic() - started:.0f} s -> {out}", flush=True)
    return ran


def _versions(max_examples: int, seed: int) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "chunk-contract": version("chunk-contract"),
        "hypothesis": version("hypothesis"),
        "libraries": {dist: version(dist) for dist in DISTRIBUTIONS},
        "max_examples": max_examples,
        "seed": seed,
    }


# ----------------------------------------------------------------------------- rendering

_CELL = {"passed": "✓", "skipped": "·"}
_SHORT = {"bug": "✗ bug", "documented": "✗ doc", "design": "✗ design", "disputed": "✗ disputed"}


class Review:
    """How a violation stands against the reviewed findings."""

    def __init__(self, adapter: str, invariant: str, counterexample: dict[str, Any]) -> None:
        self.finding: Finding | None = FINDINGS.get((adapter, invariant))
        message = counterexample.get("message", "")
        self.matches = self.finding is not None and (
            not self.finding.expect or re.search(self.finding.expect, message, re.S) is not None
        )

    @property
    def problem(self) -> str | None:
        if self.finding is None:
            return "NOT REVIEWED: no explanation has been written for this violation yet"
        if not self.matches:
            return (
                "REVIEW AGAIN: this counterexample does not match the reviewed cause "
                f"(expected a message matching {self.finding.expect!r})"
            )
        return None

    def cell(self) -> str:
        if self.problem or self.finding is None:
            return "✗ ?"
        return _SHORT[self.finding.verdict]


def load_reports(out: Path) -> dict[str, dict[str, Any]]:
    reports = {}
    for path in sorted(out.glob("*.json")):
        if path.name == "versions.json":
            continue
        report = json.loads(path.read_text(encoding="utf-8"))
        reports[report.get("adapter") or path.stem] = report
    return reports


def render(out: Path) -> tuple[str, list[str]]:
    """The markdown page from the reports in ``out``, and the problems found while reviewing."""
    reports = load_reports(out)
    versions_path = out / "versions.json"
    versions = (
        json.loads(versions_path.read_text(encoding="utf-8")) if versions_path.exists() else {}
    )
    adapters = [a for a in ADAPTERS if a.name in reports]
    missing = [a for a in ADAPTERS if a.name not in reports]
    ids = [i["id"] for i in next(iter(reports.values()))["invariants"]] if reports else []
    ids = [i for i in ids if i not in _WORKBOOK_ONLY]
    problems: list[str] = []
    reviews = {
        (a.name, item["id"]): Review(a.name, item["id"], item["counterexample"] or {})
        for a in adapters
        for item in reports[a.name]["invariants"]
        if item["status"] == "violated"
    }
    for (name, rule), review in reviews.items():
        if review.problem:
            problems.append(f"{name} / {rule}: {review.problem}")

    lines = _header(versions, adapters, missing)
    lines += _matrix(adapters, reports, ids, reviews)
    lines += _summary(adapters, reports, reviews)
    for info in adapters:
        lines += _section(info, reports[info.name], reviews, versions)
    lines += _contract_notes()
    return "\n".join(lines).rstrip() + "\n", problems


def _header(
    versions: dict[str, Any], adapters: list[AdapterInfo], missing: list[AdapterInfo]
) -> list[str]:
    libs = versions.get("libraries", {})
    out = [
        "# Conformance of popular chunkers",
        "",
        "<!-- Generated by `nox -s peers` "
        "(python -m contract.integrations.adapters.conformance); the",
        "     explanations come from contract/integrations/adapters/findings.py. "
        "Do not edit by hand. -->",
        "",
        "The contract run on the built-in adapters (`contract.integrations.adapters`), "
        "one per splitter of five",
        "popular chunking libraries. Each adapter passes `max_size` and `overlap` to the library's",
        "own size and overlap parameters, counts size the way the library counts it (codepoints,",
        "with the offline tokenizers the libraries ship), and reports the library's own offsets,",
        "heading paths and ids. Every violation below was reproduced and traced to the library's",
        "source by hand; the verdict says whether it is a bug, documented behaviour, or a design",
        "choice the documentation does not mention.",
        "",
        f"Run: seed {versions.get('seed', '?')}, {versions.get('max_examples', '?')} generated "
        f"examples per adapter after the seed corpus (contract/generation/corpus.py), "
        f"Python {versions.get('python', '?')}, "
        f"chunk-contract {versions.get('chunk-contract', '?')}, "
        f"Hypothesis {versions.get('hypothesis', '?')}.",
        "",
        "| library | version |",
        "|---|---|",
    ]
    out += [f"| {dist} | {libs.get(dist) or 'not installed'} |" for dist in DISTRIBUTIONS]
    out += ["", "| adapter | splitter | unit | promises | offsets from |", "|---|---|---|---|---|"]
    for info in adapters:
        out.append(
            f"| `{info.name}` | `{info.splitter}` | chars | "
            f"{', '.join(_PROMISES.get(info.name, ())) or '—'} | "
            f"{_OFFSETS.get(info.name, '—')} |"
        )
    if missing:
        out += [
            "",
            "Not run (library not installed): " + ", ".join(f"`{a.name}`" for a in missing) + ".",
        ]
    return [*out, ""]


_PROMISES = {
    "langchain-markdown-headers": ("heading_boundary",),
    "llamaindex-markdown": ("heading_boundary",),
}
_OFFSETS = {
    "langchain-recursive": "`start_index` (add_start_index)",
    "langchain-character": "`start_index` (add_start_index)",
    "langchain-markdown": "`start_index` (add_start_index)",
    "langchain-markdown-headers": "none (placed by the contract)",
    "llamaindex-sentence": "`start_char_idx`/`end_char_idx`",
    "llamaindex-token": "`start_char_idx`/`end_char_idx`",
    "llamaindex-markdown": "`start_char_idx`/`end_char_idx`",
    "chonkie-token": "`start_index`/`end_index`",
    "chonkie-sentence": "`start_index`/`end_index`",
    "chonkie-recursive": "`start_index`/`end_index`",
    "semchunk": "`offsets=True`",
    "text-splitter": "`chunk_indices`",
    "text-splitter-markdown": "`chunk_indices`",
}


def _matrix(
    adapters: list[AdapterInfo],
    reports: dict[str, dict[str, Any]],
    ids: list[str],
    reviews: dict[tuple[str, str], Review],
) -> list[str]:
    out = [
        "## Matrix",
        "",
        "✓ passed · `·` not applicable (skipped: opt-in and not promised, or a field the library",
        "never reports) · ✗ violated, with the verdict: **bug** (contradicts the library's own",
        "documentation or evident intent), **doc** (documented behaviour), **design** (deliberate",
        "in the code, not documented), **disputed** (the contract's rule is arguable here; see",
        "the notes at the end).",
        "",
        "| invariant | " + " | ".join(f"`{a.name}`" for a in adapters) + " |",
        "|---|" + "---|" * len(adapters),
    ]
    for rule in ids:
        cells = []
        for info in adapters:
            item = next(i for i in reports[info.name]["invariants"] if i["id"] == rule)
            if item["status"] == "violated":
                cells.append(reviews[(info.name, rule)].cell())
            else:
                cells.append(_CELL[item["status"]])
        out.append(f"| `{rule}` | " + " | ".join(cells) + " |")
    return [*out, ""]


def _summary(
    adapters: list[AdapterInfo],
    reports: dict[str, dict[str, Any]],
    reviews: dict[tuple[str, str], Review],
) -> list[str]:
    out = ["## In one line each", ""]
    for info in adapters:
        found = [
            (i["id"], reviews[(info.name, i["id"])])
            for i in reports[info.name]["invariants"]
            if i["status"] == "violated"
        ]
        if not found:
            out.append(f"- `{info.name}`: no violation found.")
            continue
        parts = []
        for rule, review in found:
            what = review.finding.summary if review.finding else "not reviewed yet"
            verdict = review.finding.verdict if review.finding else "?"
            parts.append(f"`{rule}` ({verdict}): {what}")
        out.append(f"- `{info.name}`: " + "; ".join(parts) + ".")
    return [*out, ""]


def _section(
    info: AdapterInfo,
    report: dict[str, Any],
    reviews: dict[tuple[str, str], Review],
    versions: dict[str, Any],
) -> list[str]:
    version = versions.get("libraries", {}).get(info.distribution) or "?"
    out = [f"## `{info.name}`: {info.distribution} {version}, `{info.splitter}`", ""]

    violated = [i for i in report["invariants"] if i["status"] == "violated"]
    if info.name in ADAPTER_NOTES:
        out += [f"Note: {ADAPTER_NOTES[info.name]}", ""]
    if not violated:
        return [*out, "Every applicable invariant held on every generated example.", ""]
    for item in violated:
        review = reviews[(info.name, item["id"])]
        found = review.finding
        verdict = VERDICTS[found.verdict] if found else "not reviewed"
        out += [f"### `{item['id']}`: {verdict}", ""]
        out += _counterexample(item["counterexample"] or {})
        if review.problem:
            out += [f"**{review.problem}.**", ""]
        if found:
            out += [found.explanation, ""]
            out += [f"Where: {found.where}."]
            if found.docs:
                out += ["", f"Documentation: {found.docs}"]
            out.append("")
    return out


def _counterexample(found: dict[str, Any]) -> list[str]:
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
    chunks = found.get("chunks") or []
    for k, chunk in enumerate(chunks[:6]):
        where = f" [{chunk['start']}:{chunk['end']})" if "start" in chunk and "end" in chunk else ""
        extra = f" section={chunk['section']}" if chunk.get("section") else ""
        out.append(f"chunk[{k}]{where} = {escape(chunk.get('text', ''), 80)}{extra}")
    if len(chunks) > 6:
        out.append(f"... {len(chunks) - 6} more chunk(s)")
    return [*out, "```", ""]


def _contract_notes() -> list[str]:
    return ["## Notes on the contract itself", "", *CONTRACT_NOTES, ""]


# ----------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m contract.integrations.adapters.conformance",
        description="Regenerate docs/conformance.md.",
    )
    parser.add_argument(
        "adapters",
        nargs="*",
        metavar="ADAPTER",
        help="adapter names (default: every adapter whose library is installed)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the reports go")
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC, help="the page to write")
    parser.add_argument("--max-examples", type=int, default=DEFAULT_EXAMPLES)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument(
        "--render-only", action="store_true", help="only render the reports already in --out"
    )
    parser.add_argument("--run-only", action="store_true", help="only run, do not render")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if a violation has no reviewed explanation, or its "
        "counterexample does not match the review",
    )
    args = parser.parse_args(argv)
    unknown = [n for n in args.adapters if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown adapter(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    if not args.render_only:
        names = args.adapters or [a.name for a in ADAPTERS if a.installed]
        if not names:
            print(
                "no adapter library is installed: pip install 'chunk-contract[peers]'",
                file=sys.stderr,
            )
            return 2
        run_all(
            args.out,
            names,
            max_examples=args.max_examples,
            seed=args.seed,
            jobs=args.jobs,
            timeout=args.timeout,
        )
    if not args.run_only:
        page, problems = render(args.out)
        args.doc.parent.mkdir(parents=True, exist_ok=True)
        args.doc.write_text(page, encoding="utf-8")
        print(f"wrote {args.doc}")
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        if problems and args.strict:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["library_version", "main", "render", "run_all"]
