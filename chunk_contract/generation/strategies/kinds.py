"""Documents of the kind a plugin declares it is meant for (``documents = "markdown"`` ...).

A plugin's ``documents`` declaration (an extension of SPEC §3, see docs/spec.md) names one of
:data:`chunk_contract.spec.model.DOCUMENT_KINDS`. :func:`documents_for` gives the mixture the runner
draws from: :data:`KIND_WEIGHT` parts real documents of that kind to :data:`ADVERSARIAL_WEIGHT` part
of the default adversarial mixture (Unicode, newlines, repeated blocks, headers), so a markdown
splitter meets real markdown and a code splitter real code, and still meets the hostile input.
The covering schedule and the degenerate configs are played as for any text plugin.

Generators here: realistic markdown (sections, paragraphs with links and emphasis, nested
lists, fences, tables, setext headings, block quotes, images), HTML (a page with nested tags,
h1-h6, attributes, entities, comments, ``pre``, ``script``/``style`` holding ``<``) and LaTeX
(sections, environments, inline and display math, comments, ``verbatim``, tables); the code
kinds live in :mod:`chunk_contract.generation.strategies.code`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from hypothesis import strategies as st

from chunk_contract.spec.model import DOCUMENT_KINDS

from ._common import StrategyArgumentError, check_int, weighted, with_newlines
from .cases import any_documents
from .code import javascript_documents, python_documents
from .markdown import markdown_documents
from .text import WORDS, sentences

__all__ = [
    "ADVERSARIAL_WEIGHT",
    "GENERATORS",
    "KIND_WEIGHT",
    "documents_for",
    "html_documents",
    "kind_documents",
    "latex_documents",
    "real_markdown_documents",
]

#: Parts of a declared kind's own documents in the run's mixture ...
KIND_WEIGHT = 6
#: ... against parts of the default adversarial mixture (any_documents).
ADVERSARIAL_WEIGHT = 1

_ENDINGS = ("lf", "lf", "lf", "crlf", "cr")


@functools.cache
def _words(low: int = 1, high: int = 4) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(WORDS), min_size=low, max_size=high).map(" ".join)


@functools.cache
def _paragraphs() -> st.SearchStrategy[str]:
    return st.lists(sentences(), min_size=1, max_size=4).map(" ".join)


def _joined(parts: list[str], max_length: int, sep: str = "\n\n") -> str:
    """Whole parts while they fit in ``max_length`` (the first one cut if it alone does not)."""
    out: list[str] = []
    size = 0
    for part in parts:
        if out and size + len(sep) + len(part) > max_length:
            break
        out.append(part)
        size += len(sep) + len(part)
    return sep.join(out)[:max_length]


# --------------------------------------------------------------------------- markdown

_INLINE = (
    "see [the docs](https://example.com/docs#part)",
    "**bold** and *emphasis*",
    "`code span`",
    '![an image](img/a.png "title")',
    "<https://example.com>",
    "a [ref link][1]",
    "~~struck~~",
    "a footnote[^1]",
    "escaped \\# hash",
    "caf\u00e9 \U0001f680 \u6570\u636e",
)


@functools.cache
def _md_paragraph() -> st.SearchStrategy[str]:
    return st.builds(
        lambda text, inline: f"{text} {inline}.", _paragraphs(), st.sampled_from(_INLINE)
    )


@functools.cache
def _md_heading() -> st.SearchStrategy[str]:
    return st.builds(
        lambda level, title, closing: "#" * level + " " + title + closing,
        st.integers(1, 6),
        _words(1, 5),
        st.sampled_from(("", "", " #", " ##")),
    )


@functools.cache
def _md_list() -> st.SearchStrategy[str]:
    item = st.builds(
        lambda marker, depth, text: "  " * depth + marker + " " + text,
        st.sampled_from(("-", "*", "+", "1.", "2)", "- [ ]", "- [x]")),
        st.integers(0, 2),
        _words(1, 6),
    )
    return st.lists(item, min_size=1, max_size=6).map(
        lambda items: "\n".join([items[0].lstrip(), *items[1:]])
    )


@functools.cache
def _md_fence() -> st.SearchStrategy[str]:
    code = st.sampled_from(
        (
            "def f(x):\n    # not a heading\n    return x",
            "# shell comment\nls -la",
            '{\n  "a": 1\n}',
            "",
            "<div># html</div>",
        )
    )
    return st.builds(
        lambda fence, info, body: f"{fence}{info}\n{body}\n{fence}",
        st.sampled_from(("```", "~~~", "````")),
        st.sampled_from(("", "python", "json", "sh", "md")),
        code,
    )


@functools.cache
def _md_table() -> st.SearchStrategy[str]:
    row = st.lists(_words(1, 2), min_size=2, max_size=2).map(lambda c: f"| {c[0]} | {c[1]} |")
    return st.builds(
        lambda head, rows: "\n".join([head, "|---|:---:|", *rows]),
        row,
        st.lists(row, min_size=1, max_size=4),
    )


@functools.cache
def _md_block() -> st.SearchStrategy[str]:
    setext = st.builds(
        lambda t, c: t + "\n" + c * max(3, len(t) // 2), _words(1, 4), st.sampled_from("=-")
    )
    return weighted(
        (4, _md_paragraph()),
        (2, _md_list()),
        (2, _md_fence()),
        (1, _md_table()),
        (1, setext),
        (1, _words(2, 8).map(lambda t: "> " + t + "\n> > nested quote")),
        (1, st.sampled_from(("---", "***", "[1]: https://example.com/ref", "[^1]: A note."))),
    )


@st.composite
def _md_section(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(_md_block(), min_size=1, max_size=4))
    return "\n\n".join([draw(_md_heading()), *blocks])


def real_markdown_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Markdown as people write it: headed sections of paragraphs with links and emphasis,
    nested lists, fenced code, tables, setext headings, quotes, rules and reference links."""
    return _real_markdown(
        check_int("real_markdown_documents", "max_length", max_length, min_value=1)
    )


