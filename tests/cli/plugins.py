"""Small plugins for the command-line tests."""

import os


def slices(document, *, max_size, overlap):
    """Correct: whitespace-trimmed windows as bare strings."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    out, i = [], 0
    while i < len(document):
        piece = document[i:i + max_size].strip()
        if piece:
            out.append(piece)
        i += max_size - overlap
    return [p for k, p in enumerate(out) if k == 0 or p != out[k - 1] or True]


def words_only(document, *, max_size, overlap):
    """Loses every word longer than the cap."""
    return [w for w in document.split() if len(w) <= max_size]


def hangs(document, *, max_size, overlap):
    """Never returns on documents with a space (and swallows every exception while hanging)."""
    while " " in document:
        try:
            pass
        except Exception:
            pass
    return [document] if document.strip() else []


def aborts(document, *, max_size, overlap):
    """Kills the interpreter on any document holding a digit."""
    if any(c.isdigit() for c in document):
        os.abort()
    return [document[i:i + 1] for i in range(len(document)) if not document[i].isspace()]


not_callable = 42
