"""chunk_contract.engine.exec_probe: the contract on an exec: command, as the StrykerJS test command
uses it (exit 0 clean, 1 on a violation, 2 when the command is no chunker)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from chunk_contract.engine.exec_probe import main

ROOT = Path(__file__).resolve().parents[2]
CHUNKER = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
DEFECTS = Path(__file__).with_name("defects")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@needs_node
def test_a_correct_js_chunker_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--examples", "30", "--seed", "1", "--seed", "2", "--", "node", str(CHUNKER)]) == 0
    assert "no violation" in capsys.readouterr().out


@needs_node
def test_a_defective_js_chunker_exits_1_naming_the_invariant(tmp_path: Path) -> None:
    out = tmp_path / "found.json"
    code = main(["--examples", "20", "--fail-fast", "--timeout", "0.5", "--json", str(out),
                 "--", "node", str(DEFECTS / "hang.mjs")])
    assert code == 1
    # The seed corpus comes first: its astral probe catches the UTF-16 slicing at once.
    found = json.loads(out.read_text("utf-8"))
    assert list(found) == ["span_fidelity", "codepoint_integrity"], found
    assert found["codepoint_integrity"]["document"] == "ab \U0001f680cd\nef"


def test_a_command_that_is_no_chunker_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--examples", "5", "--", sys.executable, "-c", "print('hello')"])
    assert code == 2
    assert "exec_probe:" in capsys.readouterr().err
