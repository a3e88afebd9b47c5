"""A chunker with two bugs that a one-example run never meets (tests/scale).

``crashes_on_digit`` raises on any document with a decimal digit (``no_crash``);
``empty_chunk_on_hash`` adds an empty chunk after any document holding ``"#"`` (``non_empty``).
With ``$RARE_BUGS_FIXED=1`` both bugs are gone (the same target, fixed); with
``$RARE_BUGS_DIGITS_OK=1`` only the digit bug is.
"""

from __future__ import annotations

import os


def _windows(document: str, max_size: int, overlap: int) -> list[str]:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    step, out, start = max_size - overlap, [], 0
    while start < len(document):
        out.append(document[start : start + max_size])
        if start + max_size >= len(document):
            break
        start += step
    return out


def split(document: str, *, max_size: int, overlap: int) -> list[str]:
    chunks = _windows(document, max_size, overlap)
    if os.environ.get("RARE_BUGS_FIXED") == "1":
        return chunks
    if os.environ.get("RARE_BUGS_DIGITS_OK") != "1" and any(c.isdigit() for c in document):
        raise RuntimeError("digits are not supported")
    if "#" in document:
        chunks.append("")
    return chunks
