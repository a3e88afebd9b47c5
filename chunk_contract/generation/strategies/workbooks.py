"""Workbook descriptions (SPEC §7) aimed at spreadsheet chunkers, and (workbook, config) pairs.

A description is ``{"sheets": {"Title": {"A1": value, ...}}}``, JSON-serialisable, and
:func:`chunk_contract.spec.workbook.build` turns it into the openpyxl Workbook the plugin gets. What
it holds, per seed 001 and the sheet invariants:

* several sheets (unique titles, unicode ones included), sometimes one with no cell at all, or
  with only styled-empty / whitespace-only cells (a sheet with nothing to cite);
* sparse rectangular blocks of data, with holes, usually near A1 and separated by empty rows
  and columns, sometimes far out (column XFD, row 1048576); mostly up to 5 rows by 4 columns,
  now and then tall (up to 14 rows) or wide (up to 9 columns);
* styled-empty cells (``{"value": None, "style": "fill"}``) anywhere: inside blocks, next to
  them, and out at column XFD or far down, so openpyxl's used range (``max_column``,
  ``dimensions``) is far wider than the data: the ``A1:XFD4`` over-claim of seed 001;
* cells holding only whitespace (empty by the contract, but not None), also styled;
* values of every kind: ints, floats, booleans, dates (``{"date": iso}``), formula strings
  (``"=SUM(A1:A3)"``), unicode, multi-line and long strings; some of them styled.

Merged cells are not generated: a description has no way to say "merged" yet.

Shrinking heads for one empty sheet ``Sheet1``; a failure that needs data shrinks towards
``{"Sheet1": {"A1": 0}}``: every list shrinks towards empty (sheets: one), every switch
towards its first (simplest) choice. Every branch of a cell-position switch draws one integer
(the far ones too), so the shrinker can always step from column XFD back to column A.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from hypothesis import strategies as st

from chunk_contract.spec.a1 import column_letters
from chunk_contract.spec.model import Config
from chunk_contract.spec.workbook import split_ref

from ._common import check_bool, check_int, expand, lengths, weighted
from .configs import DEGENERATE_ONE_IN, configs, degenerate_configs, overlaps

__all__ = [
    "MAX_COLUMN",
    "MAX_ROW",
    "STYLED_EMPTY",
    "cell_values",
    "display_length",
    "rendered_size",
    "row_group_sizes",
    "workbook_cases",
    "workbooks",
]

MAX_ROW = 1_048_576
MAX_COLUMN = 16_384  # XFD
STYLED_EMPTY: dict[str, Any] = {"value": None, "style": "fill"}

#: Sheet titles: unique even case-insensitively (openpyxl renames a clash), at most 31
#: characters, none of ``\\ / ? * [ ] :``.
TITLES = (
    "Sheet1",
    "Data",
    "Q1 2024",
    "Données",
    "数据",
    "Sheet (2)",
    "résumé – final",
    "x",
    "Ünïcödé 🚀",
    "Лист",
    "Very long sheet name 1234567890",
)
#: Whitespace-only values: empty cells by the contract (openpyxl rejects \x0b, \x0c, \x1c-\x1f).
WHITESPACE = (
    "",
    " ",
    "   ",
    "\t",
    "\n",
    " \t\n ",
    "\r\n",
    "\xa0",
    "\u3000",
    "\u2003\u2009",
    "\x85",
    "\u2028",
)
FORMULAS = (
    "=SUM(A1:A3)",
    "=A1*2",
    '=IF(B2>0,"yes","no")',
    "=XFD1",
    "=VLOOKUP(A1,Data!A:B,2)",
    "=1/0",
)
WORDS = (
    "a",
    "total",
    "revenue",
    "Q1",
    "αβγ",
    "数据",
    "naïve",
    "🚀",
    "2024",
    "-",
    "n/a",
    "e\u0301",
    "Total (EUR)",
    "x" * 40,
    "الإيرادات",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",
)  # ZWJ family emoji
#: Characters openpyxl refuses in a cell (and lone surrogates, which JSON cannot carry).
_ILLEGAL = "".join(map(chr, [*range(0, 9), 11, 12, *range(14, 32)]))
_UNICODE = st.characters(exclude_categories=["Cs"], exclude_characters=_ILLEGAL)
_PLAIN = st.characters(min_codepoint=32, max_codepoint=126)


def _long_strings(max_length: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda n, seed: expand([*WORDS, " ", " ", "\n"], n, seed).strip() or "x",
        lengths(1, max_length, typical=200),
        st.integers(0, 2**16),
    )


def _visible(text: str) -> str:
    return text if text.strip() else f"x{text}"


def _data(max_length: int) -> list[tuple[int, st.SearchStrategy[Any]]]:
    """Weighted kinds of cell data (never an empty value); cheap draws, simplest first."""
    dates = st.datetimes(dt.datetime(1900, 3, 1), dt.datetime(2100, 12, 31)).map(
        lambda d: {"date": d.replace(microsecond=0).isoformat()}
    )
    return [
        (6, st.integers(-(10**6), 10**6)),
        (5, st.sampled_from(WORDS)),
        (2, st.text(_PLAIN, min_size=1, max_size=12).map(_visible)),
        (2, st.text(_UNICODE, min_size=1, max_size=20).map(_visible)),
        (2, st.floats(allow_nan=False, allow_infinity=False)),
        (1, st.booleans()),
        (2, dates),
        (1, st.sampled_from(FORMULAS)),
        (1, st.sampled_from(WORDS).map(lambda w: f"  {w}\n{w} ")),  # edge whitespace, 2 lines
        (1, _long_strings(max_length)),
    ]


def cell_values(*, max_length: int = 2000) -> st.SearchStrategy[Any]:
    """One cell's data: never None nor whitespace-only."""
    max_length = check_int("cell_values", "max_length", max_length, min_value=1)
    return weighted(*_data(max_length))


