"""A last shrinking pass over a failing text document: delete what the failure does not need.

Hypothesis shrinks within what its strategies can express; a prose fragment drawn whole cannot
lose a word. This pass removes runs of characters (halves, quarters, ... single characters)
while the failure persists, within a call and time budget, so reports show small documents.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def minimize(
    document: str, fails: Callable[[str], bool], *, max_calls: int = 400, seconds: float = 5.0
) -> str:
    """The smallest document found by deleting runs of ``document`` while ``fails`` holds."""
    deadline = time.monotonic() + seconds
    calls = 0
    size = max(1, len(document) // 2)
    while size >= 1 and calls < max_calls and time.monotonic() < deadline:
        start = 0
        while start < len(document) and calls < max_calls and time.monotonic() < deadline:
            candidate = document[:start] + document[start + size :]
            calls += 1
            if candidate != document and fails(candidate):
                document = candidate
            else:
                start += size
        size //= 2
    return document
