"""The seed corpus: a few hand-made probes that every run replays before generating.

Generated examples vary with the seed and with the Hypothesis version: a 200-example run on
one seed may meet no lone surrogate, or no unclosed code fence. The corpus makes the known
bug shapes of the seeds (shared/seeds) certain in every run, the way a fuzzer starts from its
seed corpus: each probe is one small document and config aimed at one bug class. They come
first, broadest first, so a run that stops at the first finding (mutation testing) stops
early. A text probe's finding is minimized like any other (chunk_contract.engine.minimize). Workbook
plugins get their own probes (seed 001's used-range over-claim, row groups, far cells).

The configs are small, so that even short documents are cut: valid ones
(``0 <= overlap < max_size``) first, then one of each degenerate family of SPEC §2, which a
chunker must refuse or survive (``config_validation``).
"""

from __future__ import annotations

from typing import Any

from chunk_contract.generation.strategies.configs import Bounds, out_of_range
from chunk_contract.spec.model import Config

__all__ = ["ASTRAL_WORD", "CORPUS", "UNICODE_WHITESPACE", "WORKBOOK_CORPUS", "corpus_for",
           "range_probes"]

_WORDS = "ab cd\nef gh ij"

#: The base of the near twins: several chunks long at its config, every character a letter or
#: a separator, so one letter can change anywhere without changing the length.
_TWIN_BASE = ("Alpha bravo charlie delta echo foxtrot golf.\n"
              "Hotel india juliet kilo lima mike november oscar papa.\n")
_TWIN_CONFIG = Config(24, 6)


def _twin(document: str, at: int) -> str:
    """``document`` with its letter at ``at`` (or the next letter) replaced by another one."""
    at = next(i for i in range(at, len(document)) if document[i].isalpha())
    other = "q" if document[at] != "q" else "z"
    return document[:at] + other + document[at + 1:]


def _near_twins() -> tuple[tuple[str, str, Config], ...]:
    """The base, then three twins of its length, each differing from it in one letter: near the
    end, in the middle, near the start. A plugin that keeps state between calls under a partial
    fingerprint of the document (its first or last characters, its length, both ends) hands
    one twin the chunks of another, whatever part the fingerprint reads; each twin follows the
    base with the same config, as a cache needs."""
    end, middle, start = len(_TWIN_BASE) - 3, len(_TWIN_BASE) // 2, 1
    return (("near twins: the base", _TWIN_BASE, _TWIN_CONFIG),
            *((f"near twins: one letter changed {where}", _twin(_TWIN_BASE, at), _TWIN_CONFIG)
              for where, at in (("near the end", end), ("in the middle", middle),
                                ("near the start", start))))

#: Whitespace that is not ASCII (and ASCII whitespace that is rarely met), one class each:
#: Python's ``str.isspace()`` holds them all, so a chunker that tests for blank text with
#: ASCII alone (``strip(" \t\r\n")``, ``/^[ \t\n]*$/``) meets them here, not by chance.
UNICODE_WHITESPACE: tuple[tuple[str, str], ...] = (
    ("no-break space U+00A0", "\u00a0"),
    ("next line U+0085", "\x85"),
    ("figure space U+2007", "\u2007"),
    ("narrow no-break space U+202F", "\u202f"),
    ("ideographic space U+3000", "\u3000"),
    ("line and paragraph separators U+2028 U+2029", "\u2028\u2029"),
    ("ogham space U+1680", "\u1680"),
    ("en quad to hair space U+2000-U+200A", "".join(map(chr, range(0x2000, 0x200B)))),
    ("medium mathematical space U+205F", "\u205f"),
    ("vertical tab and form feed", "\x0b\x0c"),
    ("information separators U+001C-U+001F", "\x1c\x1d\x1e\x1f"),
)


def _whitespace_probes() -> tuple[tuple[str, str, Config], ...]:
    """Each class of whitespace as a whole document longer than the cap (in characters and in
    UTF-8 bytes) and shorter than it, then whole paragraphs of each between words."""
    out: list[tuple[str, str, Config]] = []
    for name, chars in UNICODE_WHITESPACE:
        long = (chars * 8)[: max(8, len(chars))]
        out.append((f"a document of {name} only, longer than the cap", long, Config(3, 1)))
        out.append((f"a document of {name} only, shorter than the cap", chars[:2], Config(64, 0)))
    paragraphs = "\n\n".join(
        f"w{k}\n{(chars * 4)[:4]}\nx{k}" for k, (_, chars) in enumerate(UNICODE_WHITESPACE)
    )
    out.append(("whole paragraphs of each class of Unicode whitespace between words",
                paragraphs, Config(6, 2)))
    return tuple(out)


