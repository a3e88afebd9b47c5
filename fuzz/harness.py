"""Coverage-guided fuzzing of any chunker plugin with atheris (libFuzzer), against the contract.

    python fuzz/harness.py TARGET [--seconds 60] [options] [-libfuzzer_flag=value ...]
    python fuzz/harness.py TARGET --convert ARTIFACT [ARTIFACT ...]
    python fuzz/harness.py TARGET --engine [-libfuzzer_flag=value ...] [CORPUS_DIR ...]

TARGET is a chunk-contract target (``path/to/file.py:attr``, ``package.module:attr`` or a
registered plugin name). Each fuzz input decodes (``chunk_input.decode``, total over all bytes)
into a document and a config, degenerate configs included.

Design: the plugin runs *in the fuzzing process*. libFuzzer only sees coverage of code that runs
in its own process, so the isolated worker that ``chunk-contract run`` uses would leave it blind.
The target's own modules (everything loading the target imported) are instrumented with
``atheris.instrument_func``; the contract's checks are not, so the search is steered by the
chunker's branches, not by ours. The invariants are the same code ``run`` uses: a
``contract.engine.session.Session`` on an in-process transport (``InProcessTransport``, the same
typed requests and checked replies as the fork worker), so config rules, ``no_crash``, reruns
for ``deterministic`` and token counts behave exactly as in a run. What the in-process run
cannot survive is left to libFuzzer: ``-timeout`` (a hang, even inside C code or in an
``except: pass`` loop) writes a ``timeout-*`` artifact, ``-rss_limit_mb`` an ``oom-*`` one, and
a dying interpreter (``os.abort()``, a segfault) a ``crash-*`` one; an invariant violation raises
:class:`ContractViolation` (its text names the invariant id and what was violated), which
libFuzzer also records as a ``crash-*`` artifact.

Every artifact is then *converted*: its bytes are decoded again, the case is re-run in the
isolated worker (``Session``, with the same time and memory limits) to confirm it, the document
is minimized, and a versioned reproducer JSON is written that ``chunk-contract replay`` re-runs.

Modes:

* default (driver): runs the engine in a child process for ``--seconds``, prints progress,
  converts what it found, prints a summary (executions, exec/s, findings with reproducer
  paths). Exit 0: nothing found; 1: findings (confirmed in the isolated worker: a failure
  the worker cannot reproduce is listed as unconfirmed and does not count); 2: usage error, or
  the fuzzer itself failed.
* ``--convert``: convert given artifacts (no atheris needed).
* ``--engine``: run libFuzzer in this process with exactly the flags given (what the driver
  starts, and what OSS-Fuzz-style ``fuzz_<chunker>.py`` targets do).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import queue
import re
import resource
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the sibling chunk_input module (it puts the checkout on the path)
    sys.path.insert(0, str(HERE))

from chunk_input import FuzzCase, decode  # noqa: E402

from contract.engine import reproducers  # noqa: E402
from contract.engine.session import Session  # noqa: E402
from contract.engine.targets import Plugin, TargetError  # noqa: E402
from contract.engine.targets import load_here as load  # noqa: E402  (fuzzing runs the plugin in-process)
from contract.engine.transport import InProcessTransport  # noqa: E402
from contract.errors import UsageError, one_line  # noqa: E402
from contract.spec.model import Violation, escape  # noqa: E402
from contract.spec.registry import registry  # noqa: E402

EXIT_CLEAN, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
ATHERIS_MISSING = (
    "chunk-contract's fuzzing needs atheris, which is not installed here: "
    "pip install 'chunk-contract[fuzz]' (atheris==3.0.0; Linux or macOS, CPython 3.11). "
    "Everything else in chunk-contract works without it."
)
DICTIONARY = HERE / "chunks.dict"
SEEDS = HERE / "corpus"
WORK = Path(".chunk-contract/fuzz")
REPRODUCERS = Path(".chunk-contract/reproducers")
#: libFuzzer's artifact names: ``<prefix><kind>-<sha1 of the input>``.
ARTIFACT = re.compile(r"(crash|timeout|oom|leak|slow-unit)-[0-9a-f]{40}$")
#: The line the engine writes every HEARTBEAT seconds, for the driver's progress display.
HEARTBEAT = 2.0
_HEARTBEAT_LINE = re.compile(r"^#chunk-contract execs=(\d+) seconds=([\d.]+)")
_STATUS_LINE = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_FINAL_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_WRITTEN = re.compile(r"Test unit written to (.+?)\s*$")


def require_atheris() -> Any:
    """The atheris module, or an ImportError that says how to install it."""
    try:
        import atheris
    except ImportError as exc:
        raise ImportError(ATHERIS_MISSING) from exc
    return atheris


# --------------------------------------------------------------------------- in-process target


def in_process_session(
    plugin: Plugin, *, timeout: float = 2.0, selected: Sequence[str] | None = None
) -> Session:
    """A Session (every invariant, or ``selected``) whose plugin calls run in this process."""
    chosen = list(registry()) if selected is None else list(selected)
    transport = InProcessTransport(plugin)
    return Session(plugin, timeout=timeout, memory_mb=None, selected=chosen, transport=transport)


class ContractViolation(Exception):
    """A fuzz input on which the plugin broke one or more invariants (raised in TestOneInput)."""

    def __init__(self, target: str, case: FuzzCase, violations: Sequence[Violation]) -> None:
        self.target = target
        self.case = case
        self.violations = list(violations)
        super().__init__(self.report())

    @property
    def invariants(self) -> list[str]:
        return sorted({v.invariant for v in self.violations})

    def report(self) -> str:
        lines = [f"{self.target} violates {', '.join(self.invariants)}"]
        for v in self.violations[:8]:
            first, *rest = v.message.splitlines() or [""]
            lines.append(f"  [{v.invariant}] {first}")
            lines.extend(f"      {line}" for line in rest[:6])
        if len(self.violations) > 8:
            lines.append(f"  ... and {len(self.violations) - 8} more")
        lines.append(
            f"  document = {escape(self.case.document, 200)} ({len(self.case.document)} codepoints)"
        )
        lines.append(f"  config   = {self.case.config.describe()}")
        return "\n".join(lines)


class FuzzTarget:
    """``TestOneInput`` for one plugin: decode, chunk in-process, check, raise on violation.

    ``ignore`` names invariants already reported (the driver fuzzing on): inputs that
    only break those pass. ``heartbeat`` makes it print an execution count every few seconds.
    """

    def __init__(
        self,
        plugin: Plugin,
        *,
        ignore: Iterable[str] = (),
        heartbeat: bool = False,
        timeout: float = 2.0,
        selected: Sequence[str] | None = None,
    ) -> None:
        if plugin.kind != "text":
            raise TargetError(
                f"{plugin.target}: {plugin.kind} plugins cannot be fuzzed yet "
                "(only text chunkers); use `chunk-contract run` for them"
            )
        self.plugin = plugin
        self.session = in_process_session(plugin, timeout=timeout, selected=selected)
        self.ignore = frozenset(ignore)
        self.heartbeat = heartbeat
        self.execs = 0
        self._started = time.monotonic()
        self._next_beat = self._started + HEARTBEAT

    def __call__(self, data: bytes) -> None:
        self.execs += 1
        if self.heartbeat and self.execs % 64 == 0:
            self._beat()
        case = decode(data)
        seen = self.session.observe(case.document, case.config)
        found = [v for v in seen.violations if v.invariant not in self.ignore]
        if found:
            raise ContractViolation(self.plugin.target, case, found)

    def _beat(self) -> None:
        now = time.monotonic()
        if now >= self._next_beat:
            self._next_beat = now + HEARTBEAT
            seconds = now - self._started
            sys.stderr.write(f"#chunk-contract execs={self.execs} seconds={seconds:.1f}\n")
            sys.stderr.flush()


def load_instrumented(target: str) -> tuple[Plugin, int]:
    """Load ``target`` and add atheris coverage instrumentation to the target's own code.

    Instrumented: every Python function of the modules that loading the target imported (the
    plugin file or module, its siblings, the third-party library an adapter wraps), and of the
    module defining the chunker. Not instrumented: the contract and what it had loaded already
    (its checks would steer the search toward our branches, not the chunker's), atheris, and
    the standard library. Returns the plugin and the number of functions instrumented.
    """
    import sysconfig

    atheris = require_atheris()
    registry()  # imports every invariant (and what they use) before the snapshot below
    import contract.spec.placement  # noqa: F401

    before = set(sys.modules)
    plugin = load(target)
    fresh = {name for name in sys.modules if name not in before}
    owner = getattr(plugin.split, "__module__", None)
    if owner:
        fresh.add(owner)
    stdlib = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib")}

    def wanted(name: str) -> bool:
        if name.split(".")[0] in ("atheris", "chunk_input", "harness") or name == "__main__":
            return False
        where = getattr(sys.modules.get(name), "__file__", None) or ""
        in_stdlib = any(where.startswith(folder + os.sep) for folder in stdlib)
        return name == owner or not (in_stdlib and "site-packages" not in where)

    fresh = {name for name in fresh if wanted(name)}
    count = 0
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__module__ in fresh:
            try:
                atheris.instrument_func(obj)
                count += 1
            except Exception:
                pass
    return plugin, count


def prepare(
    target: str,
    *,
    ignore: Iterable[str] = (),
    heartbeat: bool = False,
    timeout: float = 2.0,
    selected: Sequence[str] | None = None,
) -> FuzzTarget:
    """Load and instrument ``target``; the returned object is its ``TestOneInput``."""
    plugin, _ = load_instrumented(target)
    return FuzzTarget(
        plugin, ignore=ignore, heartbeat=heartbeat, timeout=timeout, selected=selected
    )


def fuzz_main(target: str, argv: Sequence[str] | None = None, **options: Any) -> None:
    """``main()`` of a libFuzzer target for ``target``: Setup with ``argv``, then Fuzz."""
    atheris = require_atheris()
    test_one_input = prepare(target, **options)
    atheris.Setup(list(sys.argv if argv is None else argv), test_one_input)
    atheris.Fuzz()


# --------------------------------------------------------------------------- conversion


@dataclass
class Finding:
    """One artifact, converted: the invariant it breaks and where its reproducer is."""

    artifact: str
    kind: str
    invariant: str | None
    message: str
    document: str
    config: str
    reproducer: str | None = None
    confirmed: bool = True


def artifact_kind(path: Path) -> str:
    found = ARTIFACT.search(path.name)
    return found.group(1) if found else "crash"


def _pick(violations: Sequence[Violation], kind: str) -> list[str]:
    ids = [i for i in registry() if any(v.invariant == i for v in violations)]
    if kind in ("timeout", "oom"):  # what libFuzzer saw first is what matters most
        ids.sort(key=lambda i: i not in ("terminates", "config_validation"))
    return ids


def convert(
    plugin: Plugin,
    artifact: Path,
    *,
    timeout: float = 2.0,
    memory_mb: int | None = 2048,
    folder: Path = REPRODUCERS,
    skip: Iterable[str] = (),
    selected: Sequence[str] | None = None,
    minimize_seconds: float = 5.0,
) -> list[Finding]:
    """Confirm one libFuzzer artifact in the isolated worker and save reproducers for it.

    Returns one Finding per violated invariant (minus ``skip``), each with its reproducer; or
    one unconfirmed Finding (no reproducer) if the worker does not see the failure again.
    """
    from contract.engine.minimize import minimize

    kind = artifact_kind(artifact)
    case = decode(artifact.read_bytes())
    shown = escape(case.document, 120)
    findings: list[Finding] = []
    chosen = list(registry()) if selected is None else list(selected)
    with Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=chosen) as session:
        seen = session.observe(case.document, case.config, timeout=timeout)
        rules = [i for i in _pick(seen.violations, kind) if i not in set(skip)]
        for rule in rules:

            def fails(document: str, rule: str = rule) -> bool:
                quick = session.observe(
                    document, case.config, only=rule, timeout=session.quick_timeout()
                )
                return bool(quick.of(rule))

            document = minimize(case.document, fails, seconds=minimize_seconds)
            again = session.observe(document, case.config, only=rule, timeout=timeout)
            if not again.of(rule):
                document, again = case.document, seen
            message = again.of(rule)[0].message
            path = reproducers.save(
                reproducers.Reproducer(
                    target=plugin.target,
                    invariant=rule,
                    document=document,
                    config=case.config,
                    message=message,
                    kind=plugin.kind,
                    timeout=timeout,
                    memory_mb=memory_mb,
                    chunks=again.records,
                ),
                folder,
            )
            findings.append(
                Finding(
                    str(artifact),
                    kind,
                    rule,
                    message,
                    escape(document, 120),
                    case.config.describe(),
                    str(path),
                )
            )
    if not findings and seen.violations and not rules:
        return []  # it only shows invariants in ``skip``: already reported
    if not findings:
        why = {
            "timeout": f"every call finished within {timeout:g} s in the isolated worker: the "
            "input may be slow (the fuzzer also times reruns and checks), not hung",
            "oom": f"the isolated worker stayed under {memory_mb} MiB on it",
        }.get(
            kind,
            "the isolated worker saw no violation on it (only those already reported, "
            "or a failure that depends on state left by earlier inputs)",
        )
        findings.append(
            Finding(
                str(artifact),
                kind,
                None,
                f"not confirmed: {why}",
                shown,
                case.config.describe(),
                None,
                confirmed=False,
            )
        )
    return findings


# --------------------------------------------------------------------------- the driver


@dataclass
class RunStats:
    """What the driver learned from libFuzzer's output."""

    execs: int = 0
    seconds: float = 0.0
    coverage: int = 0
    features: int = 0
    corpus: int = 0
    cpu_seconds: float = 0.0
    runs: int = 0
    exit_codes: list[int] = field(default_factory=list)
    artifacts: list[Path] = field(default_factory=list)

    @property
    def exec_per_sec(self) -> float:
        return self.execs / self.seconds if self.seconds > 0 else 0.0


@dataclass
class Summary:
    target: str
    seconds: float
    execs: int
    exec_per_sec: float
    cpu_seconds: float
    coverage: int
    corpus: int
    findings: list[Finding]
    log: str
    rounds: int = 1
    repeats: int = 0

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["findings"] = [asdict(f) for f in self.findings]
        return data


def _slug(target: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", target).strip("-") or "target"


def _libfuzzer_flags(
    args: argparse.Namespace, extra: Sequence[str], seconds: float, artifacts: Path
) -> list[str]:
    flags = {
        "timeout": str(max(1, math.ceil(args.timeout))),
        "rss_limit_mb": str(args.rss_limit_mb),
        "max_len": str(args.max_len),
        "max_total_time": str(max(1, math.ceil(seconds))),
        "artifact_prefix": f"{artifacts}{os.sep}",
        "print_final_stats": "1",
    }
    if args.dict and Path(args.dict).is_file():
        flags["dict"] = str(args.dict)
    for flag in extra:  # the user's own libFuzzer flags win
        name, _, value = flag.lstrip("-").partition("=")
        flags[name] = value
    return [f"-{name}={value}" for name, value in flags.items()]


def _seed_dirs(args: argparse.Namespace) -> list[Path]:
    if args.no_seeds:
        return []
    if args.seeds:
        return [Path(s) for s in args.seeds]
    folders = sorted(p for p in SEEDS.iterdir() if p.is_dir()) if SEEDS.is_dir() else []
    # a reference chunker gets its own folder; any other target gets them all
    where = args.target.rpartition(":")[0]
    stem = Path(where).stem if where.endswith(".py") else where.rpartition(".")[2]
    own = [p for p in folders if p.name == stem]
    return own or folders


def _progress(stats: RunStats, base: RunStats, started: float, findings: int) -> str:
    execs = base.execs + stats.execs
    elapsed = time.monotonic() - started
    rate = execs / elapsed if elapsed > 0 else 0.0
    return (
        f"[fuzz] {elapsed:5.0f} s  {execs:>10,} execs  {rate:>7,.0f}/s  "
        f"cov {stats.coverage}  corpus {stats.corpus}  findings {findings}"
    )


def _engine_run(
    args: argparse.Namespace,
    flags: list[str],
    dirs: list[Path],
    ignore: set[str],
    log: Any,
    deadline: float,
    started: float,
    base: RunStats,
    findings: int,
) -> RunStats:
    """One libFuzzer child, until it stops (time up, or a finding); its output goes to ``log``."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        args.target,
        "--engine",
        "--timeout",
        str(args.timeout),
        "--only",
        args.only,
        "--skip",
        args.skip,
    ]
    if ignore:
        command += ["--ignore", ",".join(sorted(ignore))]
    command += flags + [str(d) for d in dirs]
    log.write(f"$ {' '.join(command)}\n")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        bufsize=1,
        text=True,
        errors="replace",
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    stats = RunStats(runs=1)
    run_started = time.monotonic()
    last_print = time.monotonic()
    hard_stop = deadline + args.timeout + 30  # libFuzzer stops itself; this is a safety net
    try:
        while True:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                line = ""
            if line is None:
                break
            if line:
                log.write(line)
                _parse(line, stats)
                if args.verbose:
                    sys.stderr.write(line)
            now = time.monotonic()
            if not args.verbose and not args.quiet and now - last_print >= args.progress:
                last_print = now
                print(_progress(stats, base, started, findings), file=sys.stderr, flush=True)
            if now > hard_stop:
                log.write("chunk-contract: the fuzzer overran its time; stopping it\n")
                os.killpg(child.pid, signal.SIGKILL)
        code = child.wait()
    except BaseException:
        _stop(child)
        raise
    stats.exit_codes.append(code)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stats.cpu_seconds = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    if not stats.seconds:
        stats.seconds = time.monotonic() - run_started
    return stats


def _stop(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def _parse(line: str, stats: RunStats) -> None:
    if m := _HEARTBEAT_LINE.match(line):
        stats.execs = max(stats.execs, int(m.group(1)))
    elif m := _STATUS_LINE.match(line):
        stats.execs = max(stats.execs, int(m.group(1)))
        stats.coverage, stats.features, stats.corpus = (int(m.group(i)) for i in (3, 4, 5))
    elif m := _WRITTEN.search(line):
        stats.artifacts.append(Path(m.group(1)))
    elif m := _FINAL_STAT.match(line):
        name, value = m.group(1), int(m.group(2))
        if name == "number_of_executed_units":
            stats.execs = value
        elif name == "average_exec_per_sec" and value:
            stats.seconds = stats.execs / value if stats.execs else 0.0


#: Rounds in a row that may end in a finding already reported before the driver gives up.
STALE_ROUNDS = 2


def _seed_corpus(corpus: Path, seed_dirs: Sequence[Path]) -> int:
    """Copy seed files into the working corpus, named like libFuzzer names its own inputs.

    One corpus folder (rather than the seed folders next to it) lets the driver drop an input
    that kills the process, so the next round can get past it; the seeds stay untouched.
    """
    import hashlib

    copied = 0
    for folder in seed_dirs:
        for seed in sorted(folder.iterdir()) if folder.is_dir() else []:
            if seed.is_file():
                data = seed.read_bytes()
                target = corpus / hashlib.sha1(data).hexdigest()
                if not target.exists():
                    target.write_bytes(data)
                    copied += 1
    return copied


def _in_process(finding: Finding) -> bool:
    """Whether the harness can skip this invariant in-process (it was an exception there)."""
    return (
        finding.kind == "crash"
        and finding.invariant not in (None, "terminates")
        and "worker process died" not in finding.message
    )


def drive(args: argparse.Namespace, extra: Sequence[str]) -> int:
    """Fuzz for ``args.seconds``, convert every artifact, print the summary.

    libFuzzer stops at its first finding, so the driver runs it in rounds: after a finding it
    starts the engine again for the time left, with the invariants found so far ignored
    in-process (an invariant violation is an exception there) and the input that stopped it
    removed from the working corpus (a hang, an OOM or a dead interpreter cannot be ignored
    in-process). It stops when time is up, with ``--stop-first``, or after STALE_ROUNDS rounds
    in a row that found nothing new.
    """
    plugin = _text_plugin(args.target)  # a bad target is a usage error, before any child starts
    selected = _selected(args)  # so are unknown invariant ids
    require_atheris()
    work = WORK / _slug(args.target)
    corpus = Path(args.corpus) if args.corpus else work / "corpus"
    artifacts = Path(args.artifacts) if args.artifacts else work / "artifacts"
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    log_path = Path(args.log) if args.log else work / "fuzz.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    seeded = _seed_corpus(corpus, _seed_dirs(args))
    started = time.monotonic()
    deadline = started + args.seconds
    total = RunStats()
    findings: list[Finding] = []
    repeats = 0
    ignore: set[str] = set()  # invariants the in-process harness no longer raises on
    stale = 0
    if not args.quiet:
        print(
            f"[fuzz] {args.target}: {args.seconds:g} s, timeout {args.timeout:g} s, "
            f"rss limit {args.rss_limit_mb} MiB, max_len {args.max_len}; corpus {corpus} "
            f"(+{seeded} seeds); log {log_path}",
            file=sys.stderr,
            flush=True,
        )
    with log_path.open("w", encoding="utf-8") as log:
        while True:
            flags = _libfuzzer_flags(args, extra, deadline - time.monotonic(), artifacts)
            stats = _engine_run(
                args, flags, [corpus], ignore, log, deadline, started, total, len(findings)
            )
            total.execs += stats.execs
            total.seconds += stats.seconds
            total.cpu_seconds += stats.cpu_seconds
            total.runs += 1
            total.coverage = max(total.coverage, stats.coverage)
            total.corpus = max(total.corpus, stats.corpus)
            total.exit_codes += stats.exit_codes
            new = [p for p in stats.artifacts if p.is_file()]  # the same input, the same name
            if stats.exit_codes[-1] != 0 and not new:
                log.flush()
                tail = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
                print(
                    f"[fuzz] the fuzzer exited with code {stats.exit_codes[-1]} without "
                    f"writing an artifact; the end of {log_path}:\n{tail}",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            known = {f.invariant for f in findings if f.invariant}
            fresh: list[Finding] = []
            for artifact in new:
                (corpus / artifact.name.rpartition("-")[2]).unlink(missing_ok=True)
                if not args.quiet:
                    print(
                        f"[fuzz] {artifact_kind(artifact)} artifact {artifact}: confirming it "
                        "in the isolated worker, minimizing it",
                        file=sys.stderr,
                        flush=True,
                    )
                found = convert(
                    plugin,
                    artifact,
                    timeout=args.timeout,
                    memory_mb=args.rss_limit_mb,
                    folder=Path(args.reproducers),
                    skip=known,
                    selected=selected,
                )
                repeats += not found
                fresh += found
                known |= {f.invariant for f in found if f.invariant}
            findings += fresh
            ignore |= {f.invariant for f in fresh if f.invariant and _in_process(f)}
            stale = 0 if any(f.confirmed for f in fresh) else stale + 1
            if (
                not new
                or args.stop_first
                or stale >= STALE_ROUNDS
                or deadline - time.monotonic() < 2
            ):
                break
            if not args.quiet:
                print(
                    "[fuzz] fuzzing on"
                    + (f", ignoring {', '.join(sorted(ignore))}" if ignore else ""),
                    file=sys.stderr,
                    flush=True,
                )
    summary = Summary(
        args.target,
        time.monotonic() - started,
        total.execs,
        total.exec_per_sec,
        total.cpu_seconds,
        total.coverage,
        total.corpus,
        findings,
        str(log_path),
        rounds=total.runs,
        repeats=repeats,
    )
    print(render(summary))
    if args.summary_json:
        reproducers.write_atomic(Path(args.summary_json), summary.as_json())
    return EXIT_FOUND if any(f.confirmed for f in findings) else EXIT_CLEAN


def _per_cpu(summary: Summary) -> str:
    if summary.cpu_seconds <= 0:
        return "?"
    return f"{summary.execs / summary.cpu_seconds:,.0f}"


def render(summary: Summary) -> str:
    lines = [
        f"chunk-contract fuzz: {summary.target}",
        f"  {summary.seconds:.1f} s, {summary.execs:,} executions, "
        f"{summary.exec_per_sec:,.0f} exec/s ({_per_cpu(summary)} per CPU-second), "
        f"coverage {summary.coverage} edges, corpus {summary.corpus} inputs",
    ]
    confirmed = [f for f in summary.findings if f.confirmed]
    unconfirmed = [f for f in summary.findings if not f.confirmed]
    lines.append(f"  {len(confirmed)} finding(s):" if confirmed else "  no findings")
    lines += _finding_lines(confirmed)
    if unconfirmed:
        lines.append(
            f"  {len(unconfirmed)} unconfirmed (seen by the fuzzer, not again in the "
            "isolated worker; no reproducer, not a failure):"
        )
        lines += _finding_lines(unconfirmed)
    if summary.repeats:
        lines.append(
            f"  ({summary.repeats} more artifact(s) showed only invariants already reported)"
        )
    lines.append(f"  log: {summary.log} ({summary.rounds} libFuzzer run(s))")
    return "\n".join(lines)


def _finding_lines(findings: Sequence[Finding]) -> list[str]:
    lines = []
    for f in findings:
        lines.append(f"  - {f.invariant or 'unconfirmed'} ({f.kind} artifact)")
        lines.append(f"      {(f.message.splitlines() or [''])[0]}")
        lines.append(f"      document = {f.document}")
        lines.append(f"      config   = {f.config}")
        if f.reproducer:
            lines.append(f"      reproduce: chunk-contract replay {f.reproducer}")
        lines.append(f"      artifact:  {f.artifact}")
    return lines


# --------------------------------------------------------------------------- command line


def _split_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """libFuzzer flags (``-name=value``) apart from the harness's own arguments."""
    ours: list[str] = []
    theirs: list[str] = []
    for arg in argv:
        (theirs if re.match(r"^-[A-Za-z_]+=", arg) else ours).append(arg)
    return ours, theirs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fuzz/harness.py",
        description="Coverage-guided fuzzing of a chunker against the contract (atheris). "
        "libFuzzer flags (-name=value) are passed through.",
    )
    parser.add_argument("target", help="file.py:attr, module:attr or a plugin name")
    parser.add_argument(
        "paths",
        nargs="*",
        help="with --convert: artifacts; with --engine: corpus dirs or inputs for libFuzzer",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="fuzzing time (default 60)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        help="seconds per input before it counts as a hang (default 2)",
    )
    parser.add_argument(
        "--rss-limit-mb", type=int, default=2048, help="memory limit in MiB (default 2048)"
    )
    parser.add_argument(
        "--max-len", type=int, default=4096, help="longest fuzz input in bytes (default 4096)"
    )
    parser.add_argument("--corpus", help=f"working corpus (default {WORK}/<target>/corpus)")
    parser.add_argument(
        "--seeds",
        action="append",
        metavar="DIR",
        help=f"seed corpus dirs (default: every folder in {SEEDS.name}/)",
    )
    parser.add_argument("--no-seeds", action="store_true", help="start from an empty corpus")
    parser.add_argument("--dict", default=str(DICTIONARY), help="libFuzzer dictionary")
    parser.add_argument("--artifacts", help=f"artifact folder (default {WORK}/<target>/artifacts)")
    parser.add_argument(
        "--reproducers",
        default=str(REPRODUCERS),
        help="where reproducers are saved (default %(default)s)",
    )
    parser.add_argument("--log", help="libFuzzer's full output (default next to the corpus)")
    parser.add_argument("--summary-json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument(
        "--stop-first",
        action="store_true",
        help="stop at the first finding (default: after an invariant violation, "
        "keep fuzzing for the other invariants until time is up)",
    )
    parser.add_argument(
        "--progress", type=float, default=5.0, help="seconds between progress lines (default 5)"
    )
    parser.add_argument("--verbose", action="store_true", help="show libFuzzer's own output")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument(
        "--convert",
        action="store_true",
        help="convert the given artifacts into reproducers, then exit",
    )
    parser.add_argument(
        "--engine", action="store_true", help="run libFuzzer in this process with the flags given"
    )
    parser.add_argument("--only", default="", metavar="ID,...", help="check only these invariants")
    parser.add_argument(
        "--skip", default="", metavar="ID,...", help="do not check these invariants"
    )
    parser.add_argument("--ignore", default="", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    ours, extra = _split_flags(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_intermixed_args(ours)
    try:
        if args.engine:
            ignore = [i for i in args.ignore.split(",") if i]
            fuzz_main(
                args.target,
                [sys.argv[0], *extra, *args.paths],
                ignore=ignore,
                heartbeat=True,
                timeout=args.timeout,
                selected=_selected(args),
            )
            return EXIT_CLEAN  # not reached: libFuzzer exits the process
        if args.convert:
            return _convert_command(args)
        return drive(args, extra)
    except UsageError as exc:  # the one root of user-facing errors (unknown ids included)
        print(f"fuzz/harness.py: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:  # a target whose module (or library) is missing
        print(f"fuzz/harness.py: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fuzz/harness.py: interrupted", file=sys.stderr)
        return 130


def _text_plugin(target: str) -> Plugin:
    plugin = load(target)
    if plugin.kind != "text":
        raise TargetError(
            f"{target}: {plugin.kind} plugins cannot be fuzzed yet (only text "
            "chunkers); use `chunk-contract run` for them"
        )
    return plugin


def _ids(text: str) -> list[str]:
    return [i.strip() for i in text.split(",") if i.strip()]


def _selected(args: argparse.Namespace) -> list[str]:
    """The invariants chosen by --only / --skip (all by default); KeyError for unknown ids."""
    from contract.spec.registry import select

    return select(_ids(args.only), _ids(args.skip))


def _convert_command(args: argparse.Namespace) -> int:
    if not args.paths:
        raise TargetError("--convert needs at least one artifact file")
    plugin = _text_plugin(args.target)
    findings = []
    for path in map(Path, args.paths):
        if not path.is_file():
            raise TargetError(f"{path}: no such artifact file")
        findings += convert(
            plugin,
            path,
            timeout=args.timeout,
            memory_mb=args.rss_limit_mb,
            folder=Path(args.reproducers),
            selected=_selected(args),
        )
    for f in findings:
        status = f"{f.invariant}: {f.reproducer}" if f.reproducer else "unconfirmed"
        print(f"{f.artifact}: {status}\n    {f.message.splitlines()[0] if f.message else ''}")
    return EXIT_FOUND if any(f.confirmed for f in findings) else EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())


def entry_points(target: str) -> tuple[Callable[[bytes], None], Callable[[], None]]:
    """``(TestOneInput, main)`` for one OSS-Fuzz style fuzz target file naming ``target``.

    atheris is required at once (an ImportError with install instructions if missing); the
    chunker is loaded and instrumented by ``main()`` before fuzzing starts, or lazily by the
    first input, so a target file imports even while its chunker is being written.
    """
    atheris = require_atheris()
    check: list[FuzzTarget] = []

    def test_one_input(data: bytes) -> None:
        """Decode ``data`` into a document and a config, chunk it, check every invariant."""
        if not check:
            check.append(prepare(target))
        check[0](data)

    def main() -> None:
        if not check:
            check.append(prepare(target))
        atheris.Setup(sys.argv, test_one_input)
        atheris.Fuzz()

    return test_one_input, main
