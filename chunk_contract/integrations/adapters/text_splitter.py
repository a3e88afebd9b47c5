"""semantic-text-splitter (``semantic-text-splitter``, the Python binding of the Rust
``text-splitter`` crate) as plugins.

* The plain constructors ``TextSplitter(capacity, overlap=...)`` and
  ``MarkdownSplitter(capacity, overlap=...)`` count characters (Unicode scalar values, which are
  Python codepoints): ``unit = "chars"``, no tokenizer.
* ``max_size`` -> ``capacity``, ``overlap`` -> ``overlap``; ``trim=True`` (the default).
* Offsets: ``chunk_indices`` gives each chunk's character offset in the document; the adapter
  reports it as ``start`` and ``start + len(text)`` as ``end``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record


class _TextSplitter(Adapter):
    """A splitter class of ``semantic_text_splitter`` (named by ``splitter``)."""

    distribution: ClassVar[str] = "semantic-text-splitter"
    module: ClassVar[str] = "semantic_text_splitter"
    version: ClassVar[str] = "0.33.1"
    offsets: ClassVar[str] = "`chunk_indices`"
    choices: ClassVar[dict[str, str]] = {
        "capacity": "max_size (characters: the plain constructor)",
        "trim": "True (default)",
    }

    def setup(self) -> None:
        """The splitter class."""
        self.cls = getattr(self.lib, self.splitter)

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """``chunk_indices``: each chunk's character offset and text."""
        splitter = self.cls(max_size, overlap=overlap)
        return [
            record(text, start, start + len(text))
            for start, text in splitter.chunk_indices(document)
        ]


class Text(_TextSplitter):
    """``TextSplitter``: sentences, words, graphemes, characters by Unicode rules (UAX #29)."""

    name = "text-splitter"
    splitter = "TextSplitter"


class Markdown(_TextSplitter):
    """``MarkdownSplitter``: CommonMark structure (headings, blocks, inline) above the text
    levels."""

    name = "text-splitter-markdown"
    splitter = "MarkdownSplitter"
    documents = "markdown"


text = Text
markdown = Markdown
