"""Fuzz input <-> (document, config): a total, stable decoding of any bytes.

Layout of one fuzz input::

    byte 0      the cap: 0x00-0x7F -> max_size 1..128; 0x80-0xEF -> 160..3712 (steps of 32);
                0xF0-0xFF -> one of eight degenerate configs (SPEC §2)
    byte 1      the overlap: low 2 bits pick 0, 1, max_size - 1, or (byte >> 2) % max_size
                (for a degenerate config it parameterises the bad value)
    bytes 2..   the document: UTF-8, with every byte that is *not* valid UTF-8 turned into an
                "interesting" piece of text (newline forms, heading markers, combining marks,
                ZWJ sequences, flags, ...; see PIECES), and two operators:
                0xFE k n -> REPEATS[k] written 1 + n % 64 times (repeated blocks)
                0xFF k n -> RUNS[k] written 1 + 2 * n times (long unbroken runs)

Why not atheris's FuzzedDataProvider: ``ConsumeUnicode`` spends a byte choosing a character
width and then reads raw code units, so a dictionary entry such as ``"\\xe2\\x80\\xa8"`` or a
seed file's UTF-8 text would not come out as the text it spells. Here valid UTF-8 decodes to
itself (seed files are readable text after a 2-byte header; libFuzzer's dictionary tokens land
verbatim in the document), while the invalid bytes random mutation makes all the time become
the pieces that break chunkers, which biases the search toward them. The decoding is pure
Python (no atheris needed), total (every byte string decodes; lone surrogates never appear,
since strict UTF-8 rejects them) and stable: the tables below are part of the artifact format,
so never reorder them; append only (that changes what high indices map to, so prefer not).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from functools import cache

from chunk_contract.spec.model import Config

#: Format marker of the decoding; bump it if the tables or the layout ever change.
FORMAT = 1
HEADER = 2
#: Documents are cut to this many codepoints, to keep executions fast.
MAX_CHARS = 32_768

#: One piece per lone continuation byte 0x80-0xBF (64); other invalid bytes map modulo 64.
PIECES: tuple[str, ...] = (
    # newline forms (10)
    "\n",
    "\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x85",
    "\u2028",
    "\u2029",
    "\n\n",
    "\r\n\r\n",
    # whitespace, and things that look like it (6)
    " ",
    "\t",
    "\xa0",
    "\u3000",
    "\u200b",
    "\ufeff",
    # markdown: headings, not-headings, fences (10)
    "# ",
    "\n# ",
    "\n## ",
    "###### ",
    "####### ",
    "   # ",
    "    # ",
    "```",
    "\n```\n",
    "#",
    # separators (6)
    ". ",
    "? ",
    "! ",
    "\n- ",
    "---\n",
    "| ",
    # multibyte: 2, 3 and 4 UTF-8 bytes (6)
    "\u00e9",
    "\u00df",
    "\u6570\u636e",
    "\U0001f680",
    "\U0001d400",
    "\U00020000",
    # combining marks and conjuncts (4)
    "e\u0301",
    "\u0301",
    "a\u0308\u0323",
    "\u0915\u094d\u0937",
    # ZWJ sequences (4)
    "\u200d",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f469\u200d\U0001f4bb",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    # flags and modifiers (4)
    "\U0001f1fa\U0001f1f8",
    "\U0001f1ef",
    "\U0001f1ef\U0001f1f5\U0001f1e9\U0001f1ea",
    "\U0001f44d\U0001f3fd",
    # Hangul: conjoining jamo, precomposed (2)
    "\u1100\u1161\u11a8",
    "\ud55c\uad6d\uc5b4",
    # bidi (2)
    "\u202eevil\u202c",
    "\u05e9\u05dc\u05d5\u05dd",
    # odd characters: NUL, U+FFFD, case-changing, ligature (4)
    "\x00",
    "\ufffd",
    "\u0130",
    "\ufb03",
    # words and structured text (6)
    "word ",
    "the quick brown fox ",
    "Dr. Smith",
    "3.14",
    "https://example.com/a?b=c",
    '{"a": 1}\n',
)

#: Units that 0xFE repeats: the repeated blocks that fool ``text.find(chunk)``.
REPEATS: tuple[str, ...] = (
    "ab",
    '{"a": 1}\n',
    "<item>value</item>\n",
    "x = compute(1)\n",
    "| a | b |\n",
    "- item\n",
    "\n",
    "# Title\n\ntext\n\n",
    "```\ncode\n```\n",
    "word ",
    "Hello world. ",
    "\r\n",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 ",
    "e\u0301",
    "\u6570\u636e\u3002",
    "  \n",
)

#: Units that 0xFF runs long: nothing for a word splitter to cut at.
RUNS: tuple[str, ...] = (
    "a",
    "x",
    " ",
    "\n",
    "\r\n",
    "\u6570",
    "\U0001f680",
    "e\u0301",
    "\u0301",
    "=",
    "#",
    "\u200d",
    "\U0001f1fa",
    "ab",
    ". ",
    "\t",
)

REPEAT_OP, RUN_OP = 0xFE, 0xFF
_ERRORS = "chunk-contract-fuzz-pieces"

#: Degenerate configs (SPEC §2), chosen by byte 0 in 0xF0-0xFF; ``o`` is byte 1.
_DEGENERATE = (
    lambda o: (0, 0),
    lambda o: (0, o % 4),
    lambda o: (-1 - o, 0),
    lambda o: (1, 999),
    lambda o: (1 + o, 1 + o),  # overlap == max_size
    lambda o: (1 + o % 64, 2 + o % 64 + o),  # overlap > max_size
    lambda o: (1 + o % 128, -1 - o),  # negative overlap
    lambda o: (-(2**31), o),
)


#: Bytes that can never start a UTF-8 character (continuation bytes, overlong and out-of-range
#: leads), but not the two operators: the error handler turns a whole run of them at once.
_ALWAYS_INVALID = frozenset(range(0x80, 0xC0)) | {0xC0, 0xC1} | frozenset(range(0xF5, 0xFE))


def _operator(data: bytes, i: int) -> tuple[str, int]:
    k = data[i + 1] if i + 1 < len(data) else 0
    n = data[i + 2] if i + 2 < len(data) else 0
    if data[i] == REPEAT_OP:
        return REPEATS[k % len(REPEATS)] * (1 + n % 64), min(i + 3, len(data))
    return RUNS[k % len(RUNS)] * (1 + 2 * n), min(i + 3, len(data))


def _pieces(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each invalid byte becomes a piece (or an operator's output).

    Decoding resumes one byte after the bad one (three after an operator), so a valid character
    right after a broken sequence still decodes; runs of bytes that are invalid anywhere are
    handled in one call (the result is the same as byte by byte, only faster).
    """
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    data, i = exc.object, exc.start
    out: list[str] = []
    while i < len(data):
        byte = data[i]
        if byte in (REPEAT_OP, RUN_OP):
            text, i = _operator(data, i)
            out.append(text)
        elif byte in _ALWAYS_INVALID or i == exc.start:
            out.append(PIECES[byte % len(PIECES)])
            i += 1
        else:
            break
    return "".join(out), i


