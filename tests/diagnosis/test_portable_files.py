"""Portable, safe files: an emitted regression test names its target relative to the project
root and runs from any folder or machine; a crafted reproducer cannot put code into it;
reproducer names tell targets apart; ``replay --prune`` deletes what no longer fails."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.cli.main import main
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers
from chunk_contract.store.regression import emit_pytest, render

ROOT = Path(__file__).resolve().parents[2]

BUGGY = '''
def split(document, *, max_size, overlap=0):
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    step = max_size + 1  # one character too many per chunk
    return [document[i:i + step] for i in range(0, len(document), step)
            if document[i:i + step].strip()]
'''
FIXED = BUGGY.replace("step = max_size + 1", "step = max_size")


def _pytest(folder: Path, test: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(test)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def _project(folder: Path, source: str = BUGGY) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (folder / "src" / "chunker.py").write_text(source)
    return folder


def _saved(target: str, **changes: object) -> reproducers.Reproducer:
    fields: dict[str, object] = {
        "target": target, "invariant": "cap_respected", "document": "abcd efgh",
        "config": Config(4, 0), "message": "chunk[0] is 5 chars > max_size 4"}
    fields.update(changes)
    return reproducers.Reproducer(**fields)  # type: ignore[arg-type]


def test_emitted_test_names_the_target_from_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path / "original")
    monkeypatch.chdir(project)
    test = emit_pytest(_saved("src/chunker.py:split"), project / "tests" / "test_reg.py",
                       source="r.json")
    text = test.read_text()
    assert "TARGET_FILE = 'src/chunker.py'" in text and str(tmp_path) not in text
    # The project moves (another checkout, another machine); pytest runs from elsewhere.
    moved = shutil.copytree(project, tmp_path / "checkout")
    shutil.rmtree(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    red = _pytest(elsewhere, moved / "tests" / "test_reg.py")
    assert red.returncode == 1 and "cap_respected" in red.stdout, red.stdout + red.stderr
    (moved / "src" / "chunker.py").write_text(FIXED)
    green = _pytest(elsewhere, moved / "tests" / "test_reg.py")
    assert green.returncode == 0, green.stdout + green.stderr


INJECTIONS = [
    '"""\nimport pathlib; pathlib.Path("PWNED").write_text("x")\n"""',
    "'''\nimport pathlib; pathlib.Path('PWNED').write_text('x')\n'''",
    'x:split\nimport pathlib; pathlib.Path("PWNED").write_text("x") #',
]


@pytest.mark.parametrize("crafted", INJECTIONS)
def test_a_crafted_reproducer_cannot_inject_code(crafted: str, tmp_path: Path) -> None:
    saved = _saved(f"{crafted}:split", message=crafted, document=crafted)
    text = render(saved, source=crafted)
    tree = ast.parse(text)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    # Only the emitted test's own calls: check(...) and the message join; no write_text.
    assert {ast.unparse(c.func) for c in calls} <= {"check", "'\\n'.join", "str"}
    module = {k: v for k, v in _constants(tree).items()}
    assert module["OBSERVED"] == crafted.splitlines()[0] and module["DOCUMENT"] == crafted
    assert module["TARGET"] == f"{crafted}:split"
    # Running the test runs no injected code either (the target cannot load: it fails).
    test = tmp_path / "test_crafted.py"
    test.write_text(text)
    _pytest(tmp_path, test)
    assert not (tmp_path / "PWNED").exists()


def _constants(tree: ast.Module) -> dict[str, object]:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


def test_reproducer_names_carry_the_target(tmp_path: Path) -> None:
    one = reproducers.save(_saved("pkg/a.py:split"), tmp_path)
    two = reproducers.save(_saved("pkg/b.py:split"), tmp_path)
    other = reproducers.save(_saved("exec:node ../chunk.js --fast"), tmp_path)
    assert one.name.startswith("cap_respected-a.split-")
    assert two.name.startswith("cap_respected-b.split-")
    assert other.name.startswith("cap_respected-exec_node_chunk.js_fast-")
    assert all("/" not in p.name.removesuffix(".json") for p in (one, two, other))


def test_prune_deletes_the_fixed_and_keeps_the_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path / "p")
    (project / "src" / "fixed.py").write_text(FIXED)
    monkeypatch.chdir(project)
    folder = project / ".chunk-contract" / "reproducers"
    failing = reproducers.save(_saved("src/chunker.py:split"), folder)
    fixed = reproducers.save(_saved("src/fixed.py:split"), folder)
    (folder / "notes.json").write_text(json.dumps({"not": "a reproducer"}))
    assert main(["replay", "--prune"]) == 2  # the recorded targets were not named
    assert failing.exists() and fixed.exists()
    capsys.readouterr()
    assert main(["replay", "--prune", str(folder), "--trust-target"]) == 1
    out = capsys.readouterr().out
    assert failing.exists() and not fixed.exists() and (folder / "notes.json").exists()
    assert "deleted 1 that no longer fail, kept 1 that still fail" in out


def test_prune_with_a_target_touches_only_that_targets_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path / "p", FIXED)
    (project / "src" / "other.py").write_text(FIXED)
    monkeypatch.chdir(project)
    folder = project / "r"
    mine = reproducers.save(_saved("src/chunker.py:split"), folder)
    theirs = reproducers.save(_saved("src/other.py:split"), folder)
    assert main(["replay", "--prune", "r", "--target", "src/chunker.py:split"]) == 0
    assert not mine.exists() and theirs.exists()
    assert "deleted 1" in capsys.readouterr().out
