"""The contract as mutmut's test suite: a mutant is killed when the contract catches it.

A kill test runs the contract (:func:`chunk_contract.engine.runner.run`) against one target with a
small, seeded budget (:class:`chunk_contract.integrations.mutation.config.Budget`). The unmutated
target keeps every invariant it is expected to keep; a mutant that breaks one of them fails the
test, and mutmut counts it as killed. For a third-party chunker that already breaks some invariants,
those are ``expect_violated``: only a *new* violation kills.

    # tests/mutation/test_contract_kills.py
    from chunk_contract.integrations.mutation.suite import kill_test

    test_fixed = kill_test("chunk_contract_reference.fixed:split")

Three things make the contract usable as mutmut's test suite:

* **Fail fast.** The run is stopped at the first new violation (no shrinking: mutmut only needs
  the verdict), so a killed mutant costs a fraction of a survivor.
* **Coverage crosses the worker.** The contract calls the plugin in a forked worker, where
  mutmut's trampolines record which functions ran into the child's memory. In mutmut's stats
  phase the same generated cases are replayed in a worker of our own that sends the names back
  (:func:`probe`), so mutmut knows which test covers which function.
* **Nothing runs away.** Plugin calls already run under the worker's timeout and memory cap;
  :func:`configure` also caps the address space of mutmut's own test processes and loads a
  derandomized, deadline-free Hypothesis profile whenever mutmut drives the run.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from chunk_contract.generation.stability import stabilize_generation
from chunk_contract.integrations.mutation.config import (
    KILLS_DIR,
    MUTANT_ENV,
    TRIAGE_ENV,
    Budget,
    mutant_phase,
)
from chunk_contract.integrations.mutation.config import budget as current_budget

#: The Hypothesis profile loaded under mutmut.
PROFILE = "chunk-contract-mutation"
#: Address-space cap of one mutant's test process, above its size when the cap is set.
PROCESS_MEMORY_MB = 2048


class MutantDetected(AssertionError):
    """The contract caught a mutant: an invariant the unmutated target keeps is violated."""

    def __init__(self, message: str, invariant: str, examples: int | None = None) -> None:
        super().__init__(message)
        self.invariant = invariant
        self.examples = examples


def kill_test(target: str, *, expect_violated: Iterable[str] = (),
              budget: Budget | None = None) -> Callable[[], None]:
    """A test function that runs the contract on ``target`` and fails on a new violation."""
    expected = frozenset(expect_violated)

    def test() -> None:
        check(target, expected, budget)

    test.__doc__ = f"The contract holds for {target} (expected violations: {sorted(expected)})."
    return test


def check(target: str, expected: frozenset[str] = frozenset(),
          budget: Budget | None = None) -> None:
    """Run the contract on ``target``; raise :class:`MutantDetected` on a new violation.

    ``budget``: default :func:`chunk_contract.integrations.mutation.config.budget` (the run's
    budget).
    """
    from chunk_contract.engine.runner import run  # lazy: Hypothesis

    # the suite calls the plugin itself
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.transport.targets import load_here as load

    budget = budget or current_budget()
    stabilize_generation()
    plugin = load(target)
    phase = mutant_phase()
    if phase is not None:
        _require_mutated_copy(target)
    if phase == "stats":
        triaged_mutants()  # computed once here; every mutant's process inherits it (fork)
        # lazy: each mutmut phase imports only what it runs
        from chunk_contract.integrations.mutation.explain import record_target

        record_target(target)
    if phase == "mutant" and os.environ.get(MUTANT_ENV, "") in triaged_mutants():
        _note(target, {"skipped": "triaged"})
        return  # triaged equivalent or allowed: not re-run (``--recheck`` re-runs it)
    _warm_up(plugin)
    settings = budget.run_settings(skip=tuple(sorted(expected)))
    if phase == "stats":
        probe(plugin, settings)
    try:
        try:
            result = run(plugin, settings, on_event=_stop_on_new_violation(expected))
        except _Stop as stop:
            raise MutantDetected(f"{target}: {stop.args[0]}", stop.invariant,
                                 stop.examples) from None
        new = sorted({r.id for r in result.violated} - expected)
        if new:
            raise MutantDetected(_describe(target, result, new), new[0])
    except MutantDetected as killed:
        if phase == "mutant":
            _note(target, {"invariant": killed.invariant, "examples": killed.examples,
                           "message": str(killed).splitlines()[0][:300]})
        raise


_TRIAGED: frozenset[str] | None = None


def triaged_mutants() -> frozenset[str]:
    """This run's mutants that the triage file marks equivalent or allowed (``TRIAGE_ENV``).

    Computed once, in mutmut's stats phase, which runs in mutmut's main process: the process
    of every mutant is forked from it and inherits the answer, so no mutant pays for it.
    """
    global _TRIAGED
    if _TRIAGED is None:
        _TRIAGED = _read_triaged()
    return _TRIAGED


def _read_triaged() -> frozenset[str]:
    raw = os.environ.get(TRIAGE_ENV, "")
    if not raw:
        return frozenset()
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.integrations.mutation import results, triage

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.integrations.mutation.reports import EXCLUDED

    spec = json.loads(raw)
    found = triage.load(spec["file"])
    if not found.entries:
        return frozenset()
    data = results.load(Path.cwd().parent, display=spec.get("display") or {})  # cwd: mutants/
    names = set()
    for mutant in data.mutants:
        entry = found.find(mutant, data.display.get(mutant.path, mutant.path))
        if entry is not None and entry.verdict in EXCLUDED:
            names.add(mutant.name)
    return frozenset(names)


def _warm_up(plugin: Any) -> None:
    """Import what the worker would otherwise import on its first call (openpyxl: seconds on
    a loaded machine), so the first call of every worker is not the one that times out."""
    if plugin.kind == "workbook":
        # lazy: each mutmut phase imports only what it runs
        from chunk_contract.spec.workbook import build

        build({"sheets": {"Sheet1": {"A1": "x", "B2": {"value": 1, "style": "fill"}}}})


class _Stop(BaseException):
    """Ends a run from its listener. A BaseException, so that Hypothesis (inside which the
    runner emits Progress) lets it through at once instead of replaying the example."""

    def __init__(self, message: str, invariant: str, examples: int | None = None) -> None:
        super().__init__(message)
        self.invariant = invariant
        self.examples = examples


def _stop_on_new_violation(expected: frozenset[str]) -> Callable[[Any], None]:
    """A runner listener that ends the run at the first violation outside ``expected``.

    The exception propagates out of :func:`chunk_contract.engine.runner.run` (the worker is closed
    on the way), so a killed mutant is never shrunk.
    """
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.engine.events import Progress, Shrinking

    def listen(event: Any) -> None:
        if isinstance(event, Progress):
            new = sorted(set(event.violated) - expected)
            if new:
                raise _Stop(f"violated {', '.join(new)} after {event.examples} examples",
                            new[0], event.examples)
        elif isinstance(event, Shrinking) and event.invariant not in expected:
            raise _Stop(f"violated {event.invariant}", event.invariant)

    return listen


def _note(target: str, note: dict[str, Any]) -> None:
    """Leave a note on this mutant for the reports: which invariant killed it, or that it was
    not re-run (best effort; mutmut itself records only the exit code)."""
    name = os.environ.get(MUTANT_ENV, "")
    if not name or "/" in name:
        return
    try:
        folder = Path(KILLS_DIR)
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps({"target": target, **note}), "utf-8")
    except OSError:
        pass


def _describe(target: str, result: Any, new: list[str]) -> str:
    lines = [f"the contract caught a mutant of {target}: violated {', '.join(new)}"]
    for item in result.violated:
        if item.id in new and item.counterexample is not None:
            found = item.counterexample
            lines.append(f"  {item.id}: {found.message.splitlines()[0]}")
            lines.append(f"    document={found.document!r:.200} config={found.config.describe()}")
    return "\n".join(lines)


def _require_mutated_copy(target: str) -> None:
    """Under mutmut, the target must be imported from mutmut's ``mutants/`` copy.

    Otherwise every mutant would silently survive (the tests would run the original code).
    """
    module_name = target.partition(":")[0]
    module = sys.modules.get(module_name)
    where = getattr(module, "__file__", None)
    if where is None:
        return
    here = Path.cwd().resolve()
    if not Path(where).resolve().is_relative_to(here):
        raise RuntimeError(
            f"{target}: imported from {where}, not from mutmut's copy under {here}; put the "
            f"mutated folder first on sys.path (is the project installed non-editable?)"
        )


# ----------------------------------------------------------------------------- stats phase


def probe(plugin: Any, settings: Any) -> None:
    """Replay the run's generated cases in a worker and tell mutmut which functions ran.

    mutmut learns which test covers which function from its trampolines, which record each call
    in the process that makes it: here that is the contract's worker, whose records die with
    it. This replays the same cases (the seed corpus, the covering schedule, then the runner's
    strategy, seed and example count) in a worker of our own that sends the recorded names
    back after every call, and records them in this process, where mutmut reads them when the
    test ends. Only in the stats phase.
    """
    from hypothesis import given, seed

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.containment.worker import Worker
    from chunk_contract.engine.runner import cases_for  # lazy: Hypothesis

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.generation.corpus import corpus_for
    from chunk_contract.generation.strategies.schedule import schedule_for  # lazy: Hypothesis

    worker = Worker(_probe_task(plugin), timeout=settings.timeout, memory_mb=settings.memory_mb)
    strategy = cases_for(plugin, settings)

    def call(case: tuple[Any, Any]) -> None:
        document, config = case
        outcome = worker.call((document, config.max_size, config.overlap))
        if outcome.ok:
            _record(outcome.value)

    replay = _generate_only(settings)(seed(settings.seed)(given(strategy)(call)))
    with worker:
        if settings.corpus:  # the run replays the seed corpus first: so does its coverage
            for case in corpus_for(plugin.kind):
                call(case)
        plan = schedule_for(plugin.kind) if settings.schedule else None
        for case in plan.items() if plan is not None else ():  # then the covering schedule
            call(case)
        replay()


def _generate_only(settings: Any) -> Any:
    """Hypothesis settings matching the runner's exploration (same examples, same order)."""
    from hypothesis import HealthCheck, Phase, Verbosity
    from hypothesis import settings as hypothesis_settings

    return hypothesis_settings(
        max_examples=settings.max_examples, database=None, deadline=None, derandomize=False,
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
        phases=(Phase.generate,), report_multiple_bugs=False,
    )


