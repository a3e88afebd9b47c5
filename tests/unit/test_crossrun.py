"""deterministic across interpreters: hash()-based output differs under another hash seed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chunk_contract.engine.crossrun import first_difference, rerun
from chunk_contract.spec.model import Config

ROOT = Path(__file__).resolve().parents[2]
CASES = [("alpha beta gamma delta", Config(6, 0))]


def fresh_chunks(
    target: str,
    cases: Sequence[tuple[str, Config]],
    *,
    timeout: float,
    hash_seed: int | None = None,
) -> tuple[int, list[list[dict[str, Any]] | None]] | None:
    """``(hash_seed, records per case)`` (None for a case that raised), or None on no answer."""
    done = rerun(target, cases, timeout=timeout, hash_seed=hash_seed)
    if done.failure or not done.loadable:
        return None
    return done.hash_seed, [a if isinstance(a, list) else None for a in done.answers]


def test_hash_based_ids_differ_between_interpreters() -> None:
    target = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:hash_ids"
    first = fresh_chunks(target, CASES, timeout=5, hash_seed=1)
    second = fresh_chunks(target, CASES, timeout=5, hash_seed=2)
    assert first is not None and second is not None
    difference = first_difference(first[1][0], second[1][0])
    assert difference is not None and ".id was" in difference


def test_deterministic_chunker_is_the_same_in_every_interpreter() -> None:
    target = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
    first = fresh_chunks(target, CASES, timeout=5, hash_seed=1)
    second = fresh_chunks(target, CASES, timeout=5, hash_seed=2)
    assert first is not None and second is not None
    assert first_difference(first[1][0], second[1][0]) is None


def test_unloadable_target_gives_no_verdict() -> None:
    assert fresh_chunks("no/such/file.py:split", CASES, timeout=5) is None


def test_separated_surrogates_reach_the_fresh_interpreter_apart() -> None:
    """Plain JSON would merge '\\ud83d\\ude80' into U+1F680 on the way (SPEC 1.1 §7)."""
    target = f"{ROOT / 'tests' / 'hostile' / 'plugins.py'}:reduce_exit"  # windows, bare strings
    document = "document\ud83d\ude80\ud83d"
    answer = fresh_chunks(target, [(document, Config(100, 0))], timeout=5, hash_seed=1)
    assert answer is not None and answer[1][0] is not None
    assert "".join(chunk["text"] for chunk in answer[1][0]) == document
