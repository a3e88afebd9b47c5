"""Mutation reports for JavaScript chunkers, with StrykerJS and the contract as the test suite.

    python -m chunk_contract.integrations.mutation.js [CHUNKER.mjs] [--examples N] [--seed N]
                                         [--mutate RANGE] [--report-dir DIR] [--triage FILE]
                                         [--test-command CMD] [--report-only]

Stryker (npm ``@stryker-mutator/core``, pinned in ``chunk_contract/integrations/mutation/stryker/``;
install it with ``npm ci --prefix chunk_contract/integrations/mutation/stryker``) plants each mutant
in a copy of the chunker and runs its ``command`` test runner: the test command is the contract, and
exit 0 means the mutant survived. Until ``exec:`` targets are wired into the runner the command is
:mod:`chunk_contract.engine.exec_probe` (``--fail-fast``: it stops at the first violation); after
that, ``--test-command 'chunk-contract run "exec:node chunker.mjs"'`` does the same (it runs in
Stryker's sandbox, where the chunker file is ``./NAME``).

The reports are the Python side's (:mod:`chunk_contract.integrations.mutation.reports`), written to
``build/mutation-js/``: ``mutation.json`` (Stryker schema 2), ``mutation.html``, ``mutation.md``;
Stryker's own JSON and log stay in ``work/`` beside them. Survivors are matched against the
triage file (default ``docs/mutation-baseline-js.toml``, same format as the Python baseline); an
untriaged survivor makes the exit status 1.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chunk_contract.integrations.mutation import reports, triage
from chunk_contract.integrations.mutation.results import Mutant, Position, RunData, SourceFile

ROOT = Path(__file__).resolve().parents[3]
STRYKER_DIR = Path(__file__).resolve().parent / "stryker"
STRYKER_BIN = STRYKER_DIR / "node_modules" / "@stryker-mutator" / "core" / "bin" / "stryker.js"
INSTALL = f"npm ci --prefix {STRYKER_DIR}"
DEFAULT_CHUNKER = "chunk_contract_reference/js/chunker.mjs"
DEFAULT_REPORTS = Path("build/mutation-js")
DEFAULT_TRIAGE = Path("docs/mutation-baseline-js.toml")
_FUNCTION = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?function\s+(\w+)|^\s*(?:class\s+(\w+))|"
    r"^\s{2}(?!(?:if|for|while|switch|catch|return)\b)(?:get\s+|static\s+|async\s+)?(\w+)"
    r"\s*\([^)]*\)\s*\{|^(?:const|let)\s+(\w+)\s*="
)


def unavailable() -> str | None:
    """Why a Stryker run cannot start here (None when it can)."""
    if shutil.which("node") is None:
        return "StrykerJS needs node (>= 20) on PATH, which is not there"
    if not STRYKER_BIN.is_file():
        return f"@stryker-mutator/core is not installed: run {INSTALL}"
    return None


def probe_command(chunker: str, *, examples: int, seed: int) -> str:
    """The default test command: the contract on ``node CHUNKER`` through exec_probe."""
    python = shlex.quote(sys.executable)
    return (f"{python} -m chunk_contract.engine.exec_probe --fail-fast --examples {examples} "
            f"--seed {seed} "
            f"-- node {shlex.quote(chunker)}")


def stryker_config(chunker: str, command: str, *, mutate: str | None) -> dict[str, Any]:
    """The Stryker configuration: command runner, the one file, JSON report, 2 processes."""
    return {
        "testRunner": "command",
        "commandRunner": {"command": command},
        "mutate": [f"{chunker}:{mutate}" if mutate else chunker],
        "reporters": ["json"],
        "jsonReporter": {"fileName": "reports/mutation.json"},
        "concurrency": 2,
        "coverageAnalysis": "off",
        "timeoutMS": 60000,
        "tempDirName": ".stryker-tmp",
        "cleanTempDir": "always",
        "plugins": [],
    }


def run_stryker(work: Path, config: dict[str, Any]) -> Path:
    """Run Stryker in ``work`` with ``config``; returns the path of its JSON report."""
    (work / "stryker.config.json").write_text(json.dumps(config, indent=2) + "\n", "utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                     os.environ.get("PYTHONPATH")])))
    with (work / "stryker.log").open("wb") as log:
        done = subprocess.run(["node", str(STRYKER_BIN), "run", "stryker.config.json"], cwd=work,
                              env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    report = work / "reports" / "mutation.json"
    if done.returncode != 0 or not report.is_file():
        tail = (work / "stryker.log").read_text("utf-8", "replace")[-2000:]
        raise RuntimeError(f"Stryker failed (exit {done.returncode}); log tail:\n{tail}")
    return report


def enclosing_function(lines: Sequence[str], line: int) -> str:
    """The name of the function (or class, or top-level binding) holding 1-based ``line``."""
    for text in reversed(lines[:line]):
        found = _FUNCTION.match(text)
        if found:
            return next(g for g in found.groups() if g)
    return "<module>"


def _offset(lines: Sequence[str], where: Position) -> int:
    return sum(len(x) + 1 for x in lines[: where.line - 1]) + where.column - 1


def to_mutant(raw: dict[str, Any], path: str, source: str) -> Mutant:
    """One Stryker mutant as the reports' :class:`Mutant` (lines, diff, kill note)."""
    lines = source.split("\n")
    loc = raw["location"]
    start = Position(loc["start"]["line"], loc["start"]["column"])
    end = Position(loc["end"]["line"], loc["end"]["column"])
    lo, hi = _offset(lines, start), _offset(lines, end)
    replacement = raw.get("replacement", "")
    mutated = source[:lo] + replacement + source[hi:]
    first, last = start.line - 1, end.line
    after = lines[first][: start.column - 1] + replacement + lines[last - 1][end.column - 1:]
    killed_by, message = _kill_note(raw)
    return Mutant(
        name=f"{path}#{raw['id']}", path=path, function=enclosing_function(lines, start.line),
        status=raw["status"], mutmut_status=raw["status"].lower(), start=start, end=end,
        original=source[lo:hi], replacement=replacement,
        line_before=" ".join(x.strip() for x in lines[first:last]),
        line_after=" ".join(x.strip() for x in after.split("\n")),
        diff="".join(difflib.unified_diff(source.splitlines(True), mutated.splitlines(True),
                                          path, path, n=1)),
        mutator=raw.get("mutatorName", ""), killed_by=killed_by, kill_message=message,
    )


