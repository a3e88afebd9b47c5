"""Verdicts through ``python -m chunk_contract run``: one cause gives one verdict, and input classes
are met by construction (on every seed), in-process and from an ``exec:`` child.

Each test names the defect it must catch (tests/defects/chunkers.py,
tests/outofprocess/defects/) and what the report must say about it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHUNKERS = HERE / "chunkers.py"
UTF16_CUT = ROOT / "tests" / "outofprocess" / "defects" / "utf16_cut.mjs"
NODE = shutil.which("node")


def _run(target: str, tmp_path: Path, *flags: str) -> tuple[int, dict[str, Any], str]:
    report = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", target, "--json", str(report), *flags],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env, check=False,
    )
    return done.returncode, json.loads(report.read_text("utf-8")), done.stdout


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["id"]: item for item in report["invariants"]}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crash_on_a_document_of_unicode_whitespace_is_caught_on_every_seed(
    seed: int, tmp_path: Path
) -> None:
    """The seed corpus holds a document of each class of non-ASCII whitespace, longer than the
    cap: found whatever the seed, before any generated example (20 are enough)."""
    status, report, _ = _run(f"{CHUNKERS}:blank_tag_unicode_whitespace", tmp_path,
                             "--seed", str(seed), "--only", "no_crash", "--max-examples", "20")
    assert status == 1
    assert _by_id(report)["no_crash"]["status"] == "violated"


def test_wrong_offsets_over_text_all_there_give_one_verdict(tmp_path: Path) -> None:
    """Offsets that forget the dropped spaces: span_fidelity is the verdict; no_lost_text is
    judged from the texts (nothing is lost), and the line citations, right where the text
    really is, fail only at the wrong offsets: they follow from span_fidelity."""
    status, report, text = _run(f"{CHUNKERS}:offsets_skip_dropped_space", tmp_path,
                                "--seed", "1", "--skip", "scales_linearly",
                                "--max-examples", "100")
    items = _by_id(report)
    assert status == 1
    assert items["span_fidelity"]["status"] == "violated"
    assert "follows_from" not in items["span_fidelity"]
    assert items["no_lost_text"]["status"] == "passed"
    lines = items["line_citations"]
    assert lines["status"] == "violated" and lines["follows_from"] == "span_fidelity"
    assert lines["counterexample"]["follows_from"] == "span_fidelity"
    assert "(follows from span_fidelity)" in text


@pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_bare_string_emoji_cut_from_an_exec_child_is_caught(seed: int, tmp_path: Path) -> None:
    """A JavaScript word packer that cuts long words with string indices returns
    ['x\\ud83d', '\\ude00y'] for 'x😀y' at cap 2: the lone surrogates cross the wire and
    codepoint_integrity reports them, on every seed."""
    status, report, _ = _run(f"exec:{NODE} {UTF16_CUT}", tmp_path, "--seed", str(seed),
                             "--only", "codepoint_integrity", "--max-examples", "20")
    assert status == 1
    found = _by_id(report)["codepoint_integrity"]
    assert found["status"] == "violated"
    assert "lone surrogate" in found["counterexample"]["message"]


@pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")
def test_the_cut_emoji_is_one_verdict(tmp_path: Path) -> None:
    """The halves are text the document does not hold only because of the cut: span_fidelity
    follows from codepoint_integrity."""
    status, report, text = _run(f"exec:{NODE} {UTF16_CUT}", tmp_path, "--seed", "1",
                                "--skip", "scales_linearly", "--max-examples", "20")
    items = _by_id(report)
    assert status == 1 and "follows_from" not in items["codepoint_integrity"]
    assert items["span_fidelity"]["follows_from"] == "codepoint_integrity"
    assert "(follows from codepoint_integrity)" in text
