"""The shared example database (``--database``): a folder or Redis, through Hypothesis's own
database classes. A counterexample one process finds is replayed by every other one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.spec.model import Config
from chunk_contract.store import database, reproducers
from chunk_contract.store.database import DatabaseError, SharedDatabase, open_database

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests/scale/rare_bugs.py:split"


def _saved(
    document: str, invariant: str = "no_crash", target: str = TARGET
) -> reproducers.Reproducer:
    return reproducers.Reproducer(target, invariant, document, Config(5, 1), "boom")


def cli(*args: str, env: dict[str, str] | None = None, reproducers_dir: Path) -> str:
    """Run ``chunk-contract run TARGET ARGS`` in a new process; its stdout and stderr.

    Without the seed corpus: a one-example run must meet a rare bug only through the database.
    """
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", TARGET, "-q", "--no-corpus",
         "--no-schedule",
         "--skip", "scales_linearly", "--reproducers", str(reproducers_dir), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def violated(output: str) -> set[str]:
    return {line.split()[0] for line in output.splitlines() if line.strip().endswith("violated")}


# ----------------------------------------------------------------------------- unit


def test_round_trip_keyed_by_target_and_kind() -> None:
    shared = open_database(":memory:")
    shared.save(_saved("1"))
    shared.save(_saved("22", target="other.py:split"))
    assert [r.document for r in shared.fetch(TARGET, "text")] == ["1"]
    assert shared.fetch(TARGET, "workbook") == []
    shared.delete(shared.fetch(TARGET, "text"))
    assert shared.fetch(TARGET, "text") == []


def test_fetch_is_smallest_first_bounded_and_skips_foreign_values() -> None:
    shared = open_database(":memory:")
    for n in range(database.MAX_REPLAYED + 5):
        shared.save(_saved("x" * (n + 1)))
    shared.backend.save(SharedDatabase.key(TARGET, "text"), b"\x00 not json")
    found = shared.fetch(TARGET, "text")
    assert len(found) == database.MAX_REPLAYED
    assert [len(r.document) for r in found] == list(range(1, database.MAX_REPLAYED + 1))


def test_lone_surrogates_survive_the_database() -> None:
    shared = open_database(":memory:")
    shared.save(_saved("a\ud800b"))
    assert shared.fetch(TARGET, "text")[0].document == "a\ud800b"


def test_bad_specs_fail_up_front(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(DatabaseError, match="not a folder"):
        open_database(str(a_file))
    with pytest.raises(DatabaseError, match="cannot reach the Redis server"):
        open_database("redis://127.0.0.1:1/0")  # nothing listens on port 1
    with pytest.raises(DatabaseError):
        open_database("")


def test_cli_reports_a_bad_database_as_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", TARGET, "--database", "redis://127.0.0.1:1/0"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "cannot reach the Redis server" in done.stderr
    assert "Traceback" not in done.stderr


# ----------------------------------------------------------------------------- runs


def _settings(folder: Path, **changes: object) -> RunSettings:
    values: dict[str, object] = dict(
        max_examples=1, seed=1, reproducers=None, skip=("scales_linearly",),
        example_database=str(folder), corpus=False, schedule=False,  # rare bugs: database only
    )
    values.update(changes)
    return RunSettings(**values)  # type: ignore[arg-type]


def test_folder_database_replays_then_forgets_a_fixed_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "db"
    plain = run(str(ROOT / TARGET), _settings(folder, example_database=None))
    assert plain.passed, "control: one example alone must not meet the bug"
    found = run(str(ROOT / TARGET), _settings(folder, max_examples=200, only=("no_crash",)))
    assert [r.id for r in found.violated] == ["no_crash"]
    again = run(str(ROOT / TARGET), _settings(folder))
    assert "no_crash" in {r.id for r in again.violated}, "the saved counterexample was replayed"
    monkeypatch.setenv("RARE_BUGS_FIXED", "1")
    fixed = run(str(ROOT / TARGET), _settings(folder))
    assert fixed.passed
    key = SharedDatabase.key(str(ROOT / TARGET), "text")
    assert list(open_database(str(folder)).backend.fetch(key)) == [], "fixed: entry deleted"


def test_database_from_environment_and_pyproject(tmp_path: Path) -> None:
    from chunk_contract.config import pyproject as config_file

    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunk-contract]\ntargets = ["x.py:f"]\ndatabase = "shared-db"\n'
    )
    project = config_file.find(tmp_path)
    settings = project.settings(project.targets[0], None)
    assert settings.example_database == str(tmp_path / "shared-db")
    (tmp_path / "pyproject.toml").write_text('[tool.chunk-contract]\ndatabase = 3\n')
    with pytest.raises(config_file.ConfigError, match="database must be"):
        config_file.find(tmp_path)


def test_two_processes_share_counterexamples_through_redis(redis_url: str, tmp_path: Path) -> None:
    db = ("--database", redis_url)
    one = ("--max-examples", "1", "--seed", "1")
    # Control: a one-example run meets neither bug by itself.
    assert violated(cli(*one, reproducers_dir=tmp_path / "r0")) == set()
    # Process A finds the digit crash (no_crash) and saves it to Redis.
    assert violated(cli("--only", "no_crash", "--seed", "3", *db,
                        reproducers_dir=tmp_path / "a1")) == {"no_crash"}
    # Process B, with one example and its own empty reproducer folder, replays A's.
    assert "no_crash" in violated(cli(*one, "--only", "no_crash", *db,
                                      reproducers_dir=tmp_path / "b1"))
    # B finds the empty chunk (non_empty) with the digit bug fixed, so it saves only that.
    assert violated(cli("--only", "non_empty", "--seed", "3", *db, reproducers_dir=tmp_path / "b2",
                        env={"RARE_BUGS_DIGITS_OK": "1"})) == {"non_empty"}
    # A, with one example, replays B's.
    assert "non_empty" in violated(cli(*one, "--only", "non_empty", *db,
                                       reproducers_dir=tmp_path / "a2"))
