"""Chonkie's chunkers (``chonkie``) as plugins.

* ``tokenizer="character"`` (chonkie's default, and one of the two tokenizers it builds without a
  download): a token is one codepoint, so ``unit = "chars"``.
* ``max_size`` -> ``chunk_size``; ``overlap`` -> ``chunk_overlap`` for the token and sentence
  chunkers. ``RecursiveChunker`` has no overlap parameter: ``overlap`` is ignored (its chunks
  never overlap, which is within any allowed overlap).
* Each chonkie ``Chunk`` carries ``start_index``/``end_index`` (reported as ``start``/``end``),
  ``token_count`` and ``id`` (a random ``chnk_<uuid>`` by default in chonkie).
* Load this module as ``contract.adapters.chonkie`` (or by plugin name), not as a file: as a file
  it would shadow the ``chonkie`` package itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from contract.adapters._base import Adapter, record

#: A tokenizer chonkie builds offline; one token is one codepoint.
TOKENIZER = "character"


class _Chonkie(Adapter):
    """A chunker class of ``chonkie`` (named by ``splitter``)."""

    distribution: ClassVar[str] = "chonkie"
    module: ClassVar[str] = "chonkie"
    version: ClassVar[str] = "1.7.0"
    offsets: ClassVar[str] = "`start_index`/`end_index`"
    choices: ClassVar[dict[str, str]] = {"tokenizer": f'"{TOKENIZER}" (codepoints)'}

    def setup(self) -> None:
        """The chunker class."""
        self.cls = getattr(self.lib, self.splitter)

    def make(self, max_size: int, overlap: int) -> Any:
        """The chunker for one config."""
        return self.cls(tokenizer=TOKENIZER, chunk_size=max_size, chunk_overlap=overlap)

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """``chunk(document)``: texts, offsets, ids and token counts."""
        chunks = self.make(max_size, overlap).chunk(document)
        return [
            record(c.text, c.start_index, c.end_index, id=c.id, token_count=c.token_count)
            for c in chunks
        ]


class Token(_Chonkie):
    """``TokenChunker``: fixed windows of ``chunk_size`` tokens, ``chunk_overlap`` shared."""

    name = "chonkie-token"
    splitter = "TokenChunker"


class Sentence(_Chonkie):
    """``SentenceChunker``: sentences (delimiters ``". "``, ``"! "``, ``"? "``, newline) packed
    up to ``chunk_size`` tokens, ``chunk_overlap`` tokens of whole sentences repeated."""

    name = "chonkie-sentence"
    splitter = "SentenceChunker"


class Recursive(_Chonkie):
    """``RecursiveChunker`` with its default rules (paragraphs, sentences, punctuation, words,
    tokens); it has no overlap parameter."""

    name = "chonkie-recursive"
    splitter = "RecursiveChunker"
    choices: ClassVar[dict[str, str]] = {
        **_Chonkie.choices,
        "overlap": "ignored (no such parameter)",
    }

    def make(self, max_size: int, overlap: int) -> Any:
        """``RecursiveChunker(chunk_size=max_size)``: it has no overlap."""
        return self.cls(tokenizer=TOKENIZER, chunk_size=max_size)


token = Token
sentence = Sentence
recursive = Recursive
