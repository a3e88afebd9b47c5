"""Drive a mutation run: mutmut over the chunker, the contract as the test suite, then reports.

    chunk-contract mutate                      # chunk_contract_reference/, gated by the triage file
    chunk-contract mutate path/to/chunker.py:split [more targets of that file]

(``python -m chunk_contract.integrations.mutation`` is the same command.) Progress: mutants done of
the total, with the killed and surviving ones so far, from mutmut's status line (a bar on a
terminal, plain lines in a log).

With no target, mutmut runs in the repository itself, configured by ``[tool.mutmut]`` in
pyproject.toml, over chunk_contract_reference/ with tests/mutation/test_contract_kills.py as the
test suite; every survivor must be triaged in docs/mutation-baseline.toml and the score must reach
``--fail-under`` (default 90), or the run fails.

With targets (``file.py:attr`` or ``module:attr``), the file is copied into a scratch project
under build/mutation/work/, with a generated test module that runs the contract on each target
(no test of the author's is needed). An invariant the unmutated chunker already violates cannot
kill a mutant (it is listed as expected); only a new violation does. Survivors are reported;
they fail the run only against ``--baseline`` (a triage file of the author's) or ``--fail-under``.

Reports (JSON in the Stryker schema, an offline HTML page, a markdown summary) are written to
build/mutation/ (``--report-dir``); the markdown is appended to ``$GITHUB_STEP_SUMMARY`` when set.
Exit status: 0 passed, 1 failed the gate, 2 usage error (bad target, no mutmut, bad config).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from chunk_contract.config import table
from chunk_contract.containment import reaper
from chunk_contract.errors import UsageError, one_line
from chunk_contract.integrations.mutation import reports, results, triage
from chunk_contract.integrations.mutation.config import (
    BASELINE,
    DEFAULT_BUDGET,
    EXAMPLES_ENV,
    KILL_TESTS,
    KILLS_DIR,
    REFERENCE_MUTMUT,
    REPORT_DIR,
    TRIAGE_ENV,
    WORK_DIR,
    Budget,
    MutmutSettings,
)
from chunk_contract.reporting.progress import ProgressBar

#: The package a third-party chunker file is copied into (so its name cannot clash).
PACKAGE = "chunker_under_test"
#: Fingerprint of what mutmut's cache cannot see (the contract, the kill tests, the budget).
_FINGERPRINT = "mutants/.chunk-contract-fingerprint"


#: The extra that brings mutmut, named by the error when it is missing.
MUTMUT_MISSING = ("mutmut is not installed (pip install 'chunk-contract[mutation]', "
                  "or run nox -s mutation)")


@dataclass(frozen=True)
class Target:
    """A third-party target: where its file is, and how it is named in the scratch project."""

    spec: str  #: as given
    file: Path  #: the chunker's source file
    attr: str
    display: str  #: the file as the reports show it

    @property
    def module(self) -> str:
        return f"{PACKAGE}.{self.file.stem}"

    @property
    def scratch_target(self) -> str:
        return f"{self.module}:{self.attr}"


PROG = "python -m chunk_contract.integrations.mutation"


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Parse ``argv`` and run; a usage error (or a bad triage file) is one line and exit 2."""
    try:
        return _main(_parser(prog).parse_args(argv))
    except UsageError as exc:  # a bad triage file too (TriageError)
        print(f"{prog}: error: {_first(exc)}", file=sys.stderr)
        return 2


def _first(exc: Exception) -> str:
    """A usage error's message on one line (mutmut's own output is printed above it)."""
    return one_line(str(exc).split("\n", 1)[0])


