"""Diagnosis rate: how many counterexamples of the defect suite get a diagnosis, and how many a
wrong one.

Every known-defective chunker (tests/defects/chunkers.py and tests/diagnosis/defects.py) is run
through the whole engine (``contract.engine.runner.run``: corpus, generation, shrinking, diagnosis)
on ``--seeds`` seeds with the default budget. Each counterexample counts once: *diagnosed* when a
pattern was confirmed, *wrong* when the pattern is not one that tests/diagnosis/test_diagnosis.py
lists as acceptable for that defect and invariant (``acceptable``: EXPECTED, plus
BY_INVARIANT's patterns that describe any finding of an invariant; for the new defects, their
own pattern). The goal
is a wrong count of 0; the rate says how much of the suite the patterns explain.

Controls: each defect of :data:`CONTROLS` is also observed on hand-made inputs where a pattern
would be tempting but wrong (a chunker that rejoins lines with a space, on a CRLF document and
on its LF twin): any pattern outside the acceptable ones counts as wrong, like a run's.

``--from-log`` takes the tests/defects counterexamples from bench_detection's log instead (its
CI-like runs are the same engine, default budget, and carry each counterexample's diagnosis in
the JSON report): only the defects the log lacks are run here.

    python bench/bench_diagnosis.py                    # 2 seeds, every defect
    python bench/bench_diagnosis.py --from-log bench/detection-runs.jsonl --seeds 1
    python bench/bench_diagnosis.py --from-log bench/detection-runs.jsonl --commits 4edab87
    python bench/bench_diagnosis.py --seeds 1 --only overlap_on_top,lines_from_find
    python bench/bench_diagnosis.py --no-write         # print, leave RESULTS-diagnosis.md alone
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from contract.diagnosis import Probe, diagnose  # noqa: E402
from contract.engine.runner import RunSettings, run  # noqa: E402
from contract.engine.session import Session  # noqa: E402
from contract.spec.model import Config  # noqa: E402
from contract.spec.registry import registry  # noqa: E402
from contract.transport.loading import load  # noqa: E402
from tests.diagnosis import test_diagnosis as tests  # noqa: E402  (the tests' own loader)

RESULTS = ROOT / "bench" / "RESULTS-diagnosis.md"


@dataclass(frozen=True)
class Finding:
    """One counterexample and the pattern that diagnosed it (None: no diagnosis)."""

    defect: str
    seed: int
    invariant: str
    pattern: str | None
    source: str  # "run" (in process here) or "log" (bench_detection's CI-like run)


def suite() -> dict[str, tuple[str, set[str]]]:
    """Defect name -> (target, the patterns acceptable for its own bug)."""
    out = {name: (tests.defects.defect_target(name), tests.acceptable(name, ""))
           for name in tests.defects.DEFECTS}
    for name, (pattern, *_rest) in tests.ours.PATTERNS.items():
        out[name] = (f"{tests.HERE / 'defects.py'}:{name}", {pattern})
    return out


#: (defect, document, config): inputs whose violations must get no pattern but the defect's own.
#: The same defect shown with and without the shape a pattern names (a CRLF, a repeat).
CONTROLS: list[tuple[str, str, Config]] = [
    ("paragraph_lines_joined", "a\r\n\r\nb", Config(3, 0)),
    ("paragraph_lines_joined", "aaa\r\n\r\nbbb\r\n\r\nccc", Config(7, 0)),
    ("paragraph_lines_joined", "aaa\nbbb\nccc", Config(7, 0)),
    ("paragraph_lines_joined", "aaa bbb\r\nccc\r\n", Config(5, 0)),
    ("rejoins_words", "a\r\nb", Config(3, 0)),
    ("rejoins_words", "ab\r\n\r\ncd ab\r\n\r\ncd", Config(8, 0)),
    ("offsets_skip_dropped_space", "aa\r\nbb\r\naa\r\nbb", Config(2, 0)),
    ("offsets_skip_dropped_space", "\U0001f600a b\U0001f600 c", Config(2, 0)),
    ("normalised_whitespace_offsets", "a\r\n b", Config(10, 0)),
]


def control_findings(every: dict[str, tuple[str, set[str]]]) -> Iterator[Finding]:
    """The diagnosis of every violation on the :data:`CONTROLS` inputs."""
    for name, document, config in CONTROLS:
        target = every[name][0]
        with Session(load(target), timeout=10.0, memory_mb=256, selected=list(registry())) as s:
            seen = s.observe(document, config)
            for rule in sorted({v.invariant for v in seen.violations}):
                offending = sorted({i for v in seen.of(rule) for i in v.chunks})
                probe = Probe(rule, seen.document, seen.config, seen.records, offending, s,
                              timeout=10.0, unit=s.plugin.declarations.unit)
                found = diagnose(probe)
                yield Finding(name, 0, rule, found.pattern if found else None, "control")


def run_findings(name: str, target: str, seed: int) -> Iterator[Finding]:
    """Each counterexample of one in-process run, with its diagnosis."""
    result = run(target, RunSettings(seed=seed, reproducers=None))
    for item in result.violated:
        if item.counterexample is not None:
            found = item.counterexample.diagnosis
            yield Finding(name, seed, item.id, found.pattern if found else None, "run")


def log_findings(path: Path, names: set[str], seeds: set[int],
                 commits: set[str] | None = None) -> list[Finding]:
    """The counterexamples of bench_detection's logged runs (last entry per defect and seed),
    only of runs made at one of ``commits`` when given."""
    last: dict[tuple[str, int], dict[str, str | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else None
        if not entry or (commits and entry["commit"].split("+")[0] not in commits):
            continue
        if entry["defect"] in names and entry["seed"] in seeds and entry["exit"] == 1:
            last[(entry["defect"], entry["seed"])] = entry["diagnoses"]
    return [Finding(name, seed, invariant, pattern, "log")
            for (name, seed), found in sorted(last.items())
            for invariant, pattern in sorted(found.items())]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per defect (default 2)")
    parser.add_argument("--only", default="", help="comma-separated defect names")
    parser.add_argument("--from-log", type=Path, default=None,
                        help="bench_detection's log: take the counterexamples it holds")
    parser.add_argument("--commits", default="",
                        help="with --from-log: only runs made at these commits (comma-separated)")
    parser.add_argument("--rerun", default="",
                        help="with --from-log: defects to run here even when the log has them")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite the results")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    every = suite()
    names = [n for n in every if not args.only or n in args.only.split(",")]
    seeds = set(range(1, args.seeds + 1))
    load, started = os.getloadavg(), time.monotonic()
    commits = {c for c in args.commits.split(",") if c} or None
    taken = set(names) - set(args.rerun.split(","))
    findings = log_findings(args.from_log, taken, seeds, commits) if args.from_log else []
    logged = {(f.defect, f.seed) for f in findings}
    for name in names:
        for seed in sorted(seeds):
            if (name, seed) not in logged:
                findings.extend(run_findings(name, every[name][0], seed))
        print(f"{name}: done", file=sys.stderr)
    findings.extend(f for f in control_findings(every) if f.defect in names)
    text = table(findings, every, names=len(names), seeds=len(seeds), load=load,
                 seconds=time.monotonic() - started, argv=argv)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 1 if any(_wrong(f, every) for f in findings) else 0


def _wrong(finding: Finding, every: dict[str, tuple[str, set[str]]]) -> bool:
    allowed = every[finding.defect][1] | tests.BY_INVARIANT.get(finding.invariant, set())
    return finding.pattern is not None and finding.pattern not in allowed


def _commit() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()


def table(findings: list[Finding], every: dict[str, tuple[str, set[str]]], *, names: int,
          seeds: int, load: tuple[float, float, float], seconds: float, argv: list[str]) -> str:
    """RESULTS-diagnosis.md: provenance, the counts and one row per diagnosed counterexample."""
    total, diagnosed = len(findings), sum(f.pattern is not None for f in findings)
    wrong = sum(_wrong(f, every) for f in findings)
    rate = f"{100 * diagnosed / total:.0f}%" if total else "n/a"
    undiagnosed = sorted({f"{f.defect} ({f.invariant})" for f in findings if f.pattern is None})
    head = [
        "# Diagnosis rate (bench/bench_diagnosis.py)", "",
        f"`python bench/bench_diagnosis.py {' '.join(argv)}` on "
        f"{datetime.date.today().isoformat()}, commit {_commit()}; load average at the start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {seconds:.0f} s here (runs taken from "
        "the detection log not counted).", "",
        f"{names} defective chunkers x {seeds} seed(s), default budget: {total} "
        f"counterexamples, **{diagnosed} diagnosed ({rate}), {wrong} wrong**. "
        f"{sum(f.source == 'log' for f in findings)} of them come from bench_detection's "
        "CI-like runs (subprocess, fresh folder), the others from "
        "`contract.engine.runner.run` here.",
        "",
        "| defect | seed | invariant | pattern | verdict |", "|---|---|---|---|---|",
    ]
    rows = [f"| {f.defect} | {f.seed} | {f.invariant} | {f.pattern} | "
            f"{'WRONG' if _wrong(f, every) else 'ok'} |" for f in findings if f.pattern]
    tail = ["", "Counterexamples without a diagnosis (defect, invariant): "
            + (", ".join(undiagnosed) or "none") + "."]
    return "\n".join(head + rows + tail) + "\n"


if __name__ == "__main__":
    sys.exit(main())