def _entries(max_length: int) -> st.SearchStrategy[Any]:
    """A block's cell: data usually; sometimes a hole, whitespace, styled data or styled-empty."""
    return weighted(
        *_data(max_length),
        (3, st.none()),
        (1, st.sampled_from(WHITESPACE)),
        (1, cell_values(max_length=max_length).map(lambda v: {"value": v, "style": "fill"})),
        (1, st.just(STYLED_EMPTY)),
    )


_NEAR_ROWS = st.integers(1, 40)
_NEAR_COLS = st.integers(1, 12)
#: Where a block of data starts: mostly near A1, now and then out at the sheet's edges.
_ROWS = weighted(
    (14, _NEAR_ROWS), (1, st.integers(41, 5000)), (1, st.integers(MAX_ROW - 5, MAX_ROW))
)
_COLS = weighted(
    (14, _NEAR_COLS), (1, st.integers(13, 800)), (1, st.integers(MAX_COLUMN - 3, MAX_COLUMN))
)
#: Where styled-empty and whitespace cells go: near the data, or out at XFD / far down.
_FAR_ROWS = weighted(
    (3, _NEAR_ROWS),
    (1, st.integers(0, 3).map(lambda k: MAX_ROW - k)),
    (1, st.integers(41, MAX_ROW)),
)
_FAR_COLS = weighted(
    (3, _NEAR_COLS),
    (2, st.integers(0, 3).map(lambda k: MAX_COLUMN - k)),
    (1, st.integers(13, MAX_COLUMN)),
)


#: A block's height and width: mostly small, now and then tall (many rows to group) or wide
#: (long rows, to be cut into runs of cells).
_HEIGHTS = weighted((4, st.integers(1, 5)), (1, st.integers(6, 14)))
_WIDTHS = weighted((4, st.integers(1, 4)), (1, st.integers(5, 9)))


@st.composite
def _block(draw: st.DrawFn, entries: st.SearchStrategy[Any]) -> dict[tuple[int, int], Any]:
    top, left = draw(_ROWS), draw(_COLS)
    height = min(draw(_HEIGHTS), MAX_ROW - top + 1)
    width = min(draw(_WIDTHS), MAX_COLUMN - left + 1)
    out = {}
    for r in range(top, top + height):
        for c in range(left, left + width):
            entry = draw(entries)
            if entry is not None:
                out[(r, c)] = entry
    return out


_EXTRAS = st.tuples(
    _FAR_ROWS,
    _FAR_COLS,
    weighted(
        (3, st.just(STYLED_EMPTY)),
        (1, st.sampled_from(WHITESPACE)),
        (1, st.sampled_from(WHITESPACE).map(lambda w: {"value": w, "style": "fill"})),
    ),
)


def display_length(value: Any) -> int:
    """A rough rendered length of one described value (0 for an empty one)."""
    if isinstance(value, dict):
        value = value.get("date", value.get("value"))
    if value is None or (isinstance(value, str) and not value.strip()):
        return 0
    return len("TRUE" if value is True else "FALSE" if value is False else str(value))


@st.composite
def _sheet(draw: st.DrawFn, entries: st.SearchStrategy[Any], budget: list[int]) -> dict[str, Any]:
    cells: dict[tuple[int, int], Any] = {}
    for block in draw(st.lists(_block(entries), max_size=3)):
        for key, entry in block.items():
            cost = display_length(entry)
            if cost <= budget[0]:  # over max_length: the rest of the data is left out
                budget[0] -= cost
                cells[key] = entry
    for row, col, entry in draw(st.lists(_EXTRAS, max_size=3)):
        cells.setdefault((row, col), entry)
    return {f"{column_letters(c)}{r}": cells[(r, c)] for r, c in sorted(cells)}


def workbooks(*, max_length: int = 2000) -> st.SearchStrategy[dict[str, Any]]:
    """Workbook descriptions ``{"sheets": {title: {ref: value}}}``: 1-3 sheets.

    ``max_length`` bounds the characters of data in the whole workbook (styled-empty and
    whitespace cells are free).
    """
    max_length = check_int("workbooks", "max_length", max_length, min_value=1)
    entries = _entries(max_length)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        titles = draw(
            st.lists(st.sampled_from(TITLES), min_size=1, max_size=3, unique_by=str.lower)
        )
        budget = [max_length]
        return {"sheets": {title: draw(_sheet(entries, budget)) for title in titles}}

    return build()


