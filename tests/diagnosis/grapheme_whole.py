"""A chunker that keeps every grapheme cluster whole without promising grapheme_integrity: a
cluster longer than max_size comes out as one chunk over the cap."""

from __future__ import annotations

import regex


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, object]]:
    """Clusters packed into chunks of at most max_size codepoints, a long cluster alone."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("need max_size >= 1 and 0 <= overlap < max_size")
    chunks: list[dict[str, object]] = []
    start = end = 0
    for cluster in regex.finditer(r"\X", document):
        if cluster.end() - start > max_size and end > start:
            chunks.append({"text": document[start:end], "start": start, "end": end})
            start = end
        end = cluster.end()
    if end > start:
        chunks.append({"text": document[start:end], "start": start, "end": end})
    return [c for c in chunks if str(c["text"]).strip()]
