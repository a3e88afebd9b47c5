"""Shared builders for the unit tests of the invariants and the placement.

Cases are built by hand, straight from the model: no plugin, no worker, no runner.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chunk_contract.containment import procs
from chunk_contract.spec.model import (
    Case,
    Chunk,
    Config,
    Declarations,
    Document,
    Measure,
    Violation,
)
from chunk_contract.spec.registry import registry


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def case(
    document: str,
    chunks: Sequence[Chunk],
    *,
    max_size: int = 1000,
    overlap: int = 0,
    unit: str = "chars",
    promises: Iterable[str] = (),
    measure: Measure | None = None,
    newlines: str = "preserve",
) -> Case:
    """A text case; ``unit="bytes"`` measures UTF-8 bytes unless ``measure`` says otherwise."""
    if measure is None:
        measure = utf8_len if unit == "bytes" else len
    decl = Declarations(
        unit=unit,
        promises=frozenset(promises),
        newlines=newlines,
        has_count_tokens=unit == "tokens",
    )
    return Case(Document(document), Config(max_size, overlap), list(chunks), decl, measure)


def book(
    sheets: Mapping[str, Mapping[tuple[int, int], Any]],
    chunks: Sequence[Chunk],
    *,
    max_size: int = 1000,
    overlap: int = 0,
) -> Case:
    """A workbook case: ``sheets`` maps titles to ``{(row, col): value}``."""
    return Case(
        Document(""),
        Config(max_size, overlap),
        list(chunks),
        Declarations(kind="workbook"),
        workbook={k: dict(v) for k, v in sheets.items()},
    )


def bare(*texts: str) -> list[Chunk]:
    """Chunks given as bare strings: no offsets, placed by the contract."""
    return [Chunk(index=i, text=t, bare=True) for i, t in enumerate(texts)]


def spans(document: str, *pairs: tuple[int, int], **fields: Any) -> list[Chunk]:
    """Chunks that report codepoint offsets; their text is the document's slice."""
    return [
        Chunk(index=i, text=document[s:e], start=s, end=e, **fields)
        for i, (s, e) in enumerate(pairs)
    ]


def slices(document: str, *texts: str) -> list[Chunk]:
    """Chunks with offsets found by scanning forward for each text (with overlap allowed)."""
    out, cursor = [], 0
    for i, text in enumerate(texts):
        start = document.find(text, cursor)
        assert start != -1, f"{text!r} not in the document after {cursor}"
        out.append(Chunk(index=i, text=text, start=start, end=start + len(text)))
        cursor = start + 1
    return out


def reindex(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The same chunks with indices 0..n-1 (after reordering or concatenation)."""
    from dataclasses import replace

    return [replace(c, index=i) for i, c in enumerate(chunks)]


def violations(invariant: str, c: Case) -> list[Violation]:
    return list(registry()[invariant].check(c))


def accepts(invariant: str, c: Case) -> None:
    found = violations(invariant, c)
    assert not found, f"{invariant} wrongly rejected: " + "; ".join(map(str, found))


def rejects(invariant: str, c: Case, *fragments: str) -> list[Violation]:
    """Assert at least one violation, all of ``invariant``, the first naming every fragment."""
    found = violations(invariant, c)
    assert found, f"{invariant} accepted a case it must reject"
    assert all(v.invariant == invariant for v in found), found
    message = found[0].message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (absent, or a zombie nobody reaped, is not)."""
    fields = procs.stat(pid)
    return fields is not None and fields[0] != "Z"


@functools.cache
def shield_works() -> bool:
    """Whether this kernel takes chunk_contract.containment.sandbox's filter (asked in a child
    process: a filter cannot be removed)."""
    code = "from chunk_contract.containment import sandbox; exit(not sandbox.shield([]))"
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


#: Why the tests of the seccomp filter skip where :func:`shield_works` is False.
NO_SHIELD = "platform: no seccomp filter here (Linux x86-64/AArch64 only)"
