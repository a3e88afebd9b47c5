"""``[tool.chunk-contract]`` in a project's pyproject.toml: what the project declared.

    [tool.chunk-contract]
    targets = ["src/my_pkg/chunker.py:split", "my_pkg.chunk:Splitter"]
    profile = "dev"                 # dev | ci | nightly (see chunk_contract.config.profiles)
    max-examples = 300              # budgets override the profile's
    corpus = true                   # replay the seed corpus first (the default)
    schedule = true                 # then play the covering schedule (the default)
    timeout = 2.0
    skip = { ordered = "our chunker emits nested chunks" }
    reproducers = ".chunk-contract/reproducers"
    database = "redis://localhost:6379/0"   # or a folder: counterexamples shared by all runs
    plugins = ["my_pkg.contract_rules"]     # modules imported first: invariants, formats, ...
    baseline = "chunk-contract-baseline.json"  # accepted findings: only new ones fail the run

    # per-target settings: an entry may be a table instead of a string
    [[tool.chunk-contract.target]]
    target = "legacy.py:split"
    skip = { cap_respected = "known issue #12" }

Keys may be written ``max-examples`` or ``max_examples``. ``skip`` is a table of invariant id to
reason: a waiver (the rule is still evaluated but does not gate; every report shows it as waived
with the reason, and warns when it is no longer needed), or a list of ids.
``only`` is a list of ids. File targets, ``reproducers`` and a ``database`` folder are relative
to the folder of the pyproject.toml, and that folder is put on ``sys.path`` for ``module:attr``
targets and ``plugins`` (modules imported before anything else: they register invariants, report
formats, diagnosis patterns or target kinds, see docs/how-to/extend.md). A key this version
does not know, a value of the wrong type or an unknown invariant id is a usage error (exit 2)
naming the key: a typo never silently weakens a gate.

This module imports only the standard library (and chunk_contract._extensions and
chunk_contract.transport.kinds, which import nothing else) at load time (the pytest plugin imports
it).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import errors
from chunk_contract._extensions import import_plugin
from chunk_contract.config import table as settings_table
from chunk_contract.transport.kinds import is_out_of_process

if TYPE_CHECKING:
    from chunk_contract.config.profiles import Profile
    from chunk_contract.engine.results import RunSettings
    from chunk_contract.transport.targets import Plugin

TABLE = "chunk-contract"
#: What a key holds, for the generated reference (keys not named here are described there).
KEY_HELP = {
    "skip": "a table of invariant id to the reason it is waived (evaluated, never failing the "
            "run, shown as waived with the reason), or a list of ids",
    "only": "a list of invariant ids: evaluate only these (engine rules included)",
    "baseline": "a baseline file of accepted findings (written by --write-baseline), relative "
                "to pyproject.toml: only findings not in it fail the run",
}
DEFAULT_SKIP_REASON = "waived in [tool.chunk-contract] (no reason given)"


class ConfigError(errors.UsageError):
    """A malformed ``[tool.chunk-contract]`` table: a usage error, one line."""


#: The keys of the table that are no run setting of chunk_contract.config.table.
_OWN_KEYS = ("targets", "target", "profile", "only", "skip", "reproducers", "database", "plugins",
             "baseline")


def setting_keys() -> dict[str, str]:
    """The run settings a table (and a target's entry) may set: snake-case key -> what its
    value must be, from the one table of run settings (chunk_contract.config.table)."""
    return {s.name: s.describe for s in settings_table.SETTINGS if s.pyproject}


def top_keys() -> set[str]:
    """Every key of ``[tool.chunk-contract]`` (snake case)."""
    return {*_OWN_KEYS, *setting_keys()}


def entry_keys() -> set[str]:
    """Every key of a target's table (snake case)."""
    return {"target", "only", "skip", *setting_keys()}


@dataclass(frozen=True)
class TargetEntry:
    """One declared target with its own selections and budgets (over the table's)."""

    target: str
    only: tuple[str, ...] | None = None
    skip: Mapping[str, str] = field(default_factory=dict)
    budgets: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectConfig:
    """The parsed table. ``path`` is the pyproject.toml it came from (None: no table)."""

    path: Path | None = None
    targets: tuple[TargetEntry, ...] = ()
    profile: str | None = None
    only: tuple[str, ...] = ()
    skip: Mapping[str, str] = field(default_factory=dict)
    budgets: Mapping[str, Any] = field(default_factory=dict)
    reproducers: Path | None = None
    #: A shared example database (chunk_contract.store.database): a redis:// URL or a folder.
    database: str | None = None
    #: Plugin modules, imported when the table is read (before its invariant ids are checked).
    plugins: tuple[str, ...] = ()
    #: A baseline file of accepted findings (chunk_contract.engine.findings), from the table.
    baseline: Path | None = None

    @property
    def base(self) -> Path:
        """The folder relative targets and paths are resolved from."""
        return self.path.parent if self.path is not None else Path.cwd()

    def entry(self, target: str) -> TargetEntry:
        """The declared entry for ``target``, or a bare one (the table's settings apply)."""
        for entry in self.targets:
            if entry.target == target:
                return entry
        return TargetEntry(target)

    def skip_reasons(self, entry: TargetEntry) -> dict[str, str]:
        """Invariant id -> the declared reason it is skipped, for this entry (table, then entry)."""
        return {**self.skip, **entry.skip}

    def settings(
        self,
        entry: TargetEntry,
        profile: Profile | None,
        *,
        overrides: Mapping[str, Any] | None = None,
        profile_explicit: bool = False,
    ) -> RunSettings:
        """RunSettings for ``entry`` under ``profile``: see
        :func:`chunk_contract.config.settings.layer`."""
        # lazy: this module imports only the standard library
        from chunk_contract.config import settings

        return settings.layer(
            self, entry, profile, overrides=overrides, profile_explicit=profile_explicit
        )


def find(start: Path | None = None) -> ProjectConfig:
    """The ``[tool.chunk-contract]`` table of the nearest pyproject.toml at or above ``start``.

    The search stops at the first pyproject.toml that has the table, or at a folder holding
    ``.git``; with no table found the result is an empty ProjectConfig (path None).
    """
    for candidate in _candidates(start):
        config = load(candidate)
        if config.path is not None:
            return config
    return ProjectConfig()


def _candidates(start: Path | None) -> Iterator[Path]:
    """The pyproject.toml files at or above ``start``, nearest first, up to a ``.git`` folder."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            yield candidate
        if (folder / ".git").exists():
            return


def declared_plugins(start: Path | None = None) -> tuple[tuple[str, ...], Path | None]:
    """The ``plugins`` of the nearest table and its folder, read without checking the rest of
    the table: a front door imports them before it builds its flags (a plugin's report format
    adds one). An unreadable file gives none here; reading the whole table reports it."""
    for candidate in _candidates(start):
        try:
            data = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return (), None
        table = data.get("tool", {}).get(TABLE)
        if isinstance(table, dict):
            where = f"{candidate}: [tool.{TABLE}]"
            return _plugins(table.get("plugins", []), where), candidate.parent
    return (), None


def load(path: Path) -> ProjectConfig:
    """Parse the table of ``path``; a file without the table gives an empty ProjectConfig."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get(TABLE)
    if table is None:
        return ProjectConfig()
    return parse(table, path)


def parse(table: Any, path: Path) -> ProjectConfig:
    """Validate a ``[tool.chunk-contract]`` table (already read from ``path``)."""
    where = f"{path}: [tool.{TABLE}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    table = _snake(table, top_keys(), where)
    plugins = _plugins(table.get("plugins", []), where)
    for name in plugins:  # before the ids are checked: a plugin may register some
        import_plugin(name, folder=path.parent, source=f"{where} plugins")
    profile = table.get("profile")
    if profile is not None:
        # lazy: this module loads with the standard library only
        from chunk_contract.config.profiles import PROFILES

        if not isinstance(profile, str) or profile not in PROFILES:
            raise ConfigError(f"{where}: unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    entries = [
        _entry(item, f"{where} targets[{i}]")
        for i, item in enumerate(_list(table.get("targets", []), "targets", where))
    ]
    entries += [
        _entry(item, f"{where} target[{i}]")
        for i, item in enumerate(_list(table.get("target", []), "target", where))
    ]
    reproducers = table.get("reproducers")
    if reproducers is not None and not isinstance(reproducers, str):
        raise ConfigError(f"{where}: reproducers must be a path (a string)")
    baseline = table.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline):
        raise ConfigError(f"{where}: baseline must be the path of a baseline file (a string)")
    config = ProjectConfig(
        path=path,
        targets=tuple(entries),
        profile=profile,
        only=_ids(table.get("only", []), "only", where),
        skip=_skips(table.get("skip", {}), where),
        budgets=_budgets(table, where),
        reproducers=(path.parent / reproducers) if reproducers is not None else None,
        database=_database(table.get("database"), path, where),
        plugins=plugins,
        baseline=(path.parent / baseline) if baseline is not None else None,
    )
    _check_ids(config, where)
    return config


