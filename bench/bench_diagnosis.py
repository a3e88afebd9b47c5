"""Diagnosis rate: how many counterexamples of the defect suite get a diagnosis, and how many a
wrong one.

Every known-defective chunker (tests/defects/chunkers.py and tests/diagnosis/defects.py) is run
through the whole engine (``chunk_contract.engine.runner.run``: corpus, generation, shrinking,
diagnosis) on ``--seeds`` seeds with the default budget. Each counterexample counts once:
*diagnosed* when a pattern was confirmed, *wrong* when the pattern is not one that
tests/diagnosis/test_diagnosis.py lists as acceptable for that defect and invariant (``acceptable``:
EXPECTED, plus BY_INVARIANT's patterns that describe any finding of an invariant; for the new
defects, their own pattern). The goal
is a wrong count of 0; the rate says how much of the suite the patterns explain.

Controls: each defect of :data:`CONTROLS` is also observed on hand-made inputs where a pattern
would be tempting but wrong (a chunker that rejoins lines with a space, on a CRLF document and
on its LF twin): any pattern outside the acceptable ones counts as wrong, like a run's.

The matrix: every counterexample of docs/conformance-evidence.json (the real libraries'
violations behind docs/conformance.md) whose adapter can run here is diagnosed through the
engine's own entry point: the adapter loaded as the engine loads it, the stored document and
config observed again in a :class:`Session` (the session timeout the evidence was made with),
and ``diagnose`` asked on a :class:`Probe` of what that call broke, with the quick timeout the
engine gives its experiments. A ``scales_linearly`` counterexample is the first size of its
scaling family, rebuilt whole (the evidence cuts long documents), as the engine records it.
Each counterexample counts once per distinct (adapter, invariant, document, config), whatever
the number of seeds that found it. Its acceptable patterns are its reviewed finding's
``diagnoses`` (chunk_contract/integrations/adapters/findings/*.toml: the patterns that describe the
cause in the library's source); a pattern outside them is wrong, naming none never is. A
counterexample the library no longer breaks when observed again is counted apart
(*not reproduced*), and so is one whose invariant no pattern explains (no experiment to run).

``--from-log`` takes the tests/defects counterexamples from bench_detection's log instead (its
CI-like runs are the same engine, default budget, and carry each counterexample's diagnosis in
the JSON report): only the defects the log lacks are run here.

    python bench/bench_diagnosis.py                    # 2 seeds, every defect
    python bench/bench_diagnosis.py --from-log bench/detection-runs.jsonl --seeds 1
    python bench/bench_diagnosis.py --from-log bench/detection-runs.jsonl --commits 4edab87
    python bench/bench_diagnosis.py --seeds 1 --only overlap_on_top,lines_from_find
    python bench/bench_diagnosis.py --no-write         # print, leave RESULTS-diagnosis.md alone
    python bench/bench_diagnosis.py --matrix           # the matrix only (installed libraries)
    python bench/bench_diagnosis.py --matrix --adapters semchunk --rules ordered,cap_respected
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chunk_contract.diagnosis import Probe, diagnose, patterns  # noqa: E402
from chunk_contract.engine.runner import RunSettings, run  # noqa: E402
from chunk_contract.engine.session import Session  # noqa: E402
from chunk_contract.generation.families import FAMILIES  # noqa: E402
from chunk_contract.integrations.adapters import BY_NAME  # noqa: E402
from chunk_contract.integrations.adapters.conformance import load_evidence  # noqa: E402
from chunk_contract.integrations.adapters.findings import findings as reviewed  # noqa: E402
from chunk_contract.spec.model import Config  # noqa: E402
from chunk_contract.spec.registry import registry  # noqa: E402
from chunk_contract.transport.loading import load  # noqa: E402
from tests.diagnosis import test_diagnosis as tests  # noqa: E402  (the tests' own loader)

RESULTS = ROOT / "bench" / "RESULTS-diagnosis.md"
EVIDENCE = ROOT / "docs" / "conformance-evidence.json"


@dataclass(frozen=True)
class Finding:
    """One counterexample and the pattern that diagnosed it (None: no diagnosis)."""

    defect: str
    seed: int
    invariant: str
    pattern: str | None
    source: str  # "run" (in process here), "log" (bench_detection's), "control" or "matrix"
    #: the patterns that name the cause (a matrix counterexample's finding); None: the defect's
    acceptable: frozenset[str] | None = None
    #: a matrix counterexample not diagnosed: why no experiment ran ("" when one did)
    skipped: str = ""
    #: the seeds that found it (a matrix counterexample), for the table
    seeds: tuple[int, ...] = ()


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


# ----------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class MatrixCase:
    """One distinct counterexample of the matrix, and the patterns that name its cause."""

    adapter: str
    invariant: str
    document: str | None  # None: cut by the evidence, and not rebuilt
    config: Config
    seeds: tuple[int, ...]
    acceptable: frozenset[str]
    timeout: float  # the session timeout the evidence was made with


def _whole(rule: str, found: Mapping[str, Any]) -> str | None:
    """The counterexample's document; a cut one rebuilt from its scaling family, else None."""
    if "document_length" not in found:
        return str(found["document"])
    family = found["message"].split(":")[0]
    if rule != "scales_linearly" or family not in FAMILIES:
        return None
    whole = FAMILIES[family](found["document_length"])
    return whole if whole.startswith(found["document"]) else None


