"""chunk_contract.config.settings: one precedence, from plain values (README, Profiles, the rank
table)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from chunk_contract.config import settings
from chunk_contract.config.profiles import ENV_VAR, PROFILES, ProfileError
from chunk_contract.config.pyproject import ProjectConfig, TargetEntry
from chunk_contract.engine.results import RunSettings

#: A table with a profile, its own budget and a target entry with another budget.
TABLE = ProjectConfig(
    path=Path("/project/pyproject.toml"),
    profile="dev",
    budgets={"max_examples": 300, "timeout": 3.0},
    database="/table/db",
)
ENTRY = TargetEntry("a.py:split", budgets={"max_examples": 150})


def resolve(flags: dict[str, object] | None = None, environ: dict[str, str] | None = None,
            entry: TargetEntry = ENTRY, profile: str | None = None) -> RunSettings:
    return settings.resolve(
        flags=flags or {}, environ=environ or {}, project=TABLE, entry=entry, profile=profile
    )


def test_each_rank_beats_the_ones_below() -> None:
    assert resolve(entry=TargetEntry("b.py:f"), flags={}).max_examples == 300  # table > profile
    assert resolve().max_examples == 150  # the entry > the table
    assert resolve(environ={ENV_VAR: "nightly"}).max_examples == PROFILES["nightly"].max_examples
    assert resolve(profile="ci").max_examples == PROFILES["ci"].max_examples  # a chosen profile
    assert resolve({"max_examples": 7}, profile="nightly").max_examples == 7  # the flag


def test_a_profile_named_only_in_the_table_is_below_the_table() -> None:
    bare = ProjectConfig(profile="nightly")
    chosen = settings.resolve(flags={}, environ={}, project=bare, entry=TargetEntry("x.py:f"))
    assert chosen.max_examples == PROFILES["nightly"].max_examples and chosen.profile == "nightly"
    dev = resolve()
    assert dev.profile == "dev" and dev.explore_seconds == PROFILES["dev"].explore_seconds


def test_the_database_flag_beats_the_environment_which_beats_the_table() -> None:
    env = {settings.DATABASE_ENV: "/env/db"}
    assert resolve().example_database == "/table/db"
    assert resolve(environ=env).example_database == "/env/db"
    assert resolve({"example_database": "/flag/db"}, environ=env).example_database == "/flag/db"
    assert resolve({"example_database": None}, environ=env).example_database == "/env/db"


def test_unset_flags_are_none_and_leave_the_lower_ranks() -> None:
    flags = {"max_examples": None, "seed": None, "only": (), "skip": ()}
    assert resolve(flags).max_examples == 150 and resolve(flags).seed is None


def test_an_unknown_profile_is_a_usage_error() -> None:
    with pytest.raises(ProfileError, match="unknown profile 'weekly'"):
        resolve(profile="weekly")
    with pytest.raises(ProfileError, match="unknown profile"):
        resolve(environ={ENV_VAR: "weekly"})


def test_the_settings_module_never_sees_an_argparse_namespace() -> None:
    tree = ast.parse(Path(settings.__file__).read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
             for a in n.names} | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "argparse" not in names and "Namespace" not in names
