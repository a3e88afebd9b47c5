"""Run settings from plain values: the one place their precedence is decided (README, Profiles).

Highest first: a flag (or keyword argument) > the environment > a profile chosen by either >
the target's entry, then ``[tool.chunk-contract]`` > a profile named only in the table > the
built-in defaults. Every input is a plain value (mappings, the parsed table and its entry, a
profile name), never an argparse Namespace: the front doors turn their own options into a
mapping first (:func:`chunk_contract.cli.run.settings_overrides` for the CLI).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from chunk_contract.config import profiles
from chunk_contract.store.database import ENV_VAR as DATABASE_ENV

if TYPE_CHECKING:
    from chunk_contract.config.profiles import Profile
    from chunk_contract.config.pyproject import ProjectConfig, TargetEntry
    from chunk_contract.engine.results import RunSettings

__all__ = ["DATABASE_ENV", "environment_values", "layer", "resolve"]

def environment_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """The run settings the environment sets (rank 2), as plain values (None: not set)."""
    return {"example_database": environ.get(DATABASE_ENV) or None}


def resolve(
    *,
    flags: Mapping[str, Any],
    environ: Mapping[str, str],
    project: ProjectConfig,
    entry: TargetEntry,
    profile: str | None = None,
) -> RunSettings:
    """RunSettings for ``entry`` of ``project``: ``flags`` (None: not given) above ``environ``
    above the profile ``profile`` (else $CHUNK_CONTRACT_PROFILE, else the table's) and the table."""
    chosen, explicit = profiles.chosen(profile, project.profile, environ)
    given = dict(flags)
    for key, value in environment_values(environ).items():
        if not given.get(key):  # a flag that is not given (or empty) leaves it to the environment
            given[key] = value
    return layer(project, entry, chosen, overrides=given, profile_explicit=explicit)


def layer(
    project: ProjectConfig,
    entry: TargetEntry,
    profile: Profile | None,
    *,
    overrides: Mapping[str, Any] | None = None,
    profile_explicit: bool = False,
) -> RunSettings:
    """RunSettings for ``entry``, the profile already chosen.

    Lowest first: the built-in defaults, the profile, the table, the entry, ``overrides``
    (explicit values: flags, the environment, keyword arguments; None means "not given").
    A profile chosen explicitly (a flag or $CHUNK_CONTRACT_PROFILE: ``profile_explicit``)
    goes above the table and the entry instead, so ``--profile nightly`` gets the nightly
    budget even when the table sets max-examples. ``only`` replaces the declared selection;
    ``skip`` adds to it.
    """
    given = {k: v for k, v in (overrides or {}).items() if v is not None and v != ()}
    values: dict[str, Any] = {**project.budgets, **entry.budgets}
    if profile is not None and profile_explicit:
        for key in profiles.BUDGET_FIELDS:
            values.pop(key, None)
    only = given.pop("only", None) or entry.only or project.only
    skip = tuple(given.pop("skip", ()))
    waivers = {**project.skip_reasons(entry), **given.pop("waivers", {})}
    values.update(given)
    if project.reproducers is not None:
        values.setdefault("reproducers", project.reproducers)
    if project.baseline is not None:
        values.setdefault("baseline", project.baseline)
    if project.database is not None:
        values.setdefault("example_database", project.database)
    return profiles.build(profile, only=tuple(only), skip=skip, waivers=waivers, **values)