def _violations(evidence: Mapping[str, Any], adapters: set[str],
                rules: set[str]) -> Iterator[tuple[str, float, int, str, Mapping[str, Any]]]:
    """(adapter, its session timeout, seed, rule, counterexample) of every stored violation of
    ``adapters`` (all when empty) and ``rules`` (all when empty)."""
    for name, entry in evidence.items():
        for run_ in entry["runs"] if not adapters or name in adapters else ():
            for rule, found in run_.get("violations", {}).items():
                if not rules or rule in rules:
                    yield name, float(entry["timeout"]), run_["seed"], rule, found


def matrix_cases(evidence: Mapping[str, Any], adapters: set[str],
                 rules: set[str]) -> list[MatrixCase]:
    """The distinct counterexamples of ``adapters`` for ``rules``, each with the seeds that
    found it and its reviewed finding's ``diagnoses``."""
    known: dict[tuple[str, str], Any] = reviewed()
    cases: dict[tuple[str, str, Any, Config], MatrixCase] = {}
    for name, timeout, seed, rule, found in _violations(evidence, adapters, rules):
        config = Config(found["config"]["max_size"], found["config"]["overlap"])
        document = _whole(rule, found)
        key = (name, rule, found["document"] if document is None else document, config)
        earlier = cases.get(key)
        # a violation that follows from another rule's is explained by that rule's finding
        finding = known.get((name, rule)) or known.get((name, found.get("follows_from", "")))
        cases[key] = MatrixCase(name, rule, document, config,
                                (earlier.seeds if earlier else ()) + (seed,),
                                frozenset(finding.diagnoses if finding else ()), timeout)
    return list(cases.values())


def _explained(rule: str) -> bool:
    """Whether some pattern is registered for ``rule`` (else diagnose runs no experiment)."""
    return any(rule in p.invariants for p in patterns().values())


def _matrix_probe(session: Session, case: MatrixCase) -> Probe | None:
    """The probe the engine would build for the counterexample: what the call breaks again
    (a scaling one as the engine records it: the family's document, no chunks); None when
    the call no longer breaks the rule."""
    unit = session.plugin.declarations.unit
    if case.invariant == "scales_linearly":
        return Probe(case.invariant, case.document, case.config, None, [], session,
                     timeout=session.quick_timeout(), unit=unit)
    seen = session.observe(case.document, case.config)
    if not seen.of(case.invariant):
        return None
    offending = sorted({i for v in seen.of(case.invariant) for i in v.chunks})
    return Probe(case.invariant, seen.document, seen.config, seen.records, offending, session,
                 timeout=session.quick_timeout(), unit=unit)