@functools.lru_cache(maxsize=16)
def _real_markdown(max_length: int) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        intro = draw(st.lists(_md_paragraph(), max_size=1))
        sections = draw(st.lists(_md_section(), min_size=1, max_size=5))
        text = _joined([*intro, *sections], max_length) + draw(st.sampled_from(("\n", "")))
        return with_newlines(text, draw(st.sampled_from(_ENDINGS)))[:max_length]

    return build()


def _markdown_kind(max_length: int) -> st.SearchStrategy[str]:
    """Realistic markdown, and the heading-splitter corner cases of markdown_documents."""
    return weighted((3, _real_markdown(max_length)), (2, markdown_documents(max_length=max_length)))


# --------------------------------------------------------------------------- HTML

_ENTITIES = ("&amp;", "&lt;", "&gt;", "&quot;", "&nbsp;", "&#x1F680;", "&#233;", "&copy;")
_ATTRIBUTES = (
    "",
    ' class="note"',
    " id='main'",
    ' data-x="a &amp; b"',
    " hidden",
    ' style="color: red"',
    ' lang="fr"',
)


@functools.cache
def _html_text() -> st.SearchStrategy[str]:
    piece = st.one_of(
        _words(1, 5),
        st.sampled_from(_ENTITIES),
        st.sampled_from(
            (
                "<b>bold</b>",
                '<a href="/x?a=1&amp;b=2">a link</a>',
                "<em>em</em>",
                "<br>",
                '<img src="a.png" alt=""/>',
                "<code>&lt;tag&gt;</code>",
            )
        ),
    )
    return st.lists(piece, min_size=1, max_size=6).map(" ".join)


@functools.cache
def _html_leaf() -> st.SearchStrategy[str]:
    tags = st.sampled_from(("p", "p", "span", "li", "td", "h1", "h2", "h3", "h4", "h5", "h6"))
    fixed = st.sampled_from(
        (
            "<!-- a comment with <p>markup</p> -->",
            "<pre>  keep\n    the\tspaces\n</pre>",
            "<script>if (a < b && c > d) { x = '</p>'; }</script>",
            "<style>p > a { color: red; }</style>",
            "<hr/>",
            "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
        )
    )
    built = st.builds(
        lambda t, a, x: f"<{t}{a}>{x}</{t}>", tags, st.sampled_from(_ATTRIBUTES), _html_text()
    )
    return st.one_of(built, built, fixed)


@st.composite
def _html_node(draw: st.DrawFn, depth: int) -> str:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(_html_leaf())
    tag = draw(st.sampled_from(("div", "section", "article", "ul", "blockquote", "nav")))
    inner = "li" if tag == "ul" else None
    children = draw(st.lists(_html_node(depth - 1), min_size=1, max_size=3))
    if inner:
        children = [f"<li>{child}</li>" for child in children]
    attributes = draw(st.sampled_from(_ATTRIBUTES))
    return f"<{tag}{attributes}>\n" + "\n".join(children) + f"\n</{tag}>"


def html_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """HTML pages and fragments: nested tags, h1-h6, attributes, entities, comments, ``pre``,
    tables, and ``script``/``style`` elements holding ``<`` and ``>``."""
    return _html(check_int("html_documents", "max_length", max_length, min_value=1))


