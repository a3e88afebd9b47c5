"""docs/protocol.md's example chunker really speaks the protocol and keeps what the page says."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.outofprocess.driving import exec_session, violations

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
NODE = shutil.which("node")


def example() -> str:
    """The page's JavaScript block."""
    blocks = re.findall(r"```js\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 1, "docs/protocol.md should hold exactly one ```js example"
    return str(blocks[0])


def test_the_example_is_about_twenty_lines() -> None:
    assert len(example().splitlines()) <= 25


@pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")
def test_the_example_breaks_only_non_empty(tmp_path: Path) -> None:
    script = tmp_path / "chunker.mjs"
    script.write_text(example())
    with exec_session(f"exec:{NODE} {script}") as session:
        found = violations(session, examples=150)
    assert set(found) == {"non_empty"}, found  # whitespace-only windows: it does not trim
