"""Tests for chunk_contract.generation.strategies: valid output, feature coverage, configs, argument
checks, and proof that the generators find the seed bugs in toy chunkers quickly."""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from random import Random
from typing import TypeVar

import pytest
import regex
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from chunk_contract.generation.strategies import (
    StrategyArgumentError,
    any_documents,
    cases,
    configs,
    documents,
    headed_documents,
    markdown_documents,
)
from chunk_contract.generation.strategies.text import LONE_SURROGATES
from chunk_contract.spec.model import Config

T = TypeVar("T")

DOCUMENT_STRATEGIES = {
    "documents": documents,
    "markdown_documents": markdown_documents,
    "headed_documents": headed_documents,
    "any_documents": any_documents,
}

# --------------------------------------------------------------------------- helpers

ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _lines(doc: str) -> list[str]:
    return doc.replace("\r\n", "\n").split("\n")


def heading_inside_fence(doc: str) -> bool:
    fence: str | None = None
    for line in _lines(doc):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            fence = None
        elif ATX.match(line):
            return True
    return False


def three_line_header_only(doc: str) -> bool:
    lines = doc.replace("\r\n", "\n").rstrip("\n").split("\n")
    return len(lines) == 3 and all(line.strip() for line in lines)


def headings_only(doc: str) -> bool:
    lines = [line for line in _lines(doc) if line.strip()]
    return bool(lines) and all(ATX.match(line) for line in lines)


def repeated_block(doc: str) -> bool:
    """A block of 1-6 whole lines (with some text in it) three times in a row."""
    lines = doc.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for period in range(1, 7):
        run = 0
        for i in range(period, len(lines)):
            run = run + 1 if lines[i] == lines[i - period] else 0
            block = lines[i - period + 1 : i + 1]
            if run >= 2 * period and len("".join(block).strip()) >= 4:
                return True
    return False


FEATURES: dict[str, Callable[[str], bool]] = {
    "CRLF": lambda d: "\r\n" in d,
    "lone CR": lambda d: re.search("\r(?!\n)", d) is not None,
    "VT": lambda d: "\x0b" in d,
    "FF": lambda d: "\x0c" in d,
    "NEL": lambda d: "\x85" in d,
    "U+2028": lambda d: "\u2028" in d,
    "U+2029": lambda d: "\u2029" in d,
    "BOM at start": lambda d: d.startswith("\ufeff"),
    "NUL": lambda d: "\x00" in d,
    "tab": lambda d: "\t" in d,
    "astral": lambda d: any(ord(c) > 0xFFFF for c in d),
    "math alphanumeric": lambda d: re.search("[\U0001d400-\U0001d7ff]", d) is not None,
    "combining mark": lambda d: any(unicodedata.combining(c) for c in d),
    "ZWJ": lambda d: "\u200d" in d,
    "flag": lambda d: re.search("[\U0001f1e6-\U0001f1ff]{2}", d) is not None,
    "Hangul syllable": lambda d: re.search("[\uac00-\ud7a3]", d) is not None,
    "Hangul jamo": lambda d: re.search("[\u1100-\u11ff]", d) is not None,
    "RTL": lambda d: re.search("[\u0590-\u06ff]", d) is not None,
    "CJK run >= 50": lambda d: re.search("[\u3000-\u30ff\u4e00-\u9fff]{50,}", d) is not None,
    "Thai/Khmer run >= 30": lambda d: re.search("[\u0e00-\u0e7f\u1780-\u17ff]{30,}", d) is not None,
    "long URL": lambda d: re.search(r"https://\S{60,}", d) is not None,
    "base64-like run": lambda d: re.search(r"[A-Za-z0-9+/]{80,}", d) is not None,
    "one character repeated": lambda d: re.search(r"(\S)\1{79,}", d) is not None,
    "repeated block": repeated_block,
    "heading inside fence": heading_inside_fence,
    "three-line header only": three_line_header_only,
    "headings only": headings_only,
    "empty": lambda d: d == "",
    "single character": lambda d: len(d) == 1,
    "whitespace only": lambda d: d != "" and d.isspace(),
    "early space then long run": lambda d: re.match(r"\S{1,20} \S{50,}$", d) is not None,
    "leading blank line": lambda d: re.match(r"\ufeff?[ \t]*\r?\n", d) is not None,
    "no trailing newline": lambda d: d != "" and not d.endswith("\n"),
    "prose": lambda d: ". " in d and "\n\n" in d,
    "long (>= 1000)": lambda d: len(d) >= 1000,
}


