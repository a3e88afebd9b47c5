"""The covering schedule for workbook plugins: every cell feature x position and x regime.

Smaller than the text schedule (chunk_contract.generation.strategies.schedule): a workbook has no
line endings and no neighbour pairs worth a factor, so the pairs are feature x **position** (``A1``:
the first cell of the first sheet; ``block``: inside the first data block, below others;
``apart``: in a second block after an empty row; ``second_sheet``; ``alone``: the only data of
the workbook) and feature x **regime** (caps 1, about a cell, about a row, above the whole
sheet, overlap 0 and ``max_size - 1``, three degenerate families of SPEC §2).

The construction is a rotation instead of a greedy search: case ``j`` puts feature ``j`` at A1
and every other feature ``i`` at position ``(i + j) % 3`` of (block, apart, second sheet),
under regime ``j % 6``; then one case per feature alone, then the degenerate configs over every
feature at once. An empty sheet is a workbook-level feature: appended last to every case, and
alone once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chunk_contract.spec.a1 import column_letters
from chunk_contract.spec.model import Config

from .coverage import Schedule
from .workbooks import MAX_COLUMN, MAX_ROW, STYLED_EMPTY, rendered_size

__all__ = ["WORKBOOK_FEATURES", "WorkbookCase", "workbook_pairs", "workbook_schedule"]

#: (name, cells relative to the feature's anchor as {(row, col): value}); "far" features are
#: placed at column XFD / row 1048576 of their anchor instead.
WORKBOOK_FEATURES: tuple[tuple[str, dict[tuple[int, int], Any]], ...] = (
    ("int", {(0, 0): 42}),
    ("float", {(0, 0): -0.5}),
    ("bool", {(0, 0): True}),
    ("date", {(0, 0): {"date": "2024-01-31T00:00:00"}}),
    ("formula", {(0, 0): "=SUM(A1:A3)"}),
    ("unicode", {(0, 0): "na\u00efve \U0001f680 \u6570\u636e"}),
    ("multiline", {(0, 0): "two\nlines"}),
    ("long_text", {(0, 0): "x" * 50}),
    ("whitespace", {(0, 0): " \t "}),
    ("styled_empty", {(0, 0): STYLED_EMPTY}),
    ("styled_value", {(0, 0): {"value": 7, "style": "fill"}}),
    ("holey_block", {(0, 0): "a", (0, 2): "c", (1, 1): "e", (2, 0): 1, (2, 2): 3}),
    ("tall_block", {(r, c): (r if c == 0 else f"item {r}") for r in range(12) for c in (0, 1)}),
    ("far_column", {(0, 0): "far"}),
    ("far_row", {(0, 0): "last"}),
)
_NAMES = tuple(name for name, _ in WORKBOOK_FEATURES)
_CELLS = dict(WORKBOOK_FEATURES)
PLACES = ("block", "apart", "second_sheet")
POSITIONS = ("A1", *PLACES, "alone")
VALID_REGIMES = ("tiny1", "cell", "row", "row_overlap", "whole", "whole_overlap")
DEGENERATE_REGIMES = ("size_zero", "overlap_equal", "overlap_negative")
REGIMES = VALID_REGIMES + DEGENERATE_REGIMES
EMPTY_SHEET = "empty_sheet"
SHEETS = ("Sheet1", "Donn\u00e9es \u2713", "Empty")


@dataclass(frozen=True)
class WorkbookCase:
    """One scheduled workbook: ``(feature, position)`` placements under one regime."""

    placed: tuple[tuple[str, str], ...]
    regime: str
    #: Whether an empty sheet comes last.
    empty_sheet: bool = True

    @property
    def document(self) -> dict[str, Any]:
        return _describe(self)

    @property
    def config(self) -> Config:
        return _config(self.regime, self.document)

    def pairs(self) -> frozenset[tuple[str, str, str]]:
        """Every combination this case covers."""
        names = [n for n, _ in self.placed] + ([EMPTY_SHEET] if self.empty_sheet else [])
        out = {("regime", n, self.regime) for n in names}
        if self.regime in VALID_REGIMES:
            out |= {("position", n, p) for n, p in self.placed}
        return frozenset(out)


def _config(regime: str, description: dict[str, Any]) -> Config:
    whole = 2 * rendered_size(description) + 10
    return {
        "tiny1": Config(1, 0), "cell": Config(12, 0), "row": Config(40, 0),
        "row_overlap": Config(40, 39), "whole": Config(whole, 0),
        "whole_overlap": Config(whole, whole - 1), "size_zero": Config(0, 0),
        "overlap_equal": Config(4, 4), "overlap_negative": Config(8, -1),
    }[regime]


def _put(sheet: dict[tuple[int, int], Any], name: str, row: int, col: int) -> int:
    """Place feature ``name`` with its anchor at (row, col); the rows it takes."""
    for (dr, dc), value in _CELLS[name].items():
        r, c = row + dr, col + dc
        if name == "far_column":
            c = MAX_COLUMN
        elif name == "far_row":
            r = MAX_ROW
        sheet[(r, c)] = value
    return 1 + max(dr for dr, _ in _CELLS[name])


@functools.lru_cache(maxsize=256)
def _layout(case: WorkbookCase) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    first: dict[tuple[int, int], Any] = {}
    second: dict[tuple[int, int], Any] = {}
    row = 1
    for name, place in case.placed:  # A1 and the first block, contiguous rows
        if place in ("A1", "block", "alone") and name in _CELLS:
            row += _put(first, name, row, 1)
    row += 1  # an empty row: the next block is apart
    for name, place in case.placed:
        if place == "apart":
            row += _put(first, name, row, 1)
    low = 1
    for name, place in case.placed:
        if place == "second_sheet":
            low += _put(second, name, low, 1)
    sheets = [(SHEETS[0], first)] + ([(SHEETS[1], second)] if second else [])
    if case.empty_sheet:
        sheets.append((SHEETS[2], {}))
    return tuple(
        (title, tuple((f"{column_letters(c)}{r}", cells[(r, c)]) for r, c in sorted(cells)))
        for title, cells in sheets
    )


def _describe(case: WorkbookCase) -> dict[str, Any]:
    return {"sheets": {title: dict(cells) for title, cells in _layout(case)}}


def workbook_pairs() -> frozenset[tuple[str, str, str]]:
    """Every combination the workbook schedule must cover."""
    out = {("regime", n, r) for n in (*_NAMES, EMPTY_SHEET) for r in REGIMES}
    out |= {("position", n, p) for n in _NAMES for p in POSITIONS}
    out.add(("position", EMPTY_SHEET, "alone"))
    return frozenset(out)


def _rotations() -> Iterable[WorkbookCase]:
    n = len(_NAMES)
    for j in range(n):
        placed = [(_NAMES[j], "A1")]
        placed += [(_NAMES[i], PLACES[(i + j) % len(PLACES)]) for i in range(n) if i != j]
        yield WorkbookCase(tuple(placed), VALID_REGIMES[j % len(VALID_REGIMES)])


def _alone() -> Iterable[WorkbookCase]:
    for j, name in enumerate(_NAMES):
        yield WorkbookCase(((name, "alone"),), VALID_REGIMES[j % len(VALID_REGIMES)], False)
    yield WorkbookCase(((EMPTY_SHEET, "alone"),), VALID_REGIMES[0], False)


def workbook_cases() -> tuple[WorkbookCase, ...]:
    """Rotations, alone cases, then the degenerate configs over every feature."""
    everything = tuple((n, PLACES[i % len(PLACES)]) for i, n in enumerate(_NAMES))
    degenerate = [WorkbookCase(everything, regime) for regime in DEGENERATE_REGIMES]
    return (*_rotations(), *_alone(), *degenerate)


@functools.lru_cache(maxsize=1)
def workbook_schedule() -> Schedule:
    """The schedule every workbook run plays."""
    return Schedule(workbook_cases(), workbook_pairs())
