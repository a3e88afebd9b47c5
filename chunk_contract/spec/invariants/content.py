"""Content rules: chunks are non-empty verbatim slices that together hold all the text."""

from __future__ import annotations

from collections.abc import Iterator

from chunk_contract.spec.causes import offsets_untrusted
from chunk_contract.spec.invariants._common import (
    CITATIONS,
    partly_reported,
    partly_reported_message,
)
from chunk_contract.spec.model import (
    Case,
    Chunk,
    Violation,
    describe_chunk,
    escape,
    is_blank,
    plural,
)
from chunk_contract.spec.placement import first_gap, uncovered_offset
from chunk_contract.spec.rules import invariant


@invariant("non_empty", kinds=("text", "workbook"))
def non_empty(case: Case) -> Iterator[Violation]:
    """No chunk is empty or whitespace-only."""
    texts = [chunk.text for chunk in case.chunks]
    if all(texts) and not any(map(str.isspace, texts)):
        return  # (the common case, at C speed)
    for chunk in case.chunks:
        if is_blank(chunk.text):
            what = "empty" if not chunk.text else f"whitespace-only {escape(chunk.text)}"
            yield Violation("non_empty", f"{describe_chunk(chunk)} is {what}", (chunk.index,))


@invariant("span_fidelity")
def span_fidelity(case: Case) -> Iterator[Violation]:
    """Each chunk's text equals the document slice it claims (offsets, byte offsets, placement)."""
    if case.all_exact:
        yield from _partly_placed(case)  # (the common case, settled at C speed)
        return
    text = case.document.text
    cursor = 0  # where the last unplaced chunk was found: in-order chunks are found near it
    for chunk, chars, bytes_ in zip(case.chunks, case.char_exact, case.byte_exact):
        start, end, sb, eb = chunk.start, chunk.end, chunk.start_byte, chunk.end_byte
        if chunk.bare or (start is None and end is None and sb is None and eb is None):
            found = text.find(chunk.text, cursor) if chunk.text else cursor
            if found >= 0:
                cursor = found
            elif chunk.text not in text:  # (a search from the start only when out of order)
                yield _violation(chunk, f"{escape(chunk.text)} occurs nowhere in the document")
            continue
        # The faithful common case is settled by Case.char_exact / byte_exact (in place).
        if (start is not None or end is not None) and not chars:
            yield from _check_chars(case, chunk)
        if (sb is not None or eb is not None) and not bytes_:
            yield from _check_bytes(case, chunk)
    yield from _partly_placed(case)


def _partly_placed(case: Case) -> Iterator[Violation]:
    """Offsets (codepoint or byte) reported for some chunks and not others (README: "Nothing
    hidden"): one violation per kind of offset, at the first chunk without it."""
    for what in ("codepoint offsets", "byte offsets"):
        without = partly_reported(case, CITATIONS[what])
        if without:
            message = partly_reported_message(case, what, without)
            yield Violation("span_fidelity", message, tuple(c.index for c in without))


def _check_chars(case: Case, chunk: Chunk) -> Iterator[Violation]:
    start, end, size = chunk.start, chunk.end, len(case.document)
    if start is None or end is None:
        yield _violation(chunk, f"reports start={start} end={end}; both or neither are allowed")
    elif not 0 <= start <= end <= size:
        yield _violation(chunk, f"span [{start}:{end}) is not inside the document [0:{size})")
    elif end - start != len(chunk.text) or not case.document.text.startswith(chunk.text, start):
        # startswith compares in place: no copy of the slice for the common, faithful case
        held = case.document.text[start:end]
        yield _violation(chunk, _mismatch(chunk.text, held, f"[{start}:{end})"))


def _check_bytes(case: Case, chunk: Chunk) -> Iterator[Violation]:
    """Byte offsets hold the text, and the same place as the codepoint offsets, if any."""
    sb, eb, size = chunk.start_byte, chunk.end_byte, len(case.document.data)
    if sb is None or eb is None:
        yield _violation(
            chunk, f"reports start_byte={sb} end_byte={eb}; both or neither are allowed"
        )
    elif not 0 <= sb <= eb <= size:
        inside = f"the document's {plural(size, 'byte')}"
        yield _violation(chunk, f"byte span [{sb}:{eb}) is not inside {inside}")
    elif eb - sb != len(chunk.utf8) or not case.document.data.startswith(chunk.utf8, sb):
        held = _decode(case.document.data[sb:eb])
        if held is None:
            lossy = case.document.data[sb:eb].decode("utf-8", "replace")
            yield _violation(
                chunk,
                (
                    f"text {escape(chunk.text)} but bytes [{sb}:{eb}) of the document cut a "
                    f"character: they hold no text, only {escape(lossy)} with U+FFFD for the cut"
                ),
            )
        elif held != chunk.text:
            yield _violation(chunk, _mismatch(chunk.text, held, f"bytes [{sb}:{eb})"))
    elif (at := case.start_bytes[chunk.index]) is not None and at != sb:
        # Both spans hold the text, but not the same copy of it: one of them cites wrongly.
        yield _violation(
            chunk,
            f"bytes [{sb}:{eb}) and codepoints [{chunk.start}:{chunk.end}) both hold "
            f"{escape(chunk.text, 40)}, but at two places: the codepoint span is bytes "
            f"[{at}:{at + len(chunk.utf8)})",
        )


def _decode(data: bytes) -> str | None:
    """Bytes of the document as text (lone surrogates, encoded with ``surrogatepass`` by
    :attr:`Document.data`, come back as themselves), or None if they cut a character."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def _mismatch(text: str, held: str, where: str) -> str:
    return f"text {escape(text)} but the document holds {escape(held)} at {where}"


def _violation(chunk: Chunk, message: str) -> Violation:
    return Violation("span_fidelity", f"{describe_chunk(chunk)}: {message}", (chunk.index,))


@invariant("no_lost_text")
def no_lost_text(case: Case) -> Iterator[Violation]:
    """Every non-whitespace character of the document lies inside some chunk.

    The rule is about text: when the offsets cannot be trusted (their text is not where they
    say, which is span_fidelity's verdict), it is judged from the chunk texts alone, placed in
    document order. Text every placement misses is lost whatever the offsets say.
    """
    text = case.document.text
    textual = offsets_untrusted(case)
    if case.all_spanned and not textual:
        gap = first_gap(text, case.offset_spans)
    else:
        fixed = [None if textual or s is None else s[0] for s in case.offset_spans]
        gap = uncovered_offset(text, [c.text for c in case.chunks], fixed).offset
    if gap is not None:
        line = case.document.line_of(gap)
        yield Violation(
            "no_lost_text",
            f"document[{gap}] {escape(text[gap])} (line {line}) lies in no chunk"
            + _how_judged(case, textual=textual),
        )


def _how_judged(case: Case, *, textual: bool) -> str:
    if textual:
        return (
            " (judged from the chunk texts, as the offsets do not hold them: no placement of "
            "the texts in document order covers all the text)"
        )
    if case.all_spanned:
        return ""
    return (
        " placed in document order (and no placement of the chunks in document order covers "
        "all the text)"
    )
