"""Every front door treats an ``exec:`` target like any other (SPEC 1.1 §8): ``run`` (and
``[tool.chunk-contract]``, run in the folder of pyproject.toml), ``check``, ``replay``,
``matrix``, ``-n`` and the pytest plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
CHUNKER = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
HANG = Path(__file__).with_name("defects") / "hang.mjs"
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")]
FAST = ("--max-examples", "20", "--seed", "1", "--skip", "scales_linearly")


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "chunk_contract", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_a_declared_exec_target_runs_in_the_folder_of_pyproject(tmp_path: Path) -> None:
    shutil.copy(CHUNKER, tmp_path / "chunker.mjs")  # found only relative to pyproject.toml
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunk-contract]\ntargets = ["exec:node chunker.mjs"]\nmax-examples = 20\n')
    (tmp_path / "sub").mkdir()
    done = cli(tmp_path / "sub", "run", "-q", "--skip", "scales_linearly")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASSED" in done.stdout


def test_check_replay_and_json_with_an_exec_target(tmp_path: Path) -> None:
    (tmp_path / "doc.txt").write_text("one two three\n\nfour five\n", encoding="utf-8")
    target = f"exec:{NODE} {CHUNKER}"
    done = cli(tmp_path, "check", target, "doc.txt", "--max-size", "5", "--json", "c.json")
    assert done.returncode == 0, done.stdout + done.stderr
    hang = f"exec:{NODE} {HANG}"
    found = cli(tmp_path, "run", hang, *FAST, "--timeout", "0.5", "--json", "r.json",
                "--reproducers", "saved")
    assert found.returncode == 1, found.stdout + found.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    violated = {r["id"] for r in report["invariants"] if r["status"] == "violated"}
    assert "terminates" in violated
    saved = sorted((tmp_path / "saved").glob("terminates-*.json"))
    replayed = cli(tmp_path, "replay", str(saved[0]), "--trust-target", "--timeout", "0.5")
    assert replayed.returncode == 1 and "STILL FAILS: terminates" in replayed.stdout


def test_parallel_and_matrix_with_an_exec_target(tmp_path: Path) -> None:
    target = f"exec:{NODE} {CHUNKER}"
    done = cli(tmp_path, "run", target, *FAST, "-n", "2", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    table = cli(tmp_path, "matrix", target, "--max-examples", "10", "--seed", "1")
    assert table.returncode == 0, table.stdout + table.stderr


def test_the_pytest_plugin_with_an_exec_target(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--chunk-contract", f"exec:{NODE} {CHUNKER}", "--chunk-contract-max-examples", "10",
         "--chunk-contract-skip", "scales_linearly"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout
