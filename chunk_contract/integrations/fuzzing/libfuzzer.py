"""The libFuzzer driver (atheris): engine children in rounds, progress, artifacts converted.

The engine runs in a child process (``--engine``, this package's CLI) with every libFuzzer limit
set: ``-timeout`` (a hang, even inside C code, writes ``timeout-*``), ``-rss_limit_mb``
(``oom-*``), a dying interpreter or an invariant violation (:class:`~chunk_contract.integrations.
fuzzing.target.ContractViolation`) ``crash-*``. libFuzzer stops at its first finding, so the
driver runs it in rounds: after a finding it starts the engine again for the time left, with the
invariants found so far ignored in-process and the input that stopped it removed from the
working corpus, and stops when time is up, with ``--stop-first``, or after STALE_ROUNDS rounds
in a row that found nothing new.
"""

from __future__ import annotations

import contextlib
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from chunk_contract.config import plugins
from chunk_contract.containment import reaper
from chunk_contract.integrations.fuzzing.artifacts import Finding, artifact_kind, convert
from chunk_contract.integrations.fuzzing.options import (
    FuzzOptions,
    Summary,
    seed_corpus,
    seed_dirs,
)
from chunk_contract.integrations.fuzzing.target import prepare, require_atheris
from chunk_contract.reporting.progress import ProgressBar
from chunk_contract.transport.targets import Plugin

#: Rounds in a row that may end in a finding already reported before the driver gives up.
STALE_ROUNDS = 2
_HEARTBEAT_LINE = re.compile(r"^#chunk-contract execs=(\d+) seconds=([\d.]+)")
_STATUS_LINE = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_FINAL_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_WRITTEN = re.compile(r"Test unit written to (.+?)\s*$")
#: How the driver starts an engine child: this package's CLI in ``--engine`` mode.
_ENGINE = "from chunk_contract.integrations.fuzzing.cli import main; raise SystemExit(main())"


class EngineFailed(Exception):
    """libFuzzer exited with an error and wrote no artifact (exit 2, with its log's end)."""


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
        """Executions per second of wall time."""
        return self.execs / self.seconds if self.seconds > 0 else 0.0

    def add(self, other: RunStats) -> None:
        """Fold one engine run into the total."""
        self.execs += other.execs
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds
        self.runs += 1
        self.coverage = max(self.coverage, other.coverage)
        self.corpus = max(self.corpus, other.corpus)
        self.exit_codes += other.exit_codes


def fuzz_main(target: str, argv: Sequence[str] | None = None, **options: Any) -> None:
    """``main()`` of a libFuzzer target for ``target``: Setup with ``argv``, then Fuzz."""
    atheris = require_atheris()
    test_one_input = prepare(target, **options)
    atheris.Setup(list(sys.argv if argv is None else argv), test_one_input)
    atheris.Fuzz()


def entry_points(target: str) -> tuple[Callable[[bytes], None], Callable[[], None]]:
    """``(TestOneInput, main)`` for one OSS-Fuzz style fuzz target file naming ``target``.

    atheris is required at once (an ImportError with install instructions if missing); the
    chunker is loaded and instrumented by ``main()`` before fuzzing starts, or lazily by the
    first input, so a target file imports even while its chunker is being written.
    """
    atheris = require_atheris()
    check: list[Callable[[bytes], None]] = []

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


