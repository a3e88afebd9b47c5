"""Plugins for the budget tests: one far slower than the budgets, one fast and flawed."""

from __future__ import annotations

import time

#: Seconds each call of :func:`slow_windows` sleeps: far more than a 0.5 s budget allows for
#: 200 examples, on any machine.
DELAY = 0.2


def _windows(document: str, max_size: int, overlap: int) -> list[str]:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"need max_size >= 1 and 0 <= overlap < max_size: {max_size}/{overlap}")
    pieces = (document[k : k + max_size].strip() for k in range(0, len(document), max_size))
    return [piece for piece in pieces if piece]


def slow_windows(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Correct non-overlapping windows, after a long sleep."""
    time.sleep(DELAY)
    return _windows(document, max_size, overlap)


def blank_tail(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Fast, but appends a whitespace-only chunk to every document of 3 or more characters
    (non_empty): a first failure that Hypothesis can still shrink."""
    chunks = _windows(document, max_size, overlap)
    return [*chunks, " "] if len(document) >= 3 else chunks
