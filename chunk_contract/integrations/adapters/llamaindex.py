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

from chunk_contract.integrations.adapters._base import Adapter, import_library, record


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
        return [self.chunk(node) for node in self.nodes(self.parser(max_size, overlap), document)]

    def nodes(self, parser: Any, document: str) -> list[Any]:
        """The parser's nodes for ``document``."""
        return list(parser.get_nodes_from_documents([self.document_cls(text=document)]))

    def text(self, node: Any) -> str:
        """The node's text, without metadata."""
        return str(node.get_content(metadata_mode=self.metadata_none))

    def chunk(self, node: Any) -> dict[str, Any]:
        """A chunk record from a node: its text, offsets and id."""
        # start_char_idx=None (the library's find() failed) is passed as "not reported": the
        # contract then reports the output's partly missing offsets (span_fidelity), and never
        # places that node quietly.
        return record(self.text(node), node.start_char_idx, node.end_char_idx, id=node.node_id)


def _sentences(parsers: Any, size: int, overlap: int) -> Any:
    """The sentence splitter counting codepoints (``tokenizer=list``), no metadata budget."""
    return parsers.SentenceSplitter(
        chunk_size=size, chunk_overlap=overlap, tokenizer=list, include_metadata=False
    )


class Sentence(_LlamaIndex):
    """``SentenceSplitter``: paragraphs, then sentences (NLTK punkt), then phrases, then words."""

    name = "llamaindex-sentence"
    splitter = "SentenceSplitter"

    def parser(self, max_size: int, overlap: int) -> Any:
        """``SentenceSplitter(chunk_size=max_size, chunk_overlap=overlap)``."""
        return _sentences(self.parsers, max_size, overlap)


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


#: Chunk sizes of the hierarchy, as multiples of ``max_size`` (outermost first; leaves last).
LI_HIERARCHY = (4, 2, 1)


class Hierarchical(_LlamaIndex):
    """``HierarchicalNodeParser``: sentence splitters of ``4, 2, 1 x max_size`` codepoints, each
    level splitting the nodes of the level above; every level is reported, with parents."""

    name = "llamaindex-hierarchical"
    splitter: ClassVar[str] = "HierarchicalNodeParser"
    offsets: ClassVar[str] = (
        "the nodes' start_char_idx/end_char_idx, relative to the parent node's text below the "
        "top level: made absolute by adding the parent's start"
    )
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": "list (codepoints)",
        "chunk_sizes": "[4, 2, 1] x max_size, one SentenceSplitter each, chunk_overlap=overlap",
        "include_metadata": "False",
    }

    def parser(self, max_size: int, overlap: int) -> Any:
        """One sentence splitter per level, ``LI_HIERARCHY`` times ``max_size`` each."""
        ids = [f"l{level}" for level in range(len(LI_HIERARCHY))]
        parsers = {
            i: _sentences(self.parsers, factor * max_size, overlap)
            for i, factor in zip(ids, LI_HIERARCHY)
        }
        return self.parsers.HierarchicalNodeParser.from_defaults(
            node_parser_ids=ids, node_parser_map=parsers, include_metadata=False
        )

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """Every level's nodes, with parents and absolute offsets."""
        starts: dict[str, int | None] = {}
        nodes = self.nodes(self.parser(max_size, overlap), document)
        return [self.hierarchy_chunk(node, starts) for node in nodes]

    def hierarchy_chunk(self, node: Any, starts: dict[str, int | None]) -> dict[str, Any]:
        """A chunk with absolute offsets (``starts``: the absolute start of each node seen)."""
        parent = node.parent_node.node_id if node.parent_node is not None else None
        start = absolute(node.start_char_idx, parent, starts)
        end = absolute(node.end_char_idx, parent, starts)
        starts[node.node_id] = start
        return record(self.text(node), start, end, id=node.node_id, parent=parent)


def absolute(relative: Any, parent: str | None, starts: dict[str, int | None]) -> int | None:
    """An offset made absolute: top-level offsets are already; a child's is relative to its
    parent's text. Missing (``None``) stays missing, and so does any offset under a parent
    whose own start is missing or not yet seen: the chunk is reported without it."""
    if relative is None or parent is None:
        return relative if relative is None else int(relative)
    base = starts.get(parent)
    return None if base is None else base + int(relative)


class SentenceWindow(_LlamaIndex):
    """``SentenceWindowNodeParser``: one node per sentence (NLTK punkt, shipped with the
    library), the surrounding window in metadata; it has no size or overlap (both ignored)."""

    name = "llamaindex-sentence-window"
    splitter: ClassVar[str] = "SentenceWindowNodeParser"
    offsets: ClassVar[str] = "the nodes' start_char_idx/end_char_idx (the library's str.find)"
    choices: ClassVar[dict[str, str]] = {
        "sentence_splitter": "default (NLTK punkt, shipped in llama-index-core)",
        "window_size": "3 (default; the window is metadata, not the chunk)",
        "max_size/overlap": "ignored: the parser has no size",
    }

    def parser(self, max_size: int, overlap: int) -> Any:
        """``SentenceWindowNodeParser`` with its defaults; the config is ignored."""
        return self.parsers.SentenceWindowNodeParser.from_defaults(include_metadata=False)


class Code(_LlamaIndex):
    """``CodeSplitter(language="python")``: tree-sitter syntax nodes packed up to ``max_chars``.

    The grammar comes from the ``tree-sitter-python`` wheel (passed as ``parser=``), not from
    ``tree_sitter_language_pack``, so nothing is downloaded; ``overlap`` is ignored (the library's
    ``chunk_lines_overlap`` is in lines, and its splitting does not use it).
    """

    name = "llamaindex-code"
    splitter: ClassVar[str] = "CodeSplitter"
    documents: ClassVar[str] = "code:python"
    offsets: ClassVar[str] = "the nodes' start_char_idx/end_char_idx (the library's str.find)"
    choices: ClassVar[dict[str, str]] = {
        "language": "python (grammar: tree-sitter-python 0.25.0, tree-sitter 0.26.1)",
        "count_mode": "char (max_chars = max_size codepoints)",
        "overlap": "ignored: chunk_lines_overlap is in lines and unused by the splitting",
    }

    def setup(self) -> None:
        super().setup()
        tree_sitter = import_library("tree_sitter", "tree-sitter", self.name)
        grammar = import_library("tree_sitter_python", "tree-sitter-python", self.name)
        self.grammar = tree_sitter.Language(grammar.language())
        self.parser_cls = tree_sitter.Parser

    def parser(self, max_size: int, overlap: int) -> Any:
        """``CodeSplitter`` of ``max_size`` characters on the tree-sitter grammar."""
        return self.parsers.CodeSplitter(
            language="python",
            max_chars=max_size,
            count_mode="char",
            parser=self.parser_cls(self.grammar),
            include_metadata=False,
        )


hierarchical = Hierarchical
sentence_window = SentenceWindow
code = Code
