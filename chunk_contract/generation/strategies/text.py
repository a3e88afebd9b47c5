"""Adversarial plain-text documents.

A document is built from pieces, so Hypothesis shrinks it by dropping pieces and by moving each
choice to the first (simplest) alternative of its ``one_of``. The pieces aim at the bugs real
chunkers shipped with (see the seeds): CRLF and odd line breaks, leading blank lines, repeated
identical blocks, long unbroken runs, multi-codepoint characters and grapheme clusters, and the
"one early space, then a long run" shape that sends naive backtracking loops backwards. Rarer
shapes reach the code paths a cluster-aware or byte-counting splitter keeps for hard cases: long
runs of multi-codepoint clusters with no plain character pair anywhere, a space carrying a
combining mark, clusters longer than small caps, and (in a small fraction of documents) lone
surrogates, which a Python ``str`` may hold and strict UTF-8 encoding refuses.
"""

from __future__ import annotations

import base64
import functools
import random

from hypothesis import strategies as st

from ._common import (
    NEWLINE_STYLES,
    SEEDS,
    check_int,
    expand,
    lengths,
    picks,
    weighted,
    with_newlines,
)

__all__ = [
    "CLUSTER_UNITS",
    "CONTROLS",
    "LONE_SURROGATES",
    "SENTENCES",
    "UNICODE_PIECES",
    "WHITESPACE",
    "documents",
    "inline_text",
    "prose",
    "sentences",
]

# --------------------------------------------------------------------------- corpora

#: Words for prose. Short and plain first; abbreviations and decimals trip sentence splitters.
WORDS = (
    "a",
    "the",
    "chunk",
    "text",
    "is",
    "of",
    "and",
    "to",
    "in",
    "split",
    "document",
    "line",
    "word",
    "size",
    "cap",
    "over",
    "lazy",
    "quick",
    "brown",
    "fox",
    "jumps",
    "dog",
    "alpha",
    "beta",
    "gamma",
    "retrieval",
    "embedding",
    "vector",
    "index",
    "query",
    "model",
    "e.g.",
    "Dr.",
    "3.14",
    "U.S.",
    "etc.",
    "i.e.",
    "(see",
    "below)",
    '"quoted"',
    "it's",
    "well-known",
    "naïve",
    "café",
    "Zürich",
    "—",
    "…",
)

#: Characters that are more than they seem: astral, combining, ZWJ sequences, flags, Hangul,
#: right-to-left text, variation selectors, case-changing letters. U+FFFD appears once: it is
#: legal content, but rare.
UNICODE_PIECES = (
    "e\u0301",  # e + combining acute
    "n\u0303",
    "a\u0308\u0323",  # two combining marks
    "\u0915\u094d\u0937",  # Devanagari conjunct
    "\U0001f680",  # rocket
    "\U0001f600",
    "\U0001d400\U0001d401\U0001d402",  # mathematical bold A B C
    "\U0001d518\U0001d52b",  # fraktur
    "\U00020000",  # CJK extension B
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family (ZWJ)
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag (ZWJ)
    "\U0001f469\u200d\U0001f4bb",  # woman technologist (ZWJ)
    "\U0001f44d\U0001f3fd",  # thumbs up, skin tone
    "\U0001f1fa\U0001f1f8",  # flag US
    "\U0001f1ef\U0001f1f5\U0001f1e9\U0001f1ea",  # flags JP DE, adjacent
    "\U0001f1fa\U0001f1f8\U0001f1ef",  # odd number of regional indicators
    "\ud55c\uad6d\uc5b4",  # Hangul, precomposed
    "\ud55c\uae00\uc740 \ub744\uc5b4\uc4f4\ub2e4",  # Hangul sentence, spaced
    "\u1100\u1161\u11a8\u1102\u1161",  # Hangul, conjoining jamo
    "\u1112\u1161\u11ab\u1100\u1173\u11af",  # 한글 in NFD (jamo), as macOS writes it
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd",  # Hebrew
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",  # Arabic
    "\u200fRTL\u200e",  # direction marks
    "\u202eevil\u202c",  # right-to-left override
    "\u2764\ufe0f",  # heart + VS16
    "\u263a\ufe0e",
    "\u0130",  # I with dot: lower() changes length
    "\ufb03",  # ffi ligature
    "\u00df\u1e9e",
    "a\u00e9\u6570\U0001f680\u2014",  # seed 002's mixed-width unspaced text
    "\u6570\u636e",  # CJK
    "\u3053\u3093\u306b\u3061\u306f",  # hiragana
    "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",  # Thai
    "\u00a0",  # no-break space (isspace)
    "\u200b",  # zero-width space (not isspace)
    "\u3000",  # ideographic space
    "\ufffd",  # replacement character: legal, rare
    "e\u0300",  # U+0300, the first combining mark: the edge of "below this, no mark" shortcuts
    " \u0301",  # a space carrying a mark: one cluster that starts with whitespace
    "o\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309",  # a long combining sequence
)

