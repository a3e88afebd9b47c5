"""chunk_contract_reference.spreadsheet, called directly: blocks, tight claims, tiling row
groups."""

from __future__ import annotations

import time
from typing import Any

import pytest

from chunk_contract.spec.a1 import parse_range
from chunk_contract.spec.workbook import build
from chunk_contract_reference.spreadsheet import SpreadsheetChunker, blocks, split

STYLED = {"value": None, "style": "fill"}


def chunks(cells: dict[str, Any], max_size: int = 1000, **sheets: dict[str, Any]) -> list[dict]:
    return split(build({"sheets": {"S": cells, **sheets}}), max_size=max_size, overlap=0)


def ranges(found: list[dict]) -> list[tuple[str, str | None]]:
    return [(c["range"], c.get("parent")) for c in found]


def test_styled_empty_cells_never_stretch_a_claim() -> None:
    table = {f"{c}{r}": f"{c}{r}" for c in "ABC" for r in range(1, 5)}
    found = chunks({**table, "XFD1": STYLED, "A1048576": STYLED, "D2": "   ", "E9": STYLED})
    assert ranges(found) == [("A1:C4", None)]
    assert found[0]["text"].splitlines()[0] == "A1 | B1 | C1"


def test_far_cells_are_cheap_and_exact() -> None:
    started = time.process_time()  # CPU time: the same on a busy machine
    found = chunks({"A1": 1, "XFD1048576": "corner", "XFD1": STYLED, "A1048575": STYLED})
    assert time.process_time() - started < 1.0  # no walk over the 17-billion-cell used range
    assert ranges(found) == [("A1", None), ("XFD1048576", None)]


def test_blocks_are_cut_at_fully_empty_rows_and_columns() -> None:
    found = chunks({"A1": 1, "B2": 2, "D1": 3, "D2": 4, "A4": 5, "B4": 6})
    assert ranges(found) == [("A1:B2", None), ("D1:D2", None), ("A4:B4", None)]
    assert found[0]["text"] == "1 | \n | 2"


def test_xy_cut_recurses() -> None:
    # no empty column across rows 1-3, but rows 1-2 split at column B once row 3 is cut off
    keys = [(1, 1), (2, 1), (1, 3), (2, 3), (4, 1), (4, 2), (4, 3)]
    boxes = [
        (min(r for r, _ in g), min(c for _, c in g), max(r for r, _ in g), max(c for _, c in g))
        for g in blocks(keys)
    ]
    assert boxes == [(1, 1, 2, 1), (1, 3, 2, 3), (4, 1, 4, 3)]


def test_oversize_block_splits_into_row_groups_that_tile_it() -> None:
    cells = {f"{c}{r}": f"{c}{r}" for c in "AB" for r in range(1, 7)}
    found = chunks(cells, max_size=15)
    assert ranges(found) == [
        ("A1:B6", None),
        ("A1:B2", "S!A1:B6"),
        ("A3:B4", "S!A1:B6"),
        ("A5:B6", "S!A1:B6"),
    ]
    assert all(len(c["text"]) <= 15 for c in found[1:])


def test_a_row_over_the_cap_becomes_runs_of_cells() -> None:
    found = chunks({"A1": "a" * 30, "B1": "b", "C1": "c", "A2": "d"}, max_size=8)
    assert ranges(found) == [
        ("A1:C2", None),
        ("A1", "S!A1:C2"),
        ("B1:C1", "S!A1:C2"),
        ("A2", "S!A1:C2"),
    ]
    assert found[1]["text"] == "a" * 30  # one cell is indivisible: it may exceed the cap
    assert found[2]["text"] == "b | c"


def test_a_single_oversize_cell_is_one_leaf() -> None:
    assert ranges(chunks({"C3": "x" * 50}, max_size=5)) == [("C3", None)]


def test_ids_are_unique_and_name_the_sheet() -> None:
    found = chunks({"A1": 1, "A2": 2}, max_size=1, T={"A1": 1, "A2": 2})
    ids = [c["id"] for c in found]
    assert len(ids) == len(set(ids)) and ids[0] == "S!A1:A2" and ids[3] == "T!A1:A2"


def test_values_render_readably() -> None:
    found = chunks(
        {
            "A1": True,
            "B1": {"date": "2024-01-31T00:00:00"},
            "C1": 1.5,
            "D1": "=SUM(A1:A3)",
            "E1": {"value": "styled", "style": "fill"},
        }
    )
    assert found[0]["text"] == "TRUE | 2024-01-31T00:00:00 | 1.5 | =SUM(A1:A3) | styled"


def test_empty_sheets_and_whitespace_give_no_chunks() -> None:
    assert chunks({}, E={"A1": " ", "B2": STYLED, "C3": "\u3000"}) == []


def test_every_range_is_an_a1_range() -> None:
    for chunk in chunks({"AA10": 1, "AB11": 2, "XFC3": 3}, max_size=1):
        assert parse_range(chunk["range"]) is not None


@pytest.mark.parametrize("max_size, overlap", [(0, 0), (-1, 0), (5, 5), (5, -1), (1, 999)])
def test_degenerate_configs_are_refused(max_size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        split(build({"sheets": {"S": {"A1": 1}}}), max_size=max_size, overlap=overlap)


def test_deterministic() -> None:
    book = build({"sheets": {"S": {f"A{i}": i for i in range(1, 40)}}})
    assert split(book, max_size=7) == split(book, max_size=7)


def test_declarations() -> None:
    assert split.kind == "workbook" and split.unit == "chars"  # type: ignore[attr-defined]
    assert SpreadsheetChunker.kind == "workbook"
