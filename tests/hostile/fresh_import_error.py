"""A correct chunker that raises ImportError when loaded in ``deterministic``'s fresh
interpreter only."""

import os

from tests.hostile.plugins import windows

if os.environ.get("CHUNK_CONTRACT_RERUN_PARENT"):
    raise ImportError("only in a fresh interpreter")


def split(document: str, *, max_size: int, overlap: int) -> list[str]:
    return list(windows(document, max_size))
