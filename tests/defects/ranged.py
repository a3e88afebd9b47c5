"""Chunkers that support only part of SPEC §2's valid configs, and declare it.

``windows_from_twelve`` needs ``max_size >= 12`` and ``overlap <= 4`` and refuses the rest
with ValueError: correct. ``forgets_refusal`` declares the same ranges but chunks small caps
such as ``max_size=5`` anyway (a defect: ``config_validation``). ``undeclared_floor`` refuses
small caps without declaring them: every refused valid config is a ``no_crash``.
"""

from __future__ import annotations

from typing import Any


def _windows(document: str, max_size: int, overlap: int) -> list[dict[str, Any]]:
    step = max_size - overlap
    chunks = []
    for start in range(0, len(document), step):
        end = min(start + max_size, len(document))
        text = document[start:end]
        if text.strip():
            chunks.append({"text": text, "start": start, "end": end})
        if end == len(document):
            break
    return chunks


def _refuse_degenerate(max_size: int, overlap: int) -> None:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"bad config max_size={max_size}, overlap={overlap}")


def windows_from_twelve(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    _refuse_degenerate(max_size, overlap)
    if max_size < 12 or overlap > 4:
        raise ValueError("this chunker needs max_size >= 12 and overlap <= 4")
    return _windows(document, max_size, overlap)


windows_from_twelve.max_size_range = (12, None)  # type: ignore[attr-defined]
windows_from_twelve.overlap_range = (0, 4)  # type: ignore[attr-defined]


def forgets_refusal(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    _refuse_degenerate(max_size, overlap)
    if overlap > 4:  # the max_size floor is declared, never enforced
        raise ValueError("this chunker needs overlap <= 4")
    return _windows(document, max_size, overlap)


forgets_refusal.max_size_range = (12, None)  # type: ignore[attr-defined]
forgets_refusal.overlap_range = (0, 4)  # type: ignore[attr-defined]


def undeclared_floor(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    _refuse_degenerate(max_size, overlap)
    if max_size < 12:
        raise ValueError("this chunker needs max_size >= 12")
    return _windows(document, max_size, overlap)


def bad_range(document: str, *, max_size: int, overlap: int) -> list[str]:
    return [document] if document.strip() else []


bad_range.max_size_range = (40, 12)  # type: ignore[attr-defined]
