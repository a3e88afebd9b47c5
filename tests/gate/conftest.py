"""Shared fixtures of the gate tests: a copy of the sample third-party project per test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SAMPLE = HERE / "sample_project"
ROOT = HERE.parent.parent

#: The sample project is a separate pytest project, run in a subprocess by the tests.
collect_ignore = ["sample_project"]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A fresh copy of the sample project (so reproducers never land in the repository)."""
    copy = tmp_path / "sample_project"
    shutil.copytree(
        SAMPLE,
        copy,
        ignore=shutil.ignore_patterns(".chunk-contract", "__pycache__", ".pytest_cache"),
    )
    return copy


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a child pytest / CLI: this checkout importable, no stray plugins."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CHUNK_CONTRACT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # Only the plugin under test: an installed pytest11 entry point (or pytest-benchmark,
    # pytest-xdist, ...) must neither load twice nor change the outcome.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.update(extra)
    return env


def run_in(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``folder``, with a time limit."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=folder,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
