"""LangChain's text splitters (``langchain-text-splitters``) as plugins.

* ``max_size`` -> ``chunk_size``, ``overlap`` -> ``chunk_overlap``; ``length_function=len``, so
  sizes are codepoints (``unit = "chars"``), with no tokenizer to download.
* Offsets: ``add_start_index=True`` makes ``create_documents`` put each chunk's ``start_index`` in
  its metadata; the adapter reports it as ``start`` and ``start + len(text)`` as ``end``.
  LangChain finds that index by searching the document for the chunk's text
  (``str.find`` from an estimated position), so the contract checks the library's search, not
  the adapter's. An index of -1 (not found) is reported as it is.
* ``MarkdownHeaderTextSplitter`` has no size or overlap parameters at all: the adapter ignores
  ``max_size`` and ``overlap``, splits on ATX headings of all six levels with
  ``strip_headers=False`` (so the heading stays in the chunk's text instead of being dropped), and
  reports the heading path from the chunk's metadata as ``section``. It reports no offsets.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record

#: Where the newer splitters' offsets come from, in their records.
_LC_START = "the library's metadata['start_index'] (str.find from an estimate); end = start + len"


class _LangChain(Adapter):
    """A splitter class of ``langchain_text_splitters`` (named by ``splitter``) with
    ``chunk_size``/``chunk_overlap``, counted with ``len``, its chunks placed by
    ``start_index``."""

    distribution: ClassVar[str] = "langchain-text-splitters"
    module: ClassVar[str] = "langchain_text_splitters"
    version: ClassVar[str] = "1.1.3"
    offsets: ClassVar[str] = "`start_index` (add_start_index)"
    choices: ClassVar[dict[str, str]] = {
        "length_function": "len (codepoints)",
        "add_start_index": "True",
    }

    def setup(self) -> None:
        """The splitter (a dotted ``splitter`` names a class's constructor method)."""
        self.cls: Any = functools.reduce(getattr, self.splitter.split("."), self.lib)

    def make(self, max_size: int, overlap: int) -> Any:
        """The configured splitter: ``chunk_size=max_size``, ``chunk_overlap=overlap``."""
        return self.cls(
            chunk_size=max_size, chunk_overlap=overlap, length_function=len, add_start_index=True
        )

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """``create_documents`` of the configured splitter."""
        return _start_indexed(self.make(max_size, overlap).create_documents([document]))


def _start_indexed(docs: Any) -> list[dict[str, Any]]:
    """Chunk records from LangChain ``Document``s made with ``add_start_index=True``:
    ``start_index`` as ``start``, ``start + len(text)`` as ``end``."""
    out = []
    for doc in docs:
        text, start = doc.page_content, doc.metadata.get("start_index")
        out.append(record(text, start, None if start is None else start + len(text)))
    return out


def _sections(docs: Any, headers: Any) -> list[dict[str, Any]]:
    """Chunk records from a heading splitter's ``Document``s: the heading path in their
    metadata (the ``headers`` keys, outermost first) as ``section``."""
    return [
        record(doc.page_content, section=[doc.metadata[key] for _, key in headers
                                          if key in doc.metadata])
        for doc in docs
    ]


class RecursiveCharacter(_LangChain):
    """``RecursiveCharacterTextSplitter`` with its default separators (paragraph, line, space,
    character) and ``keep_separator=True``."""

    name = "langchain-recursive"
    splitter = "RecursiveCharacterTextSplitter"


class Character(_LangChain):
    """``CharacterTextSplitter`` with its default separator ``"\\n\\n"``."""

    name = "langchain-character"
    splitter = "CharacterTextSplitter"


class Markdown(_LangChain):
    """``MarkdownTextSplitter``: the recursive splitter with markdown separators."""

    name = "langchain-markdown"
    splitter = "MarkdownTextSplitter"
    documents = "markdown"


#: Heading markers and the metadata keys they are reported under, outermost first.
HEADERS = tuple(("#" * level, f"h{level}") for level in range(1, 7))


class MarkdownHeaders(_LangChain):
    """``MarkdownHeaderTextSplitter`` on all six ATX levels, ``strip_headers=False``.

    The library takes no size or overlap: ``max_size`` and ``overlap`` are ignored, as they are by
    anyone who uses this splitter on its own. Chunks are sections under one heading path; the
    path (the metadata values, outermost heading first) is reported as ``section``.
    """

    name = "langchain-markdown-headers"
    splitter = "MarkdownHeaderTextSplitter"
    documents = "markdown"
    offsets = "none (placed by the contract)"
    choices: ClassVar[dict[str, str]] = {
        "headers_to_split_on": "# to ###### (h1-h6)",
        "strip_headers": "False",
        "max_size, overlap": "ignored (no such parameters)",
    }
    #: Splitting at headings is what the splitter is for.
    promises = frozenset({"heading_boundary"})

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """One chunk per heading section, its heading path as ``section``."""
        splitter = self.cls(headers_to_split_on=list(HEADERS), strip_headers=False)
        return _sections(splitter.split_text(document), HEADERS)


# Lower-case aliases: ``chunk_contract.integrations.adapters.langchain:recursive`` and so on.
recursive = RecursiveCharacter
character = Character
markdown = Markdown
markdown_headers = MarkdownHeaders


class _Sized(_LangChain):
    """A newer sized splitter: its record names the library's ``start_index`` search."""

    offsets: ClassVar[str] = _LC_START
    choices: ClassVar[dict[str, str]] = {"length_function": "len (codepoints)"}


class _FromLanguage(_Sized):
    """``RecursiveCharacterTextSplitter.from_language`` for one ``Language``."""

    splitter = "RecursiveCharacterTextSplitter.from_language"
    #: The ``Language`` member's name.
    language: ClassVar[str] = ""

    def make(self, max_size: int, overlap: int) -> Any:
        splitter = self.lib.RecursiveCharacterTextSplitter
        return splitter.from_language(
            self.lib.Language[self.language],
            chunk_size=max_size,
            chunk_overlap=overlap,
            length_function=len,
            add_start_index=True,
        )


class PythonCode(_FromLanguage):
    """``from_language(Language.PYTHON)``: classes, defs, then the default separators."""

    name = "langchain-python"
    language = "PYTHON"
    documents: ClassVar[str] = "code:python"
    choices: ClassVar[dict[str, str]] = {"length_function": "len", "language": "Language.PYTHON"}


class MarkdownLanguage(_FromLanguage):
    """``from_language(Language.MARKDOWN)``: headings, fences, rules, then paragraphs."""

    name = "langchain-markdown-language"
    language = "MARKDOWN"
    documents: ClassVar[str] = "markdown"
    choices: ClassVar[dict[str, str]] = {
        "length_function": "len",
        "language": "Language.MARKDOWN",
    }


class Latex(_Sized):
    """``LatexTextSplitter``: sections, environments, then the default separators."""

    name = "langchain-latex"
    splitter = "LatexTextSplitter"
    documents: ClassVar[str] = "latex"


class MarkdownSyntax(_LangChain):
    """``ExperimentalMarkdownSyntaxTextSplitter`` on all six levels, ``strip_headers=False``.

    Like ``MarkdownHeaderTextSplitter`` it takes no size or overlap (both are ignored); the
    heading path in its metadata (outermost first) is reported as ``section``.
    """

    name = "langchain-markdown-syntax"
    splitter: ClassVar[str] = "ExperimentalMarkdownSyntaxTextSplitter"
    unit: ClassVar[str] = "chars"
    promises = frozenset({"heading_boundary"})
    offsets: ClassVar[str] = "none: the splitter reports no offsets (placed by the contract)"
    documents: ClassVar[str] = "markdown"
    choices: ClassVar[dict[str, str]] = {
        "headers_to_split_on": "# to ###### (h1-h6)",
        "strip_headers": "False (headings stay in the text)",
        "max_size/overlap": "ignored: the splitter has no size",
    }

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        splitter = self.cls(headers_to_split_on=list(HEADERS), strip_headers=False)
        return _sections(splitter.split_text(document), HEADERS)


#: ``headers_to_split_on`` of the HTML splitter: h1 to h6.
_HTML_HEADERS = [(f"h{level}", f"h{level}") for level in range(1, 7)]


class HtmlHeaders(_LangChain):
    """``HTMLHeaderTextSplitter`` on h1-h6: the text of each element under its headings.

    It parses HTML with the standard library's parser and returns element *text*, not slices
    of the markup; no size, no overlap (both ignored), no offsets.
    """

    name = "langchain-html-headers"
    splitter: ClassVar[str] = "HTMLHeaderTextSplitter"
    unit: ClassVar[str] = "chars"
    offsets: ClassVar[str] = "none: the splitter reports no offsets (placed by the contract)"
    documents: ClassVar[str] = "html"
    choices: ClassVar[dict[str, str]] = {
        "headers_to_split_on": "h1 to h6",
        "max_size/overlap": "ignored: the splitter has no size",
    }

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        splitter = self.cls(headers_to_split_on=_HTML_HEADERS)
        return _sections(splitter.split_text(document), _HTML_HEADERS)


python_code = PythonCode
markdown_language = MarkdownLanguage
latex = Latex
markdown_syntax = MarkdownSyntax
html_headers = HtmlHeaders
