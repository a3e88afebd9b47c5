"""Workbook documents: the JSON description of SPEC §7 and its openpyxl workbook.

A description is ``{"sheets": {"Title": {"A1": value, ...}}}``; a value is a JSON scalar, or
``{"value": v, "style": "fill"}`` for a cell that carries formatting (``v`` may be None: a
styled-empty cell, which stretches openpyxl's used range without holding data), or
``{"date": "2024-01-31T00:00:00"}`` for a date. openpyxl is imported only when a workbook is
built, so text-only runs never pay for it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from chunk_contract.spec.a1 import column_index, column_letters

Cells = dict[tuple[int, int], Any]


def split_ref(ref: str) -> tuple[int, int]:
    """``"B12"`` -> ``(12, 2)`` (row, column)."""
    letters = ref.rstrip("0123456789")
    return int(ref[len(letters) :]), column_index(letters)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        if "date" in value:
            return dt.datetime.fromisoformat(value["date"])
        return _plain(value.get("value"))  # a styled cell may hold a date: {"value": {"date": ..}}
    return value


def is_empty(value: Any) -> bool:
    """A cell is empty when its value is None or a string of only whitespace."""
    return value is None or (isinstance(value, str) and not value.strip())


def non_empty_cells(description: Mapping[str, Any]) -> dict[str, Cells]:
    """Each sheet's non-empty cells as ``{(row, column): value}``."""
    out: dict[str, Cells] = {}
    for title, cells in description.get("sheets", {}).items():
        sheet: Cells = {}
        for ref, raw in cells.items():
            value = _plain(raw)
            if not is_empty(value):
                sheet[split_ref(ref)] = value
        out[title] = sheet
    return out


def build(description: Mapping[str, Any]) -> Any:
    """The openpyxl Workbook a description stands for."""
    from openpyxl import Workbook
    from openpyxl.styles import PatternFill

    book = Workbook()
    book.remove(book.active)
    fill = PatternFill(fill_type="solid", start_color="FFFF00", end_color="FFFF00")
    for title, cells in description.get("sheets", {}).items():
        sheet = book.create_sheet(title)
        for ref, raw in cells.items():
            cell = sheet[ref]
            cell.value = _plain(raw)
            if isinstance(raw, Mapping) and raw.get("style"):
                cell.fill = fill
    return book


def describe(book: Any) -> dict[str, Any]:
    """The description of an openpyxl workbook (every cell with a value or a style)."""
    sheets: dict[str, Any] = {}
    for sheet in book.worksheets:
        cells: dict[str, Any] = {}
        for cell in _stored_cells(sheet):
            entry = _entry(cell)
            if entry is not _SKIP:
                cells[f"{column_letters(cell.column)}{cell.row}"] = entry
        sheets[sheet.title] = cells
    return {"sheets": sheets}


def _stored_cells(sheet: Any) -> list[Any]:
    """The cells a sheet actually stores, in row-major order.

    ``iter_rows()`` walks (and creates) every cell of the used range: one styled cell at
    XFD1048576 would make that 17 billion cells. A normal worksheet keeps its cells in
    ``_cells``; read-only sheets (which lack it) stream only stored cells anyway.
    """
    stored = getattr(sheet, "_cells", None)
    if isinstance(stored, Mapping):
        return [stored[key] for key in sorted(stored)]
    return [cell for row in sheet.iter_rows() for cell in row if hasattr(cell, "column")]


_SKIP = object()


def _entry(cell: Any) -> Any:
    value = cell.value
    if isinstance(value, (dt.datetime, dt.date)):
        value = {"date": value.isoformat()}
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        value = str(value)
    filled = cell.fill is not None and bool(cell.fill.fill_type)
    if cell.has_style and (filled or value is None):
        # any formatting on an empty cell (border, font, number format) stretches the used range
        # just as a fill does: keep it, as the one style a description knows
        return {"value": value, "style": "fill"}
    return _SKIP if value is None else value


def load_xlsx(path: str) -> Any:
    """Read an ``.xlsx`` file (values, not formulas' cached results) as an openpyxl Workbook."""
    from openpyxl import load_workbook

    return load_workbook(path)
