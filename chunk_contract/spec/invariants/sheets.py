"""Workbook rules: A1 ranges are tight, every non-empty cell is cited, row groups tile blocks.

``case.workbook`` maps each sheet title to its non-empty cells ``{(row, column): value}``
(1-based), as :func:`chunk_contract.spec.workbook.non_empty_cells` builds it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from chunk_contract.spec.a1 import Box, column_letters, format_box, parse_range
from chunk_contract.spec.model import Case, Chunk, Violation, describe_chunk, plural
from chunk_contract.spec.rules import invariant


def _inside(cell: tuple[int, int], box: Box) -> bool:
    return box[0] <= cell[0] <= box[2] and box[1] <= cell[1] <= box[3]


def _bbox(cells: list[tuple[int, int]]) -> Box | None:
    if not cells:
        return None
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    return min(rows), min(cols), max(rows), max(cols)


Cells = Mapping[tuple[int, int], Any]


def _is_empty(value: Any) -> bool:
    """A cell is empty when its value is None or a string of only whitespace (SPEC §5)."""
    return value is None or (isinstance(value, str) and not value.strip())


def _sheets(case: Case) -> dict[str, Cells]:
    """Each sheet's non-empty cells (the runner passes only those; a hand-built case may not),
    computed once per case."""
    cached = case.document.cache.get("sheets")
    if cached is None:
        cached = case.document.cache["sheets"] = {
            title: {cell: value for cell, value in cells.items() if not _is_empty(value)}
            for title, cells in (case.workbook or {}).items()
        }
    return cached


def _sheet_of(chunk: Chunk, sheets: Mapping[str, Cells]) -> str | None:
    """The chunk's sheet: the one it reports or, when it reports none, the only sheet there is."""
    if chunk.sheet is not None:
        return chunk.sheet
    return next(iter(sheets)) if len(sheets) == 1 else None


def _cited(chunk: Chunk, sheets: Mapping[str, Cells]) -> tuple[Cells, Box] | str | None:
    """The chunk's sheet cells and range box, why they cannot be read, or None when the chunk
    reports no range (or no sheet, in a workbook of several): a key not reported is not checked."""
    title = _sheet_of(chunk, sheets)
    if chunk.range is None or title is None:
        return None
    if title not in sheets:
        return f"cites sheet {title!r}, which the workbook does not have"
    box = parse_range(chunk.range)
    if box is None:
        return f"cites {chunk.range!r}, which is not an A1 range"
    return sheets[title], box


def _where(chunk: Chunk, sheets: Mapping[str, Cells]) -> str:
    return f"{describe_chunk(chunk)} {_sheet_of(chunk, sheets)}!{chunk.range}"


@invariant("tight_range", kinds=("workbook",), fields=("range",))
def tight_range(case: Case) -> Iterator[Violation]:
    """A workbook chunk's range is exactly the bounding box of the non-empty cells inside it."""
    sheets = _sheets(case)
    for chunk in case.chunks:
        cited = _cited(chunk, sheets)
        if cited is None:
            continue
        if isinstance(cited, str):
            yield Violation("tight_range", f"{describe_chunk(chunk)} {cited}", (chunk.index,))
            continue
        cells, box = cited
        bbox = _bbox([cell for cell in cells if _inside(cell, box)])
        if bbox != box:
            where = _where(chunk, sheets)
            yield Violation("tight_range", _over_claim(where, box, bbox), (chunk.index,))


def _over_claim(where: str, box: Box, bbox: Box | None) -> str:
    if bbox is None:
        return f"{where} claims a range with no non-empty cell"
    extra_rows = (box[2] - box[0]) - (bbox[2] - bbox[0])
    extra_cols = (box[3] - box[1]) - (bbox[3] - bbox[1])
    return (
        f"{where} claims {plural(extra_rows, 'empty row')} and "
        f"{plural(extra_cols, 'empty column')}; "
        f"content bbox is {format_box(bbox)}"
    )


@invariant("cells_covered", kinds=("workbook",), fields=("range",), judges_empty=True)
def cells_covered(case: Case) -> Iterator[Violation]:
    """Every non-empty cell of every sheet lies in the range of some chunk of that sheet.

    Chunks none of which reports a ``range`` cannot be checked (SPEC §4: a key not reported is
    not checked; a plugin that never reports one sees the rule skipped). No chunk at all is
    different: whatever keys a plugin reports, an empty output cites no cell, so a workbook with
    data that gives ``[]`` has lost every cell (``judges_empty``).
    """
    sheets = _sheets(case)
    if case.chunks and all(chunk.range is None for chunk in case.chunks):
        return
    boxes: dict[str, list[Box]] = {}
    anywhere: list[Box] = []  # ranges of chunks whose sheet cannot be told: any sheet's
    for chunk in case.chunks:
        box = parse_range(chunk.range) if chunk.range else None
        title = _sheet_of(chunk, sheets)
        if box is None:
            continue
        if title is None:
            anywhere.append(box)
        else:
            boxes.setdefault(title, []).append(box)
    for title, cells in sheets.items():
        cited = boxes.get(title, []) + anywhere
        missed = [c for c in sorted(cells) if not any(_inside(c, b) for b in cited)]
        if missed:
            row, col = missed[0]
            yield Violation(
                "cells_covered",
                ("" if case.chunks else "no chunk at all: ")
                + f"{title}!{column_letters(col)}{row} = {cells[missed[0]]!r} lies in no chunk's "
                f"range ({plural(len(missed), 'non-empty cell')} uncited)",
            )


def tiles_cells(case: Case, parent: Chunk, children: list[Chunk]) -> Iterator[Violation]:
    """Children ranges are disjoint, inside the parent's range, and cover its non-empty cells."""
    sheets = _sheets(case)
    outer = _cited(parent, sheets)
    inner = [(_cited(c, sheets), c) for c in children]
    if not isinstance(outer, tuple) or any(not isinstance(x, tuple) for x, _ in inner):
        return  # unreported or unreadable ranges: nothing to tile (tight_range reports the latter)
    cells, pbox = outer
    home = _sheet_of(parent, sheets)
    boxes = [(x[1], c) for x, c in inner if isinstance(x, tuple)]
    for k, (box, child) in enumerate(boxes):
        if _sheet_of(child, sheets) != home or not _contains(pbox, box):
            yield Violation(
                "tiles_parent",
                f"{_where(child, sheets)} is not inside its parent {_where(parent, sheets)}",
                (child.index,),
            )
            return
        for other_box, other in boxes[:k]:
            if _intersects(box, other_box):
                yield Violation(
                    "tiles_parent",
                    f"{_where(child, sheets)} overlaps its sibling {_where(other, sheets)}",
                    (child.index,),
                )
                return
    for cell in sorted(c for c in cells if _inside(c, pbox)):
        if not any(_inside(cell, box) for box, _ in boxes):
            name = f"{home}!{column_letters(cell[1])}{cell[0]}"
            yield Violation(
                "tiles_parent",
                f"{name} lies in parent {_where(parent, sheets)} but in none of its children",
                (parent.index,),
            )
            return


def _contains(outer: Box, inner: Box) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def _intersects(a: Box, b: Box) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
