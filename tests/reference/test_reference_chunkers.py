"""The reference chunkers keep the contract, and the seeds' scenarios behave as their fixes say."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex

from chunk_contract.engine.runner import RunSettings, run
from chunk_contract_reference import fixed, grapheme, header, markdown, recursive

ROOT = Path(__file__).resolve().parents[2]
Split = Callable[..., list[dict[str, Any]]]

#: target -> the opt-in invariants it promises (each must be checked and pass).
TARGETS = {
    "fixed.py:split": (),
    "recursive.py:split": (),
    "markdown.py:split": ("heading_boundary", "newline_invariance"),
    "header.py:split": ("newline_invariance",),
    "header.py:split_duplicate_headers": ("newline_invariance",),
    "grapheme.py:split": ("grapheme_integrity",),
}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_keeps_the_contract(target: str, tmp_path: Path) -> None:
    result = run(
        f"{ROOT}/chunk_contract_reference/{target}",
        RunSettings(max_examples=60, seed=20240601, reproducers=tmp_path),
    )
    found = {
        r.id: (
            r.counterexample.message,
            ascii(r.counterexample.document)[:300],
            r.counterexample.config,
        )
        for r in result.violated
        if r.counterexample
    }
    assert result.passed, found
    status = {r.id: r.status for r in result.results}
    for rule in (
        "span_fidelity",
        "no_lost_text",
        "cap_respected",
        "line_citations",
        "ordered",
        "overlap_bounded",
        "unique_ids",
        "config_validation",
        *TARGETS[target],
    ):
        assert status[rule] == "passed", (rule, status[rule])


# --------------------------------------------------------------------------- shared checks


def tokens(text: str) -> int:
    return len(text.split())


def check(
    document: str,
    chunks: list[dict[str, Any]],
    max_size: int,
    overlap: int,
    size: Callable[[str], int] = len,
    text: str | None = None,
    indivisible: bool = False,
) -> None:
    """Exact slices, in order, within the cap and the overlap, covering every non-space char."""
    text = document if text is None else text
    covered = 0
    previous: dict[str, Any] | None = None
    for chunk in chunks:
        start, end = chunk["start"], chunk["end"]
        assert chunk["text"] == text[start:end] and chunk["text"].strip()
        assert text[covered:start].strip() == "", "text lost before " + repr(chunk["text"][:20])
        one_cluster = indivisible and regex.fullmatch(r"\X", chunk["text"])
        assert size(chunk["text"]) <= max_size or one_cluster
        head = text[:start].encode("utf-8", "surrogatepass")
        assert chunk["start_byte"] == len(head)
        assert chunk["end_byte"] == len(text[:end].encode("utf-8", "surrogatepass"))
        assert chunk["line_start"] == text.count("\n", 0, start) + 1
        assert chunk["line_end"] == text.count("\n", 0, end - 1) + 1
        if previous is not None:
            assert start > previous["start"] and end >= previous["end"]
            shared = text[start : previous["end"]] if start < previous["end"] else ""
            assert size(shared) <= overlap
        covered, previous = max(covered, end), chunk
    assert text[covered:].strip() == ""


# --------------------------------------------------------------------------- recursive

SEED_003 = "x" * 10 + " " + "a" * 5000
PROSE = " ".join(
    f"Sentence {i} says something about chunking, overlap and caps." for i in range(200)
)


@pytest.mark.parametrize(("max_size", "overlap"), [(1600, 320), (100, 99), (20, 0), (1, 0), (7, 3)])
def test_recursive_seed_003_one_early_space_then_a_long_run(max_size: int, overlap: int) -> None:
    chunks = recursive.split(SEED_003, max_size=max_size, overlap=overlap)
    check(SEED_003, chunks, max_size, overlap)
    assert chunks[-1]["end"] == len(SEED_003)
    assert len(chunks) <= len(SEED_003) // (max_size - overlap) + 2  # full chunks, not slivers


@pytest.mark.parametrize(("max_size", "overlap"), [(500, 64), (80, 20)])
def test_recursive_seed_002_overlap_comes_out_of_the_cap(max_size: int, overlap: int) -> None:
    chunks = recursive.split(PROSE, max_size=max_size, overlap=overlap)
    check(PROSE, chunks, max_size, overlap)
    assert max(len(c["text"]) for c in chunks) > max_size - overlap - 20  # the cap is used
    assert sum(a["end"] > b["start"] for a, b in itertools.pairwise(chunks)) > len(chunks) // 2


@pytest.mark.parametrize(
    "document",
    [
        "数据库检索" * 10_000,
        "https://x.io/" + "ab%20" * 4000,
        "aé数🚀—" * 500,
        "e" + "\u0301" * 300,
    ],
    ids=["cjk", "url", "mixed-width", "combining"],
)
def test_recursive_seed_002_text_without_spaces_spills(document: str) -> None:
    chunks = recursive.split(document, max_size=37, overlap=5)
    assert len(chunks) > 1
    check(document, chunks, 37, 5)


def test_recursive_seed_002_crlf_paragraphs_split_like_lf() -> None:
    lf = "alpha paragraph one\n\nbeta paragraph two\n\ngamma three"
    crlf = lf.replace("\n", "\r\n")
    for cap, expected in (
        (25, ["alpha paragraph one", "beta paragraph two", "gamma three"]),
        (35, ["alpha paragraph one", "beta paragraph two\n\ngamma three"]),
    ):
        a = [
            c["text"].replace("\r\n", "\n") for c in recursive.split(crlf, max_size=cap, overlap=0)
        ]
        b = [c["text"] for c in recursive.split(lf, max_size=cap, overlap=0)]
        assert a == b == expected


def test_recursive_seed_000_repeated_blocks_cite_their_own_lines() -> None:
    document = "\n\n\n" + '{"a": 1}\n' * 50
    chunks = recursive.split(document, max_size=30, overlap=9)
    check(document, chunks, 30, 9)
    assert chunks[0]["line_start"] == 4
    assert len({c["id"] for c in chunks}) == len(chunks)


def test_recursive_prefers_paragraphs_then_sentences() -> None:
    document = "First sentence here. Second one.\n\nNext paragraph."
    texts = [c["text"] for c in recursive.split(document, max_size=33, overlap=0)]
    assert texts == ["First sentence here. Second one.", "Next paragraph."]
    texts = [c["text"] for c in recursive.split(document, max_size=25, overlap=0)]
    assert texts == ["First sentence here.", "Second one.", "Next paragraph."]


@pytest.mark.parametrize(
    "split",
    [
        fixed.split,
        recursive.split,
        markdown.split,
        header.split,
        header.split_duplicate_headers,
        grapheme.split,
    ],
)
@pytest.mark.parametrize(
    ("max_size", "overlap"),
    [(0, 0), (-3, 0), (1, 999), (5, 5), (5, -1), (True, 0), (5, False), (2.5, 0)],
)
def test_degenerate_configs_are_refused(split: Split, max_size: Any, overlap: Any) -> None:
    with pytest.raises(ValueError):
        split("some text", max_size=max_size, overlap=overlap)


@pytest.mark.parametrize("split", [recursive.split, markdown.split, grapheme.split])
def test_empty_and_blank_documents_give_no_chunks(split: Split) -> None:
    for document in ("", " ", "\n\n\r\n", "\u3000\t"):
        assert split(document, max_size=3, overlap=1) == []


def test_recursive_is_linear_enough() -> None:
    import time

    document = (PROSE + "\n\n") * 40  # about 0.5 MB
    started = time.process_time()  # CPU time: the same on a busy machine
    recursive.split(document, max_size=1000, overlap=100)
    assert time.process_time() - started < 2.0


# --------------------------------------------------------------------------- markdown


def test_markdown_heading_is_a_hard_boundary_with_its_path() -> None:
    document = "Intro text.\n# Setup\nInstall it.\n## Linux ##\napt install\n# Usage\nRun it."
    chunks = markdown.split(document, max_size=1000, overlap=10)
    assert [(c["text"], c["section"]) for c in chunks] == [
        ("Intro text.", []),
        ("# Setup\nInstall it.", ["Setup"]),
        ("## Linux ##\napt install", ["Setup", "Linux"]),
        ("# Usage\nRun it.", ["Usage"]),
    ]
    check(document, chunks, 1000, 10)


def test_markdown_hash_lines_in_fenced_code_are_not_headings() -> None:
    document = "# Code\n```python\n# a comment\nx = 1\n```\n~~~\n## not either\n~~~\nafter"
    chunks = markdown.split(document, max_size=1000, overlap=0)
    assert len(chunks) == 1 and chunks[0]["section"] == ["Code"]


@pytest.mark.parametrize(
    "line", ["#hashtag", "    # indented code", "####### seven", "\\# escaped", "#\u00a0nbsp"]
)
def test_markdown_look_alikes_are_not_headings(line: str) -> None:
    chunks = markdown.split("text\n" + line + "\nmore", max_size=1000, overlap=0)
    assert len(chunks) == 1 and chunks[0]["section"] == []


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("#", ""),
        ("#\ttab", "tab"),
        ("   ### three", "three"),
        ("## closed ###", "closed"),
        ("# C#", "C#"),
    ],
)
def test_markdown_every_atx_form_is_a_heading(line: str, title: str) -> None:
    chunks = markdown.split("text\n" + line + "\nmore", max_size=1000, overlap=0)
    assert [c["section"] for c in chunks] == [[], [title]]


def test_markdown_crlf_chunks_exactly_like_lf() -> None:
    lf = "# A\n\nalpha paragraph one\n\nbeta paragraph two\n## B\n\ngamma three\n"
    for cap, overlap in ((12, 4), (25, 0), (1000, 0)):
        a = markdown.split(lf.replace("\n", "\r\n"), max_size=cap, overlap=overlap)
        b = markdown.split(lf, max_size=cap, overlap=overlap)
        assert a == b
        check(lf, b, cap, overlap)


def test_markdown_long_heading_is_split_but_still_starts_its_chunk() -> None:
    document = "before\n# " + "word " * 40 + "\nbody"
    chunks = markdown.split(document, max_size=30, overlap=5)
    check(document, chunks, 30, 5)
    assert chunks[1]["text"].startswith("# word")
    assert not any("#" in c["text"] for c in chunks[2:])


# --------------------------------------------------------------------------- header

LONG_HEADER = "\n".join(" ".join(f"{w}{i}" for i in range(12)) for w in ("title", "author", "date"))
BODY = " ".join(f"b{i}" for i in range(61))


def test_header_seed_004_long_header_never_breaks_the_cap() -> None:
    document = LONG_HEADER + "\n" + BODY  # 36 header tokens, 61 body tokens, cap 20
    for split in (header.split, header.split_duplicate_headers):
        chunks = split(document, max_size=20, overlap=0)
        check(document, chunks, 20, 0, size=tokens)
        assert [tokens(c["text"]) for c in chunks] == [20, 16, 20, 20, 20, 1]
        assert sum(tokens(c["text"]) for c in chunks) == 97  # nothing lost, nothing repeated


def test_header_opens_the_first_chunk_as_one_slice() -> None:
    document = "TITLE\nAUTHOR\nDATE\n" + BODY
    chunks = header.split(document, max_size=20, overlap=5)
    check(document, chunks, 20, 5, size=tokens)
    assert chunks[0]["text"].startswith("TITLE\nAUTHOR\nDATE\nb0 ")
    assert tokens(chunks[0]["text"]) == 20
    assert all("TITLE" not in c["text"] for c in chunks[1:])  # the overlap never repeats it


def test_header_duplicate_headers_ride_on_every_chunk() -> None:
    document = "TITLE\nAUTHOR\nDATE\n" + BODY
    chunks = header.split_duplicate_headers(document, max_size=20, overlap=5)
    check(document, chunks, 20, 5, size=tokens)
    assert all(c["section"] == ["TITLE", "AUTHOR", "DATE"] for c in chunks)
    assert all(tokens(c["text"]) <= 17 for c in chunks[1:])  # room left for the header
    assert len(chunks) == 5


@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
@pytest.mark.parametrize("max_size", [1, 5, 20, 100])
def test_header_only_documents_are_still_emitted(end: str, max_size: int) -> None:
    document = LONG_HEADER.replace("\n", end or "\n") + end
    for split in (header.split, header.split_duplicate_headers):
        chunks = split(document, max_size=max_size, overlap=max_size // 2)
        assert chunks
        check(document, chunks, max_size, max_size // 2, size=tokens)


def test_header_count_tokens_is_declared() -> None:
    assert header.split.count_tokens("a  b\tc\n") == 3  # type: ignore[attr-defined]
    assert header.split.unit == header.split_duplicate_headers.unit == "tokens"  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- grapheme

CLUSTERS = [
    "e\u0301",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f1fa\U0001f1f8",
    "\u1100\u1161\u11a8",
    "\r\n",
    "\u0915\u094d\u0937",
    "a",
    " ",
]


def boundaries(text: str) -> set[int]:
    return {m.start() for m in regex.finditer(r"\X", text)} | {len(text)}


@pytest.mark.parametrize(("max_size", "overlap"), [(1, 0), (3, 1), (8, 7), (40, 10)])
def test_grapheme_never_cuts_a_cluster(max_size: int, overlap: int) -> None:
    document = "".join(CLUSTERS[(i * 7) % len(CLUSTERS)] for i in range(400))
    chunks = grapheme.split(document, max_size=max_size, overlap=overlap)
    check(document, chunks, max_size, overlap, indivisible=True)
    cuts = boundaries(document)
    assert all(c["start"] in cuts and c["end"] in cuts for c in chunks)


def test_grapheme_one_long_cluster_is_indivisible() -> None:
    document = "ab " + "e" + "\u0301" * 3000 + " cd"
    chunks = grapheme.split(document, max_size=5, overlap=2)
    assert [c["text"] for c in chunks] == ["ab", "e" + "\u0301" * 3000, "cd"]


def test_grapheme_keeps_a_cluster_that_starts_with_a_space() -> None:
    document = "x \u0301y"  # " \u0301" is one cluster
    chunks = grapheme.split(document, max_size=2, overlap=0)
    assert [c["text"] for c in chunks] == ["x", " \u0301", "y"]


def test_markdown_heading_with_long_tab_run_keeps_its_title() -> None:
    """Fuzzing found a backtracking closing-# regex on such headings (quadratic time)."""
    from chunk_contract_reference.markdown import split as markdown_split

    document = "# a" + "\t" * 20_000 + "b ##\nbody\n"
    chunks = markdown_split(document, max_size=50, overlap=0)
    assert chunks[-1]["section"] == ["a" + "\t" * 20_000 + "b"]
    assert chunks[-1]["text"].endswith("body")