#: One word (no whitespace to cut at) with characters above U+FFFF (2 UTF-16 code units, 4
#: UTF-8 bytes) at every phase: for every cap from 1 to 6, windows counted in code points, in
#: UTF-16 code units or in UTF-8 bytes meet a cut inside such a character. A chunker that cuts
#: in code units (JavaScript, Java, C# string indices) or bytes splits one here, bare strings
#: and out-of-process plugins included (tests/unit/test_corpus.py checks every phase).
ASTRAL_WORD = ("x\U0001f600yz\U0001f600\U0001f600w\U0001f600abc\U0001f600de\u00e9\U0001d11e"
               "\u6570\U0001f680fgh\U0001f600ijkl\U0001f600")
ASTRAL_CAPS = (1, 2, 3, 4, 5, 6)


def _astral_probes() -> tuple[tuple[str, str, Config], ...]:
    each = [(f"characters above U+FFFF at every cut position, cap {cap}", ASTRAL_WORD,
             Config(cap, 0)) for cap in ASTRAL_CAPS]
    twice = ("the same word twice over lines, cut with overlap",
             ASTRAL_WORD + "\n" + ASTRAL_WORD, Config(4, 1))
    return (*each, twice)


#: Line ends and combining marks at every cut position: a cut between "\r" and "\n", or
#: between a letter and its mark, for caps 1 to 4.
_CUT_SHAPES = (
    ("CRLF line ends at every cut position", "a\r\nbc\r\n\r\ndef\r\ng\r\n"),
    ("combining marks at every cut position", "e\u0301xe\u0301\u0302yze\u0301\u0327w"),
)


def _cut_probes() -> tuple[tuple[str, str, Config], ...]:
    return tuple((f"{why}, cap {cap}", text, Config(cap, 0))
                 for why, text in _CUT_SHAPES for cap in (1, 2, 3, 4))


#: ``(why, document, config)``, broadest first; the degenerate configs last.
CORPUS: tuple[tuple[str, str, Config], ...] = (
    ("the empty document", "", Config(1, 0)),
    (
        "two short lines, a word longer than the cap and an astral character (a UTF-16 pair, "
        "4 UTF-8 bytes), cut small with overlap: the broadest cheap probe",
        "ab \U0001f680cd\nef",
        Config(2, 1),
    ),
    ("whitespace only", " \n\t\n  ", Config(2, 0)),
    (
        "multi-byte text, clusters and combining marks",
        "na\u00efve \u6570\u636e \U0001f680 e\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467 "
        "\U0001f1ef\U0001f1f5 end",
        Config(3, 1),
    ),
    ("seed 000: identical blocks, so find() locks onto the wrong copy",
     '{"a": 1}\n' * 6, Config(12, 4)),
    ("leading blank lines, counted away by a stripped copy",
     "\n\n\nfirst line\nsecond line\n", Config(8, 2)),
    ("CRLF paragraphs and a lone CR", "one two\r\n\r\nthree\r\nfour\rfive\r\n", Config(6, 0)),
    ("LangChain: a run as long as the cap, one trailing tab, cut with overlap: the last "
     "window, stripped, lies wholly inside the one before (ordered, SPEC 1.1)",
     "a" * 20 + "\t", Config(20, 5)),
    ("seed 003: one early space, then an unbroken run",
     "x" * 10 + " " + "a" * 60, Config(30, 20)),
    ("seed 004: a long three-line header and nothing else",
     "A title far longer than the cap\nAn author name\n2024-01-01\n", Config(10, 0)),
    ("seed 004: the header, then a body",
     "A title far longer than the cap\nAn author name\n2024-01-01\nBody text follows.\n",
     Config(12, 3)),
    ("lone surrogates: legal in a str, refused by strict UTF-8",
     "ab\ud800cd ef\udfff", Config(3, 1)),
    (
        "markdown: headings (one with a tab after the hashes and a closing # run), a fence "
        "holding a heading-like line",
        "# Title\n\nIntro text.\n\n```\n# not a heading\n```\n\n##\tPart ##\nBody text here.\n",
        Config(16, 0),
    ),
    ("markdown: a fence left open, with a heading-like line inside",
     "# A\ntext\n~~~ python\n# B\ncode\n", Config(8, 0)),
    (
        "markdown fence look-alikes: backticks in a backtick info string make no fence; "
        "a tilde fence's info string may hold them",
        "``` not`a fence\n# Heading one\ntext\n~~~ info`ok\n# inside code\n~~~\n"
        "## Heading two\nmore\n",
        Config(12, 0),
    ),
    ("NUL, odd line breaks and a BOM",
     "\ufeffa\x00b\x0bc\x0cd\x85e\u2028f\u2029g", Config(3, 1)),
    ("CJK without spaces", "\u4e2d\u6587\u6587\u672c\u6ca1\u6709\u7a7a\u683c" * 5, Config(7, 2)),
    *_near_twins(),
    *_whitespace_probes(),
    *_astral_probes(),
    *_cut_probes(),
    # One probe per degenerate family of SPEC §2: refused with ValueError/TypeError, or handled
    # with output that keeps every invariant (config_validation).
    ("degenerate: overlap == max_size, the forward-progress killer", _WORDS, Config(2, 2)),
    ("degenerate: seed 002's max_size=1, overlap=999", _WORDS, Config(1, 999)),
    ("degenerate: max_size=0", _WORDS, Config(0, 0)),
    ("degenerate: negative overlap", _WORDS, Config(3, -1)),
    ("degenerate: negative max_size", _WORDS, Config(-1, 0)),
)


