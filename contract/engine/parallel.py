"""``run -n N``: split one run's examples over N processes and merge their verdicts.

Each process runs the whole contract (explore, shrink, save reproducers) with its own share of
the examples and its own seed, derived from the run's seed, so ``--seed`` still repeats a
parallel run exactly. The fresh-interpreter rerun, the seed corpus and the covering schedule
(whose coverage the merge keeps) are the first process's; the ``scales_linearly`` timing probe
gets a process of its own, beside the exploring ones (it measures CPU time, so sharing the
cores does not change its verdict). The merge keeps, for every
invariant, ``violated`` if any process saw a violation (the counterexample with the smallest
document wins), else ``passed`` if any process exercised it, else ``skipped``.

Containment: each pool process leads a process group of its own (made from both sides, so no
signal falls between fork and registration), is registered with :mod:`contract.containment.reaper`,
and gets PR_SET_PDEATHSIG=SIGTERM, on which it kills what it registered and its own group. A
signal to the host, or a pool process that dies (``BrokenProcessPool``), ends the run with a
result marked interrupted that merges the processes that finished.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import signal
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from multiprocessing import get_context
from typing import Any

from contract.containment import reaper
from contract.engine.events import Event, Finished, Listener, Progress, Started
from contract.engine.results import InvariantResult, RunResult, RunSettings
from contract.engine.runner import run
from contract.spec.registry import registry, select
from contract.transport.loading import load
from contract.transport.targets import Plugin

_PLUGIN: Plugin | None = None  # inherited by the forked processes
_EVENTS: Any = None  # the jobs' progress, to the parent (a multiprocessing queue)
#: The selection of the process that runs only the timing probe.
PROBE_ONLY = ("scales_linearly",)
#: Processes per CPU that ``--force-jobs`` allows, at most.
FORCED_PER_CPU = 8


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


def _one(job: tuple[int, RunSettings]) -> RunResult:
    assert _PLUGIN is not None
    number, settings = job

    def report(event: Event) -> None:
        if isinstance(event, Progress) and _EVENTS is not None and settings.only != PROBE_ONLY:
            _EVENTS.put((number, event.examples, event.violated))

    return run(_PLUGIN, settings, report)


def _pool_process_started(host_pid: int) -> None:
    """In each pool process: lead a group of its own, die with the host, kill it all on exit.

    Its workers and fresh interpreter are registered in its own reaper, so a signal (or the
    host's death, through PR_SET_PDEATHSIG) takes them down with the pool process's group.
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    reaper.undumpable()  # inherited from the host; said again, it costs nothing
    for signum in reaper.SIGNALS:
        signal.signal(signum, _pool_process_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(reaper.SIGNALS))  # forked while blocked
    reaper.die_with_parent(signal.SIGTERM, host_pid)


def _pool_process_stop(signum: int, frame: object) -> None:
    """A pool process told to stop: kill what it registered, then its own group (itself)."""
    reaper.kill_all()
    os.killpg(os.getpgrp(), signal.SIGKILL)


def run_parallel(
    target: str | Plugin | Any, settings: RunSettings, jobs: int, on_event: Listener | None = None
) -> RunResult:
    """Run the contract in ``jobs`` processes and merge the results."""
    plugin = target if isinstance(target, Plugin) else load(target)
    if jobs <= 1:
        return run(plugin, settings, on_event)
    emit = on_event or (lambda event: None)
    base = settings.seed if settings.seed is not None else random.randrange(2**32)
    share = -(-settings.max_examples // jobs)
    parts = _parts(plugin, settings, jobs, base, share)
    emit(Started(plugin.target, plugin.kind, _active(plugin, settings), base, share * jobs))
    started = time.monotonic()
    done, stop = _run_pool(plugin, parts, share * jobs, emit)
    if not done:
        merged = _nothing_back(plugin, settings, base, stop)
    else:
        merged = merge([r for _, r in done], seed=base, elapsed=0.0, settings=settings,
                       examples=sum(r.examples for k, r in done if k < jobs),
                       asked=sum(r.examples_asked for k, r in done if k < jobs))
    merged.elapsed = time.monotonic() - started
    merged.interrupted, merged.interrupted_reason = bool(stop), stop
    emit(Finished(merged))
    return merged


def _parts(
    plugin: Plugin, settings: RunSettings, jobs: int, base: int, share: int
) -> list[tuple[int, RunSettings]]:
    """Each process's number and settings: its seed and share; the probe's process last."""
    parts = [
        (k, replace(settings, seed=(base + k) % 2**32, max_examples=share, measure=k == 0,
                    probe=False, corpus=settings.corpus and k == 0,
                    schedule=settings.schedule and k == 0))
        for k in range(jobs)
    ]
    if "scales_linearly" in _active(plugin, settings) and settings.probe:
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
        for i in select(settings.only, settings.skip)
        if rules[i].applies_to(plugin.kind, plugin.declarations.promises)
    )


def _run_pool(
    plugin: Plugin, parts: list[tuple[int, RunSettings]], total: int, emit: Listener
) -> tuple[list[tuple[int, RunResult]], str]:
    """Runs every part in a contained pool: (the results that came back, why it stopped)."""
    global _PLUGIN, _EVENTS
    context = get_context("fork")
    _PLUGIN, _EVENTS = plugin, context.Queue()
    pool = ProcessPoolExecutor(
        len(parts), mp_context=context, initializer=_pool_process_started,
        initargs=(os.getpid(),),
    )
    futures: dict[Future[RunResult], int] = {}
    groups: list[int] = []
    stop = ""
    try:
        with reaper.signals_blocked():
            futures = {pool.submit(_one, part): part[0] for part in parts}
            groups = _contain(pool)
        stop = _forward_progress(futures, _EVENTS, total, emit)
    except reaper.Interrupted as exc:
        stop = exc.reason
    finally:
        _PLUGIN, _EVENTS = None, None
        _stop_pool(pool, groups, wait=not stop)
    return _collected(futures), stop


def _contain(pool: ProcessPoolExecutor) -> list[int]:
    """Makes each pool process lead its own group (from this side too: no race) and
    registers it; returns the group ids."""
    pids = list(getattr(pool, "_processes", None) or {})  # started at the first submit (fork)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        reaper.register(pid, "-n pool process", tidy=True)
    return pids


def _stop_pool(pool: ProcessPoolExecutor, groups: list[int], *, wait: bool) -> None:
    """Shuts the pool down, then kills what is left in its processes' groups."""
    if not wait:
        for pgid in groups:
            reaper.kill_group(pgid, signal.SIGTERM)  # each kills its own workers' groups
        time.sleep(reaper.GRACE)
    pool.shutdown(wait=wait, cancel_futures=True)
    for pgid in groups:
        reaper.kill_group(pgid)  # orphans a plugin left behind in a pool process's group
        reaper.unregister(pgid)


def _collected(futures: dict[Future[RunResult], int]) -> list[tuple[int, RunResult]]:
    """(part number, result) of every part that finished, in part order."""
    out = []
    for future, number in futures.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            out.append((number, future.result()))
    return sorted(out, key=lambda item: item[0])


def _forward_progress(
    futures: dict[Future[RunResult], int], events: Any, total: int, emit: Listener
) -> str:
    """Waits for every part, emitting their summed progress; why the run stopped, or ""."""
    counts: dict[int, int] = {}
    violated: dict[str, None] = {}
    while not all(f.done() for f in futures):
        failed = [f for f in futures if f.done() and f.exception() is not None]
        if failed:
            return _died(failed[0].exception(), violated)
        try:
            number, examples, found = events.get(timeout=0.2)
        except queue.Empty:
            continue
        counts[number] = examples
        violated.update(dict.fromkeys(found))
        emit(Progress(sum(counts.values()), total, tuple(violated)))
    failed = [f for f in futures if f.exception() is not None]
    return _died(failed[0].exception(), violated) if failed else ""


def _died(exc: BaseException | None, violated: dict[str, None]) -> str:
    """The reason a parallel run stopped because one of its processes failed."""
    if isinstance(exc, BrokenProcessPool):
        what = "a -n process died (killed from outside, or out of memory)"
    else:
        what = f"a -n process failed ({type(exc).__name__}: {exc})"
    lost = f"; violations seen there were lost: {', '.join(violated)}" if violated else ""
    return f"{what}: the run is incomplete{lost}"


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
        item.examples = examples if item.status != "skipped" else 0
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
        health=list({f: None for r in results for f in r.health}),
    )


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
        return min(violated, key=lambda i: len(repr(i.counterexample.document)))  # type: ignore[union-attr]
    passed = [i for i in items if i.status == "passed"]
    return passed[0] if passed else items[0]
