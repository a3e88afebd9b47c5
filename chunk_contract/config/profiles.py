"""Named budgets for a run: ``quick``, ``dev``, ``ci`` and ``nightly``.

A profile sets how many examples a run explores, whether its seed is fixed, and its time
budgets. It is chosen, first match wins, by an explicit flag (``chunk-contract run --profile``,
``pytest --chunk-contract-profile``, ``contract_tests(profile=...)``), then the environment
variable ``CHUNK_CONTRACT_PROFILE``, then ``profile`` in ``[tool.chunk-contract]``. With none
of them a run keeps the built-in defaults (200 examples, a random seed, 45 s + 10 s a shrink).
Explicit budgets (``--max-examples``, ``--seed``) override what the profile says. A profile
chosen explicitly (flag or environment) also overrides the budgets of ``[tool.chunk-contract]``;
a profile named only in the table is below the table's own budgets (see
:mod:`chunk_contract.config.settings`, the one place the layers are resolved).

This module imports nothing heavy: the pytest plugin reads it at load time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunk_contract.errors import UsageError

if TYPE_CHECKING:
    from chunk_contract.engine.results import RunSettings

ENV_VAR = "CHUNK_CONTRACT_PROFILE"


@dataclass(frozen=True)
class Profile:
    """Budgets of one named profile."""

    name: str
    max_examples: int
    derandomize: bool
    explore_seconds: float
    shrink_seconds: float
    purpose: str
    #: Run the ``scales_linearly`` timing probe (the costliest single step of a fast run).
    probe: bool = True

    def describe(self) -> str:
        seed = "seed fixed per target" if self.derandomize else "random seed"
        probe = "" if self.probe else ", no scaling probe"
        return (
            f"{self.name}: {self.max_examples} examples, {seed}, explore budget "
            f"{self.explore_seconds:g} s, {self.shrink_seconds:g} s per shrink{probe} "
            f"({self.purpose})"
        )


PROFILES: dict[str, Profile] = {
    "quick": Profile(
        "quick",
        25,
        False,
        5.0,
        3.0,
        "a pre-commit hook of 1 to 1.6 s: the seed corpus, the whole covering schedule and a "
        "few generated examples; the scaling probe and the long search are left to CI",
        probe=False,
    ),
    "dev": Profile(
        "dev",
        100,
        False,
        30.0,
        10.0,
        "fast feedback while editing; a new seed every run finds new inputs",
    ),
    "ci": Profile(
        "ci",
        200,
        True,
        120.0,
        20.0,
        "a gate that never flickers: same target, same examples, same verdicts",
    ),
    "nightly": Profile(
        "nightly",
        5000,
        False,
        1200.0,
        120.0,
        "a long search for rare bugs, with more time to shrink them",
    ),
}


class ProfileError(UsageError, ValueError):
    """An unknown profile name: a usage error."""


def get(name: str) -> Profile:
    """The profile called ``name``, or a ProfileError listing the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ProfileError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


def choose(
    explicit: str | None = None,
    declared: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Profile | None:
    """The profile in force: ``explicit``, else $CHUNK_CONTRACT_PROFILE, else ``declared``."""
    env = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    name = explicit or env or declared
    return get(name) if name else None


def chosen(
    explicit: str | None = None,
    declared: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Profile | None, bool]:
    """(the profile in force, whether a flag or the environment chose it) — see :func:`choose`.

    An explicitly chosen profile's budgets go above the table's
    (chunk_contract.config.settings.layer).
    """
    env = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    profile = choose(explicit, declared, environ)
    return profile, bool(explicit or env)


#: The settings a profile sets (besides its name).
BUDGET_FIELDS = ("max_examples", "derandomize", "explore_seconds", "shrink_seconds")


#: RunSettings fields that pyproject.toml or a caller may set explicitly.
FIELDS = (
    "max_examples",
    "seed",
    "timeout",
    "memory_mb",
    "only",
    "skip",
    "explore_seconds",
    "shrink_seconds",
    "max_length",
    "reproducers",
    "derandomize",
    "database",
    "example_database",
    "corpus",
    "schedule",
    "waivers",
    "baseline",
)


def build(
    profile: Profile | None = None, *, replay_failures: bool = True, **explicit: Any
) -> RunSettings:
    """RunSettings from a profile, overridden by every ``explicit`` value that is not None.

    With ``replay_failures`` (the default) the reproducer folder doubles as the failure
    database, unless ``database`` is given: the failures one run saved are replayed first by
    the next (see chunk_contract.store.database).
    """
    from chunk_contract.engine.results import RunSettings  # lazy: the pytest plugin loads light

    unknown = set(explicit) - set(FIELDS)
    if unknown:
        raise TypeError(f"unknown run settings: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    if profile is not None:
        values.update(
            max_examples=profile.max_examples,
            derandomize=profile.derandomize,
            explore_seconds=profile.explore_seconds,
            shrink_seconds=profile.shrink_seconds,
            profile=profile.name,
        )
        if not profile.probe:
            values["probe"] = False
    values.update({k: v for k, v in explicit.items() if v is not None})
    for key in ("only", "skip"):
        if key in values:
            values[key] = tuple(values[key])
    settings = RunSettings(**values)
    if replay_failures and "database" not in values:
        from dataclasses import replace

        settings = replace(settings, database=settings.reproducers)
    return settings
