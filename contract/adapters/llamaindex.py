"""LlamaIndex's node parsers (``llama-index-core``) as plugins.

* ``max_size`` -> ``chunk_size``, ``overlap`` -> ``chunk_overlap``, with ``tokenizer=list``: the
  library then counts codepoints (``unit = "chars"``) and never loads tiktoken's encoding.
  ``include_metadata=False``, so no chunk budget is spent on metadata text.
* The document goes through ``get_nodes_from_documents([Document(text=...)])``, the library's
  public path. Offsets are the nodes' own ``start_char_idx`` / ``end_char_idx`` (which LlamaIndex
  finds by searching the document for each node's text); a node without them is reported without
  offsets. ``id`` is the node's ``node_id`` (a random UUID by default in LlamaIndex).
* The sentence splitter's default sentence tokenizer is NLTK's punkt, whose data ships inside
  ``llama-index-core`` (``_static/nltk_cache``): nothing is downloaded.
* ``MarkdownNodeParser`` has no size or overlap parameters: the adapter ignores ``max_size`` and
  ``overlap``. Its ``header_path`` metadata (the headings *above* the node's own heading) is
  reported as ``section``; the adapter asks for an ASCII unit separator as the path separator
  so that headings holding ``/`` split back unambiguously.
"""

from __future__ import annotations

from typing import Any, ClassVar

from contract.adapters._base import Adapter, record


class _LlamaIndex(Adapter):
    """A node parser of ``llama_index.core.node_parser`` (made by :meth:`parser`)."""

    distribution: ClassVar[str] = "llama-index-core"
    module: ClassVar[str] = "llama_index.core"
    version: ClassVar[str] = "0.14.25"
    offsets: ClassVar[str] = "`start_char_idx`/`end_char_idx`"
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": "list (codepoints)",
        "include_metadata": "False",
    }

    def setup(self) -> None:
        """The document class, the parsers and the metadata mode."""
        from llama_index.core import Document, node_parser
        from llama_index.core.schema import MetadataMode

        self.document_cls = Document
        self.parsers = node_parser
        self.metadata_none = MetadataMode.NONE

    def parser(self, max_size: int, overlap: int) -> Any:
        """The node parser for one config."""
        raise NotImplementedError

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """``get_nodes_from_documents`` on one ``Document``."""
        parser = self.parser(max_size, overlap)
        nodes = parser.get_nodes_from_documents([self.document_cls(text=document)])
        return [self.chunk(node) for node in nodes]

    def chunk(self, node: Any) -> dict[str, Any]:
        """A chunk record from a node: its text, offsets and id."""
        return record(
            node.get_content(metadata_mode=self.metadata_none),
            node.start_char_idx,
            node.end_char_idx,
            id=node.node_id,
        )


class Sentence(_LlamaIndex):
    """``SentenceSplitter``: paragraphs, then sentences (NLTK punkt), then phrases, then words."""

    name = "llamaindex-sentence"
    splitter = "SentenceSplitter"

    def parser(self, max_size: int, overlap: int) -> Any:
        """``SentenceSplitter(chunk_size=max_size, chunk_overlap=overlap)``."""
        return self.parsers.SentenceSplitter(
            chunk_size=max_size, chunk_overlap=overlap, tokenizer=list, include_metadata=False
        )


class Token(_LlamaIndex):
    """``TokenTextSplitter``: words (separator ``" "``, backup ``"\\n"``), then characters."""

    name = "llamaindex-token"
    splitter = "TokenTextSplitter"

    def parser(self, max_size: int, overlap: int) -> Any:
        """``TokenTextSplitter(chunk_size=max_size, chunk_overlap=overlap)``."""
        return self.parsers.TokenTextSplitter(
            chunk_size=max_size, chunk_overlap=overlap, tokenizer=list, include_metadata=False
        )


#: Separator for ``header_path`` (never in a heading the contract generates).
_PATH_SEPARATOR = "\x1f"


class Markdown(_LlamaIndex):
    """``MarkdownNodeParser``: one node per heading section; no size or overlap parameter."""

    name = "llamaindex-markdown"
    splitter = "MarkdownNodeParser"
    documents = "markdown"
    choices: ClassVar[dict[str, str]] = {
        "include_metadata": "True (for header_path)",
        "header_path_separator": "'\\x1f'",
        "max_size, overlap": "ignored (no such parameters)",
    }
    #: Splitting at headings is what the parser is for.
    promises = frozenset({"heading_boundary"})

    def parser(self, max_size: int, overlap: int) -> Any:
        """``MarkdownNodeParser``; the config is ignored."""
        return self.parsers.MarkdownNodeParser(
            include_metadata=True, header_path_separator=_PATH_SEPARATOR
        )

    def chunk(self, node: Any) -> dict[str, Any]:
        """The base record, with ``header_path`` as ``section``."""
        out = super().chunk(node)
        path = node.metadata.get("header_path")
        if isinstance(path, str):  # "\x1f" at the top, "\x1fA\x1fB\x1f" under A > B
            inner = path[len(_PATH_SEPARATOR) : -len(_PATH_SEPARATOR)]
            out["section"] = inner.split(_PATH_SEPARATOR) if inner else []
        return out


sentence = Sentence
token = Token
markdown = Markdown