def _kill_note(raw: dict[str, Any]) -> tuple[str | None, str]:
    """The invariant that killed a mutant, from exec_probe's first output line."""
    if raw.get("status") != "Killed":
        return None, ""
    reason = str(raw.get("statusReason") or "")
    found = re.match(r"\s*([a-z_]+): (.*)", reason)
    if found is None:
        return None, reason[:300]
    if found.group(1) == "exec_probe":  # exit 2: the mutant broke the handshake or the start
        return "handshake", found.group(2)[:300]
    return found.group(1), found.group(2)[:300]


def run_data(stryker_json: Path, chunker: str, source: str) -> RunData:
    """The reports' RunData from Stryker's JSON report (one file: ``chunker``)."""
    raw = json.loads(stryker_json.read_text("utf-8"))
    entry = next(iter(raw["files"].values()))
    mutants = [to_mutant(m, chunker, source) for m in entry["mutants"]]
    mutants.sort(key=lambda m: (m.start.line, m.start.column))
    return RunData({chunker: SourceFile(chunker, source, mutants)}, {chunker: chunker})


def _framework() -> dict[str, Any]:
    version = json.loads((STRYKER_DIR / "node_modules" / "@stryker-mutator" / "core" /
                          "package.json").read_text("utf-8"))["version"]
    return {"name": "chunk-contract (StrykerJS command runner)",
            "version": reports._version("chunk-contract"),
            "dependencies": {"@stryker-mutator/core": version,
                             "hypothesis": reports._version("hypothesis")}}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m chunk_contract.integrations.mutation.js",
                                     description="StrykerJS mutation report for a JS chunker.")
    parser.add_argument("chunker", nargs="?", default=DEFAULT_CHUNKER,
                        help=f"the chunker file, relative to the project ({DEFAULT_CHUNKER})")
    parser.add_argument("--examples", type=int, default=100, help="cases per mutant (100)")
    parser.add_argument("--seed", type=int, default=1, help="the Hypothesis seed (1)")
    parser.add_argument("--mutate", help="Stryker line range, e.g. 30-160 (all lines)")
    parser.add_argument("--report-dir", type=Path, default=DEFAULT_REPORTS)
    parser.add_argument("--triage", type=Path, default=DEFAULT_TRIAGE)
    parser.add_argument("--test-command", help="the test command (default: exec_probe)")
    parser.add_argument("--report-only", action="store_true",
                        help="re-triage the last run (work/reports/mutation.json), no Stryker")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run Stryker on the chunker and write the reports; 1 on an untriaged survivor."""
    args = _parser().parse_args(argv)
    reason = unavailable()
    if reason:
        print(f"chunk_contract.integrations.mutation.js: {reason}", file=sys.stderr)
        return 2
    chunker_path = Path(args.chunker)
    source = chunker_path.read_text("utf-8")
    work = args.report_dir / "work"
    command = args.test_command or probe_command(chunker_path.name, examples=args.examples,
                                                 seed=args.seed)
    if args.report_only:
        stryker_json = work / "reports" / "mutation.json"
    else:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        shutil.copy2(chunker_path, work / chunker_path.name)
        config = stryker_config(chunker_path.name, command, mutate=args.mutate)
        stryker_json = run_stryker(work, config)
    data = run_data(stryker_json, args.chunker, source)
    report = reports.Report(data, triage.load(args.triage if args.triage.exists() else None),
                            title=args.chunker, config={"command": command},
                            tool="stryker", framework=_framework())
    paths = reports.write(report, args.report_dir)
    print(reports.summary_line(report))
    print(f"reports: {', '.join(str(p) for p in paths.values())}")
    untriaged = [m for m in report.survivors if report.entry(m) is None]
    for mutant in untriaged:
        print(reports.suggested_entry(report, mutant))
    return 1 if untriaged else 0


if __name__ == "__main__":
    sys.exit(main())
