"""A1 geometry of workbooks (SPEC §7): column letters, cell references and ranges as boxes.

Pure functions with no dependency on the rules, so the strategies, the workbook builder and
the reporters use them without importing the invariants.
"""

from __future__ import annotations

import re

__all__ = ["Box", "column_index", "column_letters", "format_box", "parse_range"]

Box = tuple[int, int, int, int]  # min_row, min_col, max_row, max_col
_CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})$")


def column_index(letters: str) -> int:
    """``"A"`` -> 1, ``"XFD"`` -> 16384."""
    value = 0
    for char in letters.upper():
        value = value * 26 + ord(char) - 64
    return value


def column_letters(index: int) -> str:
    """1 -> ``"A"``, 16384 -> ``"XFD"``."""
    out = ""
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


def parse_range(text: str) -> Box | None:
    """``"B2:D9"`` (or one cell ``"B2"``) as a box, or None if it is not an A1 range."""
    parts = text.split(":")
    if len(parts) > 2:
        return None
    cells = [_CELL.match(p) for p in parts]
    if not all(cells):
        return None
    (r1, c1), (r2, c2) = [(int(m.group(2)), column_index(m.group(1))) for m in cells if m] * (
        2 if len(cells) == 1 else 1
    )
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def format_box(box: Box) -> str:
    """A box as an A1 range, ``(2, 2, 9, 4)`` -> ``"B2:D9"``."""
    top, left, bottom, right = box
    return f"{column_letters(left)}{top}:{column_letters(right)}{bottom}"