def _database(value: Any, path: Path, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: database must be a redis:// URL or a folder (a string)")
    if "://" in value or value == ":memory:":
        return value
    return str(path.parent / value)


def _plugins(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: plugins must be a list of module names (strings)")
    return tuple(v.strip() for v in value)


def _snake(table: dict[str, Any], known: set[str], where: str) -> dict[str, Any]:
    out = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in known:
            raise ConfigError(
                f"{where}: unknown key {key!r}; known: "
                f"{', '.join(sorted(k.replace('_', '-') for k in known))}"
            )
        out[name] = value
    return out


def _list(value: Any, key: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: {key} must be a list")
    return value


def _entry(item: Any, where: str) -> TargetEntry:
    if isinstance(item, str):
        return TargetEntry(_target(item, where))
    if not isinstance(item, dict):
        raise ConfigError(f"{where} must be a target string or a table with a 'target' key")
    item = _snake(item, entry_keys(), where)
    if "target" not in item:
        raise ConfigError(f"{where}: a target table needs a 'target' key")
    return TargetEntry(
        target=_target(item["target"], where),
        only=_ids(item["only"], "only", where) if "only" in item else None,
        skip=_skips(item.get("skip", {}), where),
        budgets=_budgets(item, where),
    )


def _target(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: a target must be a non-empty string")
    return value.strip()


def _ids(value: Any, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of invariant ids")
    return tuple(value)


def _skips(value: Any, where: str) -> dict[str, str]:
    if isinstance(value, dict):
        for rule, reason in value.items():
            if not isinstance(reason, str) or not reason.strip():
                raise ConfigError(f"{where}: skip.{rule} must be a reason (a non-empty string)")
        return {rule: reason.strip() for rule, reason in value.items()}
    return dict.fromkeys(_ids(value, "skip", where), DEFAULT_SKIP_REASON)


def _budgets(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for setting in settings_table.SETTINGS:
        if setting.pyproject and setting.name in table:
            try:
                out[setting.name] = settings_table.check(setting, table[setting.name])
            except errors.InvalidArgument as exc:
                raise ConfigError(f"{where}: {exc}") from None
    return out


def _check_ids(config: ProjectConfig, where: str) -> None:
    # lazy: this module loads with the standard library only
    from chunk_contract.spec.registry import registry

    known = registry()
    named = [*config.only, *config.skip]
    for entry in config.targets:
        named += [*(entry.only or ()), *entry.skip]
    unknown = sorted({i for i in named if i not in known})
    if unknown:
        raise ConfigError(
            f"{where}: unknown invariant id(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )


# ----------------------------------------------------------------------------- targets


def load_target(target: str, base: Path | None = None) -> Plugin:
    """Resolve ``target`` as SPEC §1 says, with relative file targets taken from ``base``.

    The plugin keeps the target string as written (test ids, reports and reproducers show
    it), so ``chunk-contract replay`` works from ``base``.
    """
    # lazy: this module loads with the standard library only
    from chunk_contract.transport.loading import load

    # lazy: this module loads with the standard library only
    from chunk_contract.transport.outofprocess import load_out_of_process

    if is_out_of_process(target):  # an exec: command runs in the folder of pyproject.toml
        return load_out_of_process(target, cwd=(base or Path.cwd()).resolve())
    if base is None or base.resolve() == Path.cwd().resolve():
        return load(target)
    where, sep, attr = target.rpartition(":")
    if sep and where.endswith(".py") and not Path(where).is_absolute():
        return replace(load(f"{base / where}:{attr}"), target=target)
    if sep and str(base) not in sys.path:
        sys.path.insert(0, str(base))
    return load(target)
