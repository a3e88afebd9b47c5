"""Source code documents for code splitters: Python and JavaScript.

Each generator writes code a real parser accepts (the Python one is checked with ``ast.parse``
in tests/unit/test_kinds.py): nested definitions, decorators, classes, comments that look like
markdown headings, strings and template literals holding newlines, blank lines inside blocks,
non-ASCII identifiers and strings. One indentation unit per document (four spaces, two spaces
or a tab), so the code stays valid; LF mostly, CRLF sometimes (both parse).
"""

from __future__ import annotations

import functools
import itertools
import re

from hypothesis import strategies as st

from ._common import with_newlines

__all__ = ["javascript_documents", "python_documents"]

_NAMES = ("load", "parse_rows", "_private", "value2", "donn\u00e9es", "\u03c7", "split", "Item")
_INDENTS = ("    ", "    ", "  ", "\t")
_ENDINGS = ("lf", "lf", "lf", "crlf")

# --------------------------------------------------------------------------- Python

_PY_EXPRESSIONS = (
    "1",
    "x + 1",
    "'text'",
    '"caf\u00e9 \U0001f680"',
    "[1, 2, 3]",
    "{'a': 1, \"b\": [2]}",
    "f(x)",
    "None",
    "len(items) // 2",
    "lambda y: y * 2",
    "(a if b else c)",
    "b'\\x00\\xff'",
    "f'{name!r:>10}'",
    "r'\\d+#not a comment'",
    "x[1:-1]",
    "{k: v for k, v in pairs}",
)
_PY_SIMPLE = (
    "pass",
    "return {e}",
    "{n} = {e}",
    "print({e})",
    "{n} += 1",
    "yield {e}",
    "del {n}",
    "raise ValueError({e})",
    "assert {e}, 'message'",
    "global {n}",
    "import os",
    "from collections import OrderedDict as OD",
    "{n}: int = {e}",
)
_PY_COMMENTS = (
    "# a comment",
    "# ## not a markdown heading",
    "#!/usr/bin/env python",
    "# -*- coding: utf-8 -*-",
    "# TODO(\u00e9): \u6570\u636e",
    "#",
)
_PY_STRINGS = (
    '"""Docstring line one.\n\nMore text with a # hash and a ``` fence.\n"""',
    "'''\nSELECT *\n  FROM t\n WHERE a = 1\n'''",
    '"""One line."""',
    "(\n    'implicit '\n    'concatenation'\n)",
)
_PY_DECORATORS = (
    "@property",
    "@staticmethod",
    "@functools.lru_cache(maxsize=None)",
    "@app.route('/x')",
)


@functools.cache
def _py_simple() -> st.SearchStrategy[str]:
    return st.builds(
        lambda form, n, e: form.format(n=n, e=e),
        st.sampled_from(_PY_SIMPLE),
        st.sampled_from(_NAMES),
        st.sampled_from(_PY_EXPRESSIONS),
    )


@functools.cache
def _py_line() -> st.SearchStrategy[str]:
    return st.one_of(
        _py_simple(),
        st.sampled_from(_PY_COMMENTS),
        st.builds(lambda n, s: f"{n} = {s}", st.sampled_from(_NAMES), st.sampled_from(_PY_STRINGS)),
    )


def _indented(lines: list[str], indent: str) -> list[str]:
    """``lines`` one level deeper; lines inside multi-line strings keep their own columns."""
    return [indent + line if line else line for line in lines]


def _py_header(draw: st.DrawFn, depth: int) -> list[str]:
    form = draw(st.sampled_from(("def", "async def", "class", "if", "for", "while", "with", "try")))
    name = draw(st.sampled_from(_NAMES))
    if form == "class":
        return [f"class {name}(Base, metaclass=Meta):" if draw(st.booleans()) else f"class {name}:"]
    if form.endswith("def"):
        decorators = draw(st.lists(st.sampled_from(_PY_DECORATORS), max_size=2))
        args = draw(st.sampled_from(("", "self", "x, /, y=1, *args, z, **kw", "a: int")))
        return [*decorators, f"{form} {name}({args}) -> None:"]
    heads = {
        "if": f"if {name} is not None and {name}:",
        "for": f"for {name} in range(10):",
        "while": "while True:",
        "with": f"with open('f') as {name}:",
        "try": "try:",
    }
    return [heads[form]]


@st.composite
def _py_block(draw: st.DrawFn, indent: str, depth: int) -> list[str]:
    """Statements at one level: simple lines and, while ``depth`` allows, compound ones; at
    least one of them a statement (a block of comments alone does not parse)."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        if depth > 0 and draw(st.integers(0, 3)) == 0:
            out += _py_compound(draw, indent, depth)
        else:
            out.append(draw(_py_line()))
        if draw(st.integers(0, 4)) == 0:
            out.append("")  # a blank line inside the block
    if all(not line or line.startswith("#") for line in out):
        out.append(draw(_py_simple()))
    return out


def _py_compound(draw: st.DrawFn, indent: str, depth: int) -> list[str]:
    head = _py_header(draw, depth)
    body = _indented(_split_strings(draw(_py_block(indent, depth - 1))), indent)
    tail = ["except (OSError, ValueError) as exc:", indent + "raise"] if head[-1] == "try:" else []
    return [*head, *body, *tail]


def _split_strings(lines: list[str]) -> list[str]:
    """Lines with their embedded newlines made separate lines (for indenting)."""
    return "\n".join(lines).split("\n")


def _fitting(units: list[str], max_length: int, fallback: str) -> str:
    """As many whole top-level units as fit in ``max_length`` (never a cut statement)."""
    out, size = [], 0
    for unit in units:
        if size + len(unit) + 2 > max_length:
            break
        out.append(unit)
        size += len(unit) + 2
    return "\n\n".join(out) + "\n" if out else fallback[:max_length]


def python_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Python modules: imports, decorated functions, classes, nested blocks, docstrings and
    strings with newlines, comments (some like markdown headings), in LF or CRLF."""
    return _python_documents(max_length)