class _Parser(argparse.ArgumentParser):
    """Errors as UsageErrors (one line, exit 2), not argparse's usage text."""

    def error(self, message: str) -> Any:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _parser(
    prog: str = "python -m chunk_contract.integrations.mutation",
) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog,
        description="Mutation-test a chunker with the contract as its test suite.")
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help="file.py:attr or module:attr of one chunker file "
                             "(default: the reference chunkers)")
    parser.add_argument("--max-children", type=int, default=2,
                        help="mutants tested at once (default 2)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help=f"triage file of known survivors (default for the reference "
                             f"chunkers: {BASELINE})")
    parser.add_argument("--fail-under", type=float, default=None,
                        help="fail when the mutation score (%%) is lower (default: 90 for the "
                             "reference chunkers, none for a target)")
    parser.add_argument("--report-dir", type=Path, default=None,
                        help=f"where to write the reports (default {REPORT_DIR}/...)")
    parser.add_argument("--max-examples", type=table.converter(table.row("max_examples")),
                        default=None,
                        help=f"examples per mutant (default {DEFAULT_BUDGET.max_examples})")
    parser.add_argument("--fresh", action="store_true",
                        help="forget mutmut's cached results and test every mutant again")
    parser.add_argument("--recheck", action="store_true",
                        help="re-run the survivors the triage file marks equivalent or allowed "
                             "too (by default their test passes at once), to find stale entries")
    parser.add_argument("--explain", type=int, default=25, metavar="N",
                        help="compare the chunks of the original and of each of the first N "
                             "untriaged survivors on more generated cases, as evidence for "
                             "triage (default 25; 0: off)")
    parser.add_argument("--report-only", action="store_true",
                        help="do not run mutmut; rebuild the reports from the last run")
    return parser


def _main(args: argparse.Namespace) -> int:
    if args.max_children < 1:
        raise UsageError(f"--max-children must be at least 1, got {args.max_children}")
    budget = DEFAULT_BUDGET
    os.environ.pop(EXAMPLES_ENV, None)
    os.environ.pop(TRIAGE_ENV, None)
    if args.max_examples is not None:  # bounded by its flag (chunk_contract.config.table)
        budget = replace(budget, max_examples=args.max_examples)
    if args.targets:
        return _third_party(args, budget)
    return _reference(args, budget)


# ----------------------------------------------------------------------------- reference


def _reference(args: argparse.Namespace, budget: Budget) -> int:
    root = Path.cwd()
    settings = _project_settings(root)
    # the kill tests read it (chunk_contract.integrations.mutation.config.budget)
    _require_mutmut(args)
    if budget != DEFAULT_BUDGET:
        os.environ[EXAMPLES_ENV] = str(budget.max_examples)
    started = time.monotonic()
    baseline = args.baseline or BASELINE
    if not args.report_only:
        skip = _skip_triaged(baseline, {}, args.recheck)
        _reset_if_changed(root, budget, fresh=args.fresh, extra=skip)
        _run_mutmut(root, args.max_children)
    sources = [str(p.relative_to(root).as_posix()) for src in settings.source_paths
               for p in sorted((root / src).rglob("*.py"))]
    report = reports.Report(
        results.load(root, sources), triage.load(baseline),
        title=", ".join(settings.source_paths),
        config=_config(budget, settings, ["the reference chunkers"]),
        fail_under=90.0 if args.fail_under is None else args.fail_under,
    )
    if _explain(root, report, args.explain, args.report_only):
        report.data = results.load(root, sources)
    return _finish(report, args.report_dir or REPORT_DIR, started, args.report_only)


def _project_settings(root: Path) -> MutmutSettings:
    """``[tool.mutmut]`` of the project; a usage error (with the lines to add) if it is missing."""
    try:
        table = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        raise UsageError(
            "pyproject.toml has no [tool.mutmut] table; add these lines:\n\n"
            + REFERENCE_MUTMUT.toml()) from None
    selection = table.get("pytest_add_cli_args_test_selection", [])
    if KILL_TESTS not in selection:
        raise UsageError(f"[tool.mutmut] pytest_add_cli_args_test_selection must name {KILL_TESTS}")
    return replace(REFERENCE_MUTMUT, source_paths=tuple(table.get("source_paths", ())))


def _skip_triaged(baseline: Path | None, display: dict[str, str], recheck: bool) -> str:
    """Tell the kill tests which triage file's equivalent survivors not to re-run."""
    if recheck or baseline is None or not baseline.is_file():
        return "recheck"
    triage.load(baseline)  # a broken triage file is a usage error now, not a failed run later
    os.environ[TRIAGE_ENV] = json.dumps({"file": str(baseline.resolve()), "display": display})
    return baseline.read_text("utf-8")


def _reset_if_changed(root: Path, budget: Budget, *, fresh: bool, extra: str = "") -> None:
    """Drop mutmut's cache when the test suite changed: mutmut only sees the mutated files
    (not the contract, the kill tests, the budget or the triage file, which decide verdicts)."""
    mutants = root / "mutants"
    mark = root / _FINGERPRINT
    now = _fingerprint(root, budget, extra)
    if mutants.exists() and (fresh or not mark.is_file() or mark.read_text() != now):
        print("mutation: the contract, the kill tests or the budget changed since the last run "
              "(or --fresh): testing every mutant again", flush=True)
        shutil.rmtree(mutants)
    mutants.mkdir(exist_ok=True)
    mark.write_text(now)


def _fingerprint(root: Path, budget: Budget, extra: str = "") -> str:
    digest = hashlib.sha256()
    digest.update(repr(asdict(budget)).encode())
    digest.update(extra.encode())
    for folder in ("chunk_contract", "tests/mutation"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    for name in ("pyproject.toml",):
        path = root / name
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


# ----------------------------------------------------------------------------- third party


def _third_party(args: argparse.Namespace, budget: Budget) -> int:
    targets = [_resolve(spec) for spec in args.targets]
    files = {t.file for t in targets}
    if len(files) > 1:
        raise UsageError("all targets of one run must be in the same file "
                         f"(got {', '.join(sorted(map(str, files)))})")
    _require_mutmut(args)
    target = targets[0]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{target.display}")
    work = WORK_DIR / slug
    started = time.monotonic()
    source = f"{PACKAGE}/{target.file.name}"
    if not args.report_only:
        expected = {t.spec: _expected_violations(t, budget) for t in targets}
        _scratch_project(work, targets, expected, budget)
        (work / "expected.json").write_text(json.dumps(expected, indent=1))
        _skip_triaged(args.baseline, {source: target.display}, args.recheck)
        _run_mutmut(work, args.max_children)
    try:
        expected = json.loads((work / "expected.json").read_text())
    except (OSError, ValueError):
        expected = {}
    notes = [f"The unmutated {spec} already violates {', '.join(violated)}: a mutant that only "
             "breaks those again cannot be caught, so survivors gather around the code behind "
             "those violations." for spec, violated in expected.items() if violated]
    report = reports.Report(
        results.load(work, [source], display={source: target.display}),
        triage.load(args.baseline), title=", ".join(args.targets),
        config=_config(budget, None, list(args.targets)),
        fail_under=args.fail_under, require_triage=args.baseline is not None, notes=notes,
        uncovered_out_of_scope=True,
    )
    if _explain(work, report, args.explain, args.report_only):
        report.data = results.load(work, [source], display={source: target.display})
    return _finish(report, args.report_dir or REPORT_DIR / slug, started, args.report_only)


def _resolve(spec: str) -> Target:
    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise UsageError(f"{spec}: expected path/to/file.py:attr or module:attr")
    if where.endswith(".py"):
        path = Path(where)
    else:
        try:
            found = importlib.util.find_spec(where)
        except (ImportError, ValueError) as exc:
            raise UsageError(f"{spec}: cannot find module {where!r}: {exc}") from None
        if found is None or not found.origin or not found.origin.endswith(".py"):
            raise UsageError(f"{spec}: {where!r} is not a Python source file")
        path = Path(found.origin)
    if not path.is_file():
        raise UsageError(f"{spec}: no such file {str(path)!r}")
    try:
        display = path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        display = str(path.resolve())
    if path.name == "__init__.py":
        raise UsageError(f"{spec}: a package's __init__.py cannot be mutated on its own; "
                         "name the module that defines the chunker")
    return Target(spec, path.resolve(), attr, display)


def _expected_violations(target: Target, budget: Budget) -> list[str]:
    """What the unmutated chunker already violates under the budget (cannot kill a mutant)."""
    from chunk_contract.engine.runner import run  # lazy: Hypothesis

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.transport.targets import TargetError

    # the suite calls the plugin itself
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.transport.targets import load_here as load

    try:
        plugin = load(f"{target.file}:{target.attr}")
    except TargetError as exc:
        raise UsageError(str(exc)) from None
    print(f"mutation: running the contract on the unmutated {target.spec} ...", flush=True)
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.integrations.mutation.suite import _warm_up

    _warm_up(plugin)
    result = run(plugin, replace(budget.run_settings(), shrink_seconds=0.1))
    violated = sorted(r.id for r in result.violated)
    if violated:
        print(f"mutation: the unmutated chunker already violates {', '.join(violated)}: "
              "those cannot kill a mutant; only a new violation does", flush=True)
    return violated


def _scratch_project(work: Path, targets: list[Target], expected: dict[str, list[str]],
                     budget: Budget) -> None:
    """A project mutmut can run in: the chunker as a package, the contract, a kill test."""
    if work.exists():
        shutil.rmtree(work)
    package = work / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""The chunker under mutation testing."""\n')
    shutil.copy2(targets[0].file, package / targets[0].file.name)
    contract_dir = Path(__file__).resolve().parents[2]
    shutil.copytree(contract_dir, work / "chunk_contract",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    tests = work / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(_CONFTEST)
    (tests / "test_contract_kills.py").write_text(_kill_module(targets, expected, budget))
    settings = MutmutSettings(source_paths=(f"{PACKAGE}/",),
                              tests=("tests/test_contract_kills.py",),
                              also_copy=("chunk_contract/",))
    (work / "pyproject.toml").write_text(
        "# Generated by python -m chunk_contract.integrations.mutation: a scratch project, "
        "safe to delete.\n\n"
        + settings.toml()
        + '\n[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n')


_CONFTEST = '''"""Generated: under mutmut, a derandomized Hypothesis profile and a memory cap."""

from chunk_contract.integrations.mutation import suite


def pytest_configure(config: object) -> None:
    suite.configure()
'''


def _kill_module(targets: list[Target], expected: dict[str, list[str]], budget: Budget) -> str:
    folder = str(targets[0].file.parent)
    lines = [
        '"""Generated by python -m chunk_contract.integrations.mutation: '
        'the contract as mutmut\'s test suite."""',
        "",
        "import sys",
        "",
        "from chunk_contract.integrations.mutation.config import Budget",
        "from chunk_contract.integrations.mutation.suite import kill_test",
        "",
        "# The chunker's own folder, after the mutated copy: for the sibling modules it imports.",
        f"sys.path.append({folder!r})",
        "",
        f"BUDGET = Budget(**{asdict(budget)!r})",
        "",
    ]
    for i, target in enumerate(targets):
        name = re.sub(r"\W", "_", target.attr)
        lines += [
            f"# {target.spec}",
            f"test_{i}_{name} = kill_test(",
            f"    {target.scratch_target!r},",
            f"    expect_violated={expected[target.spec]!r},",
            "    budget=BUDGET,",
            ")",
            "",
        ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- mutmut


def _require_mutmut(args: argparse.Namespace) -> None:
    """A UsageError naming the extra when mutmut is needed (not --report-only) and missing."""
    if not args.report_only and _mutmut() is None:
        raise UsageError(MUTMUT_MISSING)


def _mutmut() -> str | None:
    """The mutmut executable next to this interpreter or on PATH, or None."""
    return shutil.which("mutmut", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                         os.environ.get("PATH", "")]))


