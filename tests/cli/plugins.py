"""Small plugins for the command-line tests."""

import os


def slices(document, *, max_size, overlap):
    """Correct: verbatim overlapping windows as bare strings (blank windows left out)."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    windows = (document[i : i + max_size] for i in range(0, len(document), max_size - overlap))
    return [w for w in windows if w.strip()]


def words_only(document, *, max_size, overlap):
    """Loses every word longer than the cap."""
    return [w for w in document.split() if len(w) <= max_size]


def hangs(document, *, max_size, overlap):
    """Never returns on documents with a space (and swallows every exception while hanging)."""
    while " " in document:
        try:  # noqa: SIM105 - the point: a hang that swallows exceptions
            pass
        except Exception:
            pass
    return [document] if document.strip() else []


def aborts(document, *, max_size, overlap):
    """Kills the interpreter on any document holding a digit."""
    if any(c.isdigit() for c in document):
        os.abort()
    return [document[i : i + 1] for i in range(len(document)) if not document[i].isspace()]


not_callable = 42


def hog(document, *, max_size, overlap):
    """Correct output, but it needs 2 GiB on every call: above the default memory cap it fails."""
    block = bytearray(2 * 2**30)
    return slices(document, max_size=max_size, overlap=overlap) if block is not None else []
