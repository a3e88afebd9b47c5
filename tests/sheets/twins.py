"""Defective twins of the reference spreadsheet chunker, one bug each (seed 001's family).

Each twin is :class:`~chunk_contract_reference.spreadsheet.SpreadsheetChunker` with one method
overridden, so the contract must find exactly the bug planted:

* :class:`OverClaim`: a block claims out to the sheet's used range (``sheet.max_column``), which
  a styled-empty cell at XFD stretches: the ``A1:XFD4`` chunk of seed 001 (``tight_range``);
* :class:`GapSplitter`: the row-group splitter skips the first row of every group after the
  first, so rows vanish between siblings (``tiles_parent``);
* :class:`OverlapSplitter`: row groups overlap by one row, as text windows do, each still
  tight and within the cap, so siblings overlap (``tiles_parent``);
* :class:`HashIds`: ids built from ``hash()`` of the sheet's title, the same in every call of
  one interpreter and different in the next (``deterministic``, across interpreters only);
* :class:`SetOrderSheets`: the sheets chunked in the order of a set of their titles, which
  changes with the interpreter's hash seed (``deterministic``, across interpreters only).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from chunk_contract_reference.spreadsheet import Box, Key, SpreadsheetChunker, bbox, length


def _tight(cells: dict[Key, str], top: int, bottom: int, left: int, right: int) -> Box | None:
    inside = [k for k in cells if top <= k[0] <= bottom and left <= k[1] <= right]
    return bbox(inside) if inside else None


class OverClaim(SpreadsheetChunker):
    """Seed 001's bug A: the claim trusts the used range, not the cells."""

    def claim(self, sheet: Any, box: Box) -> Box:
        top, left, bottom, right = box
        return top, left, bottom, max(right, sheet.max_column)


class GapSplitter(SpreadsheetChunker):
    """Seed 001's bug B, one way: a row is dropped between consecutive row groups."""

    def pieces(self, cells: dict[Key, str], box: Box, cap: int) -> list[Box]:
        out: list[Box] = []
        pieces = super().pieces(cells, box, cap)
        for k, piece in enumerate(pieces):
            if k and piece[0] > pieces[k - 1][2]:  # a new row group: lose its first row
                top, left, bottom, right = piece
                piece = _tight(cells, top + 1, bottom, left, right)  # type: ignore[assignment]
            if piece is not None:
                out.append(piece)
        return out


class OverlapSplitter(SpreadsheetChunker):
    """Seed 001's bug B, the other way: row groups overlap by a row, like text windows do.

    Each group is still tight and within the cap; the next one starts on the previous group's
    last row whenever those two rows fit together, so siblings share that row.
    """

    def pieces(self, cells: dict[Key, str], box: Box, cap: int) -> list[Box]:
        rows: dict[int, list[tuple[int, int]]] = {}
        for (r, c), text in sorted(cells.items()):
            rows.setdefault(r, []).append((c, len(text)))
        order = sorted(rows)

        def group(i: int, j: int) -> tuple[Box, int]:
            found = _tight(cells, order[i], order[j], box[1], box[3])
            assert found is not None
            return found, sum(n for r in order[i : j + 1] for _, n in rows[r])

        def fits(i: int, j: int) -> bool:
            return length(*group(i, j)) <= cap

        out: list[Box] = []
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and fits(i, j + 1):
                j += 1
            out.extend(self.close(group(i, j), rows, cap))
            if j + 1 == len(order):
                break
            i = j if j > i and fits(j, j + 1) else j + 1  # the bug: share row j
        return out


class HashIds(SpreadsheetChunker):
    """Ids from ``hash()`` of the sheet's title: stable within one interpreter, so every rule a
    forked worker can check holds; only a fresh interpreter (another hash seed) tells."""

    def chunk(
        self, title: str, cells: dict[Key, str], box: Box, claim: Box, parent: str | None = None
    ) -> dict[str, Any]:
        out = super().chunk(title, cells, box, claim, parent)
        return {**out, "id": f"{hash(title) & 0xFFFFFFFF:08x}!{out['range']}"}


class SetOrderSheets(SpreadsheetChunker):
    """The sheets in the iteration order of a set of their titles: the same order in every call
    of one interpreter, another one with another hash seed."""

    def chunks(self, book: Any, cap: int) -> Iterator[dict[str, Any]]:
        titles = {sheet.title for sheet in book.worksheets}
        yield from super().chunks(SimpleNamespace(worksheets=[book[t] for t in titles]), cap)
