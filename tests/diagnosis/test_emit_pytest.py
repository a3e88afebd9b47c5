"""``replay --emit-pytest``: the emitted test fails while the bug is there, passes once fixed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers
from chunk_contract.store.regression import emit_pytest, render

ROOT = Path(__file__).resolve().parents[2]

BUGGY = '''
def split(document, *, max_size, overlap=0):
    """Overlap added on top of a full chunk (seed 002)."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    out, start = [], 0
    while start < len(document):
        end = min(len(document), start + max_size)
        out.append(document[max(0, start - overlap):end])
        start = end
    return [c for c in out if c.strip()]
'''
FIXED = BUGGY.replace("document[max(0, start - overlap):end]", "document[start:end]")


def _pytest(folder: Path, test: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(test)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_emitted_test_is_red_then_green(tmp_path: Path) -> None:
    chunker = tmp_path / "chunker.py"
    chunker.write_text(BUGGY)
    saved = reproducers.Reproducer(
        target=f"{chunker}:split", invariant="cap_respected", document="abcd efgh",
        config=Config(4, 2), message="chunk[1] is 6 chars > max_size 4")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    test = emit_pytest(saved, elsewhere / "test_regression.py", source="saved.json")
    red = _pytest(elsewhere, test)
    assert red.returncode == 1, red.stdout + red.stderr
    assert "cap_respected" in red.stdout
    chunker.write_text(FIXED)
    green = _pytest(elsewhere, test)
    assert green.returncode == 0, green.stdout + green.stderr


def test_the_document_literal_is_exact() -> None:
    document = "x\udbff\udc00y\r\n" + "\U0001f680" * 60 + "\\u00e9"
    saved = reproducers.Reproducer(target="m:f", invariant="span_fidelity", document=document,
                                   config=Config(3, 1), message="m")
    namespace: dict[str, object] = {}
    source = render(saved, source="r.json").replace("from chunk_contract import check", "")
    exec(compile(source, "emitted", "exec"), namespace)  # the module's constants only
    assert namespace["DOCUMENT"] == document
    assert (namespace["MAX_SIZE"], namespace["OVERLAP"]) == (3, 1)


def test_whole_run_rules_rerun_the_contract() -> None:
    saved = reproducers.Reproducer(target="m:f", invariant="scales_linearly", document="",
                                   config=Config(200, 20), message="m", seed=7)
    text = render(saved, source="r.json")
    assert "run(TARGET, settings)" in text and "seed=7" in text


def test_replay_emit_pytest_from_the_cli(tmp_path: Path) -> None:
    from chunk_contract.cli.main import main

    chunker = tmp_path / "chunker.py"
    chunker.write_text(BUGGY)
    saved = reproducers.Reproducer(
        target=f"{chunker}:split", invariant="cap_respected", document="abcd efgh",
        config=Config(4, 2), message="chunk[1] is 6 chars > max_size 4")
    path = reproducers.save(saved, tmp_path / "saved")
    out = tmp_path / "tests" / "test_it.py"
    assert main(["replay", str(path), "--emit-pytest", str(out)]) == 0
    assert _pytest(tmp_path, out).returncode == 1