#: The pieces of :data:`UNICODE_PIECES` without spaces: an unspaced run of them is all
#: multi-codepoint characters and grapheme clusters.
CLUSTERS = tuple(p for p in UNICODE_PIECES if not any(c.isspace() for c in p) and p != "\ufffd")

#: Multi-codepoint clusters that end in a mark, a modifier, a regional indicator or a Hangul
#: jamo: no two "plain" characters (ASCII, CJK, most letters) meet inside them or where two of
#: them meet, so a run of them gives a splitter no cheap cluster boundary to lean on.
CLUSTER_UNITS = (
    "e\u0301",
    "a\u0308\u0323",
    "e\u0300",
    " \u0301",  # whitespace that a mark clings to: not trimmable on its own
    "\U0001f1fa\U0001f1f8",  # flag
    "\U0001f1ef\U0001f1f5",
    "\ud55c",  # Hangul syllable: one codepoint, but no plain pair either
    "\u1100\u1161\u11a8",  # conjoining jamo
    "\U0001f44d\U0001f3fd",  # skin tone
    "\u2764\ufe0f",
    "\u0915\u094d\u0937\u093e",  # Devanagari conjunct and vowel sign
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466\ufe0f",  # ZWJ family
    "\U0001f3f3\ufe0f\u200d\U0001f308\ufe0f",
    "\u0e01\u0e33",  # Thai consonant + SARA AM (a spacing mark)
    "\U0001f469\u200d",  # a ZWJ with nothing to join: the cluster ends in the joiner
)

#: Short words and spaces to mix into cluster runs: a cluster, a space, a one-letter word.
_SPACED = (" ", " a", " wa", "x ", " \u0301a")

#: Lone surrogates: a Python ``str`` may hold them (UTF-16 decoded naively, ``surrogateescape``
#: file names); strict UTF-8 encoding refuses them. Two halves of one emoji, too.
LONE_SURROGATES = ("\ud800", "\udfff", "\ud83d", "\ude00", "\udbff", "\udc00", "\ud83d\ude80")

#: Line breaks other than "\n", NUL, tabs, escapes: each is a break for *some* splitter.
CONTROLS = (
    "\t",
    "\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x85",
    "\u2028",
    "\u2029",
    "\x00",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1b",
    "\x7f",
    "\ufeff",
)

#: Characters for which ``str.isspace()`` is true.
WHITESPACE = (
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2003\u2009\u2028\u2029\u202f\u205f\u3000"
)

#: Separators between blocks: newline flavours first, then the odd ones.
SEPARATORS = (
    "\n",
    "\n\n",
    " ",
    "",
    "\n\n\n",
    "\r\n",
    "\r\n\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x85",
    "\u2028",
    "\u2029",
    "\n \n",
    "\t",
    "\n\t\n",
)

PREFIXES = ("", "\ufeff", "\n", "\n\n\n", "\ufeff\n\n", "  \n\t\n", "\r\n\r\n", "\ufeff ")
SUFFIXES = ("", "\n", "\n\n\n", "  \n", " ", "\r\n", "\n\n \n")

