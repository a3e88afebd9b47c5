"""``run -n N``: split one run's examples over N processes and merge their verdicts.

Each process runs the whole contract (explore, shrink, save reproducers) with its own share of
the examples and its own seed, derived from the run's seed, so ``--seed`` still repeats a
parallel run exactly. The merge keeps, for every invariant, ``violated`` if any process saw a
violation (the counterexample with the smallest document wins), else ``passed`` if any process
exercised it, else ``skipped``.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from typing import Any

from contract.plugins import Plugin, load
from contract.runner import (
    Finished,
    InvariantResult,
    Listener,
    RunResult,
    RunSettings,
    Started,
    run,
)

_PLUGIN: Plugin | None = None  # inherited by the forked processes


def jobs_from(text: str) -> int:
    """``"auto"`` -> the number of CPUs; otherwise a positive integer."""
    if text == "auto":
        return os.cpu_count() or 1
    value = int(text)
    if value < 1:
        raise ValueError(f"-n must be 'auto' or at least 1, got {text}")
    return value


def _one(settings: RunSettings) -> RunResult:
    assert _PLUGIN is not None
    return run(_PLUGIN, settings)


def run_parallel(
    target: str | Plugin | Any, settings: RunSettings, jobs: int, on_event: Listener | None = None
) -> RunResult:
    """Run the contract in ``jobs`` processes and merge the results."""
    global _PLUGIN
    plugin = target if isinstance(target, Plugin) else load(target)
    if jobs <= 1:
        return run(plugin, settings, on_event)
    emit = on_event or (lambda event: None)
    base = settings.seed if settings.seed is not None else random.randrange(2**32)
    share = -(-settings.max_examples // jobs)
    parts = [replace(settings, seed=(base + k) % 2**32, max_examples=share) for k in range(jobs)]
    emit(Started(plugin.target, plugin.kind, (), base, share * jobs))
    started = time.monotonic()
    _PLUGIN = plugin
    try:
        with ProcessPoolExecutor(jobs, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_one, parts))
    finally:
        _PLUGIN = None
    merged = merge(results, seed=base, elapsed=time.monotonic() - started, settings=settings)
    emit(Finished(merged))
    return merged


def merge(
    results: list[RunResult], *, seed: int, elapsed: float, settings: RunSettings
) -> RunResult:
    """One result from several runs of the same target."""
    first = results[0]
    verdicts = [_merge_one([r.results[k] for r in results]) for k in range(len(first.results))]
    examples = sum(r.examples for r in results)
    for item in verdicts:
        item.examples = examples if item.status != "skipped" else 0
    return RunResult(first.target, first.kind, seed, examples, verdicts, elapsed, settings)


def _merge_one(items: list[InvariantResult]) -> InvariantResult:
    violated = [i for i in items if i.status == "violated" and i.counterexample is not None]
    if violated:
        return min(violated, key=lambda i: len(repr(i.counterexample.document)))  # type: ignore[union-attr]
    passed = [i for i in items if i.status == "passed"]
    return passed[0] if passed else items[0]