class Driver:
    """One ``chunk-contract fuzz`` run of a Python target with libFuzzer."""

    def __init__(self, options: FuzzOptions, plugin: Plugin, selected: list[str],
                 *, bar: ProgressBar | None = None) -> None:
        """Make the working folders; nothing runs yet. ``bar``: the progress display."""
        self.options, self.plugin, self.selected = options, plugin, selected
        for folder in (options.corpus_dir, options.artifact_dir, options.log_path.parent):
            folder.mkdir(parents=True, exist_ok=True)
        self.total = RunStats()
        self.findings: list[Finding] = []
        self.repeats = 0
        self.ignore: set[str] = set()  # invariants the in-process target no longer raises on
        self.started = time.monotonic()
        self.deadline = self.started + options.seconds
        self.bar = bar or ProgressBar(label=f"fuzzing {options.target}", unit="input",
                                      budget_s=options.seconds,
                                      quiet=options.quiet or options.verbose,
                                      every=options.progress)

    def run(self) -> Summary:
        """Fuzz in rounds until done; the summary (artifacts converted)."""
        seeded = seed_corpus(self.options.corpus_dir, seed_dirs(self.options))
        self._say(f"{self.options.seconds:g} s, timeout {self.options.timeout:g} s, rss limit "
                  f"{self.options.rss_limit_mb} MiB, max_len {self.options.max_len}; corpus "
                  f"{self.options.corpus_dir} (+{seeded} seeds); log {self.options.log_path}")
        with self.options.log_path.open("w", encoding="utf-8") as log, self.bar:
            stale = 0
            while True:
                stats = self._engine_run(log)
                self.total.add(stats)
                fresh = self._convert(stats, log)
                stale = 0 if any(f.confirmed for f in fresh) else stale + 1
                if self._done(stats, stale):
                    break
                self._say("fuzzing on" + (f", ignoring {', '.join(sorted(self.ignore))}"
                                          if self.ignore else ""))
        return self._summary()

    def _done(self, stats: RunStats, stale: int) -> bool:
        return (not stats.artifacts or self.options.stop_first or stale >= STALE_ROUNDS
                or self.deadline - time.monotonic() < 2)

    def _convert(self, stats: RunStats, log: IO[str]) -> list[Finding]:
        """Convert this round's artifacts; the new findings."""
        new = [p for p in stats.artifacts if p.is_file()]  # the same input, the same name
        if stats.exit_codes[-1] != 0 and not new:
            log.flush()
            tail = self.options.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
            raise EngineFailed(f"the fuzzer exited with code {stats.exit_codes[-1]} without "
                               f"writing an artifact; the end of {self.options.log_path}:\n{tail}")
        stats.artifacts = new
        known = {f.invariant for f in self.findings if f.invariant}
        fresh: list[Finding] = []
        for artifact in new:
            (self.options.corpus_dir / artifact.name.rpartition("-")[2]).unlink(missing_ok=True)
            self._say(f"{artifact_kind(artifact)} artifact {artifact}: confirming it in the "
                      "isolated worker, minimizing it")
            found = self._convert_one(artifact, known)
            self.repeats += not found
            fresh += found
            known |= {f.invariant for f in found if f.invariant}
        self.findings += fresh
        self.ignore |= {f.invariant for f in fresh if f.invariant and _in_process(f)}
        return fresh

    def _convert_one(self, artifact: Path, known: set[str]) -> list[Finding]:
        return convert(self.plugin, artifact, timeout=self.options.timeout,
                       memory_mb=self.options.rss_limit_mb,
                       folder=Path(self.options.reproducers), skip=known,
                       selected=self.selected)

    def _summary(self) -> Summary:
        t = self.total
        return Summary(self.options.target, time.monotonic() - self.started, t.execs,
                       t.exec_per_sec, t.cpu_seconds, t.coverage, t.corpus, self.findings,
                       str(self.options.log_path), rounds=t.runs, repeats=self.repeats)

    def _say(self, text: str) -> None:
        if not self.options.quiet:
            self.bar.close()  # clears a bar drawn on a terminal; the next update redraws it
            print(f"[fuzz] {self.options.target}: {text}", file=sys.stderr, flush=True)

    def _command(self) -> list[str]:
        flags = libfuzzer_flags(self.options, self.deadline - time.monotonic())
        command = [sys.executable, "-c", _ENGINE, self.options.target, "--engine",
                   "--timeout", str(self.options.timeout), "--only", self.options.only,
                   "--skip", self.options.skip]
        if self.ignore:
            command += ["--ignore", ",".join(sorted(self.ignore))]
        return command + flags + [str(self.options.corpus_dir)]

    def _engine_run(self, log: IO[str]) -> RunStats:
        """One libFuzzer child, until it stops (time up, or a finding); its output to ``log``."""
        command = self._command()
        log.write(f"$ {' '.join(command)}\n")
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True, bufsize=1, text=True, errors="replace",
                                 env=_child_env())
        reaper.register(child.pid, "the libFuzzer engine")  # killed on a signal or at exit
        started = time.monotonic()
        try:
            stats = self._follow(child, log)
        except BaseException:
            stop(child)
            raise
        finally:
            reaper.unregister(child.pid)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        stats.cpu_seconds = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
        stats.seconds = stats.seconds or time.monotonic() - started
        return stats

    def _follow(self, child: subprocess.Popen[str], log: IO[str]) -> RunStats:
        """Read the child's output until it exits; kill it if it overruns its time."""
        lines = _pump(child)
        stats = RunStats(runs=1)
        hard_stop = self.deadline + self.options.timeout + 30  # a safety net
        while (line := _next(lines)) is not None:
            if line:
                log.write(line)
                parse(line, stats)
                if self.options.verbose:
                    sys.stderr.write(line)
            self.bar.update(self.total.execs + stats.execs, violations=len(self.findings))
            if time.monotonic() > hard_stop:
                log.write("chunk-contract: the fuzzer overran its time; stopping it\n")
                stop(child)
        stats.exit_codes.append(child.wait())
        return stats