@functools.lru_cache(maxsize=16)
def _python_documents(max_length: int) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        indent = draw(st.sampled_from(_INDENTS))
        head = draw(st.sampled_from(_PY_HEADS))
        units = [head] if head else []
        for _ in range(draw(st.integers(1, 4))):
            units.append("\n".join(draw(_py_block(indent, 2))))
        text = _fitting(units, max_length, "x = 1\n")
        return with_newlines(text, draw(st.sampled_from(_ENDINGS)))

    return build()


_PY_HEADS = (
    "",
    '"""Module docstring."""',
    "import os\nimport sys",
    "from __future__ import annotations",
)


# --------------------------------------------------------------------------- JavaScript

_JS_EXPRESSIONS = (
    "1",
    "x + 1",
    "'text'",
    '"caf\u00e9 \U0001f680"',
    "[1, 2, 3]",
    "{ a: 1, 'b': [2] }",
    "f(x)",
    "null",
    "undefined",
    "items.length >>> 1",
    "(y) => y * 2",
    "a ? b : c",
    "`template ${name} literal`",
    "/ab+c\\/#not-a-comment/gi",
    "new Map()",
    "a?.b ?? c",
    "import('./lazy.js')",
)
_JS_SIMPLE = (
    "let {n} = {e};",
    "const {n} = {e};",
    "console.log({e});",
    "{n} += 1;",
    "throw new Error({e});",
    "var {n} = {e}",
    "{n}++",
)
_JS_COMMENTS = (
    "// a comment",
    "// # not a markdown heading",
    "/* block\n   comment */",
    "/** JSDoc\n * @param {string} x\n */",
)
_JS_STRINGS = (
    "`multi\nline ${x}\ntemplate`",
    "'single \\'quoted\\''",
    '"double \\"quoted\\""',
    "String.raw`C:\\path`",
)
_JS_NAMES = ("load", "parseRows", "_private", "value2", "$el", "donn\u00e9es", "\u03c7", "Item")


@functools.cache
def _js_line() -> st.SearchStrategy[str]:
    simple = st.builds(
        lambda form, n, e: form.format(n=n, e=e),
        st.sampled_from(_JS_SIMPLE),
        st.sampled_from(_JS_NAMES),
        st.sampled_from(_JS_EXPRESSIONS),
    )
    strings = st.builds(
        lambda n, s: f"const {n} = {s};", st.sampled_from(_JS_NAMES), st.sampled_from(_JS_STRINGS)
    )
    return st.one_of(simple, st.sampled_from(_JS_COMMENTS), strings)


def _js_header(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(_JS_NAMES))
    heads = (
        (f"function {name}(a, b = 1, ...rest) {{", "  return a;\n}"),
        (f"async function* {name}() {{", "  yield await load();\n}"),
        (f"const {name} = (x) => {{", "  return x;\n};"),
        (f"class {name} extends Base {{\n  static #count = 0;\n  run() {{", "  }\n}"),
        (f"if ({name} !== null) {{", "} else {\n  " + name + " = 0;\n}"),
        (f"for (const {name} of items) {{", "}"),
        ("try {", "} catch (err) {\n  console.error(err);\n}"),
    )
    return draw(st.sampled_from(heads))


@st.composite
def _js_block(draw: st.DrawFn, indent: str, depth: int) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        if depth > 0 and draw(st.integers(0, 3)) == 0:
            opener, closer = _js_header(draw)
            body = _split_strings(draw(_js_block(indent, depth - 1)))
            out += [opener, *_indented(body, indent), closer]
        else:
            out.append(draw(_js_line()))
        if draw(st.integers(0, 4)) == 0:
            out.append("")
    return out


_DECLARATION = re.compile(r"\b(let|const|var|class|function\*?)(\s+)([$\w]+)")


def _declared_once(units: list[str]) -> list[str]:
    """Every declared name made unique (a module may declare a name once): the k-th
    declaration of ``x`` declares ``x_k``."""
    counter = itertools.count()

    def rename(match: re.Match[str]) -> str:
        return f"{match[1]}{match[2]}{match[3]}_{next(counter)}"

    return [_DECLARATION.sub(rename, unit) for unit in units]


def javascript_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """JavaScript modules: imports, functions, arrow functions, classes, template literals
    with newlines, regex literals, comments (some like markdown headings), in LF or CRLF."""
    return _javascript_documents(max_length)


_JS_HEADS = ("", "'use strict';", "import { a, b as c } from './mod.js';", "export const n = 1;")


@functools.lru_cache(maxsize=16)
def _javascript_documents(max_length: int) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        indent = draw(st.sampled_from(_INDENTS))
        head = draw(st.sampled_from(_JS_HEADS))
        units = [head] if head else []
        for _ in range(draw(st.integers(1, 4))):
            units.append("\n".join(draw(_js_block(indent, 2))))
        text = _fitting(_declared_once(units), max_length, "let x = 1;\n")
        return with_newlines(text, draw(st.sampled_from(_ENDINGS)))

    return build()
