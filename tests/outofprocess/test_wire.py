"""The §8 messages on hand-made input: handshakes, replies and utf16 offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract.transport import wire
from chunk_contract.transport.wire import HandshakeError, ProtocolError


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"", "not one JSON object"),
        (b"[1]", "list JSON, expected an object"),
        (b'{"chunk_contract": true}', "expected the integer 1"),
        (b'{"chunk_contract": "1"}', "expected the integer 1"),
        (b'{"chunk_contract": 1, "kind": 3}', '"kind" is 3'),
        (b'{"chunk_contract": 1, "newlines": "crlf"}', '"newlines" is'),
        (b'{"chunk_contract": 1, "offsets": "bytes"}', '"offsets" is'),
        (b'{"chunk_contract": 1, "promises": ["nope"]}', "unknown invariant id"),
        (b'{"chunk_contract": 1, "promises": [1]}', '"promises" is'),
        (b'\xff{"chunk_contract": 1}', "UTF-8"),
    ],
)
def test_bad_handshakes_are_refused(line: bytes, says: str) -> None:
    with pytest.raises(HandshakeError, match=says):
        wire.parse_handshake(line)


def test_a_full_handshake_and_unknown_keys() -> None:
    found = wire.parse_handshake(
        b'{"chunk_contract": 1, "kind": "text", "unit": "tokens", "newlines": "lf",'
        b' "promises": ["grapheme_integrity"], "offsets": "utf16", "name": "mine"}'
    )
    decl = found.declarations()
    assert (decl.unit, decl.newlines, decl.has_count_tokens) == ("tokens", "lf", True)
    assert found.promises == {"grapheme_integrity"} and found.offsets == "utf16"


@pytest.mark.parametrize(
    "reply",
    [{"id": 1}, {"id": 1, "chunks": [], "error": {"type": "crash", "message": ""}},
     {"id": 1, "error": "boom"}, {"id": 1, "error": {"type": "config", "message": 3}}],
)
def test_malformed_split_replies_are_protocol_errors(reply: dict[str, object]) -> None:
    with pytest.raises(ProtocolError):
        wire.split_value(reply, "abc", "codepoints")


def test_reply_ids_are_checked() -> None:
    with pytest.raises(ProtocolError, match="id True"):
        wire.read_reply(b'{"id": true}', 1)
    assert wire.read_reply(b'{"id": 4, "chunks": []}', 4)["id"] == 4


def test_wrong_chunk_types_are_wrong_type_not_protocol_errors() -> None:
    assert wire.split_value({"id": 1, "chunks": {}}, "a", "codepoints")[0] == "wrong_type"
    value = wire.split_value({"id": 1, "chunks": [{"text": "a", "start": 0.0}]}, "a", "codepoints")
    assert value[0] == "wrong_type" and "expected an int" in value[1]


def test_error_types() -> None:
    config = wire.split_value({"id": 1, "error": {"type": "config", "message": "no"}}, "", "")
    crash = wire.split_value({"id": 1, "error": {"type": "oops", "message": "no"}}, "", "")
    assert config[3] is True and crash[3] is False


@pytest.mark.parametrize("counts", [None, [1], [1, -1], [1, 2.0], [True, 1]])
def test_bad_counts_are_protocol_errors(counts: object) -> None:
    with pytest.raises(ProtocolError):
        wire.counts_value({"id": 1, "counts": counts}, ["a", "b"])


DOC = "a\U0001f600b"  # UTF-16: a=0, the emoji 1-2, b=3, end 4


@pytest.mark.parametrize(("unit", "point"), [(0, 0), (1, 1), (3, 2), (4, 3), (-1, -1), (6, 5)])
def test_utf16_offsets_on_boundaries_convert_exactly(unit: int, point: int) -> None:
    [record] = wire.utf16_to_codepoints(DOC, [{"text": "x", "start": unit, "bare": False}])
    assert record["start"] == point and "start_byte" not in record


def test_a_utf16_offset_inside_a_pair_lands_inside_the_utf8_bytes() -> None:
    [record] = wire.utf16_to_codepoints(DOC, [{"text": "\U0001f600b", "start": 2, "end": 4}])
    # codepoint 1 (the emoji's own offset), and byte 1 + 2: inside its 4 UTF-8 bytes
    assert (record["start"], record["end"]) == (1, 3)
    assert (record["start_byte"], record["end_byte"]) == (3, 6)


def test_reply_cap_grows_with_the_request() -> None:
    assert wire.reply_cap(10) == 640 + wire.REPLY_SLACK


def test_what_the_protocol_cannot_carry_is_refused_plainly() -> None:
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800.*valid Unicode"):
        wire.encode_message(wire.split_message(1, "a\ud800b", 3, 0))
    with pytest.raises(ValueError):
        wire.encode_message({"id": 1, "x": float("nan")})
    line = wire.encode_message(wire.split_message(1, "é\n\U0001f600", 3, 0))
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and "é".encode() in line


def test_workbook_documents_are_not_offset_converted() -> None:
    reply = {"id": 1, "chunks": [{"text": "a", "sheet": "S", "range": "A1"}]}
    assert wire.split_value(reply, {"sheets": {"S": {"A1": "a"}}}, "utf16")[0] == "chunks"


@given(st.text(alphabet=st.sampled_from("a\n\u00e9\u4e2d\ud800\U0001f600\U0010ffff\U00010000")))
def test_every_utf16_offset_converts_as_counting_units_one_by_one(document: str) -> None:
    """Each UTF-16 offset of a document maps to the codepoint a unit-by-unit count gives
    (the fast astral table against a plain loop); offsets inside a pair are flagged."""
    expected, units = {}, 0
    for point, char in enumerate(document):
        expected[units] = (point, False)
        if ord(char) > 0xFFFF:
            expected[units + 1] = (point, True)
        units += 2 if ord(char) > 0xFFFF else 1
    expected[units] = (len(document), False)
    table = wire._AstralTable(document)
    assert table.units == units
    assert {unit: table.codepoint(unit) for unit in expected} == expected