def _pump(child: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """The child's output lines in a queue (None at the end), read by a daemon thread."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _next(lines: queue.Queue[str | None]) -> str | None:
    """The next line, ``""`` if none came within half a second, None at the end."""
    try:
        return lines.get(timeout=0.5)
    except queue.Empty:
        return ""


def _child_env() -> dict[str, str]:
    """The environment of an engine child: this ``chunk_contract`` package first on its path, and
    the plugin modules of this run named (chunk_contract.config.plugins)."""
    root = str(Path(__file__).resolve().parents[3])
    env = plugins.child_environment()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def libfuzzer_flags(options: FuzzOptions, seconds: float) -> list[str]:
    """The engine's libFuzzer flags: every limit set, the user's own ``-name=value`` winning."""
    flags = {
        "timeout": str(max(1, math.ceil(options.timeout))),
        "rss_limit_mb": str(options.rss_limit_mb),
        "max_len": str(options.max_len),
        "max_total_time": str(max(1, math.ceil(seconds))),
        "artifact_prefix": f"{options.artifact_dir}{os.sep}",
        "print_final_stats": "1",
    }
    if options.dict and Path(options.dict).is_file():
        flags["dict"] = str(options.dict)
    for flag in options.libfuzzer:
        name, _, value = flag.lstrip("-").partition("=")
        flags[name] = value
    return [f"-{name}={value}" for name, value in flags.items()]


def stop(child: subprocess.Popen[str]) -> None:
    """Kill the child's whole process group, and reap it."""
    if child.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def parse(line: str, stats: RunStats) -> None:
    """Update ``stats`` from one line of libFuzzer's (or our heartbeat's) output."""
    if m := _HEARTBEAT_LINE.match(line):
        stats.execs = max(stats.execs, int(m.group(1)))
    elif m := _STATUS_LINE.match(line):
        stats.execs = max(stats.execs, int(m.group(1)))
        stats.coverage, stats.features, stats.corpus = (int(m.group(i)) for i in (3, 4, 5))
    elif m := _WRITTEN.search(line):
        stats.artifacts.append(Path(m.group(1)))
    elif m := _FINAL_STAT.match(line):
        _final_stat(m.group(1), int(m.group(2)), stats)


def _final_stat(name: str, value: int, stats: RunStats) -> None:
    if name == "number_of_executed_units":
        stats.execs = value
    elif name == "average_exec_per_sec" and value:
        stats.seconds = stats.execs / value if stats.execs else 0.0


def _in_process(finding: Finding) -> bool:
    """Whether the engine can skip this invariant in-process (it was an exception there)."""
    return (
        finding.kind == "crash"
        and finding.invariant not in (None, "terminates")
        and "worker process died" not in finding.message
    )
