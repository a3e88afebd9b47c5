"""chunk_contract.spec.model: document geometry, chunk normalisation, configs, declarations, the
case."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract.spec.model import (
    Case,
    Chunk,
    ChunkTypeError,
    Config,
    Declarations,
    Document,
    chunks_from_records,
    describe_chunk,
    escape,
    first_non_space,
    is_blank,
    normalise_chunks,
)
from tests.unit import helpers

# --------------------------------------------------------------------------- Document: lines


def test_line_of_counts_newlines_only() -> None:
    doc = Document("ab\ncd\r\nef\rgh\x0bij\x0ckl\x85mn\u2028op\n\nq")
    text = doc.text
    assert doc.line_of(0) == 1
    assert doc.line_of(text.index("\n")) == 1  # the "\n" belongs to its own line
    assert doc.line_of(text.index("c")) == 2
    assert doc.line_of(text.index("\r\n")) == 2
    assert doc.line_of(text.index("e")) == 3
    for later in ("g", "i", "k", "m", "o"):  # none of \r \x0b \x0c \x85 \u2028 ends it
        assert doc.line_of(text.index(later)) == 3
    assert doc.line_of(text.index("q")) == 5
    assert doc.line_count == 5
    assert doc.line_of(len(text)) == 5  # the end offset is on the last line


def test_line_bounds_include_the_newline() -> None:
    doc = Document("ab\ncd\r\n\nlast")
    assert doc.line_bounds(1) == (0, 3)
    assert doc.line_bounds(2) == (3, 7)
    assert doc.line_bounds(3) == (7, 8)
    assert doc.line_bounds(4) == (8, 12)
    for line in range(1, doc.line_count + 1):
        first, past = doc.line_bounds(line)
        assert all(doc.line_of(k) == line for k in range(first, past))
    assert Document("").line_bounds(1) == (0, 0)
    assert Document("x\n").line_bounds(2) == (2, 2)


def test_newlines_are_cached() -> None:
    doc = Document("a\nb\nc")
    assert doc.newlines == [1, 3]
    assert doc.newlines is doc.newlines


# --------------------------------------------------------------------------- Document: bytes


def _reference_char_to_byte(text: str, k: int) -> int:
    return len(text[:k].encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ascii only",
        "héllo wörld",
        "数据" * 3000 + "\U0001f680" * 2000 + "é" * 5000,  # > 4096 chars: several checkpoints
        ("aé数\U0001f680" * 2048),  # exactly 8192 chars
        "x" * 4095 + "é" + "y" * 4097,  # non-ASCII right at a checkpoint
        "a\ud800b",  # a lone surrogate
    ],
)
def test_char_and_byte_offsets_round_trip(text: str) -> None:
    doc = Document(text)
    assert doc.data == text.encode("utf-8", "surrogatepass")
    step = max(1, len(text) // 400)
    for k in [*range(0, len(text) + 1, step), len(text), 4095, 4096, 4097, 8191, 8192]:
        if k > len(text):
            continue
        b = doc.char_to_byte(k)
        assert b == _reference_char_to_byte(text, k), k
        assert doc.is_byte_boundary(b)
        assert doc.byte_to_char(b) == k


def test_is_byte_boundary() -> None:
    doc = Document("a\U0001f680é")  # bytes: a | f0 9f 9a 80 | c3 a9
    assert [doc.is_byte_boundary(k) for k in range(len(doc.data) + 1)] == [
        True,
        True,
        False,
        False,
        False,
        True,
        False,
        True,
    ]
    assert not doc.is_byte_boundary(-1)
    assert not doc.is_byte_boundary(len(doc.data) + 1)


def test_first_non_space_and_is_blank() -> None:
    assert first_non_space(" \t\n x y") == 4
    assert first_non_space(" \t\n x y", 5) == 6
    assert first_non_space("ab  ", 2) == -1
    assert first_non_space("  x", 0, 2) == -1
    assert first_non_space("\u3000\x1c\x85\u2028z") == 4  # str.isspace() whitespace
    assert first_non_space("\u200bz") == 0  # zero-width space is not
    assert is_blank("") and is_blank(" \n\t\u3000") and not is_blank(" x ")


# --------------------------------------------------------------------------- normalise_chunks


def test_normalise_bare_strings() -> None:
    assert normalise_chunks(["a", "b"]) == [
        {"text": "a", "bare": True},
        {"text": "b", "bare": True},
    ]
    assert normalise_chunks([]) == []


def test_normalise_mappings() -> None:
    records = normalise_chunks(
        [
            {
                "text": "ab",
                "start": 0,
                "end": 2,
                "line_start": 1,
                "line_end": 1,
                "id": "x",
                "section": ("H1", "H2"),
                "ignored": object(),
                "token_count": None,
            },
            {"text": "cd", "line_start": 2},
        ]
    )
    assert records[0] == {
        "text": "ab",
        "start": 0,
        "end": 2,
        "line_start": 1,
        "line_end": 1,
        "id": "x",
        "section": ["H1", "H2"],
        "bare": False,
    }
    assert records[1] == {"text": "cd", "line_start": 2, "bare": True}  # no offsets: placed


def test_normalise_objects_with_attributes() -> None:
    @dataclass
    class Piece:
        text: str
        start_byte: int
        end_byte: int

    records = normalise_chunks(
        [Piece("ab", 0, 2), SimpleNamespace(text="cd", sheet="S", range="A1")]
    )
    assert records == [
        {"text": "ab", "start_byte": 0, "end_byte": 2, "bare": False},
        {"text": "cd", "sheet": "S", "range": "A1", "bare": True},
    ]


def test_normalise_generators_and_other_iterables() -> None:
    def gen() -> Iterator[str]:
        yield "a"
        yield "b"

    assert [r["text"] for r in normalise_chunks(gen())] == ["a", "b"]
    assert [r["text"] for r in normalise_chunks(("x", "y"))] == ["x", "y"]
    assert [r["text"] for r in normalise_chunks(iter(["z"]))] == ["z"]


@pytest.mark.parametrize(
    "result,message",
    [
        ("one string", "returned str, expected an iterable of chunks"),
        (b"bytes", "returned bytes, expected an iterable of chunks"),
        ({"text": "a"}, "returned dict, expected an iterable of chunks"),
        (None, "returned NoneType, expected an iterable of chunks"),
        (42, "returned int, expected an iterable of chunks"),
    ],
)
def test_normalise_rejects_results_that_are_not_iterables_of_chunks(
    result: object, message: str
) -> None:
    with pytest.raises(ChunkTypeError, match=message):
        normalise_chunks(result)


@pytest.mark.parametrize(
    "item,message",
    [
        ({"start": 0}, r"chunk\[1\] \(dict\) has no text"),
        ({"text": None}, r"chunk\[1\] \(dict\) has no text"),
        (SimpleNamespace(start=0), r"chunk\[1\] \(SimpleNamespace\) has no text"),
        (None, r"chunk\[1\] \(NoneType\) has no text"),
        (b"bytes", r"chunk\[1\] \(bytes\) has no text"),
        ({"text": b"ab"}, r"chunk\[1\]\.text is b'ab', expected a str"),
        ({"text": "a", "start": "0"}, r"chunk\[1\]\.start is '0', expected an int"),
        ({"text": "a", "end": 2.0}, r"chunk\[1\]\.end is 2\.0, expected an int"),
        ({"text": "a", "line_start": True}, r"chunk\[1\]\.line_start is True, expected an int"),
        ({"text": "a", "id": 7}, r"chunk\[1\]\.id is 7, expected a str"),
        ({"text": "a", "section": "H1"}, r"chunk\[1\]\.section is 'H1', expected a list of str"),
        ({"text": "a", "section": [1]}, r"chunk\[1\]\.section is \[1\], expected a list of str"),
        ({"text": "a", "section": 5}, r"chunk\[1\]\.section is 5, expected a list of str"),
        ({"text": "a", "section": {"k": "v"}}, r"chunk\[1\]\.section is \{'k': 'v'\}"),
    ],
)
def test_normalise_rejects_wrong_chunk_types_naming_chunk_and_field(
    item: object, message: str
) -> None:
    with pytest.raises(ChunkTypeError, match=message):
        normalise_chunks(["fine", item])


def test_normalise_consumes_a_generator_section() -> None:
    """A lazy section used to be consumed by the type check and come back empty."""
    records = normalise_chunks([{"text": "a", "section": (s for s in ["H1", "H2"])}])
    assert records[0]["section"] == ["H1", "H2"]


def test_chunk_type_error_is_a_type_error() -> None:
    assert issubclass(ChunkTypeError, TypeError)


def test_records_round_trip_to_chunks() -> None:
    records = normalise_chunks(["a", {"text": "b", "start": 2, "end": 3, "section": ["H"]}])
    chunks = chunks_from_records(records)
    assert chunks[0] == Chunk(index=0, text="a", bare=True)
    assert chunks[1].section == ("H",) and chunks[1].index == 1 and not chunks[1].bare
    assert chunks[1].as_record() == {"text": "b", "start": 2, "end": 3, "section": ["H"]}
    assert chunks[1].has_offsets and not chunks[0].has_offsets


# --------------------------------------------------------------------------- Config, Declarations


@pytest.mark.parametrize(
    "max_size,overlap,valid",
    [
        (1, 0, True),
        (10, 9, True),
        (10, 0, True),
        (0, 0, False),
        (-1, 0, False),
        (10, 10, False),
        (10, 11, False),
        (10, -1, False),
        (1, 999, False),
    ],
)
def test_config_is_valid(max_size: int, overlap: int, valid: bool) -> None:
    assert Config(max_size, overlap).is_valid is valid


def test_config_describes_itself() -> None:
    assert Config(80, 20).as_dict() == {"max_size": 80, "overlap": 20}
    assert Config(80, 20).describe() == "max_size=80, overlap=20"
    assert Config(5).overlap == 0


def test_declarations_validate() -> None:
    assert Declarations().kind == "text" and Declarations().unit == "chars"
    with pytest.raises(ValueError, match=r"kind = 'pdf'; expected one of text, workbook"):
        Declarations(kind="pdf")
    with pytest.raises(ValueError, match=r"unit = 'words'; expected one of chars, bytes, tokens"):
        Declarations(unit="words")
    with pytest.raises(ValueError, match=r"newlines = 'crlf'"):
        Declarations(newlines="crlf")
    with pytest.raises(ValueError, match="count_tokens"):
        Declarations(unit="tokens")
    assert Declarations(unit="tokens", has_count_tokens=True).unit == "tokens"


# --------------------------------------------------------------------------- Case


def test_case_spans_from_offsets_and_valid_byte_offsets() -> None:
    doc = "aé b"
    chunks = [
        Chunk(index=0, text="aé", start_byte=0, end_byte=3),
        Chunk(index=1, text="b", start=3, end=4),
        Chunk(index=2, text="\ufffd", start_byte=2, end_byte=3),  # inside "é"
        Chunk(index=3, text="b", bare=True),
    ]
    c = Case(Document(doc), Config(5), chunks)
    assert c.offset_spans == [(0, 2), (3, 4), None, None]
    assert not c.all_spanned
    assert Case(Document(doc), Config(5), chunks[:2]).all_spanned


def test_case_siblings_and_leaves() -> None:
    chunks = [
        Chunk(index=0, text="ab", id="p"),
        Chunk(index=1, text="a", parent="p", id="c"),
        Chunk(index=2, text="b", parent="p"),
        Chunk(index=3, text="z"),
    ]
    c = Case(Document("ab z"), Config(5), chunks)
    assert [[k.index for k in g] for g in c.siblings()] == [[0, 3], [1, 2]]
    assert [k.index for k in c.leaves()] == [1, 2, 3]


def test_case_measure_and_unit() -> None:
    c = Case(Document("é"), Config(5), [], Declarations(unit="bytes"), lambda s: len(s.encode()))
    assert c.size("é") == 2 and c.unit == "bytes" and c.promises == frozenset()


def test_describe_chunk_and_escape() -> None:
    assert describe_chunk(Chunk(index=2, text="x", start=6, end=10)) == "chunk[2] [6:10)"
    assert describe_chunk(Chunk(index=2, text="x")) == "chunk[2]"
    assert describe_chunk(Chunk(index=2, text="x"), (1, 2)) == "chunk[2] [1:2)"
    assert escape("a\nb") == "'a\\nb'"
    long = escape("x" * 100, limit=10)
    assert long.startswith("'xxxxx'...(90 more)...") and long.endswith("'xxxxx'")


@given(st.text(alphabet="ab\n\r", max_size=60), st.data())
def test_lines_of_is_line_of_for_many_offsets(text: str, data: st.DataObject) -> None:
    """The one-pass batch (sorted or not, repeated offsets) equals the table lookups."""
    offsets = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    assert Document(text).lines_of(offsets) == [Document(text).line_of(o) for o in offsets]
    assert Document(text).lines_of(sorted(offsets)) == [
        Document(text).line_of(o) for o in sorted(offsets)
    ]


@given(st.text(alphabet="a\u00e9\u6570\U0001f680\n", max_size=40), st.data())
def test_start_bytes_are_the_utf8_offsets_of_exact_chunks(text: str, data: st.DataObject) -> None:
    """Any spans (nested, overlapping, unordered, empty) of a mixed-width text, and a wrong one."""
    bounds = st.integers(0, len(text))
    spans = data.draw(st.lists(st.tuples(bounds, bounds).map(sorted), max_size=10))
    chunks = [Chunk(index=i, text=text[s:e], start=s, end=e) for i, (s, e) in enumerate(spans)]
    chunks.append(Chunk(index=len(chunks), text="x", start=0, end=1))  # not exact (no "x")
    case = Case(Document(text), Config(10), chunks)
    expected = [len(text[:s].encode("utf-8")) for s, _ in spans]
    assert case.start_bytes == [*expected, None]


_FIELDS = st.sampled_from(["start", "end", "start_byte", "end_byte"])


@given(st.text(alphabet="a\u00e9\u6570\U0001f680\n", max_size=40), st.data())
def test_byte_exact_is_a_byte_for_byte_comparison(text: str, data: st.DataObject) -> None:
    """Per chunk: its byte offsets hold its text in the document's UTF-8 and, for a chunk whose
    codepoint offsets hold it too, start where those do (a repeated text found twice is not
    exact). Any spans, every offset right (the common case, checked at once), then a few
    offsets shifted or missing, against a slice of the encoded document."""
    encoded = text.encode("utf-8", "surrogatepass")
    bounds = st.integers(0, len(text))
    spans = data.draw(st.lists(st.tuples(bounds, bounds).map(sorted), max_size=8))
    chunks = [Chunk(index=i, text=text[s:e], start=s, end=e, start_byte=len(text[:s].encode()),
                    end_byte=len(text[:e].encode())) for i, (s, e) in enumerate(spans)]
    for _ in range(data.draw(st.integers(0, 2)) if chunks else 0):
        k, name = data.draw(st.integers(0, len(chunks) - 1)), data.draw(_FIELDS)
        value = getattr(chunks[k], name)
        shift = data.draw(st.sampled_from([None, -1, 1, 2]))
        moved = None if shift is None or value is None else value + shift
        chunks[k] = replace(chunks[k], **{name: moved})
    case = Case(Document(text), Config(10), chunks)

    def expected(chunk: Chunk) -> bool:
        sb, eb = chunk.start_byte, chunk.end_byte
        if sb is None or eb is None or not 0 <= sb <= eb <= len(encoded):
            return False
        if encoded[sb:eb] != chunk.text.encode():
            return False
        s, e = chunk.start, chunk.end
        if s is None or e is None or not 0 <= s <= e <= len(text) or text[s:e] != chunk.text:
            return True  # no codepoint span that holds the text: no place to agree with
        return sb == len(text[:s].encode())

    assert case.byte_exact == [expected(c) for c in chunks]


def test_all_exact_holds_only_when_every_reported_offset_holds_its_chunk() -> None:
    """Case.all_exact lets the offset rules skip their per-chunk loops: it must be False as soon
    as one chunk's codepoint or byte offsets miss its text, or one chunk reports none."""
    doc = "ab\u00e9cd\u00e9f"  # two-byte characters: byte and codepoint offsets differ
    exact = helpers.spans(doc, (0, 3), (3, 7))
    with_bytes = [replace(c, start_byte=sb, end_byte=eb)
                  for c, (sb, eb) in zip(exact, [(0, 4), (4, 9)])]
    assert helpers.case(doc, exact).all_exact and helpers.case(doc, with_bytes).all_exact
    wrong_byte = [with_bytes[0], replace(with_bytes[1], end_byte=8)]
    one_byte_span = [with_bytes[0], exact[1]]
    wrong_char = [exact[0], replace(exact[1], end=6)]
    unplaced = [exact[0], Chunk(index=1, text=exact[1].text)]
    for chunks in (wrong_byte, one_byte_span, wrong_char, unplaced):
        assert not helpers.case(doc, chunks).all_exact, chunks
