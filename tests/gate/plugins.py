"""Small plugins for the gate tests."""

import re

WORD = re.compile(r"\S+")


def windows(document, *, max_size, overlap=0):
    """Correct: whitespace-trimmed windows that never overlap, as bare strings."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    out, i = [], 0
    while i < len(document):
        piece = document[i : i + max_size].strip()
        if piece:
            out.append(piece)
        i += max_size
    return out


def rare_bug(document, *, max_size, overlap=0):
    """Correct, except that it loses everything when the document holds three snowmen."""
    chunks = windows(document, max_size=max_size, overlap=overlap)
    return [] if "\u2603\u2603\u2603" in document else chunks
