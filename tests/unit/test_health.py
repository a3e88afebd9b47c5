"""The ``count_tokens_additive`` health check (chunk_contract.engine.health) on hand-made chunks."""

from __future__ import annotations

from typing import Any

from chunk_contract.engine.health import (
    ADDITIVITY,
    additivity_finding,
    count_tokens_additive,
    probes,
    run_health_checks,
)
from chunk_contract.spec.model import Declarations

TOKENS = Declarations(unit="tokens", has_count_tokens=True)
APPROXIMATE = Declarations(unit="tokens", has_count_tokens=True, token_counting="approximate")
DOC = "alpha beta gamma delta"


def words(text: str) -> int:
    return len(text.split())


def _span(start: int, end: int) -> dict[str, Any]:
    return {"text": DOC[start:end], "start": start, "end": end}


def test_overlapping_neighbours_give_the_shared_piece_and_the_rest() -> None:
    found = list(probes([_span(0, 10), _span(6, 16)], DOC))
    assert ("alpha beta", ("alpha ", "beta")) in found
    assert ("beta gamma", ("beta", " gamma")) in found
    assert ("alpha beta gamma", ("alpha beta", " gamma")) in found


def test_disjoint_neighbours_are_joined_with_what_lies_between() -> None:
    assert list(probes([_span(0, 5), _span(6, 10)], DOC)) == [
        ("alpha beta", ("alpha", " ", "beta"))
    ]


def test_bare_strings_are_placed_by_their_common_text() -> None:
    records = [{"text": "alpha be"}, {"text": "beta ga"}]
    found = list(probes(records, DOC))
    assert ("alpha be", ("alpha ", "be")) in found
    # "ab" / "bc" share "b" as text, but "abc" is not in the document: no probe.
    assert list(probes([{"text": "ab"}, {"text": "bc"}], "ab bc")) == []


def test_a_cut_inside_a_word_is_caught_for_a_word_count() -> None:
    records = [_span(0, 8), _span(6, 13)]  # they share "be", a piece of "beta"
    failures = count_tokens_additive(words, probes(records, DOC))
    assert failures
    finding = additivity_finding(failures, TOKENS)
    assert finding is not None and finding.severity == "warning"
    assert finding.check == ADDITIVITY
    assert "count_tokens('beta ga') = 2" in finding.what and "(sum 3)" in finding.what
    assert "overlap_bounded" in finding.why
    assert 'token_counting = "approximate"' in finding.fix


def test_word_aligned_chunks_are_additive_for_a_word_count() -> None:
    records = [_span(0, 10), _span(6, 16), _span(17, 22)]
    assert count_tokens_additive(words, probes(records, DOC)) == []


def test_a_character_count_is_additive_everywhere() -> None:
    records = [_span(0, 8), _span(6, 13), _span(15, 20)]
    assert count_tokens_additive(len, probes(records, DOC)) == []


def test_a_declared_approximate_count_gets_a_note_with_the_slack() -> None:
    failures = count_tokens_additive(words, probes([_span(0, 8), _span(6, 13)], DOC))
    finding = additivity_finding(failures, APPROXIMATE)
    assert finding is not None and finding.severity == "note"
    assert "slack of 1 token" in finding.fix


def test_only_token_plugins_are_checked() -> None:
    calls = [(DOC, [_span(0, 8), _span(6, 13)])]
    assert run_health_checks(Declarations(), words, calls) == []
    assert [f.severity for f in run_health_checks(TOKENS, words, calls)] == ["warning"]


def test_lf_plugins_are_probed_on_the_lf_text() -> None:
    lf = Declarations(unit="tokens", has_count_tokens=True, newlines="lf")
    document = "ab\r\ncd ef"
    records = [{"text": "ab\ncd", "start": 0, "end": 5}, {"text": "cd ef", "start": 3, "end": 8}]
    assert run_health_checks(lf, len, [(document, records)]) == []
    assert run_health_checks(lf, words, [(document, records)]) == []  # word-aligned
