"""deterministic and newline_invariance: the same input again, and the CRLF twin of an LF input."""

from __future__ import annotations

from dataclasses import replace

from chunk_contract.spec.model import Case, Chunk
from tests.unit.helpers import accepts, bare, book, case, rejects, spans, violations

DOC = "alpha beta gamma"


def _with_rerun(first: list[Chunk], second: list[Chunk] | None) -> Case:
    c = case(DOC, first)
    c.rerun = second
    return c


# --------------------------------------------------------------------------- deterministic


def test_deterministic_accepts_equal_reruns() -> None:
    first = spans(DOC, (0, 5), (6, 10), (11, 16), id="x")
    first = [replace(c, id=f"id{c.index}", line_start=1, line_end=1) for c in first]
    accepts("deterministic", _with_rerun(first, list(first)))


def test_deterministic_without_a_rerun_checks_nothing() -> None:
    assert violations("deterministic", _with_rerun(bare("alpha"), None)) == []


def test_deterministic_rejects_a_different_number_of_chunks() -> None:
    rejects(
        "deterministic",
        _with_rerun(bare("alpha", "beta gamma"), bare("alpha")),
        "a second call on the same input differs: 2 chunks, then 1",
    )


def test_deterministic_rejects_different_texts() -> None:
    rejects(
        "deterministic",
        _with_rerun(bare("alpha beta", "gamma"), bare("alpha", "gamma")),
        "chunk[0].text was 'alpha beta', then 'alpha'",
    )


def test_deterministic_compares_offsets_lines_and_ids() -> None:
    first = spans(DOC, (0, 5), (6, 10))
    moved = [first[0], replace(first[1], start=5)]
    rejects("deterministic", _with_rerun(first, moved), "chunk[1].start was 6, then 5")
    renamed = [replace(c, id=f"run1-{c.index}") for c in first]
    again = [replace(c, id=f"run2-{c.index}") for c in first]
    rejects("deterministic", _with_rerun(renamed, again), "chunk[0].id was 'run1-0', then 'run2-0'")
    cited = [replace(c, line_start=1) for c in first]
    rejects(
        "deterministic",
        _with_rerun(cited, [cited[0], replace(cited[1], line_start=2)]),
        "chunk[1].line_start was 1, then 2",
    )
    sectioned = [replace(c, section=("A",)) for c in first]
    rejects(
        "deterministic",
        _with_rerun(sectioned, [sectioned[0], replace(sectioned[1], section=("B",))]),
        "chunk[1].section was ('A',), then ('B',)",
    )


def test_deterministic_applies_to_workbooks() -> None:
    chunks = [Chunk(index=0, text="x", sheet="S", range="A1")]
    c = book({"S": {(1, 1): "x"}}, chunks)
    c.rerun = [replace(chunks[0], range="A1:B1")]
    rejects("deterministic", c, "chunk[0].range was 'A1', then 'A1:B1'")


# --------------------------------------------------------------------------- newline_invariance

NI = {"newline_invariance"}
LF = "alpha\n\nbeta\ngamma\n\ndelta"
CRLF = LF.replace("\n", "\r\n")


def _twins(crlf: list[Chunk], lf: list[Chunk]) -> Case:
    c = case(CRLF, crlf, promises=NI)
    c.twins = (crlf, lf)
    return c


def _paragraphs(doc: str, sep: str) -> list[Chunk]:
    return bare(*[p for p in doc.split(sep) if p.strip()])


def test_newline_invariance_accepts_the_same_chunks_up_to_crlf() -> None:
    accepts("newline_invariance", _twins(_paragraphs(CRLF, "\r\n\r\n"), _paragraphs(LF, "\n\n")))


def test_newline_invariance_without_twins_checks_nothing() -> None:
    assert violations("newline_invariance", case(CRLF, bare(CRLF), promises=NI)) == []


def test_crlf_paragraphs_lost_by_splitting_on_lf_lf() -> None:
    """Seed: "\\r\\n\\r\\n" holds no "\\n\\n", so a CRLF file came back as one paragraph."""
    rejects(
        "newline_invariance",
        _twins(_paragraphs(CRLF, "\n\n"), _paragraphs(LF, "\n\n")),
        "the CRLF version of the document chunks differently from its LF version: 1 chunk, then 3",
    )


def test_newline_invariance_rejects_a_text_difference_beyond_crlf() -> None:
    crlf = bare("alpha\r\n", "beta")
    lf = bare("alpha", "beta")
    rejects("newline_invariance", _twins(crlf, lf), "chunk[0].text was 'alpha\\n', then 'alpha'")


def test_newline_invariance_keeps_lone_cr() -> None:
    """Only CRLF pairs are normalised: a lone CR in a chunk is a real difference."""
    rejects(
        "newline_invariance",
        _twins(bare("a\rb"), bare("a\nb")),
        "chunk[0].text was 'a\\rb', then 'a\\nb'",
    )
