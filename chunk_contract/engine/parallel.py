"""``run -n N``: split one run's examples over N processes and merge their verdicts.

Each process runs the whole contract (explore, shrink, save reproducers) with its own share of
the examples and its own seed, derived from the run's seed, so ``--seed`` still repeats a
parallel run exactly. The fresh-interpreter rerun, the seed corpus and the covering schedule
(whose coverage the merge keeps) are the first process's; the ``scales_linearly`` timing probe
gets a process of its own, beside the exploring ones (it measures CPU time, so sharing the
cores does not change its verdict). The merge keeps, for every
invariant, ``violated`` if any process saw a violation (the counterexample with the smallest
document wins), else ``passed`` if any process exercised it, else ``skipped``.

Containment: each pool process is forked by the host, leads a process group of its own (made
from both sides, so no signal falls between fork and registration), is registered with
:mod:`chunk_contract.containment.reaper`, is non-dumpable, and gets PR_SET_PDEATHSIG=SIGTERM, on
which it kills what it registered and its own group. It runs plugin code beneath it, so what it
sends is never unpickled: its progress and its result come back as length-framed JSON
(:mod:`chunk_contract.containment.framing`, :mod:`chunk_contract.engine.resultcodec`) over a pipe of
its own, and a malformed message is that process's failure. A signal to the host, or a pool process
that dies or fails, ends the run with a result marked interrupted that merges the processes
that finished.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import signal
import time
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from chunk_contract.containment import framing, reaper
from chunk_contract.engine import findings, resultcodec
from chunk_contract.engine.events import (
    Event,
    Finished,
    Listener,
    PhaseClock,
    Progress,
    RunPhase,
    Started,
)
from chunk_contract.engine.results import InvariantResult, PhaseTime, RunResult, RunSettings
from chunk_contract.engine.runner import run, waiver_findings
from chunk_contract.spec.registry import registry
from chunk_contract.spec.registry import select as selected
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

#: Sequence number of every frame a pool process sends.
_SEQ = 1
#: Seconds between looks at the pool processes; a frame's header gets as long to arrive.
_TICK = 0.2
#: Bytes one message of a pool process may take (a result holds a few counterexamples).
_MESSAGE_LIMIT = 256 * 2**20
_FAILURE_CHARS = 500
#: The selection of the process that runs only the timing probe.
PROBE_ONLY = ("scales_linearly",)
#: Processes per CPU that ``--force-jobs`` allows, at most.
FORCED_PER_CPU = 8
#: The phases a pool process announces with the examples it plans (shown on the host's line).
PHASES = frozenset({"seed corpus", "covering schedule", "exploring"})


def cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def jobs_from(text: str) -> int:
    """``"auto"`` -> the number of CPUs; otherwise a positive integer."""
    if text == "auto":
        return cpus()
    value = int(text)
    if value < 1:
        raise ValueError(f"-n must be 'auto' or at least 1, got {text}")
    return value


def check_jobs(jobs: int, *, force: bool = False) -> int:
    """``jobs`` if the machine can take that many processes, else ValueError saying why.

    At most one process per CPU; ``force`` allows up to FORCED_PER_CPU per CPU, never more
    (each process holds a worker and its plugin: thousands of them exhaust memory).
    """
    limit = cpus() * (FORCED_PER_CPU if force else 1)
    if jobs <= limit:
        return jobs
    if force:
        raise ValueError(f"-n {jobs}: at most {limit} processes ({FORCED_PER_CPU} per CPU), "
                         f"even with --force-jobs")
    raise ValueError(f"-n {jobs}: more processes than the {limit} CPUs of this machine; "
                     f"use -n {limit} (or -n auto), or add --force-jobs to oversubscribe")


def _one(job: tuple[int, RunSettings], plugin: Plugin, fd: int) -> RunResult:
    """In a pool process: runs its part, sending its progress to the host as frames."""
    number, settings = job

    def report(event: Event) -> None:
        if settings.only == PROBE_ONLY:
            return
        if isinstance(event, Progress):
            _send(fd, ["progress", number, event.examples, list(event.violated)])
        elif isinstance(event, RunPhase) and event.asked is not None and event.name in PHASES:
            _send(fd, ["planned", number, event.asked, event.name])

    return run(plugin, settings, report)


def _send(fd: int, message: list[Any]) -> None:
    """One framed JSON message to the host (blocking: the host reads all the time)."""
    framing.write_frame(fd, _SEQ, framing.encode(message))


def _pool_process_started(host_pid: int) -> None:
    """In each pool process: lead a group of its own, die with the host, kill it all on exit.

    Its workers and fresh interpreter are registered in its own reaper, so a signal (or the
    host's death, through PR_SET_PDEATHSIG) takes them down with the pool process's group.
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    reaper.undumpable()  # inherited from the host; said again, it costs nothing
    reaper.adopt_orphans()  # a plugin's daemons come here: its memory watch counts them
    for signum in reaper.SIGNALS:
        signal.signal(signum, _pool_process_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(reaper.SIGNALS))  # forked while blocked
    reaper.die_with_parent(signal.SIGTERM, host_pid)


def _pool_process_stop(signum: int, frame: object) -> None:
    """A pool process told to stop: kill what it registered, then its own group (itself)."""
    reaper.kill_all()
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _pool_process_main(
    job: tuple[int, RunSettings], plugin: Plugin, fd: int, host_pid: int
) -> NoReturn:
    """A pool process from fork to exit: its part's result, or why it failed, as one frame."""
    code = 1
    try:
        _pool_process_started(host_pid)
        result = _one(job, plugin, fd)
        _send(fd, ["result", resultcodec.encode(result)])
        code = 0
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            _send(fd, ["failed", f"{type(exc).__name__}: {exc}"[:_FAILURE_CHARS]])
    finally:
        with contextlib.suppress(BaseException):
            reaper.kill_adopted()  # what it registered, then every child it still has
        os._exit(code)


def run_parallel(
    target: str | Plugin | Any, settings: RunSettings, jobs: int, on_event: Listener | None = None
) -> RunResult:
    """Run the contract in ``jobs`` processes and merge the results."""
    plugin = target if isinstance(target, Plugin) else load(target)
    if jobs <= 1:
        return run(plugin, settings, on_event)
    emit = on_event or (lambda event: None)
    clock = PhaseClock()
    base = settings.seed if settings.seed is not None else random.randrange(2**32)
    share = -(-settings.max_examples // jobs)
    parts = _parts(plugin, settings, jobs, base, share)
    emit(Started(plugin.target, plugin.kind, _active(plugin, settings), base, share * jobs))
    started = time.monotonic()
    done, stop = _run_pool(plugin, parts, _Tally({k: share for k in range(jobs)}), emit)
    if not done:
        merged = _nothing_back(plugin, settings, base, stop)
    else:
        merged = merge([r for _, r in done], seed=base, elapsed=0.0, settings=settings,
                       examples=sum(r.examples for k, r in done if k < jobs),
                       asked=sum(r.examples_asked for k, r in done if k < jobs))
    merged.elapsed = time.monotonic() - started
    merged.total_time = _total(clock.total(), [r for _, r in done])
    merged.interrupted, merged.interrupted_reason = bool(stop), stop
    if settings.baseline is not None:
        findings.compare(merged, findings.load_baseline(settings.baseline))
    emit(Finished(merged))
    return merged


def _parts(
    plugin: Plugin, settings: RunSettings, jobs: int, base: int, share: int
) -> list[tuple[int, RunSettings]]:
    """Each process's number and settings: its seed and share; the probe's process last."""
    parts = [
        (k, replace(settings, seed=(base + k) % 2**32, max_examples=share, measure=k == 0,
                    probe=False, corpus=settings.corpus and k == 0,
                    schedule=settings.schedule and k == 0, baseline=None))  # merged: compared
        for k in range(jobs)
    ]
    measured = "scales_linearly" not in settings.waived
    if "scales_linearly" in _active(plugin, settings) and settings.probe and measured:
        # The timing probe runs beside the exploring processes, in CPU time (so sharing the
        # cores does not change what it measures), instead of after one of them.
        probe = replace(settings, seed=base, max_examples=1, only=PROBE_ONLY, skip=(),
                        corpus=False, schedule=False)
        parts.append((jobs, probe))
    return parts


def _active(plugin: Plugin, settings: RunSettings) -> tuple[str, ...]:
    """The invariants this run checks on this plugin."""
    rules = registry()
    return tuple(
        i
        for i in selected(settings.only, ())
        if rules[i].applies_to(plugin.kind, plugin.declarations.promises)
    )


@dataclass
class _Member:
    """One pool process as the host sees it: its part, pid (= group), the pipe it sends on."""

    number: int
    pid: int
    fd: int
    result: RunResult | None = None
    failure: str = ""
    open: bool = True


def _run_pool(
    plugin: Plugin, parts: list[tuple[int, RunSettings]], tally: _Tally, emit: Listener
) -> tuple[list[tuple[int, RunResult]], str]:
    """Runs every part in a contained process: (the results that came back, why it stopped)."""
    members: list[_Member] = []
    stop = ""
    try:
        with reaper.signals_blocked():
            for part in parts:
                members.append(_start_member(part, plugin, [m.fd for m in members]))
        stop = _forward_progress(members, tally, emit)
    except reaper.Interrupted as exc:
        stop = exc.reason
    finally:
        _stop_pool(members, wait=not stop)
    done = [(m.number, m.result) for m in members if m.result is not None]
    return sorted(done, key=lambda item: item[0]), stop


def _start_member(part: tuple[int, RunSettings], plugin: Plugin, others: list[int]) -> _Member:
    """Forks one pool process (its own group, made from both sides: no race) and registers it."""
    read, write = os.pipe()
    host = os.getpid()
    pid = os.fork()
    if pid == 0:
        for fd in (read, *others):  # the other processes' pipes are none of its business
            os.close(fd)
        _pool_process_main(part, plugin, write, host)
    os.close(write)
    os.set_blocking(read, False)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    reaper.register(pid, "-n pool process", tidy=True)
    return _Member(part[0], pid, read)


def _stop_pool(members: list[_Member], *, wait: bool) -> None:
    """Ends every pool process (at once when the run stopped), then kills what is left in
    their groups, reaps them and closes their pipes."""
    if not wait:
        for member in members:
            reaper.kill_group(member.pid, signal.SIGTERM)  # each kills its own workers' groups
        time.sleep(reaper.GRACE)
    for member in members:
        reaper.kill_group(member.pid)  # orphans a plugin left behind in a pool process's group
        reaper.unregister(member.pid)
        with contextlib.suppress(OSError):
            os.waitpid(member.pid, 0)
        with contextlib.suppress(OSError):
            os.close(member.fd)


@dataclass
class _Tally:
    """What the pool processes said so far: the examples each plans (its share, until it says
    more: the first process adds the seed corpus and the covering schedule) and has checked,
    and the rules violated. Nothing is shown before the first process's plan is known, so the
    total on the progress line never grows once examples are counted."""

    planned: dict[int, int]
    done: dict[int, int] = field(default_factory=dict)
    violated: dict[str, None] = field(default_factory=dict)
    phase: str | None = None  # the first process's phase, once it said

    def note(self, message: list[Any], emit: Listener) -> None:
        """Takes in one checked message of a pool process, then shows the sums."""
        kind, number, count = message[:3]
        if kind == "planned":
            self.planned[number] = count
            self.phase = message[3] if number == 0 else self.phase
        else:
            self.done[number] = count
            self.violated.update(dict.fromkeys(message[3]))
        if self.phase is None:
            return
        total = sum(self.planned.values())
        if kind == "planned":
            emit(RunPhase(self.phase, total))
        emit(Progress(sum(self.done.values()), total, tuple(self.violated)))


def _forward_progress(members: list[_Member], tally: _Tally, emit: Listener) -> str:
    """Reads every process's messages until all have ended, emitting their summed progress;
    why the run stopped, or ""."""
    while any(m.open for m in members):
        for member in _readable(members):
            message = _receive(member)
            if message is not None:
                tally.note(message, emit)
        failed = [m for m in members if m.failure]
        if failed:
            return _died(failed[0].failure, tally.violated)
    return ""


def _readable(members: list[_Member]) -> list[_Member]:
    """The members with something to read (or an end of file), within _TICK s."""
    poller = select.poll()
    for member in members:
        if member.open:
            poller.register(member.fd, select.POLLIN)
    ready = {fd for fd, _ in poller.poll(_TICK * 1000)}
    return [m for m in members if m.open and m.fd in ready]


def _receive(member: _Member) -> list[Any] | None:
    """One message of ``member``, checked; None at its end (or when it failed: see
    ``member.failure``). A malformed message is that process's failure, nothing else."""
    try:
        message = framing.receive_frame(member.fd, _SEQ, deadline=time.monotonic() + _TICK,
                                        limit=_MESSAGE_LIMIT)
        return _checked(member, message)
    except framing.FrameClosed:
        member.open = False
        if member.result is None and not member.failure:
            member.failure = "a -n process died (killed from outside, or out of memory)"
    except (framing.FrameError, framing.FrameTimeout, ValueError) as exc:
        member.open = False
        member.failure = f"a -n process sent a malformed message ({exc})"
    return None


def _checked(member: _Member, message: Any) -> list[Any] | None:
    """A progress or plan message as is; a result or failure recorded on ``member``; else
    ValueError."""
    kind = message[0] if type(message) is list and message else None
    if kind == "progress" and len(message) == 4 and _progress_shape(message, member.number):
        return message
    if kind == "planned" and len(message) == 4 and _plan_shape(message, member.number):
        return message
    if kind == "result" and len(message) == 2:
        member.result = resultcodec.decode_result(message[1])
        return None
    if kind == "failed" and len(message) == 2 and type(message[1]) is str:
        member.failure = f"a -n process failed ({message[1][:_FAILURE_CHARS]})"
        return None
    raise ValueError(f"an unknown message: {str(message)[:80]}")


def _progress_shape(message: list[Any], sender: int) -> bool:
    _, number, examples, found = message
    return (number == sender and type(number) is int and type(examples) is int
            and type(found) is list and all(type(x) is str for x in found))


def _plan_shape(message: list[Any], sender: int) -> bool:
    """``["planned", its own number, examples >= 0, the name of a phase it announces]``."""
    _, number, asked, phase = message
    return (number == sender and type(number) is int and type(asked) is int and asked >= 0
            and type(phase) is str and phase in PHASES)


def _died(failure: str, violated: dict[str, None]) -> str:
    """The reason a parallel run stopped because one of its processes failed."""
    lost = f"; violations seen there were lost: {', '.join(violated)}" if violated else ""
    return f"{failure}: the run is incomplete{lost}"


def _nothing_back(plugin: Plugin, settings: RunSettings, base: int, stop: str) -> RunResult:
    """The result of a parallel run none of whose processes came back: nothing checked."""
    reason = f"not checked: {stop}"
    results = [InvariantResult(rule_id, "skipped", 0, reason=reason) for rule_id in registry()]
    return RunResult(plugin.target, plugin.kind, base, 0, results, 0.0, settings)


def merge(
    results: list[RunResult],
    *,
    seed: int,
    elapsed: float,
    settings: RunSettings,
    examples: int | None = None,
    asked: int | None = None,
) -> RunResult:
    """One result from several runs of the same target (``examples`` and ``asked``: default,
    their sums). A run that stopped exploring early keeps its reason in the merge."""
    first = results[0]
    verdicts = [_merge_one([r.results[k] for r in results]) for k in range(len(first.results))]
    if examples is None:
        examples = sum(r.examples for r in results)
    if asked is None:
        asked = sum(r.examples_asked for r in results)
    for item in verdicts:
        item.examples = examples if item.status != "skipped" and item.examples else 0
    return RunResult(
        first.target,
        first.kind,
        seed,
        examples,
        verdicts,
        elapsed,
        settings,
        examples_asked=asked,
        stopped_early=_stop_reason(results),
        coverage=next((r.coverage for r in results if r.coverage is not None), None),
        documents=first.documents,
        health=_health(results, verdicts, settings),
        phases=_phases(results),
    )


def _total(spent: PhaseTime, results: list[RunResult]) -> PhaseTime:
    """The whole command's time (the processes' phases overlap: their walls add up to more).
    The processes this one started are engines, not the plugin: the plugin's share is what
    each process's own clock charged to the processes it started in turn."""
    plugin = sum(r.total_time.plugin_cpu for r in results if type(r.total_time) is PhaseTime)
    return PhaseTime(spent.wall, spent.cpu, min(spent.cpu, max(0.0, plugin)))


def _phases(results: list[RunResult]) -> dict[str, PhaseTime]:
    """Each phase's time summed over the merged runs."""
    phases: dict[str, PhaseTime] = {}
    for result in results:
        for name, spent in dict(result.phases).items():
            if type(name) is str and type(spent) is PhaseTime:  # what a process sent, checked
                phases[name] = phases.get(name, PhaseTime()) + spent
    return phases


def _health(
    results: list[RunResult], verdicts: list[InvariantResult], settings: RunSettings
) -> list[Any]:
    """The parts' health findings once each, the waiver findings decided on the merge (a
    waiver one part did not need, another may)."""
    mine = ("waiver_unneeded", "span_fidelity_unchecked")
    kept = list({f: None for r in results for f in r.health if f.check not in mine})
    active = [v.id for v in verdicts if v.status != "skipped"]
    return kept + waiver_findings(verdicts, active=active, only=settings.only)


def _stop_reason(results: list[RunResult]) -> str | None:
    """The reasons the merged runs stopped early (each once), and in how many of them."""
    stopped = [r.stopped_early for r in results if r.stopped_early]
    if not stopped:
        return None
    reasons = "; ".join(dict.fromkeys(stopped))
    return reasons if len(results) == 1 else f"{reasons} (in {len(stopped)} of {len(results)} runs)"


def _merge_one(items: list[InvariantResult]) -> InvariantResult:
    violated = [i for i in items if i.status == "violated" and i.counterexample is not None]
    if violated:
        best = min(violated, key=lambda i: len(repr(i.counterexample.document)))  # type: ignore[union-attr]
        best.counterexamples = _distinct([best, *violated])
        return best
    waived = [i for i in items if i.status == "waived"]
    if waived:
        ranked = sorted(waived, key=lambda i: (i.counterexample is None, not i.examples))
        return ranked[0]
    passed = [i for i in items if i.status == "passed"]
    return passed[0] if passed else items[0]


def _distinct(items: list[InvariantResult]) -> list[Any]:
    """The parts' counterexamples, one per cause, the first part's first (at most DISTINCT)."""
    out: dict[str, Any] = {}
    for item in items:
        for found in item.all_counterexamples:
            out.setdefault(found.cause, found)
    return list(out.values())[: findings.DISTINCT]