def _collect(strategy: st.SearchStrategy[T], n: int) -> list[T]:
    out: list[T] = []

    @settings(max_examples=n, derandomize=True, database=None, phases=[Phase.generate])
    @given(strategy)
    def run(value: T) -> None:
        out.append(value)

    run()
    return out


def _check_document(doc: object, max_length: int) -> None:
    assert isinstance(doc, str)
    doc.encode("utf-8", "surrogatepass")  # lone surrogates are legal in a document (SPEC §5)
    assert len(doc) <= max_length


# --------------------------------------------------------------------------- valid output


@pytest.mark.parametrize("name", sorted(DOCUMENT_STRATEGIES))
def test_documents_are_valid(name: str) -> None:
    factory = DOCUMENT_STRATEGIES[name]

    @settings(max_examples=40, database=None)
    @given(factory())
    def check(doc: str) -> None:
        _check_document(doc, 2000)

    check()


@pytest.mark.parametrize("max_length", [1, 40])
@pytest.mark.parametrize("name", sorted(DOCUMENT_STRATEGIES))
def test_max_length_is_respected(name: str, max_length: int) -> None:
    factory = DOCUMENT_STRATEGIES[name]

    @settings(max_examples=15, database=None)
    @given(factory(max_length=max_length))
    def check(doc: str) -> None:
        _check_document(doc, max_length)

    check()


@settings(max_examples=80, database=None)
@given(cases())
def test_cases_are_document_config_pairs(case: tuple[str, Config]) -> None:
    doc, config = case
    _check_document(doc, 2000)
    assert isinstance(config, Config)
    assert isinstance(config.max_size, int) and isinstance(config.overlap, int)


def test_strategies_are_reused_not_rebuilt() -> None:
    assert documents(max_length=77) is documents(max_length=77)


# --------------------------------------------------------------------------- coverage


@pytest.fixture(scope="module")
def mixture() -> list[str]:
    docs = _collect(any_documents(), 1000)
    for doc in docs:
        _check_document(doc, 2000)
    return docs


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_any_documents_covers_feature(mixture: list[str], feature: str) -> None:
    hits = sum(1 for doc in mixture if FEATURES[feature](doc))
    assert hits >= 1, f"no document in {len(mixture)} draws has: {feature}"


