"""A reproducer is data: ``replay`` names the target it will run, and runs no target the user
did not name (``--target``) or trust (``--trust-target``)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from chunk_contract.cli.main import main
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers

CORRECT = '''
def split(document, *, max_size, overlap=0):
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    return [document[i:i + max_size] for i in range(0, len(document), max_size)
            if document[i:i + max_size].strip()]
'''


def _exec_reproducer(folder: Path) -> tuple[Path, Path]:
    """A reproducer whose exec: target would leave a marker file if it ever ran."""
    marker = folder / "RAN"
    script = f"open({str(marker)!r}, 'w').write('x')"
    target = f"exec:{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    saved = reproducers.Reproducer(target=target, invariant="no_lost_text", document="ab cd",
                                   config=Config(3, 0), message="m")
    return reproducers.save(saved, folder / "shared"), marker


def test_replay_refuses_an_unnamed_exec_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path, marker = _exec_reproducer(tmp_path)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exec:" in err[0]
    assert "--target TARGET" in err[0] and "--trust-target" in err[0]
    assert not marker.exists()


def test_emit_pytest_runs_nothing_and_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path, marker = _exec_reproducer(tmp_path)
    assert main(["replay", str(path), "--emit-pytest", str(tmp_path / "test_r.py")]) == 0
    assert "it runs the target 'exec:" in capsys.readouterr().out and not marker.exists()


def test_target_flag_replays_on_the_named_chunker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(CORRECT)
    path, marker = _exec_reproducer(tmp_path)
    assert main(["replay", str(path), "--target", "mine.py:split"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("replaying no_lost_text on mine.py:split") and "FIXED" in out
    assert not marker.exists()


def test_trust_target_runs_the_recorded_one_and_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(CORRECT)
    saved = reproducers.Reproducer(target="mine.py:split", invariant="no_lost_text",
                                   document="ab cd", config=Config(3, 0), message="m")
    path = reproducers.save(saved, tmp_path / "r")
    assert main(["replay", str(path), "--trust-target"]) == 0
    assert capsys.readouterr().out.startswith("replaying no_lost_text on ")


def test_the_report_hint_names_the_target(tmp_path: Path) -> None:
    command = reproducers.replay_command(tmp_path / "a b.json", "exec:node x.js")
    assert command == f"chunk-contract replay '{tmp_path}/a b.json' --target 'exec:node x.js'"
    assert json.dumps(command)  # one line, plain text
