"""scales_linearly's measurements through ExecChild: the child's CPU time, not the host's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chunk_contract.engine import scaling
from chunk_contract.transport.exec_child import ExecChild
from chunk_contract.transport.outofprocess import OutOfProcessTransport

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
SIZES = (12_500, 25_000, 50_000)
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")


def timing(script: Path) -> scaling.Timing | None:
    """The family timed through the transport ``chunk-contract run`` uses for an exec: target."""
    with OutOfProcessTransport(f"exec:{NODE} {script}", timeout=20.0, memory_mb=1024) as child:
        child.start()
        return scaling.measure(child, "one long line", timeout=20.0, sizes=SIZES)


def test_a_quadratic_js_chunker_is_superlinear() -> None:
    found = timing(Path(__file__).with_name("defects") / "quadratic.mjs")
    assert found is not None and found.superlinear, found


def test_the_js_reference_chunker_is_linear() -> None:
    found = timing(ROOT / "chunk_contract_reference" / "js" / "chunker.mjs")
    assert found is not None and not found.superlinear, found


def test_a_family_request_is_built_in_the_host_and_timed() -> None:
    chunker = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
    with ExecChild(f"exec:{NODE} {chunker}") as child:
        child.start()
        outcome = child.call(("timed-family", "newlines only", 1000, 200, 20))
    assert outcome.ok and outcome.value[0] == "timed", outcome
    _, seconds, split = outcome.value
    assert isinstance(seconds, float) and seconds >= 0 and split[0] == "chunks"
