"""Tight data blocks, split into row groups that tile them: the reference workbook chunker.

Immune to both bugs of seed 001 (the spreadsheet chunker PR):

* the ``A1:XFD4`` over-claim: that chunker took ranges from the cells openpyxl stores, and
  styled-empty cells (a fill or border out at column XFD, or far down) stretch ``max_column`` /
  ``dimensions`` without holding data. Here a range is always the bounding box of non-empty
  cells (not None, not whitespace-only); the used range is never read, nor walked (one styled
  cell at XFD1048576 makes it 17 billion cells): cells come from the sheet's own cell store.
* a row-group splitter that does not tile its block: children here come from a *partition*
  of the block's rows into consecutive groups (and of a row too long for the cap into runs of
  its cells), each claiming the tight box of its own cells: disjoint, and covering every cell.

A *block* is what a recursive XY-cut leaves: the non-empty cells are cut apart at every row,
then every column, holding none of them, until no such cut exists. Blocks are disjoint
rectangles whose every row and column holds data. A chunk's text is its range row by row,
cells joined by " | " (an empty cell renders as nothing), rows by newlines. A block longer
than ``max_size`` stays as the parent of its pieces; only a one-cell chunk may exceed the cap.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from typing import Any

from chunk_contract_reference.spans import check_config

Key = tuple[int, int]  # (row, column), 1-based
Box = tuple[int, int, int, int]  # top, left, bottom, right
_SEP = " | "


def cell_text(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def sheet_cells(sheet: Any) -> dict[Key, str]:
    """The sheet's non-empty cells as rendered text (empty: None or whitespace-only)."""
    stored = getattr(sheet, "_cells", None)  # openpyxl's own {(row, col): cell} store
    cells = stored.values() if isinstance(stored, dict) else itertools.chain(*sheet.iter_rows())
    out: dict[Key, str] = {}
    for cell in cells:
        value = getattr(cell, "value", None)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            out[(cell.row, cell.column)] = cell_text(value)
    return out


def bbox(keys: list[Key]) -> Box:
    rows, cols = [r for r, _ in keys], [c for _, c in keys]
    return min(rows), min(cols), max(rows), max(cols)


def blocks(keys: list[Key]) -> list[list[Key]]:
    """Recursive XY-cut of ``keys`` at fully empty rows and columns, ordered by (top, left)."""
    done: list[list[Key]] = []
    todo = [keys] if keys else []
    while todo:
        group = todo.pop()
        parts = _cut(group, 0) or _cut(group, 1)
        if parts:
            todo.extend(parts)
        else:
            done.append(group)
    return sorted(done, key=bbox)


def _cut(group: list[Key], axis: int) -> list[list[Key]] | None:
    ordered = sorted(group, key=lambda k: (k[axis], k))
    parts, current = [], [ordered[0]]
    for prev, key in itertools.pairwise(ordered):
        if key[axis] > prev[axis] + 1:
            parts.append(current)
            current = []
        current.append(key)
    parts.append(current)
    return parts if len(parts) > 1 else None


def render(cells: dict[Key, str], box: Box) -> str:
    top, left, bottom, right = box
    return "\n".join(
        _SEP.join(cells.get((r, c), "") for c in range(left, right + 1))
        for r in range(top, bottom + 1)
    )


def length(box: Box, chars: int) -> int:
    """``len(render(cells, box))`` when the cells inside ``box`` hold ``chars`` characters."""
    top, left, bottom, right = box
    return chars + len(_SEP) * (right - left) * (bottom - top + 1) + (bottom - top)


def a1(box: Box) -> str:
    from openpyxl.utils import get_column_letter as col

    top, left, bottom, right = box
    first, last = f"{col(left)}{top}", f"{col(right)}{bottom}"
    return first if first == last else f"{first}:{last}"


class SpreadsheetChunker:
    """The reference workbook chunker (see the module docstring)."""

    kind = "workbook"
    unit = "chars"

    def split(self, document: Any, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
        check_config(max_size, overlap)  # overlap is allowed but never used: tiles never repeat
        return list(self.chunks(document, max_size))

    def chunks(self, book: Any, cap: int) -> Iterator[dict[str, Any]]:
        for sheet in book.worksheets:
            cells = sheet_cells(sheet)
            for group in blocks(list(cells)):
                own = {k: cells[k] for k in group}
                box = bbox(group)
                parent = self.chunk(sheet.title, own, box, self.claim(sheet, box))
                yield parent
                if length(box, sum(map(len, own.values()))) > cap and box[:2] != box[2:]:
                    for piece in self.pieces(own, box, cap):
                        yield self.chunk(sheet.title, own, piece, piece, parent=parent["id"])

    def chunk(
        self, title: str, cells: dict[Key, str], box: Box, claim: Box, parent: str | None = None
    ) -> dict[str, Any]:
        out = {
            "text": render(cells, box),
            "sheet": title,
            "range": a1(claim),
            "id": f"{title}!{a1(claim)}",
        }
        return out if parent is None else {**out, "parent": parent}

    def claim(self, sheet: Any, box: Box) -> Box:
        """The range a block cites: exactly its cells' bounding box."""
        return box

    def pieces(self, cells: dict[Key, str], box: Box, cap: int) -> list[Box]:
        """Consecutive row groups within the cap; a row over the cap becomes runs of its cells.

        Every row of a block holds a cell, so a group's tight box spans the leftmost and
        rightmost cell of its rows, and its rendered length only grows as rows are added.
        """
        rows: dict[int, list[tuple[int, int]]] = {}
        for (r, c), text in sorted(cells.items()):
            rows.setdefault(r, []).append((c, len(text)))
        out: list[Box] = []
        group: tuple[Box, int] | None = None  # the open group's box and its characters
        for r, line in sorted(rows.items()):
            chars = sum(n for _, n in line)
            if group is not None:
                (top, left, _, right), held = group
                grown = (top, min(left, line[0][0]), r, max(right, line[-1][0]))
                if length(grown, held + chars) <= cap:
                    group = grown, held + chars
                    continue
                out.extend(self.close(group, rows, cap))
            group = (r, line[0][0], r, line[-1][0]), chars
        assert group is not None
        return out + self.close(group, rows, cap)

    def close(
        self, group: tuple[Box, int], rows: dict[int, list[tuple[int, int]]], cap: int
    ) -> list[Box]:
        """A finished group as it is, or (one row over the cap) runs of its cells."""
        box, chars = group
        if length(box, chars) <= cap:
            return [box]
        line, out, i = rows[box[0]], [], 0
        while i < len(line):  # left to right, each run as long as fits (a lone cell may not)
            j, held = i, line[i][1]
            while (
                j + 1 < len(line)
                and length((0, line[i][0], 0, line[j + 1][0]), held + line[j + 1][1]) <= cap
            ):
                j, held = j + 1, held + line[j + 1][1]
            out.append((box[0], line[i][0], box[0], line[j][0]))
            i = j + 1
        return out


def split(document: Any, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """The chunker as a function: target ``chunk_contract_reference.spreadsheet:split``."""
    return _CHUNKER.split(document, max_size=max_size, overlap=overlap)


_CHUNKER = SpreadsheetChunker()
split.kind = "workbook"  # type: ignore[attr-defined]
split.unit = "chars"  # type: ignore[attr-defined]
