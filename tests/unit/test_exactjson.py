"""Exact JSON (SPEC 1.1 §7): every string comes back as itself, separated surrogates included."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract import exactjson

SEPARATED = "x\udbff\udc00y"  # two lone surrogates that plain JSON merges into one character


def test_plain_json_merges_separated_surrogates() -> None:
    """The defect this module exists for: plain JSON loses a character."""
    assert len(json.loads(json.dumps(SEPARATED))) == 3


def test_separated_surrogates_round_trip() -> None:
    back = exactjson.loads(exactjson.dumps({"document": SEPARATED, "chunks": [SEPARATED[1:3]]}))
    assert back == {"document": SEPARATED, "chunks": [SEPARATED[1:3]]}
    assert len(back["document"]) == 4


def test_ordinary_strings_stay_ordinary_json() -> None:
    assert exactjson.dumps({"a": "héllo 🙂"}, ensure_ascii=False) == '{"a": "héllo 🙂"}'


def test_output_is_always_utf8_encodable() -> None:
    exactjson.dumps(["\ud800", SEPARATED], ensure_ascii=False).encode("utf-8")


def test_mapping_with_a_tag_key_is_not_mistaken_for_a_string() -> None:
    for value in ({"$str": ["a"]}, {"$dict": {"b": 1}}):
        assert exactjson.loads(exactjson.dumps(value)) == value


@pytest.mark.parametrize("bad", ['{"$str": "x"}', '{"$str": [true]}', '{"$str": [1114112]}'])
def test_malformed_tagged_string_is_a_value_error(bad: str) -> None:
    with pytest.raises(ValueError):
        exactjson.loads(bad)


def test_surrogate_in_a_key_is_refused() -> None:
    with pytest.raises(ValueError):
        exactjson.dumps({"\ud800": 1})


_TEXTS = st.text(st.sampled_from("a\ud800\udbff\udc00\U00010000")
                 | st.characters(exclude_categories=()))


@given(st.recursive(
    _TEXTS | st.integers() | st.none(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(max_size=3).filter(
        lambda k: not any("\ud800" <= c <= "\udfff" for c in k)), inner),
    max_leaves=10,
))
def test_any_value_round_trips(value: object) -> None:
    assert exactjson.loads(exactjson.dumps(value)) == value
