"""chunk_contract.tokenizers: real embedding-model tokenizers that count offline (the ``tokenizers``
extra). Slow: ``nox -s slow`` installs the extra."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from chunk_contract.engine.health import count_tokens_additive, probes

pytestmark = pytest.mark.slow


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hub, and every socket connection refused: a download would fail loudly. Skips where
    the ``tokenizers`` extra is not installed (``nox -s slow`` installs it)."""
    pytest.importorskip("bpe_openai", reason="needs the tokenizers extra: pip install "
                        "'chunk-contract[tokenizers]' (nox -s slow installs it)")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/nonexistent")

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("network access attempted in an offline test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_known_counts_offline(offline: None) -> None:
    from chunk_contract import tokenizers

    tokenizers._encoding.cache_clear()
    assert tokenizers.cl100k_base("Smoke tests keep releases honest.") == 6
    assert tokenizers.cl100k_base("hello") == 1
    assert tokenizers.o200k_base("hello world") == 2
    assert tokenizers.voyage3_base("hello world") >= 1
    assert tokenizers.cl100k_base("<|endoftext|>") > 1  # special-token text counts as text
    assert tokenizers.cl100k_base("a\ud800b") >= 1  # lone surrogates do not raise


def test_an_unknown_encoding_names_the_known_ones() -> None:
    from chunk_contract import tokenizers

    with pytest.raises(ValueError, match="cl100k_base"):
        tokenizers.count("x", encoding="gpt2")


def test_the_health_check_sees_that_bpe_is_not_additive(offline: None) -> None:
    from chunk_contract.tokenizers import cl100k_base

    document = "hello world"
    records = [{"text": "hel", "start": 0, "end": 3}, {"text": "lo world", "start": 3, "end": 11}]
    assert count_tokens_additive(cl100k_base, probes(records, document))
