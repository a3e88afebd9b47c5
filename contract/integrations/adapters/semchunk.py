"""semchunk (``semchunk``) as a plugin.

* ``semchunk.chunkerify(len, chunk_size=max_size)``: the token counter is ``len``, so a token is
  one codepoint (``unit = "chars"``) and no tokenizer is loaded.
* The chunker is called with ``offsets=True`` and ``overlap=overlap`` (an integer overlap of one
  or more is a number of tokens; 0 means no overlap). Offsets are semchunk's own
  ``(start, end)`` pairs, documented to satisfy ``chunks[i] == text[start:end]``.
* Load this module as ``contract.integrations.adapters.semchunk`` (or by plugin name), not as a
file: as a
  file it would shadow the ``semchunk`` package itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from contract.integrations.adapters._base import Adapter, record, require

_DIST, _MODULE = "semchunk", "semchunk"

require(_MODULE, _DIST, "contract.integrations.adapters.semchunk")


class Semchunk(Adapter):
    """``semchunk.chunkerify(len, max_size)(document, offsets=True, overlap=overlap)``."""

    name = "semchunk"
    distribution: ClassVar[str] = _DIST
    module: ClassVar[str] = _MODULE

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        chunker = self.lib.chunkerify(len, chunk_size=max_size)
        chunks, offsets = chunker(document, offsets=True, overlap=overlap)
        return [record(text, start, end) for text, (start, end) in zip(chunks, offsets)]


semchunk = Semchunk
