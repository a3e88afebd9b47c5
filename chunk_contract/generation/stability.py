"""Generated examples that depend on the seed alone, not on which modules a process imported.

Hypothesis (6.13x and later) mixes literal constants from the source of every *local* module
loaded so far (anything outside the standard library and site-packages) into what it draws.
For chunk-contract that pool is an accident of the process: an editable install counts the
contract's own modules as local and a wheel install does not; the pytest plugin adds the user's
test modules, an xdist worker whatever tests it happened to run first, and any edit to any of
those files changes it. The same seed then drew different documents from one process to the
next (a run and its `-n` workers, the CLI and the pytest plugin, one commit and the next), so a
verdict could depend on what else was loaded. With the local pool empty, a seed draws the same
examples everywhere; Hypothesis's global constants (edge-case strings and numbers) still apply.

Private Hypothesis API: if it moves, nothing is patched and generation is as Hypothesis makes
it (the functions say so by returning False).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

_STABLE = "_chunk_contract_stable"


def _providers() -> Any:
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the module
        return None
    current = getattr(providers, "_get_local_constants", None)
    return providers if current is not None and hasattr(providers, "Constants") else None


def _patch(providers: Any, replacement: Any) -> None:
    providers._get_local_constants = replacement
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None and hasattr(cache, "cache"):
        cache.cache.clear()  # constants already filtered per draw kind, from the old pool


def _empty(providers: Any) -> Any:
    empty = providers.Constants()

    def no_local_constants() -> Any:
        return empty

    setattr(no_local_constants, _STABLE, True)
    return no_local_constants


def stabilize_generation() -> bool:
    """Empty the local-constant pool for the rest of this process (a mutation run's worker)."""
    providers = _providers()
    if providers is None:
        return False
    if not getattr(providers._get_local_constants, _STABLE, False):
        _patch(providers, _empty(providers))
    return True


@contextlib.contextmanager
def stable_generation() -> Iterator[bool]:
    """Empty the local-constant pool while the block runs, then restore it (a run inside a
    user's pytest session leaves the user's own Hypothesis tests as they were)."""
    providers = _providers()
    if providers is None or getattr(providers._get_local_constants, _STABLE, False):
        yield providers is not None
        return
    before = providers._get_local_constants
    _patch(providers, _empty(providers))
    try:
        yield True
    finally:
        _patch(providers, before)
