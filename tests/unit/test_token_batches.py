"""Token counts are asked for ahead of the checks, a batch at a time: one round trip for a
call's chunks instead of one per chunk, and a count that fails is still named text by text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chunk_contract.engine import session as session_module
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config
from chunk_contract.transport.loading import load
from chunk_contract.transport.messages import CountTokens

PLUGIN = '''
unit = "tokens"

def count_tokens(text):
    if "poison" in text:
        raise ValueError("cannot count " + text)
    return len(text.split())

def split(text, *, max_size, overlap):
    words = text.split(" ")
    step = max_size - overlap
    out, at = [], 0
    for i in range(0, len(words), step):
        piece = " ".join(words[i:i + max_size])
        start = text.index(piece, at) if piece else at
        out.append({"text": piece, "start": start, "end": start + len(piece)})
        at = start
        if i + max_size >= len(words):
            break
    return out

split.unit = "tokens"
split.count_tokens = count_tokens
'''


@pytest.fixture
def session(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "tokens.py"
    path.write_text(PLUGIN)
    with Session(load(f"{path}:split"), timeout=10, memory_mb=None,
                 selected=["cap_respected", "overlap_bounded"]) as opened:
        yield opened


def _counting(session: Session) -> list[int]:
    """The number of texts of every count_tokens request the session sends."""
    sizes: list[int] = []
    call = session.transport.call

    def counted(request: Any, **kwargs: Any) -> Any:
        if isinstance(request, CountTokens):
            sizes.append(len(request.texts))
        return call(request, **kwargs)

    session.transport.call = counted  # type: ignore[method-assign]
    return sizes


def test_a_calls_chunks_are_counted_in_batches(session: Session) -> None:
    document = " ".join(f"w{i}" for i in range(1200))
    sizes = _counting(session)
    seen = session.observe(document, Config(4, 1), rerun=False)
    assert seen.violations == [] and len(seen.chunks or []) > 300
    # every chunk and every overlap in batches, nothing asked text by text afterwards
    assert len(sizes) <= 2 * (len(seen.chunks or []) // session_module.COUNT_BATCH + 1)
    assert max(sizes) == session_module.COUNT_BATCH and 1 not in sizes


def test_counts_asked_once_are_not_asked_again(session: Session) -> None:
    document = " ".join(f"w{i}" for i in range(40))
    session.observe(document, Config(4, 1), rerun=False)
    sizes = _counting(session)
    session.observe(document, Config(4, 1), rerun=False)
    assert sizes == []


def test_a_count_that_fails_in_a_batch_is_named_text_by_text(session: Session) -> None:
    document = "a b c poison d e f g"
    sizes = _counting(session)
    seen = session.observe(document, Config(3, 0), rerun=False)
    assert sizes[0] > 1 and 1 in sizes[1:]  # the batch failed: then one text at a time
    message = " ".join(v.message for v in seen.violations)
    assert "count_tokens" in message and "poison" in message
