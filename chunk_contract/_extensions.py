"""Extensions: installed entry points and named modules that register rules, report formats,
diagnosis patterns and target kinds.

Each registry loads its own entry-point group the first time it is read (so ``chunk_contract.run``,
the CLI, pytest and the Action all see an installed extension): ``chunk_contract.invariants``
(:func:`chunk_contract.spec.registry.registry`), ``chunk_contract.formats``
(:func:`chunk_contract.reporting.formats.formats`), ``chunk_contract.patterns``
(:func:`chunk_contract.diagnosis.patterns`) and ``chunk_contract.target_kinds``
(:func:`chunk_contract.transport.kinds.kinds`). An entry point names a module (importing it
registers what it defines) or an object (a ``ReportFormat`` or ``TargetKind`` is then
registered). Modules named by ``--plugin``, ``$CHUNK_CONTRACT_PLUGINS`` or the ``plugins`` key of
``[tool.chunk-contract]`` are imported by :func:`import_plugin` (see chunk_contract.config.plugins).

Standard library only: the lowest layer, so every registry can call it.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract.errors import UsageError

if TYPE_CHECKING:
    from importlib import metadata

__all__ = ["GROUPS", "ExtensionError", "import_plugin", "load_group", "register_objects"]

#: The entry-point groups, one per kind of extension.
GROUPS = (
    "chunk_contract.invariants",
    "chunk_contract.formats",
    "chunk_contract.patterns",
    "chunk_contract.target_kinds",
)
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class ExtensionError(UsageError):
    """An extension that cannot be loaded: a usage error naming it and how to fix it."""


#: (group, sys.path when it was read) -> the loaded objects: a new folder on sys.path (a
#: project's) is read again; modules already imported are not imported twice.
_LOADED: dict[tuple[str, tuple[str, ...]], list[Any]] = {}


def load_group(group: str) -> list[Any]:
    """The objects of every installed entry point of ``group``, loaded once per sys.path."""
    key = (group, tuple(sys.path))
    if key not in _LOADED:
        # imported here: a process that loads no extension (the fresh interpreter of a
        # determinism rerun) does not pay for it
        from importlib import metadata

        _LOADED[key] = loaded = []  # first, so a plugin that reads the registry does not loop
        for point in sorted(metadata.entry_points(group=group), key=lambda p: p.name):
            loaded.append(_load(point, group))
    return _LOADED[key]


def register_objects(group: str, kind: type, register: Any) -> None:
    """``register`` each object of ``group`` that is a ``kind`` (a ReportFormat, a TargetKind);
    a clash with a registered one (a name or prefix taken) is an ExtensionError."""
    for found in load_group(group):
        if isinstance(found, kind):
            try:
                register(found)
            except ValueError as exc:
                raise ExtensionError(f"{group}: {exc}") from None


def _load(point: metadata.EntryPoint, group: str) -> Any:
    where = f"entry point {point.name} = {point.value} ({group}, {_distribution(point)})"
    try:
        return point.load()
    except Exception as exc:  # whatever the module raises: one line naming it
        raise ExtensionError(
            f"{where} cannot be loaded: {type(exc).__name__}: {exc}; the extensions it adds "
            f"would be missing from the run. Fix the module or uninstall "
            f"{_distribution(point)}"
        ) from None


def _distribution(point: metadata.EntryPoint) -> str:
    dist = getattr(point, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "an unnamed distribution"


def import_plugin(name: str, *, folder: Path | None, source: str) -> None:
    """Import the plugin module ``name`` (named by ``source``, e.g. ``--plugin``), with
    ``folder`` (the project's) on sys.path; a missing or failing module is an ExtensionError."""
    if not _MODULE.fullmatch(name):
        raise ExtensionError(f"{source}: {name!r} is not a module name; give a dotted module "
                             "name such as my_project.contract_rules")
    if folder is not None and str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (name == exc.name or name.startswith(exc.name + ".")):
            raise _failed(name, source, exc) from None
        where = f" or {folder}" if folder is not None else ""
        raise ExtensionError(
            f"{source}: no module named {name!r} (looked on sys.path{where}): its invariants, "
            "formats, patterns or target kinds would be missing. Install it, or give the "
            "module's dotted name from the project folder"
        ) from None
    except Exception as exc:  # whatever the module raises on import: one line naming it
        raise _failed(name, source, exc) from None


def _failed(name: str, source: str, exc: BaseException) -> ExtensionError:
    return ExtensionError(f"{source}: plugin module {name!r} failed on import: "
                          f"{type(exc).__name__}: {exc}; fix the module")
