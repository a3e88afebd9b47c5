"""Small helpers shared by the strategy modules: argument checks and newline rewriting."""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from chunk_contract.errors import UsageError

T = TypeVar("T")

__all__ = [
    "SEEDS",
    "StrategyArgumentError",
    "check_bool",
    "check_int",
    "expand",
    "fill",
    "lengths",
    "picks",
    "weighted",
    "with_newlines",
]


class StrategyArgumentError(InvalidArgument, UsageError, ValueError):
    """A strategy was called with a bad argument.

    A Hypothesis ``InvalidArgument``, a ``ValueError`` and a
    :class:`chunk_contract.errors.UsageError` (exit 2 at every front door), so any of those
    ``except`` clauses catches it.
    """


def check_int(func: str, name: str, value: object, *, min_value: int) -> int:
    """``value`` as an int of at least ``min_value``, or raise :class:`StrategyArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StrategyArgumentError(
            f"{func}({name}={value!r}): {name} must be an int, not {type(value).__name__}"
        )
    if value < min_value:
        raise StrategyArgumentError(f"{func}({name}={value!r}): {name} must be >= {min_value}")
    return value


def check_bool(func: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise StrategyArgumentError(
            f"{func}({name}={value!r}): {name} must be True or False, not {type(value).__name__}"
        )
    return value


def lengths(low: int, high: int, *, typical: int = 300) -> st.SearchStrategy[int]:
    """A length up to ``high``: usually in ``[1, typical]``, otherwise in ``[low, high]``.

    The short range comes first and starts at 1, so shrinking heads for length 1; drawing
    is uniform, so most short lengths are still well above ``low``.
    """
    high = max(1, high)
    low = max(1, min(low, high))
    short = st.integers(1, min(high, typical))
    if high <= typical and low == 1:
        return short
    return st.one_of(short, st.integers(low, high))


def weighted(*choices: tuple[int, st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """Like ``st.one_of``, with integer weights; earlier choices are the shrinker's targets.

    (``st.one_of`` picks its branches equally often and ignores a repeated branch.)
    """
    if not choices or any(w < 1 for w, _ in choices):
        raise ValueError("weighted() needs (positive weight, strategy) pairs")
    bounds: list[int] = []
    total = 0
    for w, _ in choices:
        total += w
        bounds.append(total)
    strategies = [s for _, s in choices]
    picks = st.integers(0, total - 1)

    @st.composite
    def build(draw: st.DrawFn) -> T:
        return draw(strategies[bisect.bisect_right(bounds, draw(picks))])

    return build()


def expand(units: Sequence[str], length: int, seed: int) -> str:
    """A string of exactly ``length`` characters made of ``units`` picked by a seeded PRNG.

    Used for long unbroken runs: one seed and one length are two choices for Hypothesis, where
    drawing every character would cost thousands and overrun its buffer. Seed 0 (what the
    shrinker heads for) still gives varied text.
    """
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < length:
        unit = rng.choice(units)
        out.append(unit)
        size += len(unit)
    return "".join(out)[:length]


def picks(pools: Sequence[Sequence[T]], count: int, seed: int) -> list[T]:
    """``count`` units, each from one of ``pools`` (the pool, then the unit, picked evenly by a
    PRNG seeded with ``seed``); seed 0, what the shrinker heads for, picks the first unit of
    the first pool every time.

    For the small pieces of a document (the words of a line, the lines of a fence): two choices
    for Hypothesis, a count and a seed, where drawing every piece would cost a few choices
    each. The structure around them (how many blocks, which kind) is still drawn piece by
    piece, so it shrinks piece by piece.
    """
    if seed == 0:
        return [pools[0][0]] * count
    rng = random.Random(seed)
    return [rng.choice(rng.choice(pools)) for _ in range(count)]


#: The seeds :func:`picks` is drawn with.
SEEDS = st.integers(0, 2**16)


def fill(words: Sequence[str], length: int) -> str:
    """``words`` joined by spaces and repeated up to exactly ``length`` characters."""
    line = " ".join(words) + " "
    return (line * (length // len(line) + 1))[:length]


#: Newline styles, weighted towards LF; LF comes first so shrinking returns to it.
NEWLINE_STYLES = ("lf", "lf", "lf", "crlf", "crlf", "cr")


def with_newlines(text: str, style: str) -> str:
    """``text`` with every ``"\\n"`` written in ``style`` (``lf`` leaves it alone)."""
    if style == "crlf":
        return text.replace("\n", "\r\n")
    if style == "cr":
        return text.replace("\n", "\r")
    return text
