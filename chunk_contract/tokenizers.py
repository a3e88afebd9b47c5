"""Offline tokenizers of real embedding models, for ``unit = "tokens"`` plugins and adapters.

``pip install 'chunk-contract[tokenizers]'`` installs ``bpe-openai`` (MIT), whose wheel bundles
the BPE vocabularies itself, so nothing is downloaded at run time (unlike ``tiktoken``, which
fetches its files on first use). Each function here is a ready ``count_tokens``::

    from chunk_contract.tokenizers import cl100k_base

    split.unit = "tokens"
    split.count_tokens = cl100k_base        # OpenAI text-embedding-3-small/-large, ada-002
    split.token_counting = "approximate"    # BPE merges across a cut: see README, Token units

- :func:`cl100k_base`: OpenAI's ``text-embedding-3-*`` and ``text-embedding-ada-002``;
- :func:`o200k_base`: OpenAI's GPT-4o family;
- :func:`voyage3_base`: Voyage AI's ``voyage-3`` embedding models.

Text that looks like a special token (``<|endoftext|>``) is counted as ordinary text, as a
document holding it would be. A BPE count is not additive over concatenation (``"hello"`` is
1 token, ``"hel"`` + ``"lo"`` 2), so a plugin using one should declare
``token_counting = "approximate"``; the contract's health check warns otherwise.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["ENCODINGS", "EXTRA", "cl100k_base", "count", "o200k_base", "voyage3_base"]

#: The encodings the bundled vocabularies provide.
ENCODINGS = ("cl100k_base", "o200k_base", "voyage3_base")
EXTRA = "chunk-contract[tokenizers]"


@functools.lru_cache(maxsize=len(ENCODINGS))
def _encoding(name: str) -> Any:
    """The bpe-openai encoding ``name``, loaded once per process from the installed wheel."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; expected one of {', '.join(ENCODINGS)}")
    try:
        import bpe_openai
    except ImportError:
        raise ImportError(
            f"chunk_contract.tokenizers needs the bpe-openai package (its wheel bundles the "
            f"vocabularies): pip install '{EXTRA}'"
        ) from None
    return bpe_openai.get_encoding(name)


def count(text: str, *, encoding: str = "cl100k_base") -> int:
    """The number of ``encoding`` tokens in ``text`` (special-token text counts as text)."""
    return len(_encoding(encoding).encode(text, disallowed_special=()))


def cl100k_base(text: str) -> int:
    """Tokens of OpenAI's ``cl100k_base`` (the ``text-embedding-3-*`` models)."""
    return count(text, encoding="cl100k_base")


def o200k_base(text: str) -> int:
    """Tokens of OpenAI's ``o200k_base``."""
    return count(text, encoding="o200k_base")


def voyage3_base(text: str) -> int:
    """Tokens of Voyage AI's ``voyage-3`` embedding models."""
    return count(text, encoding="voyage3_base")
