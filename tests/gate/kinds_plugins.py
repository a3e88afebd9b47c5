"""Plugins that declare the documents they are meant for, and write down every document they
are called on (one ``ascii()`` line each) to the file named by ``$KINDS_LOG``, so a test can
measure what a run fed them."""

from __future__ import annotations

import os

from chunk_contract_reference.fixed import split as _fixed


def _record(document: str) -> None:
    path = os.environ.get("KINDS_LOG")
    if path:
        with open(path, "a", encoding="ascii") as log:
            log.write(ascii(document) + "\n")


def markdown(document: str, *, max_size: int, overlap: int = 0) -> list[dict]:
    """A correct chunker (reference fixed windows) declaring markdown documents."""
    _record(document)
    return _fixed(document, max_size=max_size, overlap=overlap)


markdown.documents = "markdown"  # type: ignore[attr-defined]


def python(document: str, *, max_size: int, overlap: int = 0) -> list[dict]:
    """The same, declaring Python source."""
    _record(document)
    return _fixed(document, max_size=max_size, overlap=overlap)


python.documents = "code:python"  # type: ignore[attr-defined]
