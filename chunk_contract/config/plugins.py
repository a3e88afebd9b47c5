"""Plugin modules every front door imports before it runs: user invariants, report formats,
diagnosis patterns and target kinds (docs/how-to/extend.md).

A front door (the CLI, the pytest plugin, ``contract_tests``, the Action through the CLI)
calls :func:`load_plugins` first, with the modules it was given (``--plugin MODULE``,
``--chunk-contract-plugin MODULE``). To those it adds, in this order: the ``plugins`` of
``[tool.chunk-contract]`` (imported with the pyproject's folder on sys.path) and
``$CHUNK_CONTRACT_PLUGINS`` (module names separated by commas). Installed entry points need no
naming: each registry loads its group itself (chunk_contract._extensions).

Rules are checked on the host (chunk_contract.engine.session), so a rule loaded here is checked for
every kind of target, whatever process or machine the chunker runs in.

Standard library only at load time (the pytest plugin imports it).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from chunk_contract._extensions import import_plugin
from chunk_contract.config.pyproject import declared_plugins
from chunk_contract.errors import UsageError

__all__ = [
    "ENV_VAR", "FLAG", "child_environment", "from_environment", "load_plugins", "take_flags",
]

#: Module names (comma-separated) every front door imports.
ENV_VAR = "CHUNK_CONTRACT_PLUGINS"
#: The CLI flag, repeatable.
FLAG = "--plugin"
#: Every module this process imported through load_plugins, in order.
_LOADED: list[str] = []


def from_environment(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The modules ``$CHUNK_CONTRACT_PLUGINS`` names."""
    return tuple(n.strip() for n in environ.get(ENV_VAR, "").split(",") if n.strip())


def load_plugins(
    modules: Iterable[str] = (),
    *,
    start: Path | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[str, ...]:
    """Import the project's, the environment's and the given plugin modules (each once);
    returns their names. A module that is missing or fails is a one-line usage error."""
    declared, folder = declared_plugins(start)
    here = Path.cwd()
    sources = [(n, folder, "[tool.chunk-contract] plugins") for n in declared]
    sources += [(n, here, f"${ENV_VAR}") for n in from_environment(environ)]
    sources += [(n, here, FLAG) for n in modules]
    for name, where, source in sources:
        import_plugin(name, folder=where, source=source)
        if name not in _LOADED:
            _LOADED.append(name)
    return tuple(dict.fromkeys(n for n, _, _ in sources))


def child_environment(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """``environ`` for a fresh interpreter that checks rules itself (the libFuzzer engine,
    HypoFuzz): ``$CHUNK_CONTRACT_PLUGINS`` names every plugin module this process loaded, so
    the child's front door imports the same ones."""
    names = dict.fromkeys([*from_environment(environ), *_LOADED])
    env = dict(environ)
    if names:
        env[ENV_VAR] = ",".join(names)
    return env


def take_flags(argv: Sequence[str], flag: str = FLAG) -> tuple[list[str], list[str]]:
    """(the modules of every ``flag MODULE`` / ``flag=MODULE`` before ``--``, ``argv``
    without them): read before the parser is built, since a plugin may add flags."""
    modules: list[str] = []
    rest: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            rest += [word, *words]
        elif word == flag:
            modules.append(_value(next(words, None), flag))
        elif word.startswith(flag + "="):
            modules.append(_value(word.partition("=")[2], flag))
        else:
            rest.append(word)
    return modules, rest


def _value(value: str | None, flag: str) -> str:
    if value is None or not value.strip() or value.startswith("-"):
        raise UsageError(f"{flag} needs a MODULE (a dotted module name that registers "
                         "invariants, report formats, patterns or target kinds)")
    return value.strip()
