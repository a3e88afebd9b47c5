"""Write the seed corpora under fuzz/corpus/<chunker>/ (deterministic; rerun after editing).

    python fuzz/make_corpus.py [--check]

Each seed is a fuzz input (see chunk_input.py): a 2-byte config header, then the document as
UTF-8. The documents reuse the adversarial fragments of ``chunk_contract.generation.strategies``
(the pieces that broke real chunkers: CRLF and odd line breaks, repeated blocks, long unbroken runs,
grapheme clusters, markdown headings inside and outside fences, long three-line headers). Every
folder gets the shared seeds, the probes of ``chunk_contract.generation.corpus`` that a fuzz input
can spell, and a few aimed at that chunker. ``--check`` exits 1 if a file on disk
differs from what would be written, or is one this script no longer writes (a test runs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from chunk_input import decode, encode  # noqa: E402

from chunk_contract.generation.corpus import corpus_for  # noqa: E402
from chunk_contract.generation.strategies.text import (  # noqa: E402
    CJK_PHRASES,
    CONTROLS,
    REPEAT_UNITS,
    SENTENCES,
    UNICODE_PIECES,
)

CORPUS = HERE / "corpus"

#: name -> (document, max_size, overlap): seeds every chunker gets.
COMMON: dict[str, tuple[str, int, int]] = {
    "prose": (" ".join(SENTENCES[:6]) + "\n\n" + " ".join(SENTENCES[6:12]), 32, 4),
    "crlf": ("line one\r\nline two\r\n\r\nline three\r\n", 8, 0),
    "odd-breaks": ("word".join(CONTROLS) + " end", 16, 1),
    "repeated-blocks": (REPEAT_UNITS[1] * 12, 10, 3),
    "unicode": (" ".join(UNICODE_PIECES[:20]), 5, 0),
    "early-space-run": ("x" * 10 + " " + "a" * 300, 20, 19),
    "cjk": ("".join(CJK_PHRASES), 7, 2),
    "whitespace": (" \n\t\r\n \u3000\n\x0b\x0c", 3, 0),
    "one-char": ("a", 1, 0),
}

#: name -> (raw header bytes, document): degenerate configs, which encode() refuses to spell.
DEGENERATE: dict[str, tuple[bytes, str]] = {
    "degenerate-overlap-999": (b"\xf3\x00", "seed 002: max_size=1, overlap=999"),
    "degenerate-zero-cap": (b"\xf0\x00", "max_size=0"),
}

_MARKDOWN = {
    "headings": (
        "# Title\n\nIntro text here.\n\n## Setup\n\nBody paragraph one.\n\n"
        "### Linux\ntext\n## Usage\nmore\n",
        40,
        5,
    ),
    "fences": (
        "# A\n```\n# not a heading\n## nor this\n```\ntext\n## B\n~~~\n#!/bin/sh\n~~~\n",
        16,
        0,
    ),
    "not-headings": (
        "#hashtag\n    # indented code\n####### seven\n#\n# \n C# and F#\n#\u00a0nbsp\n",
        12,
        2,
    ),
    "crlf-headings": ("# One\r\n\r\ntext\r\n## Two\r\ntext two\r\n", 10, 3),
    "heading-over-cap": ("## " + "long heading words " * 6 + "\nbody\n", 8, 1),
}

_HEADER = {
    "long-header": (
        "Title: a very long title line that goes on\nAuthor: someone else\n"
        "Date: 2024-01-01\n\nbody text " + "word " * 40,
        6,
        2,
    ),
    "header-only": ("Title\nAuthor\nDate", 2, 0),
    "header-only-newline": ("Title\nAuthor\nDate\n", 3, 1),
}

_GRAPHEME = {
    "zwj": (
        "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 family "
        "\U0001f469\u200d\U0001f4bb\U0001f3f3\ufe0f\u200d\U0001f308",
        3,
        1,
    ),
    "flags": ("\U0001f1fa\U0001f1f8\U0001f1ef\U0001f1f5\U0001f1e9\U0001f1ea\U0001f1fa", 2, 0),
    "combining": ("e\u0301" * 12 + " a\u0308\u0323 \u0915\u094d\u0937", 1, 0),
    "hangul-jamo": ("\u1100\u1161\u11a8\u1102\u1161 \ud55c\uad6d\uc5b4", 2, 1),
}

_RECURSIVE = {
    "ladder": (
        "Para one. Still one!\n\nPara two has words\nand a line\n\n" * 3
        + "unbrokenrunofletters" * 5,
        12,
        3,
    ),
    "crlf-paragraphs": ("First para.\r\n\r\nSecond para.\r\n\r\nThird.", 9, 2),
}

_FIXED = {
    "multibyte-bytes": ("a\u00e9\u6570\U0001f680\u2014" * 8, 3, 2),  # seed 002's mixed widths
    "overlap-max": ("abcdefghij " * 10, 4, 3),
}

#: chunker -> its own seeds (on top of COMMON and DEGENERATE)
SPECIFIC = {
    "fixed": _FIXED,
    "recursive": _RECURSIVE,
    "markdown": _MARKDOWN,
    "header": _HEADER,
    "grapheme": _GRAPHEME,
}


def files() -> dict[Path, bytes]:
    """Every seed file, by path."""
    out: dict[Path, bytes] = {}
    for chunker, own in SPECIFIC.items():
        folder = CORPUS / chunker
        for name, (document, max_size, overlap) in {**COMMON, **own}.items():
            data = encode(document, max_size, overlap)
            assert decode(data).document == document, name
            out[folder / name] = data
        for name, (header, document) in DEGENERATE.items():
            out[folder / name] = header + document.encode("utf-8")
        out.update({folder / name: data for name, data in _contract_corpus().items()})
    return out


def _contract_corpus() -> dict[str, bytes]:
    """The probes ``chunk-contract run`` replays first (chunk_contract.generation.corpus) that a
    fuzz input can spell: a valid config the header can write, and non-empty text that is valid
    UTF-8."""
    out = {}
    for number, (document, config) in enumerate(corpus_for("text")):
        if not document:
            continue  # libFuzzer tries the empty input by itself
        try:
            out[f"contract-corpus-{number:02d}"] = encode(document, config.max_size, config.overlap)
        except (ValueError, UnicodeEncodeError):
            continue  # a degenerate config, or a lone surrogate (not UTF-8)
    return out


def main(argv: list[str]) -> int:
    wanted = files()
    orphans = _orphans(wanted)
    if "--check" in argv:
        stale = [p for p, data in wanted.items() if not p.is_file() or p.read_bytes() != data]
        for path in stale:
            print(f"stale seed: {path.relative_to(HERE.parent)}")
        for path in orphans:
            print(f"orphan seed (no longer written): {path.relative_to(HERE.parent)}")
        return 1 if stale or orphans else 0
    for path, data in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for path in orphans:
        path.unlink()
    print(f"wrote {len(wanted)} seed files under {CORPUS.relative_to(HERE.parent)}/"
          f" (removed {len(orphans)} no longer written)")
    return 0


def _orphans(wanted: dict[Path, bytes]) -> list[Path]:
    """Seed files this script wrote once and no longer writes (a probe renumbered or dropped).
    Only the corpus folders of SPECIFIC are looked at; a file someone added by hand is kept
    unless it carries one of this script's names."""
    ours = {*COMMON, *DEGENERATE, *(name for own in SPECIFIC.values() for name in own)}
    found = (p for chunker in SPECIFIC for p in sorted((CORPUS / chunker).glob("*")))
    return [p for p in found if p not in wanted and _written_here(p.name, ours)]


def _written_here(name: str, ours: set[str]) -> bool:
    return name in ours or name.startswith("contract-corpus-")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
