"""One table of run settings (chunk_contract.config.table): the CLI flags, the pytest options,
``contract_tests`` and the ``[tool.chunk-contract]`` keys come from its rows, with one set of
bounds, so a new setting is one row.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.cli.main import build_parser
from chunk_contract.cli.run import settings_overrides
from chunk_contract.config import pyproject, table
from chunk_contract.errors import UsageError
from chunk_contract.pytest.suite import _checked_settings

#: The inline pytest runs that read a new row's option come from pytester.
pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
#: A setting no release has: given on the CLI of run, to pytest, and in the table.
NEW = table.RunSetting(
    "house_budget", int, "a budget only this test knows", describe="a positive integer",
    flag="--house-budget", commands={"run": None}, pytest=True, bounds=(1, 10),
)


@pytest.fixture
def new_row(monkeypatch: pytest.MonkeyPatch) -> table.RunSetting:
    monkeypatch.setattr(table, "SETTINGS", (*table.SETTINGS, NEW))
    return NEW


def test_a_new_row_is_a_cli_flag_with_its_bounds(new_row: table.RunSetting) -> None:
    args = build_parser().parse_args(["run", "t.py:f", "--house-budget", "3"])
    assert settings_overrides(args)["house_budget"] == 3
    assert settings_overrides(build_parser().parse_args(["run"]))["house_budget"] is None
    with pytest.raises(UsageError, match="the value must be a positive integer"):
        build_parser().parse_args(["run", "--house-budget", "11"])


def test_a_new_row_is_a_pytest_option_with_its_bounds(
    new_row: table.RunSetting, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        "def test_option(request):\n"
        "    assert request.config.getoption('chunk_contract_house_budget') == 4\n"
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # this plugin only, by name
    plugin = ("-p", "chunk_contract.pytest.plugin")
    assert pytester.inline_run(*plugin, "--chunk-contract-house-budget", "4").ret == 0
    refused = pytester.runpytest_inprocess(*plugin, "--chunk-contract-house-budget", "0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*positive integer of at most 10*"])


def test_a_new_row_is_a_pyproject_key_and_a_keyword(new_row: table.RunSetting,
                                                    tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.chunk-contract]\nhouse-budget = 5\ntargets = ["a.py:f"]\n')
    assert pyproject.load(path).budgets["house_budget"] == 5
    path.write_text("[tool.chunk-contract]\nhouse-budget = 0\n")
    with pytest.raises(pyproject.ConfigError, match="house-budget must be a positive integer"):
        pyproject.load(path)
    assert _checked_settings({"house_budget": 2}) == {"house_budget": 2}


def test_without_the_row_the_key_and_the_flag_are_unknown(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.chunk-contract]\nhouse-budget = 5\n")
    with pytest.raises(pyproject.ConfigError, match="unknown key 'house-budget'"):
        pyproject.load(path)
    with pytest.raises(UsageError, match="unrecognized arguments"):
        build_parser().parse_args(["run", "--house-budget", "3"])


def test_every_flag_of_a_row_has_the_same_bounds_everywhere() -> None:
    for setting in (s for s in table.SETTINGS if s.type is not bool):
        convert = table.converter(setting)
        with pytest.raises(Exception, match="must be"):
            convert("-1" if setting.name != "seed" else str(10**30))
        with pytest.raises(pyproject.ConfigError, match="must be"):
            pyproject.parse({setting.name: -1 if setting.name != "seed" else 10**30},
                            Path("pyproject.toml"))


def test_contract_tests_checks_its_settings() -> None:
    with pytest.raises(pytest.UsageError, match="max_examples must be a positive integer"):
        _checked_settings({"max_examples": -1})
    with pytest.raises(pytest.UsageError, match="unknown setting"):
        _checked_settings({"max_exmaples": 10})
    assert _checked_settings({"timeout": 5, "seed": None}) == {"timeout": 5.0}


def test_a_negative_pytest_budget_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--chunk-contract",
         f"{ROOT}/chunk_contract_reference/fixed.py:split", "--chunk-contract-max-examples", "-5"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=300, check=False,
    )
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "must be a positive integer" in done.stderr and "Traceback" not in done.stderr