def _run_mutmut(project: Path, max_children: int) -> None:
    """``mutmut run`` in ``project``; its spinner is condensed to a line every few seconds."""
    exe = _mutmut()
    if exe is None:
        raise UsageError(MUTMUT_MISSING)
    kills = project / "mutants" / KILLS_DIR
    kills.mkdir(parents=True, exist_ok=True)
    command = [exe, "run", "--max-children", str(max_children)]
    print(f"mutation: {' '.join(command)} (in {project})", flush=True)
    with subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          start_new_session=True) as process:
        assert process.stdout is not None
        reaper.register(process.pid, "mutmut")  # its group is killed on a signal or at exit
        try:
            bar = MutantBar(label="mutation testing", unit="mutant")
            with bar:
                _relay(process.stdout, bar)
            process.wait()
        finally:
            if process.poll() is None:  # interrupted: its mutants must not run on
                reaper.kill_group(process.pid)
            reaper.unregister(process.pid)
    if process.returncode != 0:
        raise UsageError(f"mutmut failed (exit {process.returncode}); its output is above")


#: mutmut's status line: ``<spinner> done/total  🎉 killed ... ⏰ timeouts ... 🙁 survived``
#: (a timeout kills the mutant, as in mutmut's own score).
_STATUS = re.compile(r"^\S (\d+)/(\d+)\s.*?\U0001f389 (\d+).*?\u23f0 (\d+).*?\U0001f641 (\d+)")
#: mutmut's other in-place lines (phases before the mutants run).
_PHASE = re.compile(r"^\S ((?:Running|Generating|Listing|Filtering)[^.]*)")


