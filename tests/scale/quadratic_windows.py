"""The quadratic chunker the hostile scaling plugins of tests/scale wrap: right everywhere,
quadratic on a document without a line break."""

from __future__ import annotations


def windows(document: str, max_size: int, overlap: int) -> list[dict[str, int | str]]:
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
