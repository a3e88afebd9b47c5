"""The scaling families: documents of one shape at any size, built fast (megabytes in
milliseconds) and numbered so that no two blocks are alike. The scaling probe times a chunker on
them; diagnosis uses them to confirm a superlinear pattern."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FAMILIES", "PATHOLOGICAL"]


def _repeat(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


#: Variants of a block in one period of a realistic family (lengths, levels, markers differ).
_PERIOD = 12
_NUMBER = "\x00"  # stands for the period's number while a template is built
_WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed")


def _template(block: Callable[[int, str], str]) -> str:
    """One period of ``block(k, number)`` for every variant ``k``, as a ``str.format`` template
    whose ``{0}`` is the period's number: formatting it is C code, so megabytes build fast."""
    text = "".join(block(k, _NUMBER) for k in range(_PERIOD))
    return text.replace("{", "{{").replace("}", "}}").replace(_NUMBER, "{0}")


def _numbered(template: str, size: int) -> str:
    """Periods 0, 1, 2, ... of ``template`` joined and cut to exactly ``size`` characters: no
    two periods are alike, so a search for a block's text never finds an earlier copy."""
    count = size // len(template.format(0)) + 1
    return "".join(map(template.format, range(count)))[:size]


def _sentence(k: int, n: str) -> str:
    """A sentence of 4 to 12 words, numbered."""
    words = [_WORDS[(k * 7 + j * 3) % len(_WORDS)] for j in range(4 + k % 9)]
    return f"{' '.join(words).capitalize()} {n}."


def _paragraph(k: int, n: str) -> str:
    """One to four sentences, then a blank line: many short paragraphs."""
    return " ".join(_sentence(k * 4 + j, n) for j in range(1 + k % 4)) + "\n\n"


def _section(k: int, n: str) -> str:
    """A heading of level 1 to 3 and a paragraph under it."""
    return f"{'#' * (1 + k % 3)} Section {n}.{k}\n\n{_paragraph(k, n)}"


def _list(k: int, n: str) -> str:
    """List items in the usual markers, some nested, a blank line after every sixth."""
    marker = ("- ", "* ", f"{k % 9 + 1}. ", "  - ", "- [ ] ", "+ ")[k % 6]
    return f"{marker}{_sentence(k, n)}\n" + ("\n" if k % 6 == 5 else "")


def _fenced(k: int, n: str) -> str:
    """A fenced code block with lines that look like headings inside it, then prose."""
    fence = "```" if k % 2 else "~~~"
    code = f"# comment {n}\ndef f_{k}(x):\n    return x + {n}\n## not a heading\n"
    return f"{fence}python\n{code}{fence}\n\n{_paragraph(k, n)}"


def _table(k: int, n: str) -> str:
    """A markdown table row; a header row and its rule start every period."""
    head = "| id | name | value |\n|----|------|------:|\n" if k == 0 else ""
    return f"{head}| {n}.{k} | {_WORDS[k % len(_WORDS)]} {n} | {k * 37 % 1000} |\n"


def _json(k: int, n: str) -> str:
    """A pretty-printed JSON object per block, as in a JSON dump or a ```json fence."""
    tags = ", ".join(f'"{w}"' for w in _WORDS[k % 5 : k % 5 + 3])
    return f'{{\n  "id": "{n}.{k}",\n  "tags": [{tags}],\n  "ok": true\n}}\n'


def _crlf(k: int, n: str) -> str:
    """A paragraph of short lines ending in CRLF, then a blank CRLF line."""
    return "\r\n".join(_sentence(k * 3 + j, n) for j in range(1 + k % 3)) + "\r\n\r\n"


_MIXED = (_section, _paragraph, _list, _fenced, _table, _json)


def _mixed(k: int, n: str) -> str:
    """The markdown blocks in turn: a heading, prose, a list, code, a table row, JSON."""
    return _MIXED[k % len(_MIXED)](k, n)


_REPEATED = "<item>\n  the same block, word for word\n</item>\n"
_REALISTIC = {
    "paragraphs": _template(_paragraph),
    "markdown sections": _template(_section),
    "lists": _template(_list),
    "fenced code": _template(_fenced),
    "tables": _template(_table),
    "JSON blocks": _template(_json),
    "CRLF text": _template(_crlf),
    "mixed markdown": _template(_mixed),
}


def _realistic(name: str) -> Callable[[int], str]:
    template = _REALISTIC[name]
    return lambda n: _numbered(template, n)


#: The families of one pathological shape each; the others are realistic documents.
PATHOLOGICAL = ("one character repeated", "newlines only", "unbroken CJK", "one long line")

#: Every family by name: the worker builds ``FAMILIES[name](size)`` itself.
FAMILIES: dict[str, Callable[[int], str]] = {
    "one character repeated": lambda n: "a" * n,
    "newlines only": lambda n: "\n" * n,
    "unbroken CJK": lambda n: _repeat("漢字仮名交じり文章", n),
    "one long line": lambda n: _repeat("lorem ipsum dolor sit amet ", n),
    "paragraphs": _realistic("paragraphs"),
    "markdown sections": _realistic("markdown sections"),
    "lists": _realistic("lists"),
    "fenced code": _realistic("fenced code"),
    "tables": _realistic("tables"),
    "JSON blocks": _realistic("JSON blocks"),
    "repeated blocks": lambda n: _repeat(_REPEATED, n),
    "CRLF text": _realistic("CRLF text"),
    "mixed markdown": _realistic("mixed markdown"),
}