#: Identical blocks that get repeated: JSON, XML, generated code, table rows (seed 000).
REPEAT_UNITS = (
    "ab",
    '{"a": 1}\n',
    '{\n  "id": 1,\n  "name": "widget"\n},\n',
    '<item id="1">value</item>\n',
    '  <PackageReference Include="Newtonsoft.Json" Version="13.0.1" />\n',
    "x = compute(1)\n",
    "    return None\n",
    "}\n",
    "| a | b |\n",
    "- item\n",
    "INSERT INTO t VALUES (1, 'a');\n",
    "\n",
)

CJK_PHRASES = (
    "\u4e2d\u6587\u6587\u672c\u6ca1\u6709\u7a7a\u683c",  # 中文文本没有空格
    "\u5206\u5757\u5668\u5fc5\u987b\u6309\u5b57\u7b26\u5207\u5206",  # 分块器必须按字符切分
    "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u306f\u5358\u8a9e\u306e\u9593\u306b\u7a7a\u767d\u304c"
    "\u3042\u308a\u307e\u305b\u3093",  # 日本語の文章は単語の間に空白がありません
    "\u3002",  # 。
    "\u3001",  # 、
    "\u6570\u636e\u5e93\u68c0\u7d22",  # 数据库检索
)

THAI_PHRASES = (
    "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",  # ภาษาไทย
    "\u0e44\u0e21\u0e48\u0e21\u0e35\u0e01\u0e32\u0e23\u0e40\u0e27\u0e49\u0e19\u0e27\u0e23\u0e23"
    "\u0e04",  # ไม่มีการเว้นวรรค
    "\u0e23\u0e30\u0e2b\u0e27\u0e48\u0e32\u0e07\u0e04\u0e33",  # ระหว่างคำ
    "\u1797\u17b6\u179f\u17b6\u1781\u17d2\u1798\u17c2\u179a",  # Khmer: ភាសាខ្មែរ
)

MINIFIED_UNITS = (
    "var a=1;",
    "function f(x){return x*2}",
    "if(a&&b){c()}else{d()}",
    "a.b(c,d);",
    "[1,2,3].map(e=>e+1);",
    '{"k":"v","n":[1,2]}',
    "for(;;){break}",
    "x=y?z:w;",
)

URL_CHARS = (*"abcdefghijklmnopqrstuvwxyz0123456789", "-", "_", "/", ".", "%20", "=", "&")

#: Characters that a long run repeats; the last one makes one huge grapheme cluster.
RUN_CHARS = ("a", "x", "=", "-", ".", "\u6570", "\U0001f680", "\u00e9", "\u0301")

# --------------------------------------------------------------------------- small pieces


#: Ready-made sentences: one choice each, where word-built sentences cost one per word.
SENTENCES = (
    "Hello world.",
    "A chunk is a slice of a document.",
    "The quick brown fox jumps over the lazy dog.",
    "Dr. Smith arrived at 3.14 p.m. on Jan. 5, e.g. early.",
    "Is this a question?",
    "Stop!",
    "It costs $3.50 (approx.) in the U.S. and €3 in the E.U.",
    "“Quoted speech,” she said. “And more.”",
    "Ellipses trail off...",
    "Cafés in Zürich serve naïve crème brûlée.",
    "See https://example.com/a/b?c=d for details.",
    "Version 1.2.3 fixed bug #42; see PR #43.",
    "Line one.\tTabbed text follows.",
    "Mr. and Mrs. Jones live at No. 5, St. James St.",
    "中文句子。",
    "한국어 문장입니다.",
    # A Korean sentence in NFD (conjoining jamo), as macOS file systems write it.
    "\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165 \u1106\u116e\u11ab\u110c\u1161\u11bc, "
    "\u1107\u116e\u11ab\u1112\u1162\u1103\u116c\u11ab \u1112\u1167\u11bc\u1110\u1162.",
    "זו שורה בעברית.",
    "هذه جملة عربية.",
    "Emoji \U0001f680 end the sentence \U0001f600.",
    "The family \U0001f468\u200d\U0001f469\u200d\U0001f467 waved \U0001f1ef\U0001f1f5.",
)


#: How a word-built sentence ends.
_ENDS = (".", ".", "?", "!", "...", ":", "")


