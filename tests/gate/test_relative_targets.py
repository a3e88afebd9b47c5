"""``contract_tests("file.py:split")`` finds a relative file next to the calling test module
first, then in pytest's rootdir, the project root and the current folder: a suite runs the
same from any folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunk_contract.pytest import suite
from tests.gate.conftest import run_in

CHUNKER = '''
def split(document, *, max_size, overlap=0):
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("bad config")
    return [document[i:i + max_size] for i in range(0, len(document), max_size)
            if document[i:i + max_size].strip()]
'''
TEST = '''
from chunk_contract.pytest.suite import contract_tests

test_beside = contract_tests("beside.py:split", max_examples=5, seed=1,
                             only=["cap_respected"], reproducers="repro")
'''


def test_a_file_beside_the_test_module_is_found_from_any_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "tests" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (project / "tests" / "deep" / "beside.py").write_text(CHUNKER)
    (project / "tests" / "deep" / "test_it.py").write_text(TEST)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_in(elsewhere, "-m", "pytest", "-q", "-p", "chunk_contract.pytest.plugin",
                  "-p", "no:cacheprovider", str(project / "tests" / "deep" / "test_it.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    caller, root, project, cwd = (tmp_path / n for n in ("caller", "root", "project", "cwd"))
    for folder in (caller, root, project, cwd):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(suite, "_ROOTDIR", [root])
    where = {"only_cwd.py": [cwd], "in_project.py": [project, cwd],
             "in_root.py": [root, project, cwd], "beside.py": [caller, root, project, cwd]}
    for name, folders in where.items():
        for folder in folders:
            (folder / name).write_text(CHUNKER)
        found = suite.target_base(f"{name}:split", caller=caller, project=project)
        assert found == folders[0], name
    assert suite.target_base("missing.py:split", caller=caller, project=project) == project
    assert suite.target_base("pkg.mod:split", caller=caller, project=project) == project
