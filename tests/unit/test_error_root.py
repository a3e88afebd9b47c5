"""One error root: every user-facing error is a chunk_contract.errors.UsageError, and each
front door turns that one class into one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.config.profiles import ProfileError
from chunk_contract.config.pyproject import ConfigError
from chunk_contract.errors import InvalidArgument, UnknownInvariant, UsageError
from chunk_contract.generation.strategies import StrategyArgumentError
from chunk_contract.integrations.mutation import running
from chunk_contract.integrations.mutation.triage import TriageError
from chunk_contract.store.database import DatabaseError
from chunk_contract.store.reproducers import ForeignFile, ReproducerError
from chunk_contract.transport.exec_child import ExecTargetError
from chunk_contract.transport.http_target import HttpTargetError
from chunk_contract.transport.targets import TargetError

ROOT = Path(__file__).resolve().parents[2]
FIXED = "chunk_contract_reference/fixed.py:split"

#: Every user-facing error class: what it is about -> the class.
USER_FACING = {
    "target": TargetError,
    "exec target": ExecTargetError,
    "http target": HttpTargetError,
    "config table": ConfigError,
    "profile": ProfileError,
    "database": DatabaseError,
    "reproducer": ReproducerError,
    "foreign reproducer file": ForeignFile,
    "strategy arguments": StrategyArgumentError,
    "invalid argument": InvalidArgument,
    "unknown invariant id": UnknownInvariant,
    "mutation triage file": TriageError,
    "mutation command": running.UsageError,
}


@pytest.mark.parametrize("what", sorted(USER_FACING))
def test_each_user_facing_error_derives_from_the_one_root(what: str) -> None:
    assert issubclass(USER_FACING[what], UsageError), f"{what}: {USER_FACING[what]!r}"


def test_the_mutation_driver_has_no_usage_error_of_its_own() -> None:
    assert running.UsageError is UsageError


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "chunk_contract", "run", FIXED, "--only", "nope"],
        ["-m", "chunk_contract", "run", FIXED, "--profile", "weekly"],
        ["-m", "chunk_contract", "run", "no/such/file.py:split"],
        ["fuzz/harness.py", FIXED, "--only", "nope"],
        ["fuzz/harness.py", "no/such/file.py:split"],
    ],
)
def test_front_doors_exit_2_with_one_line(command: list[str]) -> None:
    done = _run(*command)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], done.stderr