def _word_sentence(count: int, seed: int, end: str) -> str:
    words = random.Random(seed).choices(WORDS, k=count)
    text = " ".join(words)
    return text[:1].upper() + text[1:] + end


def sentences() -> st.SearchStrategy[str]:
    """One sentence: plain words (capitalised, with end punctuation), or a ready-made one.

    The words come from a seeded PRNG: two choices per sentence instead of two per word, which
    keeps long prose cheap to generate. Sentence and paragraph structure still shrink.
    """
    built = st.builds(_word_sentence, st.integers(1, 12), SEEDS, st.sampled_from(_ENDS))
    return st.one_of(built, st.sampled_from(SENTENCES))


def seeded_sentences(count: int, seed: int) -> list[str]:
    """``count`` sentences as :func:`sentences` makes them (ready-made or word-built, evenly),
    picked by a PRNG seeded with ``seed``; seed 0 repeats the first ready-made sentence. For
    the sentences of a paragraph or a list: two choices, not five per sentence."""
    if seed == 0:
        return [SENTENCES[0]] * count
    rng = random.Random(seed)
    return [_sentence(rng) for _ in range(count)]


def _sentence(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(SENTENCES)
    return _word_sentence(rng.randint(1, 12), rng.randrange(2**16), rng.choice(_ENDS))


def _paragraphs(counts: list[int], seed: int) -> str:
    """Paragraphs of ``counts`` sentences each, ``". "``-joined, blank-line separated."""
    found = iter(seeded_sentences(sum(counts), seed))
    return "\n\n".join(" ".join(next(found) for _ in range(n)) for n in counts)


def prose() -> st.SearchStrategy[str]:
    """Paragraphs of sentences: ``". "`` between sentences, ``"\\n\\n"`` between paragraphs.
    How many paragraphs and sentences is drawn (and shrinks); the sentences are seeded."""
    return st.builds(_paragraphs, st.lists(st.integers(1, 4), min_size=1, max_size=3), SEEDS)


def inline_text() -> st.SearchStrategy[str]:
    """A short line mixing words with tricky characters, with or without spaces between."""
    return st.builds(
        lambda count, seed, sep: sep.join(picks((WORDS, UNICODE_PIECES), count, seed)),
        st.integers(1, 10),
        SEEDS,
        st.sampled_from((" ", "")),
    )


#: What a control-character line mixes: words (three parts in seven), control characters
#: (three) and NUL (one).
_CONTROL_POOLS = (*[tuple(w + " " for w in WORDS)] * 3, *[CONTROLS] * 3, ("\x00",))


def _control_lines() -> st.SearchStrategy[str]:
    return st.builds(
        lambda count, seed: "".join(picks(_CONTROL_POOLS, count, seed)), st.integers(1, 10), SEEDS
    )


#: Line breaks that are not "\\n" (old Mac files, Word's \\x0b, PDF page breaks, NEL, LS, PS).
ODD_BREAKS = ("\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\x1c", "\x1e")


def _odd_break_lines() -> st.SearchStrategy[str]:
    """Lines of sentences separated by one of the line breaks other than LF."""
    return st.builds(
        lambda sep, count, seed: sep.join(seeded_sentences(count, seed)),
        st.sampled_from(ODD_BREAKS),
        st.integers(2, 5),
        SEEDS,
    )


@functools.lru_cache(maxsize=64)
def _repeat_counts(top: int) -> st.SearchStrategy[int]:
    """How often a block repeats, at most ``top`` times: one strategy per ``top`` (cached), not a
    new one validated on every draw."""
    return st.integers(2, top)


def _repeated_blocks(max_length: int) -> st.SearchStrategy[str]:
    """Identical blocks repeated: the text that fools ``text.find(chunk)`` (seed 000)."""
    units = st.one_of(
        st.sampled_from(REPEAT_UNITS),
        prose().map(lambda p: p + "\n\n"),  # identical paragraphs
        # ASCII letters and digits (``max_codepoint``, not ``codec="ascii"``: the same
        # characters, without a codec table built from every code point)
        st.text(st.characters(max_codepoint=127, categories=["L", "N"]), min_size=1, max_size=8)
        .map(lambda s: s + "\n"),
    )
    wrappers = st.sampled_from((("", ""), ("[\n", "]\n"), ("<items>\n", "</items>\n")))

    @st.composite
    def build(draw: st.DrawFn) -> str:
        unit = draw(units)
        most = max(2, max_length // max(1, len(unit)))
        count = draw(_repeat_counts(min(60, most)))
        head, tail = draw(wrappers)
        return head + unit * count + tail

    return build()


def _long_runs(max_length: int) -> st.SearchStrategy[str]:
    """Long stretches with no whitespace: nothing for a word splitter to cut at (seed 002)."""
    size = lengths(20, max_length)
    cjk_size = lengths(50, max_length)
    seeds = st.integers(0, 2**16)

    def repeat(char: str, n: int) -> str:
        return ("e" + char * (n - 1)) if char == "\u0301" else char * n

    def b64(n: int, seed: int) -> str:
        raw = random.Random(seed).randbytes(n * 3 // 4 + 3)
        return base64.b64encode(raw).decode("ascii")[:n]

    return weighted(
        (2, st.builds(repeat, st.sampled_from(RUN_CHARS), size)),
        (2, st.builds(lambda n, s: expand(CJK_PHRASES, n, s), cjk_size, seeds)),
        (2, st.builds(lambda n, s: expand(THAI_PHRASES, n, s), size, seeds)),
        (2, st.builds(lambda n, s: "https://example.com/" + expand(URL_CHARS, n, s), size, seeds)),
        (1, st.builds(b64, size, seeds)),
        (1, st.builds(lambda n, s: expand(MINIFIED_UNITS, n, s), size, seeds)),
        (1, st.builds(lambda n, s: expand(CLUSTERS, n, s), size, seeds)),
    )


def _early_space_runs(max_length: int) -> st.SearchStrategy[str]:
    """Seed 003: ``"x" * 10 + " " + "a" * N``, one early space then a long unbroken run."""
    return st.builds(
        lambda head, run_char, n: "x" * head + " " + run_char * n,
        st.integers(1, 20),
        st.sampled_from(("a", "\u6570", "-")),
        lengths(50, max_length),
    )


def _cluster_runs(max_length: int) -> st.SearchStrategy[str]:
    """Runs of multi-codepoint clusters with no plain character pair: one cluster repeated, a
    mix of them, or a single cluster far longer than a small cap (a long combining sequence, a
    long ZWJ chain). Long runs are long enough (300+) to defeat a look-back window."""
    size = lengths(300, max_length, typical=60)
    long = st.integers(min(300, max_length), max_length)
    seeds = st.integers(0, 2**16)

    def repeat(unit: str, n: int) -> str:
        return unit * max(1, n // len(unit))

    def one_cluster(base: str, link: str, k: int) -> str:
        return base + link * k

    return weighted(
        (3, st.builds(repeat, st.sampled_from(CLUSTER_UNITS), size)),
        (3, st.builds(lambda n, s: expand(CLUSTER_UNITS, n, s), long, seeds)),
        (2, st.builds(lambda n, s: expand(CLUSTER_UNITS + _SPACED, n, s), size, seeds)),
        (2, st.builds(lambda n: " \u0301" * (n // 2), long)),  # every space carries a mark
        (
            1,
            st.builds(
                one_cluster,
                st.sampled_from(("e", "\U0001f468", " ")),
                st.sampled_from(("\u0301", "\u0300\u0323", "\u200d\U0001f469")),
                st.integers(2, 60),
            ),
        ),
    )


#: What a marked space carries: a combining mark, nothing, two marks, an enclosing circle.
_SPACE_MARKS = ("\u0301", "", "\u0300\u0308", "\u20dd")


def _marked_spaces() -> st.SearchStrategy[str]:
    """Words whose separating spaces carry combining marks: separators that are not cluster
    boundaries, between words that are."""

    def build(count: int, seed: int) -> str:
        words = picks((WORDS,), count, seed)
        marks = picks((_SPACE_MARKS,), count, seed and seed + 1)
        return "".join(w + " " + m for w, m in zip(words, marks)).rstrip()

    return st.builds(build, st.integers(2, 12), SEEDS)


def _surrogate_text() -> st.SearchStrategy[str]:
    """Words around a lone surrogate, and maybe more of them (rare: never most of a mixture)."""

    def build(head: int, sur: str, tail: int, seed: int, sep: str) -> str:
        before = picks((WORDS,), head, seed)
        after = picks((WORDS, LONE_SURROGATES), tail, seed and seed + 1)
        return sep.join([*before, sur, *after])

    return st.builds(
        build,
        st.integers(0, 4),
        st.sampled_from(LONE_SURROGATES),
        st.integers(0, 6),
        SEEDS,
        st.sampled_from((" ", "")),
    )


def _blocks(max_length: int) -> st.SearchStrategy[str]:
    return weighted(
        (2, sentences()),
        (3, prose()),
        (3, inline_text()),
        (3, _control_lines()),
        (2, _odd_break_lines()),
        (5, _repeated_blocks(max_length)),
        (7, _long_runs(max_length)),
        (1, _early_space_runs(max_length)),
        (4, _cluster_runs(max_length)),
        (1, _marked_spaces()),
        (1, _surrogate_text()),
    )


def _composed(max_length: int) -> st.SearchStrategy[str]:
    prefixes = st.sampled_from(PREFIXES)
    pieces = st.lists(
        st.tuples(st.sampled_from(SEPARATORS), _blocks(max_length)), min_size=1, max_size=6
    )
    suffixes = st.sampled_from(SUFFIXES)
    styles = st.sampled_from(NEWLINE_STYLES)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        prefix = draw(prefixes)
        parts = draw(pieces)
        suffix = draw(suffixes)
        body = "".join(sep + block for sep, block in parts)[len(parts[0][0]) :]
        return with_newlines(prefix + body + suffix, draw(styles))[:max_length]

    return build()


def _single_characters() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(
            (
                "a",
                " ",
                "\n",
                "\u00e9",
                "\U0001f680",
                "\x00",
                "\ufeff",
                "\r",
                "\u0301",
                "\ufffd",
                "\u6570",
                "\t",
            )
        ),
        # Every character UTF-8 encodes, i.e. all but the surrogates: the same characters as
        # ``codec="utf-8"``, whose table Hypothesis builds by encoding all 1.1M code points
        # (1.5 s of CPU in every fresh checkout), while categories come from its charmap.
        st.characters(exclude_categories=["Cs"]),
    )


def _whitespace_only(max_length: int) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(  # (a list, not st.text: shrinks to plain spaces)
            st.sampled_from(tuple(WHITESPACE)), min_size=1, max_size=min(20, max_length)
        ).map("".join),
        st.builds(
            lambda c, n: c * n, st.sampled_from(("\n", " ", "\r\n", "\t")), lengths(1, max_length)
        ).map(lambda s: s[:max_length]),
    )


def documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Adversarial plain-text documents of at most ``max_length`` codepoints.

    Mostly composed documents (blocks of prose, tricky characters, control characters, repeated
    blocks and long unbroken runs, joined by assorted line breaks, with optional BOM and blank
    lines around, sometimes rewritten with CRLF or lone-CR line endings); now and then the empty
    document, one character, a whitespace-only document, seed 003's early-space shape, or a
    document that opens with a run of multi-codepoint grapheme clusters. A small fraction holds
    a lone surrogate (legal in a ``str``; encode with ``"surrogatepass"`` to get bytes).
    """
    return _documents(check_int("documents", "max_length", max_length, min_value=1))


@functools.lru_cache(maxsize=64)
def _documents(max_length: int) -> st.SearchStrategy[str]:
    # Mostly composed documents; the simple special shapes first, for the shrinker, but
    # whitespace-only last so that a bug which any text shows shrinks to readable text.
    return weighted(
        (1, st.just("")),
        (1, _single_characters()),
        (19, _composed(max_length)),
        (4, _early_space_runs(max_length).map(lambda s: s[:max_length])),
        (4, _cluster_runs(max_length).map(lambda s: s[:max_length])),
        (5, _whitespace_only(max_length)),
    )