def _matrix_finding(session: Session, case: MatrixCase) -> Finding:
    """One counterexample observed again and diagnosed (or why it was not)."""
    def done(pattern: str | None, skipped: str = "") -> Finding:
        return Finding(case.adapter, min(case.seeds), case.invariant, pattern, "matrix",
                       case.acceptable, skipped, case.seeds)

    if case.document is None:
        return done(None, "document cut in the evidence")
    if not _explained(case.invariant):
        return done(None, "no pattern for the rule")
    probe = _matrix_probe(session, case)
    if probe is None:
        return done(None, "not reproduced")
    found = diagnose(probe)
    return done(found.pattern if found else None)


def matrix_findings(cases: Iterable[MatrixCase]) -> Iterator[Finding]:
    """Every case diagnosed, one session per adapter (loaded as the engine loads it)."""
    for name, group in groupby(sorted(cases, key=lambda c: c.adapter), key=lambda c: c.adapter):
        items = list(group)
        plugin = load(name, timeout=60.0)
        with Session(plugin, timeout=items[0].timeout, memory_mb=1024,
                     selected=list(registry())) as session:
            for case in items:
                yield _matrix_finding(session, case)
        print(f"{name}: done", file=sys.stderr)


def installed_adapters(evidence: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """The evidence's adapters that can run here, and those that cannot."""
    names = set(evidence)
    here = {n for n in names if n in BY_NAME and BY_NAME[n].installed}
    return here, names - here


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
    parser.add_argument("--matrix", action="store_true",
                        help="the matrix's counterexamples only (no defect)")
    parser.add_argument("--adapters", default="",
                        help="with --matrix: only these adapters (comma-separated)")
    parser.add_argument("--rules", default="",
                        help="with --matrix: only these invariants (comma-separated)")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite the results")
    return parser


def _names(text: str) -> set[str]:
    return {n for n in text.split(",") if n}


def defect_findings(args: argparse.Namespace, every: dict[str, tuple[str, set[str]]],
                    names: list[str]) -> list[Finding]:
    """The defects' counterexamples: from the log where asked, run here otherwise; then the
    controls."""
    seeds = set(range(1, args.seeds + 1))
    commits = _names(args.commits) or None
    taken = set(names) - _names(args.rerun)
    found = log_findings(args.from_log, taken, seeds, commits) if args.from_log else []
    logged = {(f.defect, f.seed) for f in found}
    for name in names:
        for seed in sorted(seeds):
            if (name, seed) not in logged:
                found.extend(run_findings(name, every[name][0], seed))
        print(f"{name}: done", file=sys.stderr)
    found.extend(f for f in control_findings(every) if f.defect in names)
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    every = suite()
    names = [] if args.matrix else [n for n in every if not args.only or n in _names(args.only)]
    load_avg, started, commit = os.getloadavg(), time.monotonic(), _commit()
    found = defect_findings(args, every, names) if names else []
    evidence = load_evidence(EVIDENCE)  # by adapter; lone surrogates decoded
    here, missing = installed_adapters(evidence)
    chosen = here & (_names(args.adapters) or here)
    matrix = args.matrix or not args.only
    cases = matrix_cases(evidence, chosen, _names(args.rules)) if matrix and chosen else []
    found.extend(matrix_findings(cases))
    text = report(found, every, names=len(names), seeds=args.seeds, load=load_avg,
                  seconds=time.monotonic() - started, argv=argv, missing=missing, commit=commit)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 1 if any(_wrong(f, every) for f in found) else 0


def _wrong(finding: Finding, every: dict[str, tuple[str, set[str]]]) -> bool:
    """A pattern outside the acceptable ones: the finding's own (matrix), else the defect's."""
    if finding.pattern is None:
        return False
    if finding.acceptable is not None:
        return finding.pattern not in finding.acceptable
    allowed = every[finding.defect][1] | tests.BY_INVARIANT.get(finding.invariant, set())
    return finding.pattern not in allowed


def _commit() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()


def _counts(found: list[Finding], every: dict[str, tuple[str, set[str]]]) -> str:
    total, diagnosed = len(found), sum(f.pattern is not None for f in found)
    wrong = sum(_wrong(f, every) for f in found)
    rate = f"{100 * diagnosed / total:.0f}%" if total else "n/a"
    return f"{total} counterexamples, **{diagnosed} diagnosed ({rate}), {wrong} wrong**"


def report(found: list[Finding], every: dict[str, tuple[str, set[str]]], *, names: int,
           seeds: int, load: tuple[float, float, float], seconds: float, argv: list[str],
           missing: set[str], commit: str) -> str:
    """RESULTS-diagnosis.md: provenance, then the defects' and the matrix's tables."""
    defects = [f for f in found if f.source != "matrix"]
    matrix = [f for f in found if f.source == "matrix"]
    head = [
        "# Diagnosis rate (bench/bench_diagnosis.py)", "",
        f"`python bench/bench_diagnosis.py {' '.join(argv)}` on "
        f"{datetime.date.today().isoformat()}, commit {commit}; load average at the start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {seconds:.0f} s here (runs taken from "
        "the detection log not counted).", "",
        "| counterexamples of | counterexamples | diagnosed | wrong |", "|---|---|---|---|",
        *(_summary_row(what, part, every) for what, part in
          (("defects of tests/", defects), ("the matrix", matrix)) if part),
        "",
    ]
    body = table(defects, every, names=names, seeds=seeds) if defects else []
    body += matrix_table(matrix, every, missing=missing) if matrix else []
    return "\n".join(head + body) + "\n"


def _summary_row(what: str, part: list[Finding], every: dict[str, tuple[str, set[str]]]) -> str:
    diagnosed = sum(f.pattern is not None for f in part)
    return f"| {what} | {len(part)} | {diagnosed} | {sum(_wrong(f, every) for f in part)} |"


def table(found: list[Finding], every: dict[str, tuple[str, set[str]]], *, names: int,
          seeds: int) -> list[str]:
    """The defects' section: the counts and one row per diagnosed counterexample."""
    undiagnosed = sorted({f"{f.defect} ({f.invariant})" for f in found if f.pattern is None})
    head = [
        "## The defects of tests/", "",
        f"{names} defective chunkers x {seeds} seed(s), default budget, and the controls: "
        f"{_counts(found, every)}. {sum(f.source == 'log' for f in found)} of them come from "
        "bench_detection's CI-like runs (subprocess, fresh folder), the others from "
        "`chunk_contract.engine.runner.run` here.",
        "",
        "| defect | seed | invariant | pattern | verdict |", "|---|---|---|---|---|",
    ]
    rows = [f"| {f.defect} | {f.seed} | {f.invariant} | {f.pattern} | "
            f"{'WRONG' if _wrong(f, every) else 'ok'} |" for f in found if f.pattern]
    tail = ["", "Counterexamples without a diagnosis (defect, invariant): "
            + (", ".join(undiagnosed) or "none") + ".", ""]
    return head + rows + tail


def matrix_table(found: list[Finding], every: dict[str, tuple[str, set[str]]], *,
                 missing: set[str]) -> list[str]:
    """The matrix's section: the counts, why some got no experiment, one row per diagnosis."""
    tried = [f for f in found if not f.skipped]
    skipped = sorted({f.skipped for f in found if f.skipped})
    why = "; ".join(f"{sum(f.skipped == s for f in found)} {s}" for s in skipped) or "none"
    head = [
        "## The matrix (docs/conformance-evidence.json)", "",
        f"{_counts(found, every)} (distinct adapter, invariant, document and config; "
        f"{sum(len(f.seeds) for f in found)} of the evidence's seed runs). An experiment ran on "
        f"{len(tried)} of them ({sum(f.pattern is not None for f in tried)} diagnosed). "
        f"No experiment on the others: {why}. "
        "Adapters not run here (library not installed): "
        + (", ".join(sorted(missing)) or "none") + ".",
        "",
        "| adapter | seeds | invariant | pattern | acceptable (its finding's diagnoses) | "
        "verdict |", "|---|---|---|---|---|---|",
    ]
    rows = [f"| {f.defect} | {','.join(map(str, f.seeds))} | {f.invariant} | {f.pattern} | "
            f"{', '.join(sorted(f.acceptable or ())) or '(none)'} | "
            f"{'WRONG' if _wrong(f, every) else 'ok'} |" for f in found if f.pattern]
    return head + rows + [""]


if __name__ == "__main__":
    sys.exit(main())
