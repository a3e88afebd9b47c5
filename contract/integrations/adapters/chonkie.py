"""Chonkie's chunkers (``chonkie``) as plugins.

* ``tokenizer="character"`` (chonkie's default, and one of the two tokenizers it builds without a
  download): a token is one codepoint, so ``unit = "chars"``.
* ``max_size`` -> ``chunk_size``; ``overlap`` -> ``chunk_overlap`` for the token and sentence
  chunkers. ``RecursiveChunker`` has no overlap parameter: ``overlap`` is ignored (its chunks
  never overlap, which is within any allowed overlap).
* Each chonkie ``Chunk`` carries ``start_index``/``end_index`` (reported as ``start``/``end``),
  ``token_count`` and ``id`` (a random ``chnk_<uuid>`` by default in chonkie).
* Load this module as ``contract.integrations.adapters.chonkie`` (or by plugin name), not as a file:
as a file
  it would shadow the ``chonkie`` package itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from contract.integrations.adapters._base import Adapter, record, require

_DIST, _MODULE = "chonkie", "chonkie"

require(_MODULE, _DIST, "contract.integrations.adapters.chonkie")

#: A tokenizer chonkie builds offline; one token is one codepoint.
TOKENIZER = "character"


class _Chonkie(Adapter):
    distribution: ClassVar[str] = _DIST
    module: ClassVar[str] = _MODULE
    chunker: ClassVar[str] = ""

    def setup(self) -> None:
        self.cls = getattr(self.lib, self.chunker)

    def make(self, max_size: int, overlap: int) -> Any:
        return self.cls(tokenizer=TOKENIZER, chunk_size=max_size, chunk_overlap=overlap)

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        chunks = self.make(max_size, overlap).chunk(document)
        return [
            record(c.text, c.start_index, c.end_index, id=c.id, token_count=c.token_count)
            for c in chunks
        ]


class Token(_Chonkie):
    """``TokenChunker``: fixed windows of ``chunk_size`` tokens, ``chunk_overlap`` shared."""

    name = "chonkie-token"
    chunker = "TokenChunker"


class Sentence(_Chonkie):
    """``SentenceChunker``: sentences (delimiters ``". "``, ``"! "``, ``"? "``, newline) packed
    up to ``chunk_size`` tokens, ``chunk_overlap`` tokens of whole sentences repeated."""

    name = "chonkie-sentence"
    chunker = "SentenceChunker"


class Recursive(_Chonkie):
    """``RecursiveChunker`` with its default rules (paragraphs, sentences, punctuation, words,
    tokens); it has no overlap parameter."""

    name = "chonkie-recursive"
    chunker = "RecursiveChunker"

    def make(self, max_size: int, overlap: int) -> Any:
        return self.cls(tokenizer=TOKENIZER, chunk_size=max_size)


token = Token
sentence = Sentence
recursive = Recursive
