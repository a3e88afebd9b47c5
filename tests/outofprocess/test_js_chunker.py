"""The JavaScript reference chunker, driven through ExecChild: it keeps every applicable rule;
its defective twin (seed 003's non-advancing loop) is caught as ``terminates``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.outofprocess.driving import exec_session, violations

ROOT = Path(__file__).resolve().parents[2]
CHUNKER = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
HANG = Path(__file__).with_name("defects") / "hang.mjs"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")


@needs_node
def test_the_js_reference_chunker_keeps_every_rule() -> None:
    with exec_session(f"exec:{NODE} {CHUNKER}") as session:
        assert session.plugin.declarations.unit == "chars"
        found = violations(session, examples=300)
    assert found == {}, found


@needs_node
def test_the_js_reference_chunker_on_astral_text_and_python_whitespace() -> None:
    document = "\ufeffab\U0001f600\U0001f600 cd\x1c\x1d\n\n\U0001d11e" * 3 + "\u3000x\u0085"
    with exec_session(f"exec:{NODE} {CHUNKER}") as session:
        for max_size, overlap in ((1, 0), (2, 1), (3, 2), (5, 0), (7, 3)):
            from chunk_contract.spec.model import Config

            seen = session.observe(document, Config(max_size, overlap))
            assert seen.violations == [], seen.violations
            assert seen.records and "".join(r["text"] for r in seen.records).count("\U0001f600")


@needs_node
def test_the_js_reference_chunker_refuses_degenerate_configs() -> None:
    from chunk_contract.spec.model import Config
    from chunk_contract.transport.messages import Raised, Split

    with exec_session(f"exec:{NODE} {CHUNKER}") as session:
        for config in (Config(0, 0), Config(3, 3), Config(3, -1), Config(1, 999)):
            reply = session.transport.call(Split("abc", config.max_size, config.overlap))
            assert reply.ok and isinstance(reply.value, Raised) and reply.value.rejects


@needs_node
def test_seed_003s_non_advancing_loop_is_caught_as_terminates() -> None:
    with exec_session(f"exec:{NODE} {HANG}", timeout=0.5, memory_mb=256) as session:
        found = violations(session, examples=40, stop_at="terminates")
    assert "terminates" in found, found
