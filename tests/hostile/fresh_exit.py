"""A correct chunker that exits with status 3 when loaded in ``deterministic``'s fresh
interpreter (the status that once meant "cannot be loaded there: no verdict")."""

import os

from tests.hostile.plugins import windows

if os.environ.get("CHUNK_CONTRACT_RERUN_PARENT"):
    os._exit(3)


def split(document: str, *, max_size: int, overlap: int) -> list[str]:
    return list(windows(document, max_size))
