"""chunk_contract.containment.boundaries: where a boundary around plugin code cannot be enforced,
the run says so once, in a health-check line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.containment import boundaries
from tests.unit.helpers import NO_SHIELD, shield_works

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def unenforced(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    missing: set[str] = set()
    monkeypatch.setattr(boundaries, "unenforced", lambda: frozenset(missing))
    return missing


def test_each_missing_boundary_is_one_line_saying_why_and_how_to_fix(
    unenforced: set[str],
) -> None:
    assert boundaries.warnings() == []
    unenforced.update({"seccomp", "capabilities"})
    lines = boundaries.warnings()
    assert len(lines) == 2
    assert lines[0].startswith("warning: seccomp boundary not enforced") and "fix:" in lines[0]
    assert "root" in lines[1] and "CAP_SYS_PTRACE" in lines[1]


def test_the_run_warns_once_on_stderr(
    unenforced: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unenforced.add("seccomp")
    monkeypatch.chdir(tmp_path)
    target = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
    code = cli.main(["run", target, "--max-examples", "2", "--only", "no_crash", "--no-corpus",
                     "--no-schedule", "--reproducers", str(tmp_path / "r"), "-q"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.count("seccomp boundary not enforced") == 1, err


@pytest.mark.skipif(not shield_works(), reason=NO_SHIELD)
def test_this_linux_machine_enforces_every_boundary() -> None:
    """Here the filter goes in, and as root (CI) every capability goes out."""
    boundaries.unenforced.cache_clear()
    assert boundaries.unenforced() == frozenset(), boundaries.warnings()
    assert sys.platform.startswith("linux") and os.path.exists("/proc/self/stat")


def test_the_probe_reports_a_filter_that_did_not_go_in_and_capabilities_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunk_contract.containment import sandbox

    monkeypatch.setattr(sandbox, "shield", lambda pids: False)
    monkeypatch.setattr(sandbox, "capabilities", lambda: (1 << 19, 1 << 19))  # CAP_SYS_PTRACE
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert boundaries._shielded_code() == 3
    assert sorted(boundaries._probe()) == ["capabilities", "seccomp"]
