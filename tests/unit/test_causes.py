"""One cause, one verdict (chunk_contract.spec.causes): violations that hold once the offsets are
set aside follow from span_fidelity; the rest are verdicts of their own."""

from __future__ import annotations

from chunk_contract.spec.causes import attribute, offsets_untrusted, without_offsets
from chunk_contract.spec.model import Case, Chunk, Violation
from chunk_contract.spec.registry import registry
from tests.unit.helpers import accepts, bare, case, rejects, spans, violations

CHECKS = {rule.id: rule.check for rule in registry().values() if not rule.engine and not rule.needs}


def _early(doc: str, *pieces: tuple[int, int], shift: int) -> list[Chunk]:
    """Verbatim texts whose starts after the first are ``shift`` too early, lines right."""
    out = []
    for i, (s, e) in enumerate(pieces):
        at = s - shift * (i > 0)
        out.append(Chunk(index=i, text=doc[s:e], start=at, end=at + e - s,
                         line_start=doc.count("\n", 0, s) + 1,
                         line_end=doc.count("\n", 0, e - 1) + 1))
    return out


def _all(c: Case) -> list[Violation]:
    found = [v for check in CHECKS.values() for v in check(c)]
    return attribute(c, found, CHECKS)


def test_wrong_offsets_over_text_all_there_lose_no_text() -> None:
    doc = "aa\nbb"
    c = case(doc, _early(doc, (0, 2), (3, 5), shift=1))
    assert offsets_untrusted(c)
    accepts("no_lost_text", c)
    rejects("span_fidelity", c, "chunk[1] [2:4)")


def test_text_really_lost_is_still_no_lost_text_when_offsets_are_wrong() -> None:
    doc = "aa\nbb\ncc"
    c = case(doc, _early(doc, (0, 2), (3, 5), shift=1))
    rejects("no_lost_text", c, "document[6] 'c'", "judged from the chunk texts")


def test_line_citations_that_fail_only_at_wrong_offsets_follow_from_span_fidelity() -> None:
    doc = "aa\nbb"
    found = {v.invariant: v for v in _all(case(doc, _early(doc, (0, 2), (3, 5), shift=1)))}
    assert found["span_fidelity"].follows_from is None
    assert found["line_citations"].follows_from == "span_fidelity"
    assert "no_lost_text" not in found


def test_a_rule_broken_on_the_texts_too_is_a_verdict_of_its_own() -> None:
    """Wrong offsets and wrong lines: the lines are wrong wherever the text is placed."""
    doc = "aa\nbb"
    chunks = _early(doc, (0, 2), (3, 5), shift=1)
    chunks[1] = Chunk(index=1, text="bb", start=2, end=4, line_start=7, line_end=7)
    found = {v.invariant: v for v in _all(case(doc, chunks))}
    assert found["line_citations"].follows_from is None


def test_faithful_offsets_attribute_nothing() -> None:
    doc = "ab cd"
    c = case(doc, spans(doc, (0, 2), (0, 2)))  # a repeated span: ordered's own verdict
    assert not offsets_untrusted(c)
    found = _all(c)
    assert found and all(v.follows_from is None for v in found)


def test_without_offsets_keeps_texts_and_lines() -> None:
    doc = "aa\nbb"
    c = without_offsets(case(doc, _early(doc, (0, 2), (3, 5), shift=1)))
    assert [(ch.text, ch.start, ch.start_byte, ch.line_start) for ch in c.chunks] == [
        ("aa", None, None, 1), ("bb", None, None, 2)]
    assert violations("line_citations", c) == []


def test_bare_halves_of_a_cut_emoji_are_codepoint_integrity_and_span_fidelity_follows() -> None:
    """['x\\ud83d', '\\ude00y'] for 'x😀y': the texts are foreign only by the cut."""
    doc = "x\U0001f600y"
    found = {v.invariant: v for v in _all(case(doc, bare("x\ud83d", "\ude00y")))}
    assert found["codepoint_integrity"].follows_from is None
    assert found["span_fidelity"].follows_from == "codepoint_integrity"


def test_a_bare_chunk_foreign_beyond_the_cut_keeps_its_own_span_fidelity() -> None:
    doc = "x\U0001f600y"
    found = {v.invariant: v for v in _all(case(doc, bare("x\ud83d", "\ude00z")))}
    assert found["span_fidelity"].follows_from is None


def test_offsets_at_an_earlier_copy_make_ordered_the_verdict_and_no_lost_text_follow() -> None:
    """'a a' cut in two, both chunks reported at the first 'a' (a find from too early): the
    text is all there, the order is what is wrong."""
    doc = "a a"
    c = case(doc, spans(doc, (0, 1), (0, 1)))
    assert not offsets_untrusted(c)  # each offset holds its chunk's text
    found = {v.invariant: v for v in _all(c)}
    assert found["ordered"].follows_from is None
    assert found["no_lost_text"].follows_from == "ordered"


def test_text_lost_besides_a_misplaced_chunk_is_still_no_lost_text() -> None:
    doc = "a b"
    c = case(doc, spans(doc, (0, 1), (0, 1)))
    found = {v.invariant: v for v in _all(c)}
    assert found["ordered"].follows_from is None
    assert found["no_lost_text"].follows_from is None


def test_a_misplaced_chunk_judged_alone_still_follows_from_ordered() -> None:
    """Shrinking judges one rule at a time: ordered is checked again to name the cause."""
    doc = "a a"
    c = case(doc, spans(doc, (0, 1), (0, 1)))
    alone = [v for v in CHECKS["no_lost_text"](c)]
    assert [v.follows_from for v in attribute(c, alone, CHECKS)] == ["ordered"]
