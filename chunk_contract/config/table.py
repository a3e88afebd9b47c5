"""The run settings, one row each: every front door derives its options from this table.

A row says what a setting is (its name on :class:`~chunk_contract.engine.results.RunSettings`, its
type and bounds, from :func:`chunk_contract.errors.check_setting`), its help, and where it can be
given: a CLI flag (and on which commands), a pytest option (``--chunk-contract-`` and the
flag's name), a ``[tool.chunk-contract]`` key (the name, ``-`` or ``_``), an environment
variable, a keyword argument of ``contract_tests``. The CLI parser
(:mod:`chunk_contract.cli.main`), the pytest options (:mod:`chunk_contract.pytest.plugin`),
``contract_tests`` (:mod:`chunk_contract.pytest.suite`) and the table's keys
(:mod:`chunk_contract.config.pyproject`) are built from here, so a new setting is one row; every
place checks a value with the same bounds (a bad value is a one-line usage error everywhere).

Standard library only at load time (the pytest plugin imports it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from chunk_contract import errors

__all__ = [
    "SETTINGS", "RunSetting", "add_flags", "check", "converter", "for_command", "given", "row",
]


@dataclass(frozen=True)
class RunSetting:
    """One run setting (see the module docstring)."""

    #: The RunSettings field, the pyproject key and the keyword argument (snake case).
    name: str
    #: ``int``, ``float`` or ``bool`` (a switch: its flag turns it off).
    type: type
    #: What it does, for help texts and messages.
    help: str
    #: How a value is described in a table's error message (``a positive integer``).
    describe: str = ""
    metavar: str = "N"
    #: The CLI flag (None: none); for a switch, the flag that turns it off (``--no-corpus``).
    flag: str | None = None
    #: The commands that offer the flag, with each one's default (None: not given).
    commands: Mapping[str, Any] = field(default_factory=dict)
    #: Per-command help, where it differs from ``help``.
    command_help: Mapping[str, str] = field(default_factory=dict)
    #: Offered by the pytest plugin as ``--chunk-contract-NAME`` and by ``contract_tests``.
    pytest: bool = False
    #: A key of ``[tool.chunk-contract]`` (and of a target's entry).
    pyproject: bool = True
    #: The environment variable that sets it (None: none).
    env: str | None = None
    #: (low, high) for a setting errors.check_setting does not know (None: it knows it).
    bounds: tuple[float, float] | None = None

    @property
    def dest(self) -> str:
        return self.name if self.type is not bool else f"no_{self.name}"

    @property
    def pytest_option(self) -> str:
        return "--chunk-contract-" + (self.flag or "--" + self.name).removeprefix("--")

    def help_for(self, command: str) -> str:
        return self.command_help.get(command, self.help)


def _seconds(what: str) -> str:
    return f"{what} (seconds; at most {errors.MAX_SECONDS:g})"


SETTINGS: tuple[RunSetting, ...] = (
    RunSetting(
        "max_examples", int, f"examples to explore; at most {errors.MAX_EXAMPLES}",
        describe="a positive integer", flag="--max-examples",
        commands={"run": None, "matrix": 200}, pytest=True,
        command_help={
            "run": "generated examples to explore after the seed corpus and the covering "
                   "schedule, which every run plays first (default 200, or the profile's); the "
                   f"report counts all three; at most {errors.MAX_EXAMPLES}",
            "matrix": "generated examples to explore per target, after the seed corpus and the "
                      f"covering schedule (default 200); at most {errors.MAX_EXAMPLES}",
            "pytest": "examples per target",
        },
    ),
    RunSetting(
        "seed", int, "repeat a run exactly (default: a random seed, printed in the report)",
        describe="an integer", flag="--seed", commands={"run": None, "matrix": None},
        pytest=True, command_help={"pytest": "the run's seed"},
    ),
    RunSetting(
        "timeout", float, f"per-call limit (default 2; at most {errors.MAX_TIMEOUT:g})",
        describe="a positive number of seconds", metavar="SECONDS", flag="--timeout",
        commands={"run": None, "check": 2.0, "replay": None, "matrix": 2.0},
    ),
    RunSetting(
        "memory_mb", int,
        f"worker memory limit above its start size (default {errors.DEFAULT_MEMORY_MB}; from "
        f"{errors.MIN_MEMORY_MB} to the physical memory)",
        describe="a positive integer", metavar="MIB", flag="--memory-mb",
        commands={"run": None, "check": errors.DEFAULT_MEMORY_MB, "replay": None,
                  "matrix": errors.DEFAULT_MEMORY_MB},
    ),
    RunSetting("explore_seconds", float, _seconds("the exploration budget"),
               describe="a positive number of seconds"),
    RunSetting("shrink_seconds", float, _seconds("the shrinking budget of each violation"),
               describe="a positive number of seconds"),
    RunSetting("max_length", int, "the longest generated document (codepoints)",
               describe="a positive integer"),
    RunSetting(
        "corpus", bool, "do not replay the seed corpus (chunk_contract.generation.corpus) before "
        "generating", describe="true or false (replay the seed corpus first)",
        flag="--no-corpus", commands={"run": None},
    ),
    RunSetting(
        "schedule", bool, "do not play the covering schedule "
        "(chunk_contract.generation.strategies.schedule) before generating",
        describe="true or false (play the covering schedule before generating)",
        flag="--no-schedule", commands={"run": None},
    ),
)


def row(name: str, settings: tuple[RunSetting, ...] | None = None) -> RunSetting:
    """The row of ``name``."""
    return next(s for s in (SETTINGS if settings is None else settings) if s.name == name)


def check(setting: RunSetting, value: Any, *, label: str | None = None) -> Any:
    """``value`` within ``setting``'s bounds (errors.check_setting), else InvalidArgument."""
    shown = label or setting.name.replace("_", "-")
    if setting.type is bool:
        if not isinstance(value, bool):
            raise errors.InvalidArgument(f"{shown} must be {setting.describe}, got {value!r}")
        return value
    if setting.bounds is None:
        return errors.check_setting(setting.name, value, label=label)
    low, high = setting.bounds
    if setting.type is int:
        return errors.check_int(shown, value, int(low), int(high))
    return errors.check_seconds(shown, value, high)


