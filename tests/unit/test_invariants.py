"""Proof of red, one row per invariant: a hand-made chunk list the check accepts, one it rejects.

Every invariant with a check function (all but the runner-decided ``engine`` rules) must have a
row here, and each rejection must state what was observed against what was allowed. The
per-family files (``test_inv_*.py``) hold the seed scenarios and edge cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from chunk_contract.spec.model import Case, Chunk
from chunk_contract.spec.registry import EXTENSION_IDS, SPEC_IDS, registry
from tests.unit.helpers import accepts, bare, book, case, rejects, spans

Row = tuple[Callable[[], Case], Callable[[], Case], tuple[str, ...]]

DOC = "ab\ncd\nefgh"


def _tiles_text(children: list[tuple[int, int]]) -> Case:
    doc = "alpha beta gamma"
    parent = Chunk(index=0, text=doc, start=0, end=len(doc), id="p")
    kids = [
        Chunk(index=i + 1, text=doc[s:e], start=s, end=e, id=f"c{i}", parent="p")
        for i, (s, e) in enumerate(children)
    ]
    return case(doc, [parent, *kids])


def _tiles_book(children: list[str]) -> Case:
    cells = {(r, c): f"r{r}c{c}" for r in range(1, 5) for c in range(1, 3)}
    parent = Chunk(index=0, text="table", id="p", sheet="S", range="A1:B4")
    kids = [
        Chunk(index=i + 1, text=f"rows {rng}", id=f"c{i}", parent="p", sheet="S", range=rng)
        for i, rng in enumerate(children)
    ]
    return book({"S": cells}, [parent, *kids])


def _rerun(second: Callable[[list[Chunk]], list[Chunk]]) -> Case:
    c = case(DOC, [replace(k, id=f"id{k.index}") for k in spans(DOC, (0, 2), (3, 5), (6, 10))])
    c.rerun = second(list(c.chunks))
    return c


def _twins(lf_texts: list[str]) -> Case:
    crlf_doc = "one\r\ntwo\r\n\r\nthree"
    c = case(crlf_doc, bare("one\r\ntwo", "three"), promises={"newline_invariance"})
    c.twins = (bare("one\r\ntwo", "three"), bare(*lf_texts))
    return c


PROOF: dict[str, Row] = {
    "non_empty": (
        lambda: case(DOC, bare("ab", "cd", "efgh")),
        lambda: case(DOC, bare("ab", " \n ", "efgh")),
        ("chunk[1] is whitespace-only", "' \\n '"),
    ),
    "span_fidelity": (
        lambda: case(DOC, spans(DOC, (0, 2), (3, 5), (6, 10))),
        lambda: case(DOC, [Chunk(index=0, text="ab\ncX", start=0, end=5)]),
        ("chunk[0] [0:5)", "text 'ab\\ncX'", "the document holds 'ab\\ncd' at [0:5)"),
    ),
    "no_lost_text": (
        lambda: case(DOC, spans(DOC, (0, 2), (3, 5), (6, 10))),
        lambda: case(DOC, spans(DOC, (0, 2), (6, 10))),
        ("document[3] 'c' (line 2) lies in no chunk",),
    ),
    "cap_respected": (
        lambda: case(DOC, spans(DOC, (0, 2), (3, 5), (6, 8), (8, 10)), max_size=3),
        lambda: case(DOC, spans(DOC, (0, 2), (3, 5), (6, 10)), max_size=3),
        ("chunk[2] [6:10) is 4 chars > max_size 3",),
    ),
    "codepoint_integrity": (
        lambda: case(
            "ab\U0001f600", [Chunk(index=0, text="ab\U0001f600", start_byte=0, end_byte=6)]
        ),
        lambda: case("ab\U0001f600", [Chunk(index=0, text="ab\ufffd", start_byte=0, end_byte=4)]),
        ("chunk[0].end_byte = 4 falls inside", "U+1F600, 4 bytes"),
    ),
    "grapheme_integrity": (
        lambda: case(
            "cafe\u0301 au", spans("cafe\u0301 au", (0, 5), (6, 8)), promises={"grapheme_integrity"}
        ),
        lambda: case(
            "cafe\u0301 au", spans("cafe\u0301 au", (0, 4), (4, 8)), promises={"grapheme_integrity"}
        ),
        ("chunk[0] [0:4) has a boundary at 4", "inside grapheme cluster 'e\\u0301' [3:5)"),
    ),
    "line_citations": (
        lambda: case(
            DOC,
            [
                replace(k, line_start=k.index + 1, line_end=k.index + 1)
                for k in spans(DOC, (0, 2), (3, 5), (6, 10))
            ],
        ),
        lambda: case(
            DOC, [Chunk(index=0, text="ab\ncd\n", start=0, end=6, line_start=1, line_end=3)]
        ),
        ("chunk[0] [0:6) cites lines 1-3", "on lines 1-2"),
    ),
    "ordered": (
        lambda: case(DOC, spans(DOC, (0, 5), (3, 10))),
        lambda: case(DOC, spans(DOC, (3, 5), (0, 2))),
        ("chunk[1] [0:2) follows chunk[0] [3:5): start does not increase",),
    ),
    "overlap_bounded": (
        lambda: case("abcdef", spans("abcdef", (0, 4), (3, 6)), overlap=1, max_size=4),
        lambda: case("abcdef", spans("abcdef", (0, 4), (2, 6)), overlap=1, max_size=4),
        ("chunk[0] [0:4) and chunk[1] [2:6) share [2:4) 'cd': 2 chars > overlap 1",),
    ),
    "unique_ids": (
        lambda: case(
            DOC, [replace(k, id=f"id{k.index}") for k in spans(DOC, (0, 2), (3, 5), (6, 10))]
        ),
        lambda: case(
            DOC,
            [
                replace(k, id="id0" if k.index != 1 else "id1")
                for k in spans(DOC, (0, 2), (3, 5), (6, 10))
            ],
        ),
        ("chunk[0] [0:2) and chunk[2] [6:10) share id 'id0'",),
    ),
    "deterministic": (
        lambda: _rerun(lambda first: first),
        lambda: _rerun(lambda first: [first[0], replace(first[1], id="other"), first[2]]),
        ("chunk[1].id was 'id1', then 'other'",),
    ),
    "heading_boundary": (
        lambda: case("intro\n# H\nbody", bare("intro", "# H\nbody"), promises={"heading_boundary"}),
        lambda: case(
            "intro\n# H\nbody", spans("intro\n# H\nbody", (0, 14)), promises={"heading_boundary"}
        ),
        ("chunk[0] [0:14) holds heading '# H' at 6 (line 2) after other text",),
    ),
    "section_path": (
        lambda: _sectioned((), ("H",)),
        lambda: _sectioned(("H",), ("H",)),
        ("chunk[0] [0:1) reports section ['H']; the headings in force at its first non-blank "
         "character (line 1) give []",),
    ),
    "newline_invariance": (
        lambda: _twins(["one\ntwo", "three"]),
        lambda: _twins(["one", "two", "three"]),
        ("chunks differently from its LF version", "2 chunks, then 3"),
    ),
    "tiles_parent": (
        lambda: _tiles_text([(0, 5), (6, 10), (11, 16)]),
        lambda: _tiles_text([(0, 5), (11, 16)]),
        ("document[6] 'b' lies in parent chunk[0] [0:16) but in none of its children",),
    ),
    "tight_range": (
        lambda: book(
            {"S": {(1, 1): "x", (4, 2): "y"}},
            [Chunk(index=0, text="x y", sheet="S", range="A1:B4")],
        ),
        lambda: book(
            {"S": {(1, 1): "x", (4, 2): "y"}},
            [Chunk(index=0, text="x y", sheet="S", range="A1:XFD4")],
        ),
        ("chunk[0] S!A1:XFD4 claims 0 empty rows and 16382 empty columns", "content bbox is A1:B4"),
    ),
    "cells_covered": (
        lambda: book(
            {"S": {(1, 1): "x", (4, 2): "y"}},
            [
                Chunk(index=0, text="x", sheet="S", range="A1"),
                Chunk(index=1, text="y", sheet="S", range="B4"),
            ],
        ),
        lambda: book(
            {"S": {(1, 1): "x", (4, 2): "y"}}, [Chunk(index=0, text="x", sheet="S", range="A1")]
        ),
        ("S!B4 = 'y' lies in no chunk's range (1 non-empty cell uncited)",),
    ),
}

def _sectioned(first: tuple[str, ...], second: tuple[str, ...]) -> Case:
    """"x" before the heading, then "# H\nbody", with the given section paths."""
    doc = "x\n# H\nbody"
    chunks = [
        Chunk(index=0, text="x", start=0, end=1, section=first),
        Chunk(index=1, text="# H\nbody", start=2, end=10, section=second),
    ]
    return case(doc, chunks, promises={"section_path"})


#: tiles_parent is one rule over two kinds of document: the workbook rows prove red too.
WORKBOOK_TILES: Row = (
    lambda: _tiles_book(["A1:B2", "A3:B4"]),
    lambda: _tiles_book(["A1:B1", "A3:B4"]),
    ("S!A2 lies in parent chunk[0] S!A1:B4 but in none of its children",),
)

ROWS = {**PROOF, "tiles_parent (workbook)": WORKBOOK_TILES}


def _rule_id(name: str) -> str:
    return name.split(" ")[0]


def test_every_checked_invariant_has_a_proof_of_red() -> None:
    checked = {i for i, rule in registry().items() if not rule.engine}
    assert checked == set(PROOF), (
        f"missing: {sorted(checked - set(PROOF))}; unknown: {sorted(set(PROOF) - checked)}"
    )
    assert checked <= set(SPEC_IDS) | set(EXTENSION_IDS)


@pytest.mark.parametrize("name", list(ROWS))
def test_accepts(name: str) -> None:
    good, _, _ = ROWS[name]
    accepts(_rule_id(name), good())


@pytest.mark.parametrize("name", list(ROWS))
def test_rejects_stating_observed_and_allowed(name: str) -> None:
    _, bad, fragments = ROWS[name]
    rejects(_rule_id(name), bad(), *fragments)


@pytest.mark.parametrize("name", list(ROWS))
def test_each_rule_reports_only_under_its_own_id(name: str) -> None:
    """A rejected case yields violations of exactly the rule that was called, never another."""
    _, bad, _ = ROWS[name]
    found = list(registry()[_rule_id(name)].check(bad()))
    assert {v.invariant for v in found} == {_rule_id(name)}
    assert all(v.message for v in found)


@pytest.mark.parametrize("rule", [i for i, r in registry().items() if r.engine])
def test_engine_rules_yield_nothing_from_chunks(rule: str) -> None:
    """terminates, no_crash, config_validation, scales_linearly are decided by the runner."""
    assert list(registry()[rule].check(case(DOC, bare("ab", "zz")))) == []
