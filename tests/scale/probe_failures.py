"""Chunkers that fail only on documents generated inputs rarely reach and the scaling probe's
documents do: the probe must report them under the rule they break (tests/scale)."""

from __future__ import annotations


def _windows(document: str, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")
    out: list[dict[str, int | str]] = []
    start = 0
    while start < len(document):
        end = min(start + max_size, len(document))
        out.append({"text": document[start:end], "start": start, "end": end})
        start = end if end >= len(document) else end - overlap
    return [c for c in out if str(c["text"]).strip()]


def crashes_past_2500(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Right on every document up to 2,500 characters; raises on any longer one."""
    if len(document) > 2_500:
        raise RuntimeError("document too long")
    return _windows(document, max_size, overlap)


def recurses_per_line(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Counts the lines with one recursive call per line: RecursionError at about 1,000."""
    _lines(document.split("\n"), 0)
    return _windows(document, max_size, overlap)


def _lines(lines: list[str], at: int) -> int:
    return 0 if at == len(lines) else 1 + _lines(lines, at + 1)


def hangs_past_2500(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Right on every document up to 2,500 characters; loops for ever on any longer one."""
    while len(document) > 2_500:
        pass
    return _windows(document, max_size, overlap)