def rendered_size(description: dict[str, Any]) -> int:
    """About how long the largest sheet renders: data characters plus a separator per cell."""
    sizes = [
        sum(display_length(v) + 3 for v in cells.values() if display_length(v))
        for cells in description["sheets"].values()
    ]
    return max(sizes, default=0)


def _data_blocks(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Recursive XY-cut of ``cells`` at fully empty rows and columns: the data blocks."""
    done: list[list[tuple[int, int]]] = []
    todo = [cells] if cells else []
    while todo:
        group = todo.pop()
        for axis in (0, 1):
            ordered = sorted(group, key=lambda k: (k[axis], k))
            parts: list[list[tuple[int, int]]] = []
            current = [ordered[0]]
            for prev, key in itertools.pairwise(ordered):
                if key[axis] > prev[axis] + 1:
                    parts.append(current)
                    current = []
                current.append(key)
            if parts:
                todo.extend([*parts, current])
                break
        else:
            done.append(group)
    return sorted(done)


def row_group_sizes(description: dict[str, Any], *, limit: int = 64) -> list[int]:
    """About how long runs of rows of the data blocks render (at most ``limit`` sizes).

    Rendered as the reference chunker renders (cells of a row joined by ``" | "`` over the
    run's columns, an empty cell as nothing, rows by newlines): first the runs of two or more
    rows from each block's top row, the whole block included, then single rows of two or more
    cells. A cap near one of these sizes makes a chunker that fills row groups from a block's
    top close its first group right at the cap (or keep the block whole just under it): the
    one row more, the miscounted separator, the empty cell rendered as something, all break it.
    """
    runs: list[int] = []
    rows_alone: list[int] = []
    for raw in description["sheets"].values():
        chars: dict[tuple[int, int], int] = {}
        for ref, value in raw.items():
            if display_length(value):
                chars[split_ref(ref)] = display_length(value)
        for block in _data_blocks(list(chars)):
            rows: dict[int, list[tuple[int, int]]] = {}
            for key in sorted(block):
                rows.setdefault(key[0], []).append(key)
            held, left, right = 0, MAX_COLUMN, 1
            for n, row in enumerate(sorted(rows), start=1):
                line = rows[row]
                held += sum(chars[k] for k in line)
                left, right = min(left, line[0][1]), max(right, line[-1][1])
                if n > 1:
                    runs.append(held + len(" | ") * (right - left) * n + n - 1)
                if len(line) > 1:
                    own = sum(chars[k] for k in line)
                    rows_alone.append(own + len(" | ") * (line[-1][1] - line[0][1]))
    return (runs + rows_alone)[:limit]


def workbook_cases(
    *,
    max_length: int = 2000,
    degenerate: bool = True,
    max_cap: int = 4096,
) -> st.SearchStrategy[tuple[dict[str, Any], Config]]:
    """``(description, config)`` pairs; the cap is usually below the rendered size.

    Like :func:`chunk_contract.generation.strategies.cases`, a pick in ``range(DEGENERATE_ONE_IN)``:
    0-1 draws a config independent of the workbook; 2-3 a ``max_size`` near how long a run of rows
    of one block renders (:func:`row_group_sizes`), within 3 characters or with room for more rows,
    so blocks are split into row groups of several rows close to the cap; 4 (and 2-3 when no block
    has two rows or two cells in a row) a ``max_size`` below the largest sheet's rendered size,
    mostly 1-8, so blocks are split into single rows and long rows into cells; the last pick a
    degenerate config when ``degenerate`` (else as 4).
    """
    max_length = check_int("workbook_cases", "max_length", max_length, min_value=1)
    check_bool("workbook_cases", "degenerate", degenerate)
    max_cap = check_int("workbook_cases", "max_cap", max_cap, min_value=1)
    books = workbooks(max_length=max_length)
    independent = configs(degenerate=False, max_cap=max_cap)
    broken = degenerate_configs(max_cap)

    @st.composite
    def build(draw: st.DrawFn) -> tuple[dict[str, Any], Config]:
        book = draw(books)
        n = rendered_size(book)
        pick = draw(st.integers(0, DEGENERATE_ONE_IN - 1))
        if degenerate and pick == DEGENERATE_ONE_IN - 1:
            return book, draw(broken)
        near = row_group_sizes(book) if pick in (2, 3) else []
        if near:
            size = near[draw(st.integers(0, len(near) - 1))]
            # right at the run's size, or with room to spare (a group holding more rows)
            slack = draw(weighted((3, st.integers(-3, 3)), (1, st.integers(4, max(4, size)))))
            max_size = max(1, min(max_cap, size + slack))
            return book, Config(max_size=max_size, overlap=draw(overlaps(max_size)))
        if pick >= 2 and n >= 2:
            top = min(n - 1, max_cap)
            max_size = draw(weighted((2, st.integers(1, min(8, top))), (1, st.integers(1, top))))
            return book, Config(max_size=max_size, overlap=draw(overlaps(max_size)))
        return book, draw(independent)

    return build()