_FILL: dict[str, Any] = {"value": None, "style": "fill"}  # a styled-empty cell


def _tall(rows: int) -> dict[str, Any]:
    cells: dict[str, Any] = {"A1": "id", "B1": "name"}
    for row in range(2, rows + 2):
        cells[f"A{row}"], cells[f"B{row}"] = row - 1, f"item {row - 1}"
    return cells


#: ``(why, workbook description, config)`` for workbook plugins (descriptions as in
#: chunk_contract.spec.workbook: ``{"sheets": {title: {A1 ref: value}}}``).
WORKBOOK_CORPUS: tuple[tuple[str, dict[str, Any], Config], ...] = (
    ("one empty sheet", {"sheets": {"Sheet1": {}}}, Config(1, 0)),
    (
        "seed 001: a styled-empty cell far out makes the used range A1:XFD4, the data is A1:B3",
        {"sheets": {"Data": {**_tall(2), "XFD4": _FILL}}},
        Config(12, 0),
    ),
    (
        "two blocks apart, a whitespace-only cell, a styled-empty hole, an empty second sheet",
        {"sheets": {"S": {"A1": "x", "B1": "  ", "A2": _FILL, "B2": 2, "D4": "far", "E5": 3.5},
                    "Empty": {}}},
        Config(4, 0),
    ),
    ("seed 001: a tall block, split into row groups of a few rows",
     {"sheets": {"Rows": _tall(12)}}, Config(30, 0)),
    ("one cell longer than the cap: indivisible", {"sheets": {"Sheet1": {"A1": "x" * 50}}},
     Config(10, 0)),
    (
        "values of every kind under a unicode title",
        {"sheets": {"Donn\u00e9es \u2713": {
            "A1": "na\u00efve \U0001f680", "B1": True, "C1": "two\nlines",
            "A2": {"date": "2024-01-31T00:00:00"}, "B2": "=SUM(A1:A3)", "C2": -0.5}}},
        Config(6, 0),
    ),
    ("the last cell of a sheet", {"sheets": {"Far": {"A1": 1, "XFD1048576": "end"}}},
     Config(5, 0)),
    ("degenerate: overlap == max_size", {"sheets": {"Rows": _tall(3)}}, Config(4, 4)),
    ("degenerate: max_size=0", {"sheets": {"Rows": _tall(3)}}, Config(0, 0)),
    ("degenerate: negative overlap", {"sheets": {"Rows": _tall(3)}}, Config(8, -1)),
)


def corpus_for(kind: str) -> list[tuple[Any, Config]]:
    """The ``(document, config)`` probes for a plugin of ``kind`` (text or workbook)."""
    table: tuple[tuple[str, Any, Config], ...] = WORKBOOK_CORPUS if kind == "workbook" else CORPUS
    return [(document, config) for _, document, config in table]


def range_probes(
    kind: str, *, max_size_range: Bounds, overlap_range: Bounds
) -> list[tuple[Any, Config]]:
    """Configs just outside a plugin's declared ranges, on a document that fills a few chunks:
    the plugin must refuse each (``config_validation``)."""
    document: Any = _TWIN_BASE if kind != "workbook" else WORKBOOK_CORPUS[3][1]
    found = out_of_range(max_size_range=max_size_range, overlap_range=overlap_range)
    return [(document, config) for config in found]
