"""Proof of red for declared config ranges, through ``python -m chunk_contract run``: a chunker that
declares and enforces ``max_size >= 12`` passes; the same declaration without the refusal is a
``config_validation`` violation; an undeclared floor is ``no_crash``; a bad declaration is a
usage error (exit 2, one line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _run(name: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", f"{HERE / 'ranged.py'}:{name}",
         "--seed", "7",
         "--max-examples", "120", "--reproducers", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=540, cwd=tmp_path,
    )


@pytest.mark.parametrize(
    ("name", "status", "named"),
    [
        ("windows_from_twelve", 0, "PASSED"),
        ("forgets_refusal", 1, "violated (config_validation)"),
        ("undeclared_floor", 1, "violated (no_crash)"),
    ],
)
def test_declared_ranges_verdicts(name: str, status: int, named: str, tmp_path: Path) -> None:
    done = _run(name, tmp_path)
    assert done.returncode == status, done.stdout + done.stderr
    assert named in done.stdout
    if name == "forgets_refusal":
        assert "outside the declared max_size_range (12, None)" in done.stdout


def test_a_bad_declaration_is_one_line_exit_2(tmp_path: Path) -> None:
    done = _run("bad_range", tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "max_size_range = (40, 12)" in lines[0]


@pytest.mark.parametrize(("lax", "status"), [("0", 0), ("1", 1)])
def test_exec_plugins_declare_ranges_in_their_handshake(
    lax: str, status: int, tmp_path: Path
) -> None:
    child = HERE.parent / "outofprocess" / "ranged_child.py"
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", f"exec:{sys.executable} {child}", "--seed",
         "7", "--max-examples", "60", "--skip", "scales_linearly", "--reproducers",
         str(tmp_path / "r")],
        capture_output=True, text=True, timeout=540, cwd=tmp_path,
        env={**os.environ, "RANGED_CHILD_LAX": lax},
    )
    assert done.returncode == status, done.stdout + done.stderr
    if status:
        assert "violated (config_validation)" in done.stdout
