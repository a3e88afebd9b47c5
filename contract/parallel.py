"""``run -n N``: split one run's examples over N processes and merge their verdicts.

Each process runs the whole contract (explore, shrink, save reproducers) with its own share of
the examples and its own seed, derived from the run's seed, so ``--seed`` still repeats a
parallel run exactly. The fresh-interpreter rerun, the seed corpus and the covering schedule
(whose coverage the merge keeps) are the first process's; the ``scales_linearly`` timing probe
gets a process of its own, beside the exploring ones (it measures CPU time, so sharing the
cores does not change its verdict). The merge keeps, for every
invariant, ``violated`` if any process saw a violation (the counterexample with the smallest
document wins), else ``passed`` if any process exercised it, else ``skipped``.
"""

from __future__ import annotations

import os
import queue
import random
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from typing import Any

from contract.plugins import Plugin, load
from contract.registry import registry, select
from contract.runner import (
    Event,
    Finished,
    InvariantResult,
    Listener,
    Progress,
    RunResult,
    RunSettings,
    Started,
    run,
)

_PLUGIN: Plugin | None = None  # inherited by the forked processes
_EVENTS: Any = None  # the jobs' progress, to the parent (a multiprocessing queue)
#: The selection of the process that runs only the timing probe.
PROBE_ONLY = ("scales_linearly",)


def jobs_from(text: str) -> int:
    """``"auto"`` -> the number of CPUs; otherwise a positive integer."""
    if text == "auto":
        return os.cpu_count() or 1
    value = int(text)
    if value < 1:
        raise ValueError(f"-n must be 'auto' or at least 1, got {text}")
    return value


def _one(job: tuple[int, RunSettings]) -> RunResult:
    assert _PLUGIN is not None
    number, settings = job

    def report(event: Event) -> None:
        if isinstance(event, Progress) and _EVENTS is not None and settings.only != PROBE_ONLY:
            _EVENTS.put((number, event.examples, event.violated))

    return run(_PLUGIN, settings, report)


def run_parallel(
    target: str | Plugin | Any, settings: RunSettings, jobs: int, on_event: Listener | None = None
) -> RunResult:
    """Run the contract in ``jobs`` processes and merge the results."""
    global _PLUGIN, _EVENTS
    plugin = target if isinstance(target, Plugin) else load(target)
    if jobs <= 1:
        return run(plugin, settings, on_event)
    emit = on_event or (lambda event: None)
    base = settings.seed if settings.seed is not None else random.randrange(2**32)
    share = -(-settings.max_examples // jobs)
    parts = [
        (k, replace(settings, seed=(base + k) % 2**32, max_examples=share, measure=k == 0,
                    probe=False, corpus=settings.corpus and k == 0,
                    schedule=settings.schedule and k == 0))
        for k in range(jobs)
    ]
    rules = registry()
    active = tuple(
        i
        for i in select(settings.only, settings.skip)
        if rules[i].applies_to(plugin.kind, plugin.declarations.promises)
    )
    if "scales_linearly" in active and settings.probe:
        # The timing probe runs beside the exploring processes, in CPU time (so sharing the
        # cores does not change what it measures), instead of after one of them.
        probe = replace(settings, seed=base, max_examples=1, only=PROBE_ONLY, skip=(),
                        corpus=False, schedule=False)
        parts.append((jobs, probe))
    emit(Started(plugin.target, plugin.kind, active, base, share * jobs))
    started = time.monotonic()
    context = get_context("fork")
    _PLUGIN, _EVENTS = plugin, context.Queue()
    try:
        with ProcessPoolExecutor(len(parts), mp_context=context) as pool:
            pending = pool.map(_one, parts)
            results = _forward_progress(pool, pending, _EVENTS, share * jobs, emit)
    finally:
        _PLUGIN, _EVENTS = None, None
    merged = merge(
        results,
        seed=base,
        elapsed=time.monotonic() - started,
        settings=settings,
        examples=sum(r.examples for r in results[:jobs]),
    )
    emit(Finished(merged))
    return merged


def _forward_progress(
    pool: ProcessPoolExecutor,
    pending: Iterator[RunResult],
    events: Any,
    total: int,
    emit: Listener,
) -> list[RunResult]:
    """Collect the jobs' results, emitting their summed progress meanwhile."""
    done: list[RunResult] = []
    counts: dict[int, int] = {}
    violated: dict[str, None] = {}
    waiter = ThreadPoolExecutor(1)
    future = waiter.submit(list, pending)
    while not future.done():
        try:
            number, examples, found = events.get(timeout=0.2)
        except queue.Empty:
            continue
        counts[number] = examples
        violated.update(dict.fromkeys(found))
        emit(Progress(sum(counts.values()), total, tuple(violated)))
    done = future.result()
    waiter.shutdown()
    return done


def merge(
    results: list[RunResult],
    *,
    seed: int,
    elapsed: float,
    settings: RunSettings,
    examples: int | None = None,
) -> RunResult:
    """One result from several runs of the same target (``examples``: default, their sum)."""
    first = results[0]
    verdicts = [_merge_one([r.results[k] for r in results]) for k in range(len(first.results))]
    if examples is None:
        examples = sum(r.examples for r in results)
    for item in verdicts:
        item.examples = examples if item.status != "skipped" else 0
    coverage = next((r.coverage for r in results if r.coverage is not None), None)
    return RunResult(
        first.target, first.kind, seed, examples, verdicts, elapsed, settings, coverage
    )


def _merge_one(items: list[InvariantResult]) -> InvariantResult:
    violated = [i for i in items if i.status == "violated" and i.counterexample is not None]
    if violated:
        return min(violated, key=lambda i: len(repr(i.counterexample.document)))  # type: ignore[union-attr]
    passed = [i for i in items if i.status == "passed"]
    return passed[0] if passed else items[0]
