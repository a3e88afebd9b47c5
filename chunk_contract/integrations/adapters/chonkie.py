"""Chonkie's chunkers (``chonkie``) as plugins.

* ``tokenizer="character"`` (chonkie's default, and one of the two tokenizers it builds without a
  download): a token is one codepoint, so ``unit = "chars"``.
* ``max_size`` -> ``chunk_size``; ``overlap`` -> ``chunk_overlap`` for the token and sentence
  chunkers. ``RecursiveChunker`` has no overlap parameter: ``overlap`` is ignored (its chunks
  never overlap, which is within any allowed overlap).
* Each chonkie ``Chunk`` carries ``start_index``/``end_index`` (reported as ``start``/``end``),
  ``token_count`` and ``id`` (a random ``chnk_<uuid>`` by default in chonkie).
* Load this module as ``chunk_contract.integrations.adapters.chonkie`` (or by plugin name), not as a
  file: as a file it would shadow the ``chonkie`` package itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record

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
        return _chonkie_records(self.make(max_size, overlap).chunk(document))


def _chonkie_records(chunks: Any) -> list[dict[str, Any]]:
    """Chunk records from chonkie ``Chunk`` objects, every field as the library gave it."""
    return [
        record(c.text, c.start_index, c.end_index, id=c.id, token_count=c.token_count)
        for c in chunks
    ]


class _Newer(_Chonkie):
    """A newer chunker or tokenizer: its record names the chunks' own offsets."""

    offsets: ClassVar[str] = "the chunks' own start_index/end_index"


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


class Fast(_Newer):
    """``FastChunker``: byte windows of ``chunk_size`` cut at its default delimiters
    (``"\\n.?"``); it has no overlap parameter (``overlap`` is ignored)."""

    name = "chonkie-fast"
    splitter: ClassVar[str] = "FastChunker"
    unit: ClassVar[str] = "bytes"
    choices: ClassVar[dict[str, str]] = {
        "chunk_size": "max_size bytes (UTF-8)",
        "delimiters": '"\\n.?" (default)',
        "overlap": "ignored: no overlap parameter",
    }

    def make(self, max_size: int, overlap: int) -> Any:
        """``FastChunker(chunk_size=max_size)``: it has no overlap."""
        return self.cls(chunk_size=max_size)


class _TokenWith(_Newer):
    """``TokenChunker`` with one of chonkie's offline tokenizers."""

    splitter: ClassVar[str] = "TokenChunker"
    #: chonkie's name for the tokenizer.
    tokenizer: ClassVar[str] = ""

    def make(self, max_size: int, overlap: int) -> Any:
        """``TokenChunker`` with ``tokenizer``."""
        return self.cls(tokenizer=self.tokenizer, chunk_size=max_size, chunk_overlap=overlap)


class TokenWords(_TokenWith):
    """``TokenChunker(tokenizer="word")``: a token is a piece of ``text.split(" ")``."""

    name = "chonkie-token-word"
    tokenizer = "word"
    unit: ClassVar[str] = "tokens"
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": 'word (chonkie\'s WordTokenizer: text.split(" "))',
    }

    def count_tokens(self, text: str) -> int:
        """chonkie's own word count: ``len(text.split(" "))``."""
        return len(text.split(" ")) if text else 0


class TokenBytes(_TokenWith):
    """``TokenChunker(tokenizer="byte")``: a token is one UTF-8 byte."""

    name = "chonkie-token-byte"
    tokenizer = "byte"
    unit: ClassVar[str] = "bytes"
    choices: ClassVar[dict[str, str]] = {"tokenizer": "byte (chonkie's ByteTokenizer: UTF-8)"}


fast = Fast
token_word = TokenWords
token_byte = TokenBytes