@functools.lru_cache(maxsize=16)
def _html(max_length: int) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        nodes = draw(st.lists(_html_node(2), min_size=1, max_size=4))
        body = _joined(nodes, max_length, "\n")
        if draw(st.booleans()):
            title = draw(_words(1, 3))
            page = (
                f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
                f"<title>{title}</title></head>\n<body>\n{body}\n</body>\n</html>\n"
            )
            body = page if len(page) <= max_length else body
        return with_newlines(body, draw(st.sampled_from(_ENDINGS)))[:max_length]

    return build()


# --------------------------------------------------------------------------- LaTeX

_TEX_INLINE = (
    "$x^2 + y_1$",
    "\\emph{emphasis}",
    "\\textbf{bold}",
    "\\cite{knuth84}",
    "\\ref{eq:1}",
    "50\\% off",
    "\\$3.50",
    "a~b",
    "``quoted''",
    "\\verb|x % y|",
    "caf\\'e \u6570\u636e",
    "% a comment to the end of the line",
)
_TEX_ENVIRONMENTS = (
    "\\begin{equation}\\label{eq:1}\n  E = mc^2 % energy\n\\end{equation}",
    "\\[\n  \\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n\\]",
    "\\begin{itemize}\n  \\item first\n  \\item second \\emph{item}\n\\end{itemize}",
    "\\begin{enumerate}\n  \\item[a)] one\n  \\begin{itemize}\n    \\item nested\n"
    "  \\end{itemize}\n\\end{enumerate}",
    "\\begin{verbatim}\n\\section{not a section}\n% not a comment\n\\end{verbatim}",
    "\\begin{tabular}{l|r}\n  a & 1 \\\\\n  \\hline\n  b & 2 \\\\\n\\end{tabular}",
    "\\begin{align*}\n  a &= b \\\\\n  c &= d\n\\end{align*}",
    "\\begin{figure}[ht]\n  \\centering\n  \\caption{A figure}\n\\end{figure}",
)


@functools.cache
def _tex_paragraph() -> st.SearchStrategy[str]:
    return st.builds(
        lambda text, inline: f"{text} {inline}", _paragraphs(), st.sampled_from(_TEX_INLINE)
    )


@st.composite
def _tex_section(draw: st.DrawFn) -> str:
    command = draw(
        st.sampled_from(
            ("section", "subsection", "subsubsection", "section*", "chapter", "paragraph")
        )
    )
    title = draw(_words(1, 4))
    blocks = draw(
        st.lists(
            st.one_of(_tex_paragraph(), st.sampled_from(_TEX_ENVIRONMENTS)), min_size=1, max_size=4
        )
    )
    return "\n\n".join([f"\\{command}{{{title}}}\\label{{sec:{len(title)}}}", *blocks])


def latex_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """LaTeX documents and fragments: sections, environments (lists, equations, tables,
    figures, verbatim), inline and display math, comments and escaped specials."""
    return _latex(check_int("latex_documents", "max_length", max_length, min_value=1))


@functools.lru_cache(maxsize=16)
def _latex(max_length: int) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        sections = draw(st.lists(_tex_section(), min_size=1, max_size=5))
        body = _joined(sections, max_length)
        if draw(st.booleans()):
            whole = (
                "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
                f"{body}\n\\end{{document}}\n"
            )
            body = whole if len(whole) <= max_length else body
        return with_newlines(body, draw(st.sampled_from(_ENDINGS)))[:max_length]

    return build()


# --------------------------------------------------------------------------- the registry

#: Each declarable kind but ``text`` -> its documents, given ``max_length``.
GENERATORS: dict[str, Callable[[int], st.SearchStrategy[str]]] = {
    "markdown": _markdown_kind,
    "code:python": lambda n: python_documents(max_length=n),
    "code:javascript": lambda n: javascript_documents(max_length=n),
    "html": _html,
    "latex": _latex,
}


def kind_documents(kind: str, *, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Documents of ``kind`` alone (no adversarial share); ``text`` is the default mixture."""
    max_length = check_int("kind_documents", "max_length", max_length, min_value=1)
    if kind == "text":
        return any_documents(max_length=max_length)
    if kind not in GENERATORS:
        raise StrategyArgumentError(
            f"kind_documents(kind={kind!r}): the contract generates "
            f"{', '.join(map(repr, DOCUMENT_KINDS))}"
        )
    return GENERATORS[kind](max_length)


def documents_for(kind: str, *, max_length: int = 2000) -> st.SearchStrategy[str]:
    """What a run of a plugin declaring ``documents = kind`` draws: mostly that kind, with the
    adversarial mixture mixed in; for ``text``, the default mixture unchanged."""
    own = kind_documents(kind, max_length=max_length)
    if kind == "text":
        return own
    return weighted((KIND_WEIGHT, own), (ADVERSARIAL_WEIGHT, any_documents(max_length=max_length)))
