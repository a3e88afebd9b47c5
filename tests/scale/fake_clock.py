"""A quadratic chunker that rewrites its process's clocks at import: each call seems to take
10 µs a character, perfectly linear, to a probe that lets the plugin's process time itself
(tests/scale)."""

from __future__ import annotations

import time

_CLOCK = [0.0]


def _fake_clock() -> float:
    return _CLOCK[0]


time.process_time = _fake_clock
time.thread_time = _fake_clock


def split(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Right everywhere, quadratic without a line break; the clock advances linearly."""
    _CLOCK[0] += len(document) * 1e-5
    return _split(document, max_size, overlap)


def _split(document: str, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Hard-cut windows; without a line break, a pass over the document up to each window."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")
    out: list[dict[str, int | str]] = []
    start = 0
    quadratic = "\n" not in document
    while start < len(document):
        end = min(start + max_size, len(document))
        if quadratic:
            for _ in range(start):
                pass
        out.append({"text": document[start:end], "start": start, "end": end})
        start = end if end >= len(document) else end - overlap
    return [c for c in out if str(c["text"]).strip()]
