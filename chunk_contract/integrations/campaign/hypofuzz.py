"""The contract as plain Hypothesis tests, for long fuzzing campaigns on many machines.

    # campaign/conftest.py
    from chunk_contract.integrations.campaign.hypofuzz import use_database

    use_database("redis://fuzz-db:6379/0")      # or a folder; default $CHUNK_CONTRACT_DATABASE

    # campaign/test_my_chunker.py
    from chunk_contract.integrations.campaign.hypofuzz import property_test

    test_my_chunker = property_test("my_pkg.chunk:split")

A property test draws the same (document, config) cases as ``chunk-contract run``, calls the
plugin in the same isolated worker and fails with every violated invariant. It is an ordinary
``@given`` test: pytest runs it, and HypoFuzz (``hypothesis fuzz -- campaign/``) fuzzes it for
as long as you like, on every core, guided by coverage. Processes and machines that share the
example database of :func:`use_database` (a folder, or Redis through Hypothesis's own
``RedisExampleDatabase``) share the corpus and every failure. HypoFuzz fuzzes only tests that
use the settings profile's database, so the database is set there, never per test.

Every violation a property test meets is also kept as a chunk-contract reproducer (the smallest
document per invariant, rewritten as the fuzzer shrinks it), in ``reproducers`` and in the
shared database, so ``chunk-contract replay`` and the next ``run --database`` see what a
campaign found. ``python -m chunk_contract.integrations.campaign.driver TARGET`` (``nox -s
campaign``) runs a
whole campaign for one target and reports its findings.

Whole-run checks (``scales_linearly``, the fresh-interpreter rerun of ``deterministic``) need a
whole run and are left to ``chunk-contract run``; every per-example invariant is checked.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings

from chunk_contract.engine.results import Counterexample, RunSettings
from chunk_contract.engine.runner import cases_for
from chunk_contract.engine.session import Observation, Session
from chunk_contract.generation.corpus import corpus_for
from chunk_contract.spec.model import Config
from chunk_contract.spec.registry import select
from chunk_contract.store import reproducers
from chunk_contract.store.database import ENV_VAR, SharedDatabase, open_database
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

__all__ = ["property_test", "use_database"]

#: The Hypothesis settings profile :func:`use_database` registers and loads.
PROFILE = "chunk-contract-campaign"
#: Where property tests keep their reproducers unless told otherwise.
REPRODUCERS = Path(".chunk-contract/reproducers")

#: One isolated session per (target, limits, invariants) and process, closed at exit.
_SESSIONS: dict[tuple[Any, ...], Session] = {}
#: The shared database of :func:`use_database`, if any (reproducers are added to it too).
_SHARED: list[SharedDatabase] = []


def property_test(
    target: str | Plugin,
    *,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
    max_length: int = 2000,
    timeout: float = 2.0,
    memory_mb: int | None = 1024,
    reproducers_dir: str | Path | None = REPRODUCERS,
    hypothesis_settings: settings | None = None,
) -> Callable[..., None]:
    """A Hypothesis test that fails when ``target`` breaks any selected per-example invariant.

    The seed corpus (:mod:`chunk_contract.generation.corpus`) comes first, as explicit examples.

    ``hypothesis_settings``: the test's settings (default: the active profile's, read now, so
    call :func:`use_database` first). The deadline is always off: the worker's timeout bounds
    each call. ``reproducers_dir``: where violations are kept as reproducers (None: nowhere).
    """
    plugin = target if isinstance(target, Plugin) else load(target)
    chosen = _chosen(only, skip)
    if max_length < 1 or timeout <= 0:
        raise ValueError(f"max_length and timeout must be positive, got {max_length}, {timeout}")

    strategy = cases_for(plugin, RunSettings(max_length=max_length))
    key = (plugin.target, timeout, memory_mb, chosen)
    keeper = _Keeper(plugin, timeout, memory_mb, reproducers_dir)

    def check(case: tuple[Any, Config]) -> None:
        seen = _session(plugin, key).observe(*case)
        if seen.violations:
            keeper.keep(seen)
            raise AssertionError(_describe(plugin, case, seen))

    # Hypothesis keys its database by the test's code; every property test shares this code,
    # so the target is mixed in (as Hypothesis's own stateful tests do) to keep corpora apart.
    digest = f"chunk-contract:{plugin.kind}:{plugin.target}".encode()
    check._hypothesis_internal_add_digest = digest  # type: ignore[attr-defined]
    test = given(strategy)(check)
    for case in reversed(corpus_for(plugin.kind)):  # the seed corpus, as explicit examples
        test = example(case)(test)
    base = hypothesis_settings if hypothesis_settings is not None else settings.default
    assert base is not None
    suppressed = {*base.suppress_health_check, HealthCheck.too_slow, HealthCheck.data_too_large}
    test = settings(base, deadline=None, suppress_health_check=list(suppressed))(test)
    test.__name__ = test.__qualname__ = f"test_contract[{plugin.target}]"
    test.__doc__ = f"The per-example invariants of chunk-contract hold for {plugin.target}."
    return test


def use_database(spec: str | None = None) -> Any:
    """Load a Hypothesis settings profile whose example database is ``spec``.

    ``spec``: a folder or a redis:// URL (:func:`chunk_contract.store.database.open_database`); None
    reads $CHUNK_CONTRACT_DATABASE and, if that is unset too, changes nothing. Call it from a
    conftest.py, before the tests are collected. Returns the database (or None).
    """
    spec = spec or os.environ.get(ENV_VAR) or None
    if spec is None:
        return None
    shared = open_database(spec)
    _SHARED[:] = [shared]
    settings.register_profile(PROFILE, parent=settings.default, database=shared.backend)
    settings.load_profile(PROFILE)
    return shared.backend


class _Keeper:
    """Keeps the smallest failing input per invariant as a reproducer while the fuzzer shrinks."""

    def __init__(
        self, plugin: Plugin, timeout: float, memory_mb: int | None, folder: str | Path | None
    ) -> None:
        self.plugin, self.timeout, self.memory_mb = plugin, timeout, memory_mb
        self.folder = Path(folder) if folder is not None else None
        #: invariant -> (size of the document, its reproducer, the file it was written to)
        self.best: dict[str, tuple[int, reproducers.Reproducer, Path | None]] = {}

    def keep(self, seen: Observation) -> None:
        size = len(repr(seen.document))
        for violation in seen.violations:
            rule = violation.invariant
            if rule in self.best and self.best[rule][0] <= size:
                continue
            found = Counterexample(rule, seen.document, seen.config, [violation.message],
                                   seen.records)
            saved = found.to_reproducer(self.plugin, timeout=self.timeout,
                                        memory_mb=self.memory_mb)
            previous = self.best.get(rule)
            path = self._write(saved, previous[2] if previous else None)
            self.best[rule] = (size, saved, path)
            for shared in _SHARED:
                shared.save(saved)
                if previous is not None:
                    shared.delete([previous[1]])

    def _write(self, saved: reproducers.Reproducer, previous: Path | None) -> Path | None:
        if self.folder is None:
            return None
        path = reproducers.save(saved, self.folder)
        if previous is not None and previous != path:
            previous.unlink(missing_ok=True)  # superseded by a smaller input
        return path


def _chosen(only: Iterable[str], skip: Iterable[str]) -> tuple[str, ...]:
    try:
        return tuple(select(tuple(only), tuple(skip)))
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None


def _session(plugin: Plugin, key: tuple[Any, ...]) -> Session:
    if key not in _SESSIONS:
        _, timeout, memory_mb, chosen = key
        _SESSIONS[key] = Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=chosen)
    return _SESSIONS[key]


@atexit.register
def _close_sessions() -> None:
    for session in _SESSIONS.values():
        session.close()
    _SESSIONS.clear()


def _describe(plugin: Plugin, case: tuple[Any, Config], seen: Observation) -> str:
    document, config = case
    lines = [f"{plugin.target} breaks the contract on this input:"]
    lines += [f"  {v.invariant}: {v.message}" for v in seen.violations]
    lines += [f"  document = {document!r}"[:2000], f"  config   = {config}"]
    return "\n".join(lines)
