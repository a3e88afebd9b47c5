"""Workbook descriptions (SPEC §7) aimed at spreadsheet chunkers, and (workbook, config) pairs.

A description is ``{"sheets": {"Title": {"A1": value, ...}}}``, JSON-serialisable, and
:func:`contract.workbook.build` turns it into the openpyxl Workbook the plugin gets. What it
holds, per seed 001 and the sheet invariants:

* several sheets (unique titles, unicode ones included), sometimes one with no cell at all, or
  with only styled-empty / whitespace-only cells (a sheet with nothing to cite);
* sparse rectangular blocks of data, with holes, usually near A1 and separated by empty rows
  and columns, sometimes far out (column XFD, row 1048576);
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
from typing import Any

from hypothesis import strategies as st

from contract.invariants.sheets import column_letters
from contract.model import Config

from ._common import check_bool, check_int, expand, lengths, weighted
from .configs import DEGENERATE_ONE_IN, configs, degenerate_configs, overlaps

__all__ = [
    "MAX_COLUMN",
    "MAX_ROW",
    "STYLED_EMPTY",
    "cell_values",
    "display_length",
    "rendered_size",
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


@st.composite
def _block(draw: st.DrawFn, entries: st.SearchStrategy[Any]) -> dict[tuple[int, int], Any]:
    top, left = draw(_ROWS), draw(_COLS)
    height = min(draw(st.integers(1, 5)), MAX_ROW - top + 1)
    width = min(draw(st.integers(1, 4)), MAX_COLUMN - left + 1)
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


def workbook_cases(
    *,
    max_length: int = 2000,
    degenerate: bool = True,
    max_cap: int = 4096,
) -> st.SearchStrategy[tuple[dict[str, Any], Config]]:
    """``(description, config)`` pairs; the cap is usually below the rendered size.

    Like :func:`contract.strategies.cases`: pick 0-2 draws a config independent of the workbook,
    3-8 a ``max_size`` below the largest sheet's rendered size (often 1-8, so blocks are split
    into row groups and long rows into cells), 9 a degenerate config when ``degenerate``.
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
        if pick >= 3 and n >= 2:
            top = min(n - 1, max_cap)
            max_size = draw(st.one_of(st.integers(1, min(8, top)), st.integers(1, top)))
            return book, Config(max_size=max_size, overlap=draw(overlaps(max_size)))
        return book, draw(independent)

    return build()