def converter(setting: RunSetting) -> Callable[[str], Any]:
    """An argparse ``type``: the text parsed as the setting's type, then bounded."""

    def convert(text: str) -> Any:
        try:
            value = setting.type(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        try:
            return check(setting, value, label="the value")
        except errors.InvalidArgument as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def for_command(command: str, settings: tuple[RunSetting, ...] | None = None
                ) -> Iterator[RunSetting]:
    """The rows whose flag ``command`` offers (``pytest``: the pytest options)."""
    for setting in SETTINGS if settings is None else settings:
        if (command == "pytest" and setting.pytest) or command in setting.commands:
            yield setting


def add_flags(parser: Any, command: str, *,
              settings: tuple[RunSetting, ...] | None = None) -> None:
    """Every flag of ``command`` on ``parser``: an argparse parser or, for ``pytest``, the
    plugin's option group."""
    for setting in for_command(command, settings):
        _add(parser, setting, command)


def _add(parser: Any, setting: RunSetting, command: str) -> None:
    if command == "pytest":
        parser.addoption(setting.pytest_option, **_options(setting, command),
                         dest=f"chunk_contract_{setting.dest}")
        return
    assert setting.flag is not None
    parser.add_argument(setting.flag, **_options(setting, command), dest=setting.dest)


def _options(setting: RunSetting, command: str) -> dict[str, Any]:
    if setting.type is bool:
        return {"action": "store_true", "help": setting.help_for(command)}
    return {"type": converter(setting), "default": setting.commands.get(command),
            "metavar": setting.metavar, "help": setting.help_for(command)}


def given(values: Mapping[str, Any], settings: tuple[RunSetting, ...] | None = None
          ) -> dict[str, Any]:
    """RunSettings overrides from parsed options named by ``dest`` (a switch's ``no_NAME``
    given means False; anything not given is None)."""
    out = {}
    for setting in SETTINGS if settings is None else settings:
        if setting.dest not in values:
            continue
        value = values[setting.dest]
        out[setting.name] = (False if value else None) if setting.type is bool else value
    return out