codecs.register_error(_ERRORS, _pieces)


@dataclass(frozen=True)
class FuzzCase:
    """One decoded fuzz input."""

    document: str
    config: Config


def decode_config(data: bytes) -> Config:
    """The config in the first two bytes of ``data`` (missing bytes read as 0)."""
    size_byte = data[0] if len(data) > 0 else 0
    over_byte = data[1] if len(data) > 1 else 0
    if size_byte >= 0xF0:
        max_size, overlap = _DEGENERATE[(size_byte - 0xF0) % len(_DEGENERATE)](over_byte)
        return Config(max_size, overlap)
    max_size = size_byte + 1 if size_byte < 0x80 else 128 + (size_byte - 0x7F) * 32
    pick, value = over_byte & 3, over_byte >> 2
    if max_size == 1 or pick == 0:
        overlap = 0
    elif pick == 1:
        overlap = 1
    elif pick == 2:
        overlap = max_size - 1
    else:
        overlap = value % max_size
    return Config(max_size, overlap)


def decode_text(body: bytes) -> str:
    """The document in ``body``: UTF-8, invalid bytes as pieces, cut to MAX_CHARS."""
    return body.decode("utf-8", _ERRORS)[:MAX_CHARS]


def decode(data: bytes) -> FuzzCase:
    """Any bytes -> a (document, config) case. Total: never raises for a ``bytes`` input."""
    return FuzzCase(decode_text(bytes(data[HEADER:])), decode_config(data))


def encode(document: str, max_size: int, overlap: int = 0) -> bytes:
    """A fuzz input that decodes to ``document`` with this valid config (for seed files).

    Only configs the header can spell are accepted: max_size 1..128 (any overlap below 64 or
    equal to 0, 1, max_size - 1), or 160..3712 in steps of 32.
    """
    header = _headers().get(Config(max_size, overlap))
    if header is None:
        raise ValueError(f"max_size={max_size}, overlap={overlap} cannot be written in the header")
    return header + document.encode("utf-8")


@cache
def _headers() -> dict[Config, bytes]:
    """Every valid config the header can spell, with the first two bytes that spell it."""
    out: dict[Config, bytes] = {}
    for size_byte in range(0xF0):
        for over_byte in range(256):
            header = bytes((size_byte, over_byte))
            out.setdefault(decode_config(header), header)
    return out
