"""Chunkers for the gate's waivers, baseline and distinct-failure tests (proof of red).

``two_crashes`` raises ZeroDivisionError at one document size (length 1 mod 3) and KeyError at
another (2 mod 3): a run must report both. ``one_crash`` has the ZeroDivisionError only;
``correct`` is a plain correct chunker.
"""

from __future__ import annotations


def _windows(document: str, max_size: int, overlap: int) -> list[str]:
    if max_size < 1 or overlap < 0 or overlap >= max_size:
        raise ValueError("need max_size >= 1 and 0 <= overlap < max_size")
    step = max_size - overlap
    return [document[i:i + max_size] for i in range(0, max(len(document) - overlap, 1), step)
            if document[i:i + max_size].strip()]


def correct(document: str, *, max_size: int, overlap: int) -> list[str]:
    return _windows(document, max_size, overlap)


def _divide(document: str) -> float:
    return len(document) / (len(document) % 3 - 1)


def _lookup(document: str) -> str:
    return {}[document[:1]]


def two_crashes(document: str, *, max_size: int, overlap: int) -> list[str]:
    chunks = _windows(document, max_size, overlap)
    if len(document) % 3 == 1:
        _divide(document)
    if len(document) % 3 == 2:
        _lookup(document)
    return chunks


def one_crash(document: str, *, max_size: int, overlap: int) -> list[str]:
    chunks = _windows(document, max_size, overlap)
    if len(document) % 3 == 1:
        _divide(document)
    return chunks
