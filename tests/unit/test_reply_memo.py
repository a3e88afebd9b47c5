"""A split reply byte-for-byte the same as the last one is not decoded and checked again.

``deterministic`` calls the plugin twice on every input: the second reply is nearly always the
same bytes, and checking 100 chunk records again was a fifth of the host's time a call. Any
difference at all (a value, a type, a field more) is decoded and checked as a new reply.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chunk_contract.transport import messages
from chunk_contract.transport.base import ForkTransport
from chunk_contract.transport.loading import load
from chunk_contract.transport.messages import Chunks, Split

PLUGIN = '''
calls = [0]

def split(text, *, max_size, overlap):
    calls[0] += 1
    if text == "flip":  # one more field every other call
        if calls[0] % 2:
            return [{"text": "f", "start": 0, "end": 1}]
        return [{"text": "f", "start": 0, "end": 1, "id": "f"}]
    if text == "order":  # the same values, their keys in another order every other call
        if calls[0] % 2:
            return [{"text": "o", "start": 0, "end": 1}]
        return [{"start": 0, "end": 1, "text": "o"}]
    return [{"text": text[i:i + max_size], "start": i, "end": min(len(text), i + max_size)}
            for i in range(0, len(text), max_size)]

def count_tokens(text):
    return len(text)
'''


@pytest.fixture
def transport(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "plugin.py"
    path.write_text(PLUGIN)
    with ForkTransport(load(f"{path}:split"), timeout=10, memory_mb=None) as fork:
        yield fork


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many chunks each split reply checked had."""
    seen: list[int] = []
    original = messages.checked_columns

    def counting(columns):  # type: ignore[no-untyped-def]
        seen.append(len(columns["text"]))
        return original(columns)

    monkeypatch.setattr(messages, "checked_columns", counting)
    return seen


def _chunks(transport: ForkTransport, document: str) -> Chunks:
    outcome = transport.call(Split(document, 3, 0))
    assert outcome.ok and isinstance(outcome.value, Chunks)
    return outcome.value


def test_the_same_reply_again_is_not_checked_again(transport, checks) -> None:  # type: ignore[no-untyped-def]
    first = _chunks(transport, "abcdefgh")
    again = _chunks(transport, "abcdefgh")
    assert again.chunks == first.chunks
    assert again.chunks is not first.chunks  # a list of its own: the caller may keep it
    assert checks == [3]


def test_a_different_reply_is_checked(transport, checks) -> None:  # type: ignore[no-untyped-def]
    _chunks(transport, "abcdefgh")
    _chunks(transport, "abcdefghi")
    _chunks(transport, "abcdefgh")
    assert checks == [3, 3, 3]


def test_a_reply_whose_bytes_differ_at_all_is_checked_again(transport, checks) -> None:  # type: ignore[no-untyped-def]
    """One field more is other bytes, a new reply: decoded and checked again."""
    first = _chunks(transport, "flip")
    second = _chunks(transport, "flip")
    assert checks == [1, 1]
    assert first.chunks != second.chunks and second.chunks[0].id == "f"


def test_the_same_records_in_another_key_order_are_the_same_reply(transport, checks) -> None:  # type: ignore[no-untyped-def]
    """The worker writes a reply's columns in one fixed order: the order a plugin wrote its
    keys in changes no byte, so the rerun is known unchanged without decoding it."""
    first = _chunks(transport, "order")
    second = _chunks(transport, "order")
    assert checks == [1]
    assert first.chunks == second.chunks