def _probe_task(plugin: Any) -> Callable[[Any], list[tuple[str, str | None]]]:
    """The worker side of :func:`probe`: make every call the contract makes, return the hits."""
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.spec.model import normalise_chunks

    def task(request: tuple[Any, int, int]) -> list[tuple[str, str | None]]:
        document, max_size, overlap = request
        _drain_hits()  # forget what this process inherited from the test process (other tests)
        try:
            chunks = normalise_chunks(_split(plugin, document, max_size, overlap))
            if plugin.count_tokens is not None:
                for chunk in chunks:
                    plugin.count_tokens(chunk["text"])
            if isinstance(document, str) and "\n" in document:  # newline_invariance's twins
                lf = document.replace("\r\n", "\n")
                for twin in (lf, lf.replace("\n", "\r\n")):
                    normalise_chunks(_split(plugin, twin, max_size, overlap))
        except Exception:
            pass
        return _drain_hits()

    return task


def _split(plugin: Any, document: Any, max_size: int, overlap: int) -> Any:
    if plugin.kind == "workbook":
        # lazy: each mutmut phase imports only what it runs
        from chunk_contract.spec.workbook import build

        document = build(document)
    return plugin.split(document, max_size=max_size, overlap=overlap)


def _drain_hits() -> list[tuple[str, str | None]]:
    """The trampoline hits recorded in this process since the last drain (mutmut 3.8 state)."""
    try:
        from mutmut.state import state
    except ImportError:
        return []
    hits: list[tuple[str, str | None]] = [(name, None) for name in sorted(state()._stats)]
    for name, callers in state().function_dependencies.items():
        hits.extend((name, caller) for caller in sorted(callers))
    state()._stats.clear()
    state().function_dependencies.clear()
    return hits


def _record(hits: list[tuple[str, str | None]]) -> None:
    try:
        from mutmut.stats import record_trampoline_hit
    except ImportError:
        return
    for name, caller in hits:
        record_trampoline_hit(name, caller=caller)


# ----------------------------------------------------------------------------- determinism


# ----------------------------------------------------------------------------- pytest setup


def configure() -> None:
    """Call from a conftest: the Hypothesis profile and the memory cap, under mutmut only."""
    phase = mutant_phase()
    if phase is None:
        return
    from hypothesis import HealthCheck, settings

    settings.register_profile(PROFILE, derandomize=True, deadline=None, database=None,
                              suppress_health_check=list(HealthCheck), print_blob=False)
    settings.load_profile(PROFILE)
    stabilize_generation()
    if phase == "mutant":
        cap_memory(PROCESS_MEMORY_MB)


def cap_memory(megabytes: int) -> None:
    """Cap this process's address space at its current size plus ``megabytes`` (Linux)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + megabytes * 2**20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def collect_ignore(here: str) -> list[str]:
    """For a conftest's ``collect_ignore``: the kill tests run only when mutmut drives pytest."""
    if mutant_phase() is not None:
        return []
    return [str(Path(here).parent / "test_contract_kills.py")]