class MutantBar(ProgressBar):
    """The progress display of a mutation run: mutants done/total, killed and survived so far."""

    killed = 0
    survived = 0

    def line(self) -> str:
        """The common line, with the kills and survivors (which change no phase: no extra
        line in a log for each mutant)."""
        return f"{super().line()} · {self.killed} killed, {self.survived} survived"


def _relay(stream: Any, bar: MutantBar) -> list[str]:
    """Print mutmut's output lines; its in-place status line drives ``bar`` (mutants done of
    total, killed and survived so far). Returns the lines printed."""
    lines: list[str] = []
    pending = b""
    while data := stream.read1(4096):
        pending += data
        *parts, pending = re.split(rb"[\r\n]", pending)
        for raw in parts:
            text = raw.decode("utf-8", "replace").strip()
            if text and not status_line(text, bar):
                lines.append(text)
                print(f"  {text}", flush=True)
    return lines


def status_line(text: str, bar: MutantBar) -> bool:
    """Whether ``text`` is one of mutmut's status lines; if so, show it on ``bar``."""
    if found := _STATUS.match(text):
        done, total, killed, timeouts, survived = map(int, found.groups())
        bar.total = total or None
        bar.killed, bar.survived = killed + timeouts, survived
        bar.update(done, phase="testing mutants")
        return True
    if found := _PHASE.match(text):
        bar.update(phase=found.group(1).strip().lower())
        return True
    return bool(re.match(r"^\S \d+/\d+ ", text))


