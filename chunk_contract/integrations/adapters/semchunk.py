"""semchunk (``semchunk``) as a plugin.

* ``semchunk.chunkerify(len, chunk_size=max_size)``: the token counter is ``len``, so a token is
  one codepoint (``unit = "chars"``) and no tokenizer is loaded.
* The chunker is called with ``offsets=True`` and ``overlap=overlap`` (an integer overlap of one
  or more is a number of tokens; 0 means no overlap). Offsets are semchunk's own
  ``(start, end)`` pairs, documented to satisfy ``chunks[i] == text[start:end]``.
* Load this module as ``chunk_contract.integrations.adapters.semchunk`` (or by plugin name), not as
  a
file: as a
  file it would shadow the ``semchunk`` package itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record


class Semchunk(Adapter):
    """``semchunk.chunkerify(len, max_size)(document, offsets=True, overlap=overlap)``."""

    name = "semchunk"
    distribution: ClassVar[str] = "semchunk"
    module: ClassVar[str] = "semchunk"
    version: ClassVar[str] = "4.1.1"
    splitter: ClassVar[str] = "semchunk.chunkerify"
    offsets: ClassVar[str] = "`offsets=True`"
    choices: ClassVar[dict[str, str]] = {"token_counter": "len (codepoints)"}

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """The chunks and their ``(start, end)`` offsets."""
        chunker = self.lib.chunkerify(len, chunk_size=max_size)
        chunks, offsets = chunker(document, offsets=True, overlap=overlap)
        return [record(text, start, end) for text, (start, end) in zip(chunks, offsets)]


semchunk = Semchunk
