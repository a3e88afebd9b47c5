"""Extensions reach every front door: a rule, a report format, a diagnosis pattern and a target
kind from a package outside the project (tests/extend/sample_extension.py, copied as
``house_ext``), named by ``--plugin``, ``plugins = [...]``, ``$CHUNK_CONTRACT_PLUGINS``, an
entry point, ``--chunk-contract-plugin`` or the Action's ``plugins`` input.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chunk_contract import _extensions
from chunk_contract.config import plugins
from chunk_contract.config.pyproject import ConfigError
from chunk_contract.config.pyproject import load as load_table
from chunk_contract.errors import UsageError
from chunk_contract.transport import kinds

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RULE = "house_text_from_document"
ECHO = "pyfile:child.py echo"  # the sample kind's target: a child that adds a foreign chunk
GOOD = "pyfile:child.py good"
QUICK = ["--max-examples", "5", "--seed", "1", "--no-schedule", "-q"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder holding the child script, and the extension package beside it."""
    work = tmp_path / "project"
    package = tmp_path / "ext" / "house_ext"
    package.mkdir(parents=True)
    work.mkdir()
    shutil.copy(HERE / "sample_extension.py", package / "__init__.py")
    shutil.copy(HERE / "sample_child.py", work / "child.py")
    return work


def _env(*paths: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUNK_CONTRACT")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), str(ROOT)])
    return {**env, **extra}


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chunk_contract", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def _ext(project: Path) -> Path:
    return project.parent / "ext"


# ----------------------------------------------------------------------------- the CLI


def test_a_plugin_brings_its_rule_format_pattern_and_kind_to_run(project: Path) -> None:
    args = ["run", ECHO, "--plugin", "house_ext", "--only", RULE, *QUICK,
            "--house-count", "count.txt", "--json", "report.json", "--sarif", "out.sarif"]
    done = _cli(args, project, _env(_ext(project)))
    assert done.returncode == 1, done.stderr[-2000:]
    assert RULE in done.stdout
    assert (project / "count.txt").read_text() == f"{ECHO} violated={RULE}\n"  # the format
    verdicts = json.loads((project / "report.json").read_text())["invariants"]
    (item,) = [v for v in verdicts if v["status"] == "violated"]
    assert item["counterexample"]["diagnosis"]["pattern"] == "house_echo"  # the pattern
    sarif = json.loads((project / "out.sarif").read_text())
    (result,) = sarif["runs"][0]["results"]
    where = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert where == "child.py"  # the kind's location, not the target string


def test_without_the_plugin_the_same_command_is_a_usage_error(project: Path) -> None:
    done = _cli(["run", ECHO, "--only", RULE, *QUICK], project, _env(_ext(project)))
    assert done.returncode == 2, done.stderr[-2000:]


def test_a_correct_chunker_passes_the_plugin_rule(project: Path) -> None:
    done = _cli(["run", GOOD, "--plugin=house_ext", "--only", RULE, *QUICK, "--json", "r.json"],
                project, _env(_ext(project)))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    verdicts = json.loads((project / "r.json").read_text())["invariants"]
    assert {v["id"]: v["status"] for v in verdicts}[RULE] == "passed"


def test_a_replay_of_a_plugin_kind_runs_from_another_folder(project: Path) -> None:
    env = _env(_ext(project))
    assert _cli(["run", ECHO, "--plugin", "house_ext", "--only", RULE, *QUICK,
                 "--reproducers", "saved"], project, env).returncode == 1
    (saved,) = (project / "saved").glob("*.json")
    assert json.loads(saved.read_text())["base"] == str(project)  # the kind's working folder
    done = _cli(["replay", str(saved), "--trust-target", "--plugin", "house_ext"], project.parent,
                env)
    assert done.returncode == 1 and f"STILL FAILS: {RULE}" in done.stdout, done.stderr[-2000:]


def test_the_environment_variable_names_plugins_for_list_and_check(project: Path) -> None:
    env = _env(_ext(project), CHUNK_CONTRACT_PLUGINS=" house_ext , ")
    listed = _cli(["list"], project, env)
    assert listed.returncode == 0 and RULE in listed.stdout
    (project / "doc.txt").write_text("hello world", encoding="utf-8")
    done = _cli(["check", ECHO, "doc.txt", "--max-size", "4", "--house-count", "c.txt"],
                project, env)
    assert done.returncode == 1 and RULE in (project / "c.txt").read_text()
    assert RULE not in _cli(["list"], project, _env(_ext(project))).stdout  # control


def test_the_pyproject_plugins_key_is_imported_from_the_project_folder(project: Path) -> None:
    shutil.move(str(_ext(project) / "house_ext"), str(project / "house_ext"))  # in the project
    (project / "pyproject.toml").write_text(
        f'[tool.chunk-contract]\ntargets = ["{ECHO}"]\nplugins = ["house_ext"]\n'
        f'only = ["{RULE}"]\nmax-examples = 5\nschedule = false\n', encoding="utf-8")
    below = project / "docs"
    below.mkdir()
    done = _cli(["run", "--house-count", "c.txt", "-q"], below, _env())
    assert done.returncode == 1, done.stderr[-2000:]
    assert (below / "c.txt").read_text() == f"{ECHO} violated={RULE}\n"


def test_entry_points_need_no_naming(project: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "house_ext-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: house-ext\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[chunk_contract.invariants]\nrules = house_ext\n"
        "[chunk_contract.formats]\ncount = house_ext:FORMAT\n"
        "[chunk_contract.patterns]\necho = house_ext\n"
        "[chunk_contract.target_kinds]\npyfile = house_ext:KIND\n"
    )
    env = _env(site, _ext(project))
    done = _cli(["run", ECHO, "--only", RULE, *QUICK, "--house-count", "c.txt"], project, env)
    assert done.returncode == 1, done.stderr[-2000:]
    assert (project / "c.txt").read_text() == f"{ECHO} violated={RULE}\n"


def test_a_broken_entry_point_is_one_line_naming_it(tmp_path: Path) -> None:
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[chunk_contract.invariants]\nrules = no_such_mod\n")
    done = _cli(["list"], tmp_path, _env(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "rules = no_such_mod" in done.stderr and "broken 1.0" in done.stderr


# ----------------------------------------------------------------------------- pytest, Action


def test_the_pytest_plugin_takes_a_plugin_option(project: Path) -> None:
    (project / "tests").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests",
         "--chunk-contract", ECHO, "--chunk-contract-plugin", "house_ext",
         "--chunk-contract-only", RULE, "--chunk-contract-max-examples", "5",
         "--chunk-contract-house-count", "c.txt"],
        cwd=project, env=_env(_ext(project)), capture_output=True, text=True, timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{RULE} FAILED" in done.stdout or "1 failed" in done.stdout
    assert (project / "c.txt").read_text() == f"{ECHO} violated={RULE}\n"


def _action_step() -> str:
    yaml = pytest.importorskip("yaml")
    steps: list[dict[str, Any]] = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
    return str(next(s for s in steps if s.get("name") == "Run the contract")["run"])


def test_the_action_passes_its_plugins_input(project: Path, tmp_path: Path) -> None:
    shim = tmp_path / "bin" / "chunk-contract"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m chunk_contract.cli.main "$@"\n')
    shim.chmod(0o755)
    output = tmp_path / "github_output"
    env = _env(_ext(project), PATH=f"{shim.parent}{os.pathsep}{os.environ.get('PATH', '')}",
               RUNNER_TEMP=str(tmp_path), GITHUB_OUTPUT=str(output),
               GITHUB_STEP_SUMMARY=str(tmp_path / "summary"), TARGET=ECHO, PROFILE="ci",
               SARIF="out.sarif", HTML="", PLUGINS="house_ext",
               ARGS=f"--only {RULE} --max-examples 5 --house-count c.txt")
    done = subprocess.run(["bash", "-e", "-c", _action_step()], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "exit-code=1" in output.read_text()
    assert (project / "c.txt").read_text() == f"{ECHO} violated={RULE}\n"


# ----------------------------------------------------------------------------- units


def test_plugin_flags_are_taken_out_before_parsing() -> None:
    argv = ["run", "--plugin", "a", "t.py:f", "--plugin=b.c", "--", "--plugin", "x"]
    assert plugins.take_flags(argv) == (["a", "b.c"], ["run", "t.py:f", "--", "--plugin", "x"])
    for bad in (["--plugin"], ["--plugin", "--only"], ["--plugin="]):
        with pytest.raises(UsageError, match="needs a MODULE"):
            plugins.take_flags(bad)


def test_the_environment_lists_modules_by_commas() -> None:
    assert plugins.from_environment({"CHUNK_CONTRACT_PLUGINS": "a, b.c,,"}) == ("a", "b.c")
    assert plugins.from_environment({}) == ()


def test_a_missing_or_failing_plugin_module_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(_extensions.ExtensionError, match="no module named 'no_such_plugin'"):
        _extensions.import_plugin("no_such_plugin", folder=tmp_path, source="--plugin")
    (tmp_path / "raises_on_import.py").write_text("import no_such_dependency\n")
    with pytest.raises(_extensions.ExtensionError, match="failed on import: ModuleNotFound"):
        _extensions.import_plugin("raises_on_import", folder=tmp_path, source="--plugin")
    with pytest.raises(_extensions.ExtensionError, match="not a module name"):
        _extensions.import_plugin("a/b.py", folder=None, source="--plugin")


def test_the_plugins_key_must_be_a_list_of_module_names(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    for value in ('"house_ext"', "[1]", '[""]'):
        path.write_text(f"[tool.chunk-contract]\nplugins = {value}\n")
        with pytest.raises(ConfigError, match="plugins must be a list of module names"):
            load_table(path)


def test_a_target_prefix_belongs_to_one_kind() -> None:
    exec_kind = kinds.kind_of("exec:node x.js")
    assert exec_kind is kinds.EXEC and kinds.kind_of("https://a.test") is kinds.HTTP
    assert kinds.kind_of("chunker.py:split") is None and kinds.kind_of(object()) is None
    with pytest.raises(ValueError, match="registered twice"):
        kinds.register_kind(kinds.TargetKind("exec:", lambda target, **limits: None))
    with pytest.raises(ValueError, match="non-empty prefix"):
        kinds.register_kind(kinds.TargetKind("", lambda target, **limits: None))


#: Where a target's prefix may be read: the kinds themselves, and each kind's own child.
_PREFIX_READERS = {"transport/kinds.py", "transport/exec_child.py", "transport/http_target.py"}
_PREFIX_TEST = re.compile(r"""(startswith|removeprefix)\(\(?\s*["'](exec:|https?://)""")


def prefix_tests(package: Path) -> list[str]:
    """``file:line`` of every test of a target prefix outside chunk_contract.transport.kinds."""
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        if where in _PREFIX_READERS or "node_modules" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _PREFIX_TEST.search(line) or re.search(r"""["']exec:["']\s*\+""", line):
                found.append(f"{where}:{number}: {line.strip()}")
    return found


def test_nothing_but_the_kinds_tests_a_target_prefix() -> None:
    found = prefix_tests(ROOT / "chunk_contract")
    assert not found, "ask chunk_contract.transport.kinds.kind_of instead:\n" + "\n".join(found)


def test_the_prefix_check_catches_a_prefix_test(tmp_path: Path) -> None:
    (tmp_path / "sarif.py").write_text('if target.startswith(("http://", "https://")):\n'
                                       '    pass\nname = "exec:" + command\n')
    assert len(prefix_tests(tmp_path)) == 2


def test_a_rule_that_raises_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "broken_rule.py").write_text(
        "from chunk_contract import invariant\n\n"
        "@invariant('house_broken')\n"
        "def broken(case):\n"
        "    '''Never holds: it divides by zero.'''\n"
        "    return [1 / 0]\n"
    )
    args = ["run", f"{ROOT}/chunk_contract_reference/fixed.py:split", "--plugin", "broken_rule",
            "--only", "house_broken", *QUICK]
    done = _cli(args, tmp_path, _env(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "'house_broken' raised ZeroDivisionError" in done.stderr
    assert "broken_rule.py:6" in done.stderr


def test_fuzz_takes_the_plugin_too(project: Path) -> None:
    done = _cli(["fuzz", ECHO, "--plugin", "house_ext", "--only", RULE, "--runs", "20",
                 "--seconds", "60", "--quiet"], project, _env(_ext(project)))
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert RULE in done.stdout


def test_a_child_interpreter_is_told_the_plugins_loaded_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugins, "_LOADED", [])
    (tmp_path / "house_child_rules.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.load_plugins(["house_child_rules"], start=tmp_path, environ={})
    env = plugins.child_environment({"CHUNK_CONTRACT_PLUGINS": "other", "HOME": "/h"})
    assert env == {"CHUNK_CONTRACT_PLUGINS": "other,house_child_rules", "HOME": "/h"}


def test_the_package_exports_the_extension_surface() -> None:
    import chunk_contract

    for name in ("invariant", "Violation", "Case", "ReportFormat", "register_format",
                 "MergedFile", "pattern", "Probe", "TargetKind", "register_kind",
                 "command_child", "UsageError", "__version__"):
        assert name in chunk_contract.__all__ and getattr(chunk_contract, name) is not None, name
