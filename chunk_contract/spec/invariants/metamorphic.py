"""Metamorphic rules: the same input gives the same chunks; CRLF gives the LF chunks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import attrgetter, is_

from chunk_contract.spec.invariants._common import plural
from chunk_contract.spec.model import CHUNK_FIELDS, Case, Chunk, Violation, escape
from chunk_contract.spec.rules import invariant


@invariant("deterministic", kinds=("text", "workbook"), needs=("rerun",))
def deterministic(case: Case) -> Iterator[Violation]:
    """The same document and config give the same chunks (texts, offsets, lines, ids) again."""
    if case.rerun is None:
        return
    difference = _first_difference(case.chunks, case.rerun, CHUNK_FIELDS)
    if difference:
        yield Violation("deterministic", f"a second call on the same input differs: {difference}")


def _first_difference(
    first: Sequence[Chunk], second: Sequence[Chunk], fields: Sequence[str]
) -> str | None:
    if len(first) != len(second):
        return f"{plural(len(first), 'chunk')}, then {len(second)}"
    if all(map(is_, first, second)):  # the very chunks (a reply identical to the byte)
        return None
    fields_of = attrgetter(*fields)  # one C call per chunk: the common case is "no difference"
    if list(map(fields_of, first)) == list(map(fields_of, second)):
        return None
    for a, b in zip(first, second):
        for name in fields:
            x, y = getattr(a, name), getattr(b, name)
            if x != y:
                shown = (escape(x, 40), escape(y, 40)) if isinstance(x, str) else (x, y)
                return f"chunk[{a.index}].{name} was {shown[0]}, then {shown[1]}"
    return None


_TEXT = attrgetter("text")


@invariant("newline_invariance", opt_in=True, needs=("lf_twin",))
def newline_invariance(case: Case) -> Iterator[Violation]:
    """The chunks of a CRLF document, with CRLF turned to LF, equal those of its LF version."""
    if case.twins is None:
        return
    crlf, lf = case.twins
    texts = [text.replace("\r\n", "\n") for text in map(_TEXT, crlf)]
    if texts == list(map(_TEXT, lf)):
        return  # (the common case: one comparison of two lists of strings, no copies)
    normalised = [Chunk(index=c.index, text=text) for c, text in zip(crlf, texts)]
    plain = [Chunk(index=c.index, text=c.text) for c in lf]
    difference = _first_difference(normalised, plain, ("text",))
    if difference:
        yield Violation(
            "newline_invariance",
            "the CRLF version of the document chunks differently from its LF version: "
            + difference,
        )