def _explain(project: Path, report: reports.Report, limit: int, report_only: bool) -> bool:
    """Gather evidence (chunk_contract.integrations.mutation.explain) on up to ``limit`` untriaged
    survivors that have none yet; True if it ran."""
    todo = [m.name for m in report.untriaged if m.evidence is None][:max(0, limit)]
    if not todo or report_only:
        return False
    print(f"mutation: comparing original and mutant outputs for {len(todo)} untriaged "
          "survivor(s) (--explain 0 turns this off)", flush=True)
    subprocess.run([sys.executable, "-m", "chunk_contract.integrations.mutation.explain", *todo],
                   cwd=project / "mutants", check=False)
    return True


# ----------------------------------------------------------------------------- reports


def _config(budget: Budget, settings: MutmutSettings | None,
            targets: list[str]) -> dict[str, object]:
    out: dict[str, object] = {"targets": targets, "budget": asdict(budget)}
    if settings is not None:
        out["mutmut"] = settings.table()
    return out


def _finish(report: reports.Report, folder: Path, started: float, report_only: bool) -> int:
    if not report.data.files:
        print("mutation: no results found (has mutmut run here?)", file=sys.stderr)
        return 2
    paths = reports.write(report, folder)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(paths["markdown"].read_text("utf-8") + "\n")
    score = report.score()
    print()
    print(f"mutation score: {'n/a' if score is None else f'{score:.1f}%'}; "
          f"{reports.summary_line(report)}")
    verdicts = report.verdict_counts()
    if verdicts:
        print("survivors: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    for mutant in report.untriaged[:20]:
        print(f"  not triaged: {report.display(mutant)}:{mutant.start.line} {mutant.function}: "
              f"{mutant.change}")
    if len(report.untriaged) > 20:
        print(f"  ... and {len(report.untriaged) - 20} more (see the reports)")
    if report.stale:
        print(f"note: {len(report.stale)} triage entries match no survivor any more")
    not_rerun = sum(1 for m in report.survivors if not m.rerun)
    if not_rerun:
        print(f"note: {not_rerun} survivors triaged equivalent or allowed were not re-run "
              "(--recheck re-runs them and finds entries the contract now kills)")
    if not report_only:
        print(f"time: {time.monotonic() - started:.0f} s")
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    if report.passed:
        return 0
    if report.fail_under is not None and (score or 0.0) < report.fail_under:
        print(f"FAILED: mutation score under {report.fail_under:g}%")
    if report.require_triage and report.untriaged:
        print(f"FAILED: {len(report.untriaged)} survivor(s) not triaged "
              f"(triage file: {report.triage.path})")
    return 1
