"""tight_range, cells_covered and tiles_parent (workbook): honest A1 ranges over non-empty cells."""

from __future__ import annotations

import pytest

from chunk_contract.spec.a1 import column_index, column_letters, format_box, parse_range
from chunk_contract.spec.model import Chunk
from chunk_contract.spec.registry import registry
from tests.unit.helpers import accepts, book, rejects, violations

TABLE = {(r, c): f"r{r}c{c}" for r in range(1, 5) for c in range(1, 3)}  # A1:B4


def _chunk(rng: str | None, sheet: str | None = "S", index: int = 0, **kw: object) -> Chunk:
    return Chunk(index=index, text=f"cells {rng}", sheet=sheet, range=rng, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- A1 geometry


def test_a1_geometry() -> None:
    assert column_index("A") == 1 and column_index("Z") == 26 and column_index("AA") == 27
    assert column_index("XFD") == 16384 and column_letters(16384) == "XFD"
    assert all(column_index(column_letters(k)) == k for k in range(1, 20000, 37))
    assert parse_range("B2:D9") == (2, 2, 9, 4)
    assert parse_range("D9:B2") == (2, 2, 9, 4)
    assert parse_range("B2") == (2, 2, 2, 2) == parse_range("B2:B2") == parse_range("$B$2")
    assert parse_range("a1:xfd4") == (1, 1, 4, 16384)
    for bad in ("", "B", "2", "B0", "B2:C", "A1:B2:C3", "Sheet1!A1", "B2 :C3"):
        assert parse_range(bad) is None, bad
    assert format_box((1, 1, 4, 16384)) == "A1:XFD4"


# --------------------------------------------------------------------------- tight_range


def test_tight_range_accepts_the_exact_bounding_box() -> None:
    accepts("tight_range", book({"S": TABLE}, [_chunk("A1:B4")]))
    accepts("tight_range", book({"S": TABLE}, [_chunk("A1:A4"), _chunk("B1:B4", index=1)]))


def test_tight_range_rejects_the_xfd_over_claim() -> None:
    """Seed: styled-empty cells stretch a block to A1:XFD4 with data in the corner only."""
    sheets = {"S": {**TABLE, (1, 16384): None, (4, 300): "   "}}  # styled-empty, blank
    rejects(
        "tight_range",
        book(sheets, [_chunk("A1:XFD4")]),
        "chunk[0] S!A1:XFD4 claims 0 empty rows and 16382 empty columns; content bbox is A1:B4",
    )
    accepts("tight_range", book(sheets, [_chunk("A1:B4")]))


def test_tight_range_rejects_extra_rows_and_a_shifted_corner() -> None:
    rejects(
        "tight_range",
        book({"S": TABLE}, [_chunk("A1:B9")]),
        "S!A1:B9 claims 5 empty rows and 0 empty columns; content bbox is A1:B4",
    )
    rejects(
        "tight_range",
        book({"S": {(3, 3): "x"}}, [_chunk("B2:C3")]),
        "claims 1 empty row and 1 empty column; content bbox is C3:C3",
    )


def test_tight_range_rejects_a_range_of_empty_cells() -> None:
    rejects(
        "tight_range",
        book({"S": {(1, 1): "x", (2, 2): " \t"}}, [_chunk("B2")]),
        "chunk[0] S!B2 claims a range with no non-empty cell",
    )


def test_tight_range_zero_and_false_are_not_empty() -> None:
    accepts("tight_range", book({"S": {(1, 1): 0, (2, 2): False}}, [_chunk("A1:B2")]))


def test_tight_range_rejects_unreadable_citations() -> None:
    rejects(
        "tight_range",
        book({"S": TABLE}, [_chunk("A1:B4", sheet="Other")]),
        "chunk[0] cites sheet 'Other', which the workbook does not have",
    )
    rejects(
        "tight_range",
        book({"S": TABLE}, [_chunk("rows 1-4")]),
        "chunk[0] cites 'rows 1-4', which is not an A1 range",
    )


def test_tight_range_skips_chunks_that_report_no_range() -> None:
    """SPEC §4: a missing key is "not reported" and the rules needing it are skipped (before
    the fix every such chunk was a tight_range violation)."""
    assert violations("tight_range", book({"S": TABLE}, [_chunk(None)])) == []
    assert registry()["tight_range"].fields == frozenset({"range"})
    assert not registry()["tight_range"].exercised_by([_chunk(None)])


def test_tight_range_infers_the_only_sheet() -> None:
    accepts("tight_range", book({"S": TABLE}, [_chunk("A1:B4", sheet=None)]))
    rejects("tight_range", book({"S": TABLE}, [_chunk("A1:C4", sheet=None)]), "chunk[0] S!A1:C4")
    # with several sheets a range without a sheet cannot be read: not checked
    two = {"S": TABLE, "T": {(1, 1): "t"}}
    assert violations("tight_range", book(two, [_chunk("A1:C4", sheet=None)])) == []


# --------------------------------------------------------------------------- cells_covered


def test_cells_covered() -> None:
    sheets = {"S": TABLE, "T": {(7, 3): "t"}}
    chunks = [_chunk("A1:B2"), _chunk("A3:B4", index=1), _chunk("C7", sheet="T", index=2)]
    accepts("cells_covered", book(sheets, chunks))
    rejects(
        "cells_covered",
        book(sheets, chunks[:2]),
        "T!C7 = 't' lies in no chunk's range (1 non-empty cell uncited)",
    )
    rejects(
        "cells_covered",
        book(sheets, [chunks[0], chunks[2]]),
        "S!A3 = 'r3c1' lies in no chunk's range (4 non-empty cells uncited)",
    )


def test_cells_covered_ignores_empty_cells() -> None:
    sheets = {"S": {(1, 1): "x", (5, 5): None, (6, 6): "  "}}
    accepts("cells_covered", book(sheets, [_chunk("A1")]))


def test_cells_covered_a_range_on_another_sheet_does_not_count() -> None:
    sheets = {"S": {(1, 1): "x"}, "T": {(1, 1): "y"}}
    rejects("cells_covered", book(sheets, [_chunk("A1", sheet="T")]), "S!A1 = 'x'")


def test_cells_covered_ranges_without_a_known_sheet() -> None:
    one = {"S": {(1, 1): "x"}}
    accepts("cells_covered", book(one, [_chunk("A1", sheet=None)]))
    # several sheets: the range could be on either, so it is not held against the plugin
    two = {"S": {(1, 1): "x"}, "T": {(1, 1): "y"}}
    accepts("cells_covered", book(two, [_chunk("A1", sheet=None)]))


def test_cells_covered_rejects_no_chunk_at_all_for_a_workbook_with_data() -> None:
    """Mutation holes (P1): a chunker that reads no cell value, or cuts no block, returns []
    and lost every cell; the rule used to be skipped then, for want of a reported range."""
    sheets = {"S": TABLE, "T": {}}
    rejects(
        "cells_covered",
        book(sheets, []),
        "no chunk at all: S!A1 = 'r1c1' lies in no chunk's range (8 non-empty cells uncited)",
    )
    rule = registry()["cells_covered"]
    assert rule.exercised_by([])  # an empty output is judged...
    assert not rule.exercised_by([Chunk(index=0, text="x", sheet="S")])  # ...no range is not


def test_cells_covered_no_chunk_for_a_workbook_without_data_is_right() -> None:
    accepts("cells_covered", book({}, []))
    accepts("cells_covered", book({"S": {}, "T": {}}, []))
    accepts("cells_covered", book({"S": {(1, 1): None, (2, 2): " \t", (9, 9): "\u3000"}}, []))


def test_cells_covered_chunks_that_report_no_range_are_not_checked() -> None:
    """SPEC §4: ranges never reported cannot be checked, unlike an output with no chunk."""
    accepts("cells_covered", book({"S": TABLE}, [_chunk(None)]))
    accepts("cells_covered", book({"S": TABLE}, [_chunk(None), _chunk(None, index=1)]))
    accepts("cells_covered", book({"S": TABLE}, [_chunk(None, sheet=None)]))
    # one chunk reporting a range is enough to hold the others' cells against the plugin
    rejects(
        "cells_covered",
        book({"S": TABLE}, [_chunk(None), _chunk("A1:B2", index=1)]),
        "S!A3 = 'r3c1' lies in no chunk's range (4 non-empty cells uncited)",
    )


# --------------------------------------------------------------------------- tiles_parent


def _groups(
    *children: str, parent: str = "A1:B4", sheets: dict | None = None, child_sheet: str = "S"
) -> object:
    p = _chunk(parent, id="p")
    kids = [
        _chunk(
            rng,
            sheet=child_sheet if k == len(children) - 1 else "S",
            index=k + 1,
            id=f"g{k}",
            parent="p",
        )
        for k, rng in enumerate(children)
    ]
    return book(sheets or {"S": TABLE}, [p, *kids])


def test_tiles_parent_row_groups_that_tile_the_block() -> None:
    accepts("tiles_parent", _groups("A1:B2", "A3:B4"))
    accepts("tiles_parent", _groups("A1:B1", "A2:B2", "A3:B3", "A4:B4"))


def test_tiles_parent_row_groups_with_a_gap() -> None:
    rejects(
        "tiles_parent",
        _groups("A1:B1", "A3:B4"),
        "S!A2 lies in parent chunk[0] S!A1:B4 but in none of its children",
    )


def test_tiles_parent_a_gap_of_empty_rows_is_fine() -> None:
    sheets = {"S": {k: v for k, v in TABLE.items() if k[0] != 2}}
    accepts("tiles_parent", _groups("A1:B1", "A3:B4", sheets=sheets))


def test_tiles_parent_overlapping_row_groups() -> None:
    rejects(
        "tiles_parent",
        _groups("A1:B3", "A3:B4"),
        "chunk[2] S!A3:B4 overlaps its sibling chunk[1] S!A1:B3",
    )


def test_tiles_parent_workbook_children_stay_disjoint_whatever_the_overlap() -> None:
    """SPEC 1.1 lets text children overlap; row groups of a workbook never may."""
    groups = _groups("A1:B3", "A3:B4")
    overlapping = book({"S": TABLE}, groups.chunks, max_size=1000, overlap=999)  # type: ignore[attr-defined]
    rejects("tiles_parent", overlapping, "chunk[2] S!A3:B4 overlaps its sibling chunk[1] S!A1:B3")


def test_tiles_parent_a_child_outside_the_block() -> None:
    rejects(
        "tiles_parent",
        _groups("A1:B2", "A3:B5"),
        "chunk[2] S!A3:B5 is not inside its parent chunk[0] S!A1:B4",
    )


def test_tiles_parent_names_the_child_on_another_sheet() -> None:
    """The child on the wrong sheet is the one reported (before the fix: the first child)."""
    sheets = {"S": TABLE, "T": TABLE}
    rejects(
        "tiles_parent",
        _groups("A1:B2", "A3:B4", sheets=sheets, child_sheet="T"),
        "chunk[2] T!A3:B4 is not inside its parent chunk[0] S!A1:B4",
    )


def test_tiles_parent_missing_parent_in_a_workbook() -> None:
    orphan = _chunk("A1", id="c", parent="nobody")
    rejects(
        "tiles_parent",
        book({"S": TABLE}, [orphan]),
        "chunk[0] names parent 'nobody', which is not in the output",
    )


@pytest.mark.parametrize("child", [None, "not a range"])
def test_tiles_parent_leaves_unreadable_ranges_to_tight_range(child: str | None) -> None:
    assert violations("tiles_parent", _groups("A1:B2", child)) == []  # type: ignore[arg-type]