def test_mixture_is_mostly_nontrivial(mixture: list[str]) -> None:
    sizes = sorted(len(d) for d in mixture)
    assert sizes[len(sizes) // 2] >= 50  # the median document is worth chunking


def test_replacement_character_is_rare(mixture: list[str]) -> None:
    assert sum("\ufffd" in d for d in mixture) < len(mixture) // 10


def _has_surrogate(doc: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in doc)


def test_lone_surrogates_come_up_but_rarely(mixture: list[str]) -> None:
    # Rarely: never a large share of the mixture. That they come up at all is checked with
    # find() (one derandomized sample may hold none: generation clusters, by version).
    assert sum(_has_surrogate(d) for d in mixture) < len(mixture) // 10
    find(any_documents(), _has_surrogate, settings=settings(database=None, max_examples=3000))


#: Two characters with a grapheme cluster boundary between them whatever came before (the
#: pairs a cluster-aware splitter may take for granted); the generators must make runs without.
_PLAIN_PAIR = regex.compile(
    r"[\p{GCB=Other}\p{GCB=Control}\n][[\p{GCB=Other}\p{GCB=Control}\n]--\p{InCB=Consonant}]",
    regex.V1,
)


def _longest_run_without_plain_pair(doc: str) -> int:
    best, last = 0, 0
    for match in _PLAIN_PAIR.finditer(doc, overlapped=True):
        best, last = max(best, match.start() + 1 - last), match.start() + 1
    return max(best, len(doc) - last)


def test_grapheme_shapes_are_generated() -> None:
    docs = _collect(documents(), 300)
    assert any(_longest_run_without_plain_pair(d) >= 300 for d in docs)
    assert any(d[:1].isspace() and unicodedata.combining(d[1:2] or "a") for d in docs)
    assert any(re.search(r"\s[\u0300-\u036f]", d) for d in docs)  # a space carrying a mark
    assert any("\u0300" in d for d in docs)  # the first combining mark
    assert any(re.search("[\u0300-\u036f]{8,}", d) for d in docs)  # a long combining sequence
    assert any(re.search("(?:\u200d\U0001f469){5,}", d) for d in docs)  # a long ZWJ chain


def test_surrogate_documents_are_found() -> None:
    doc = find(documents(), _has_surrogate, settings=settings(database=None, max_examples=2000))
    assert len(doc) < 100 and any(sur in doc for sur in LONE_SURROGATES)  # shrinks to short


def _fence_lines(doc: str) -> list[str]:
    return [line for line in _lines(doc) if FENCE.match(line)]


def test_markdown_fence_variants() -> None:
    docs = _collect(markdown_documents(), 300)
    fences = [line for d in docs for line in _fence_lines(d)]
    assert any(line.lstrip().startswith("~~~") for line in fences)  # tilde fences
    assert any(re.match(r" {1,3}[`~]{3}", line) for line in fences)  # indented 1-3 spaces
    assert any(re.match(r" {0,3}`{3,}[^`]*`", line) for line in fences)  # not a fence: `info`
    assert any(re.match(r" {0,3}(`{3,}|~{3,})\s*\S", line) for line in fences)  # info strings
    assert any(line.startswith("````") for line in fences)  # longer than three
    closed_longer = unclosed = tilde_in_backticks = heading_after = False
    for doc in docs:
        lines = _lines(doc)
        opener: str | None = None
        for i, line in enumerate(lines):
            m = re.match(r" {0,3}(`{3,}|~{3,})(.*)$", line)
            if opener is None:
                if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                    opener = m.group(1)
            elif m and m.group(1)[0] != opener[0]:
                tilde_in_backticks |= opener[0] == "`"
            elif m and len(m.group(1)) >= len(opener) and not m.group(2).strip():
                closed_longer |= len(m.group(1)) > len(opener)
                heading_after |= any(ATX.match(x) for x in lines[i + 1 : i + 3])
                opener = None
        unclosed |= opener is not None
    assert closed_longer and unclosed and tilde_in_backticks and heading_after


def test_markdown_heading_forms() -> None:
    docs = _collect(markdown_documents(), 200)
    headings = [line for d in docs for line in _lines(d) if ATX.match(line)]
    assert any(h.startswith("   #") for h in headings)  # three leading spaces
    assert any(re.match(r" {0,3}#{6}(?:[ \t]|$)", h) for h in headings)  # level 6
    assert any(re.match(r" {0,3}#+\t", h) for h in headings)  # tab after the hashes
    assert any(re.fullmatch(r" {0,3}#{1,6}", h) for h in headings)  # empty heading
    assert any(len(h) >= 100 for h in headings)  # longer than small caps
    lines = {line for d in docs for line in _lines(d)}
    assert any(re.match(r"#[^\s#]", line) for line in lines)  # "#hashtag": not a heading
    assert any(line.startswith("    # ") for line in lines)
    assert any(d.startswith("---\n") or d.startswith("---\r\n") for d in docs)  # front matter
    assert any(re.search(r"\n(=+|-+)(\r?\n|$)", d) for d in docs)  # setext underline


def test_headed_documents_header_only_with_and_without_newline() -> None:
    docs = _collect(headed_documents(), 120)
    header_only = [d for d in docs if three_line_header_only(d)]
    assert any(d.endswith("\n") for d in header_only)
    assert any(not d.endswith("\n") for d in header_only)
    firsts = [d.split("\n", 1)[0] for d in docs]
    assert any(len(first) >= 100 for first in firsts)  # a long title


# --------------------------------------------------------------------------- configs


def test_configs_valid_and_degenerate() -> None:
    drawn = _collect(configs(), 250)
    valid = [c for c in drawn if c.is_valid]
    degenerate = [c for c in drawn if not c.is_valid]
    assert 0.02 * len(drawn) <= len(degenerate) <= 0.3 * len(drawn)
    sizes = {c.max_size for c in valid}
    assert sizes & set(range(1, 9)) and sizes & set(range(9, 81)) and max(sizes) > 80
    assert all(c.max_size <= 4096 for c in valid)
    assert any(c.overlap == 0 for c in valid)
    assert any(c.overlap == c.max_size - 1 and c.max_size > 2 for c in valid)
    assert any(c.overlap == 1 and c.max_size > 2 for c in valid)
    kinds = {
        "max_size <= 0"
        if c.max_size <= 0
        else "negative overlap"
        if c.overlap < 0
        else "overlap == max_size"
        if c.overlap == c.max_size
        else "overlap > max_size"
        for c in degenerate
    }
    assert len(kinds) >= 3, kinds


def test_configs_without_degenerate_are_always_valid() -> None:
    drawn = _collect(configs(degenerate=False, max_cap=50), 150)
    assert all(c.is_valid and c.max_size <= 50 for c in drawn)


def test_tiny_max_cap() -> None:
    assert all(c == Config(1, 0) for c in _collect(configs(degenerate=False, max_cap=1), 20))


def test_cases_usually_chunk() -> None:
    drawn = _collect(cases(), 120)
    chunking = [(d, c) for d, c in drawn if c.is_valid and c.max_size < len(d)]
    assert len(chunking) >= len(drawn) // 2
    assert any(not c.is_valid for _, c in drawn)
    assert all(c.is_valid for _, c in _collect(cases(degenerate=False), 40))


def test_cases_take_a_document_strategy() -> None:
    drawn = _collect(cases(documents=st.just("abc")), 20)
    assert {d for d, _ in drawn} == {"abc"}


# --------------------------------------------------------------------------- argument checks


@pytest.mark.parametrize("factory", [*DOCUMENT_STRATEGIES.values(), cases])
@pytest.mark.parametrize("bad", [0, -5, "100", 2.5, True, None])
def test_bad_max_length_raises_at_once(factory: Callable[..., object], bad: object) -> None:
    with pytest.raises(ValueError, match="max_length"):
        factory(max_length=bad)
    with pytest.raises(InvalidArgument):
        factory(max_length=bad)


@pytest.mark.parametrize(
    "kwargs", [{"degenerate": "yes"}, {"degenerate": None}, {"max_cap": 0}, {"max_cap": "9"}]
)
def test_bad_config_arguments_raise_at_once(kwargs: dict[str, object]) -> None:
    with pytest.raises(StrategyArgumentError):
        configs(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(StrategyArgumentError):
        cases(**kwargs)  # type: ignore[arg-type]


def test_bad_kind_and_document_strategy() -> None:
    with pytest.raises(ValueError, match="kind"):
        cases(kind="pdf")
    with pytest.raises(ValueError, match="documents"):
        cases(documents="not a strategy")  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match=r"contract\.generation\.strategies\.workbooks"):
        cases(kind="workbook")


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        documents(100)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        configs(False)  # type: ignore[call-arg]


# --------------------------------------------------------------------------- the generators matter
#
# Toy chunkers with the bugs of the seed PRs. Each must be caught within 100 examples.

FIND_SETTINGS = settings(max_examples=100, derandomize=True, database=None)
#: Finding is what these tests are about; shrinking is checked once, for the cap violation.
NO_SHRINK = settings(FIND_SETTINGS, phases=[Phase.generate])


def word_packer(doc: str, config: Config) -> list[str]:
    """Seed 002: packs whitespace-separated words; a word over the cap is emitted whole."""
    chunks: list[str] = []
    current = ""
    for word in doc.split():
        candidate = f"{current} {word}" if current else word
        if current and len(candidate) > config.max_size:
            chunks.append(current)
            current = word
        else:
            current = candidate
    if current:
        chunks.append(current)
    return chunks


def overlap_prepender(doc: str, config: Config) -> list[str]:
    """Seed 002: fills each chunk to the cap, then prepends the overlap on top."""
    step = config.max_size
    pieces = [doc[i : i + step] for i in range(0, len(doc), step)]
    return [
        (pieces[i - 1][-config.overlap :] if i and config.overlap else "") + piece
        for i, piece in enumerate(pieces)
    ]


class Hang(Exception):
    pass


def chunk_text(text: str, size: int, overlap: int) -> list[str]:
    """Seed 003: ``start = breakPoint + 1 - overlap``, clamped only at 0 (a faithful port)."""
    chunks: list[str] = []
    start = 0
    budget = 4 * len(text) + 10
    while start < len(text):
        budget -= 1
        if budget < 0:
            raise Hang
        end = min(start + size, len(text))
        if end < len(text):
            floor = start + size * 0.5
            bp = text.rfind(". ", 0, end + 2)
            if bp < floor:
                bp = text.rfind("\n", 0, end + 1)
            if bp < floor:
                bp = text.rfind(" ", 0, end + 1)
                if bp <= start:
                    bp = end
            end = bp + 1
        piece = text[start:end].strip()
        if piece:
            chunks.append(piece)
        if end >= len(text):
            break
        start = end - overlap
        if start < 0:
            start = 0
    return chunks


def find_offsets(doc: str, config: Config) -> list[tuple[int, str]]:
    """Seed 000, bug 1: cuts fixed windows, then recovers each one's position with ``find``."""
    step = config.max_size - config.overlap
    pieces = (doc[i : i + config.max_size].strip() for i in range(0, len(doc), step))
    return [(doc.find(p), p) for p in pieces if p]


def first_line_from_splitlines(doc: str) -> int | None:
    """Seed 000, bug 2: normalises with ``splitlines()`` and ``strip()``, then counts lines
    from ``base_line=1``; returns the line it reports for the first chunk."""
    flat = "\n".join(doc.splitlines()).strip()
    return 1 if flat else None


def classic_header_chunker(doc: str, config: Config) -> list[str]:
    """Seed 004: the first three lines are a header reserved in the first chunk."""
    lines = doc.split("\n")
    header, body = "\n".join(lines[:3]), "\n".join(lines[3:])
    chunks: list[str] = []
    pos = 0
    while pos < len(body):
        end = pos + max(config.max_size - (len(header) if not chunks else 0), 1)
        chunks.append((header + "\n" if not chunks else "") + body[pos:end])
        pos = end
    return chunks


def _over_cap(
    chunker: Callable[[str, Config], list[str]],
) -> Callable[[tuple[str, Config]], bool]:
    def broken(case: tuple[str, Config]) -> bool:
        doc, config = case
        return config.is_valid and any(len(c) > config.max_size for c in chunker(doc, config))

    return broken


def test_finds_word_packer_cap_violation() -> None:
    doc, config = find(cases(), _over_cap(word_packer), settings=FIND_SETTINGS)
    assert len(doc) <= 40, (doc, config)  # shrinks to something readable


def test_finds_prepended_overlap_cap_violation() -> None:
    _, config = find(cases(), _over_cap(overlap_prepender), settings=NO_SHRINK)
    assert config.overlap >= 1


def test_finds_backwards_start_hang() -> None:
    def hangs(case: tuple[str, Config]) -> bool:
        doc, config = case
        if not config.is_valid:
            return False
        try:
            chunk_text(doc, config.max_size, config.overlap)
        except Hang:
            return True
        return False

    doc, _ = find(cases(), hangs, settings=NO_SHRINK)
    assert " " in doc


def test_finds_find_based_offsets_bug() -> None:
    def out_of_order(case: tuple[str, Config]) -> bool:
        doc, config = case
        if not config.is_valid:
            return False
        starts = [s for s, _ in find_offsets(doc, config)]
        return any(b <= a for a, b in itertools.pairwise(starts))

    find(cases(), out_of_order, settings=NO_SHRINK)

    # Identical blocks (JSON, XML, code lines) catch it on their own, not just long runs.
    def out_of_order_in_blocks(case: tuple[str, Config]) -> bool:
        return repeated_block(case[0]) and out_of_order(case)

    find(cases(documents=documents()), out_of_order_in_blocks, settings=NO_SHRINK)


def test_finds_leading_blank_lines_shift() -> None:
    def shifted(case: tuple[str, Config]) -> bool:
        doc, config = case
        reported = first_line_from_splitlines(doc)
        if not config.is_valid or reported is None:
            return False
        first = len(doc) - len(doc.lstrip())
        return reported != doc.count("\n", 0, first) + 1

    doc, _ = find(cases(), shifted, settings=NO_SHRINK)
    assert doc[0].isspace()


def test_finds_header_only_document_dropped() -> None:
    def lost(case: tuple[str, Config]) -> bool:
        doc, config = case
        return config.is_valid and bool(doc.strip()) and not classic_header_chunker(doc, config)

    doc, _ = find(cases(), lost, settings=FIND_SETTINGS)
    assert doc.count("\n") <= 2, doc


def test_toy_chunkers_are_fine_on_the_easy_path() -> None:
    # Sanity: the toys do chunk ordinary text, so the findings above are their bugs.
    text = "alpha beta gamma delta"
    assert word_packer(text, Config(11, 0)) == ["alpha beta", "gamma delta"]
    assert chunk_text(text, 11, 0) == ["alpha beta", "gamma delta"]
    assert Counter(overlap_prepender("abcdef", Config(3, 1))) == Counter(["abc", "cdef"])


# --------------------------------------------------------------------------- seeded pieces


def test_picks_seed_zero_is_the_simplest_and_others_mix_every_pool() -> None:
    from chunk_contract.generation.strategies._common import picks

    assert picks((("a", "b"), ("x", "y")), 4, 0) == ["a"] * 4
    mixed = picks((("a", "b"), ("x", "y")), 200, 7)
    assert mixed == picks((("a", "b"), ("x", "y")), 200, 7)  # a seed is one document
    assert set(mixed) == {"a", "b", "x", "y"}


def test_seeded_pieces_shrink_to_the_first_piece() -> None:
    from chunk_contract.generation.strategies.markdown import _fence_bodies, _title
    from chunk_contract.generation.strategies.text import inline_text, prose

    simplest = settings(database=None, max_examples=200, phases=[Phase.generate, Phase.shrink])
    # One fixed random source: how far a shrink gets depends on where it starts, and the
    # verdict must not.
    shrunk = functools.partial(find, settings=simplest, random=Random(0))
    assert shrunk(prose(), lambda p: True) == "Hello world."
    assert shrunk(inline_text(), lambda t: True) == "a"
    assert shrunk(_title(), lambda t: True) == "Intro"
    assert shrunk(_fence_bodies("```"), lambda b: True) == [
        "# a comment that looks like a heading"
    ]
    # and a piece the shrinker must keep stays: a unicode piece in a line of words
    line = shrunk(inline_text(), lambda t: "\u200d" in t)
    assert "\u200d" in line and len(line) < 40
