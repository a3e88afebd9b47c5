"""Chunkers for the gate's waivers, baseline and distinct-failure tests (proof of red).

``two_crashes`` raises ZeroDivisionError on one kind of input and KeyError on another: a run
must report both. ``crash_on_x`` crashes on documents with an "x" only; ``crash_on_x_or_q``
also on a "q" (a second, new cause of ``no_crash``); ``correct`` is a plain correct chunker.
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
    return 1 / (document.count("x") - document.count("x"))


def _lookup(document: str) -> str:
    return {}[document[0]]


def two_crashes(document: str, *, max_size: int, overlap: int) -> list[str]:
    chunks = _windows(document, max_size, overlap)
    if "x" in document:
        _divide(document)
    if "q" in document:
        _lookup(document)
    return chunks


def crash_on_x(document: str, *, max_size: int, overlap: int) -> list[str]:
    chunks = _windows(document, max_size, overlap)
    if "x" in document:
        _divide(document)
    return chunks


def crash_on_x_or_q(document: str, *, max_size: int, overlap: int) -> list[str]:
    return two_crashes(document, max_size=max_size, overlap=overlap)
