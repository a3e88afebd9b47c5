"""A quadratic chunker that rewrites its process's clocks at import: each call seems to take
10 µs a character, perfectly linear, to a probe that lets the plugin's process time itself
(tests/scale)."""

from __future__ import annotations

import time

from quadratic_windows import windows  # beside this file: its folder is on sys.path

_CLOCK = [0.0]


def _fake_clock() -> float:
    return _CLOCK[0]


time.process_time = _fake_clock
time.thread_time = _fake_clock


def split(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Right everywhere, quadratic without a line break; the clock advances linearly."""
    _CLOCK[0] += len(document) * 1e-5
    return windows(document, max_size, overlap)
