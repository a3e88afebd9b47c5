"""Built-in adapters: popular chunking libraries as chunk-contract plugins.

Each adapter turns one library splitter into a plugin (SPEC §1-§4): it passes ``max_size`` and
``overlap`` to the library's own chunk size and overlap parameters, maps the library's own output
fields (start indices, character offsets, heading metadata, ids) onto chunk fields, and declares
the unit the library counts in, using only tokenizers that work offline.

An adapter is a record: one :class:`~chunk_contract.integrations.adapters._base.Adapter` subclass
(or, for a library in another language, one
:class:`~chunk_contract.integrations.adapters.langchainjs.JsSplitter` record) whose class variables
say everything the catalogue and the conformance matrix show. This module
derives the catalogue from them: it imports every module of this package (none of which imports
its library) and collects the records with a non-empty ``name``. Listing the adapters, or asking
whether a library is installed, imports no library; the library itself is imported when the
adapter is instantiated (once, when the target is loaded, before the worker process is forked),
never per call.

``pyproject.toml``'s ``chunk_contract.plugins`` entry points stay the registry users see;
tests/adapters checks that they and this catalogue agree exactly. The Python libraries are the
optional extra ``peers``: ``pip install 'chunk-contract[peers]'``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from chunk_contract.integrations.adapters._base import (
    EXTRA,
    Adapter,
    library_installed,
    library_version,
    missing_message,
)

#: Modules of this package that hold no adapter (tools that read the catalogue).
_NOT_ADAPTERS = frozenset({"conformance"})


@dataclass(frozen=True)
class AdapterInfo:
    """One adapter's record as the catalogue shows it, and the target that loads it."""

    name: str  # the entry-point name
    target: str  # module:attr, the value of its entry point
    distribution: str  # the library's name on its registry (PyPI, npm)
    module: str  # the library's top-level import name
    version: str  # the pinned version the matrix was made with
    splitter: str  # what the adapter wraps
    unit: str
    kind: str
    newlines: str
    promises: frozenset[str]
    offsets: str  # where offsets come from
    choices: Mapping[str, str]  # the adapter's own choices (tokenizer, parameters)
    documents: str  # the input kind the splitter is meant for
    out_of_process: bool  # run as an ``exec:`` target (another language)
    source: Any  # the class or record itself

    @property
    def installed(self) -> bool:
        """Whether the adapter can run here (its library, or node and its npm packages)."""
        if self.out_of_process:
            return bool(self.source.unavailable() is None)
        return library_installed(self.module)

    @property
    def installed_version(self) -> str | None:
        """The installed version of the library, or None."""
        if self.out_of_process:
            # lazy: langchainjs imports this package
            from chunk_contract.integrations.adapters.langchainjs import npm_version

            return npm_version(self.distribution)
        return library_version(self.distribution)


def info_of(record: Any, target: str) -> AdapterInfo:
    """The catalogue entry of an adapter class or exec record loaded as ``target``."""
    return AdapterInfo(
        name=record.name,
        target=target,
        distribution=record.distribution,
        module=record.module,
        version=record.version,
        splitter=record.splitter,
        unit=record.unit,
        kind=record.kind,
        newlines=record.newlines,
        promises=frozenset(record.promises),
        offsets=record.offsets,
        choices=dict(record.choices),
        documents=record.documents,
        out_of_process=hasattr(record, "exec_command"),
        source=record,
    )


def adapter_modules() -> Iterator[ModuleType]:
    """Every module of this package that may define adapters, imported."""
    for found in pkgutil.iter_modules(__path__):
        if found.ispkg or found.name.startswith("_") or found.name in _NOT_ADAPTERS:
            continue
        yield importlib.import_module(f"{__name__}.{found.name}")


def _is_record(value: Any, module: ModuleType) -> bool:
    """Whether ``value`` is an adapter defined in ``module`` (not imported into it)."""
    if isinstance(value, type):
        return (
            issubclass(value, Adapter) and bool(value.name) and value.__module__ == module.__name__
        )
    return hasattr(value, "exec_command") and bool(getattr(value, "name", ""))


def records_of(module: ModuleType) -> Iterator[AdapterInfo]:
    """The adapters ``module`` defines, each once (lower-case aliases are skipped)."""
    seen: set[int] = set()
    for attr, value in vars(module).items():
        if attr.startswith("_") or id(value) in seen or not _is_record(value, module):
            continue
        seen.add(id(value))
        attr = value.__name__ if isinstance(value, type) else attr
        yield info_of(value, f"{module.__name__}:{attr}")


def collect() -> tuple[AdapterInfo, ...]:
    """Every adapter of this package, sorted by name; a name defined twice is an error."""
    found: dict[str, AdapterInfo] = {}
    for module in adapter_modules():
        for info in records_of(module):
            if info.name in found:
                raise RuntimeError(
                    f"adapter name {info.name!r} is defined twice: {found[info.name].target} "
                    f"and {info.target}; give one of them another name"
                )
            found[info.name] = info
    return tuple(found[name] for name in sorted(found))


#: Every built-in adapter, sorted by entry-point name.
ADAPTERS: tuple[AdapterInfo, ...] = collect()

BY_NAME: dict[str, AdapterInfo] = {a.name: a for a in ADAPTERS}

#: The distributions the adapters need, in catalogue order.
DISTRIBUTIONS: tuple[str, ...] = tuple(dict.fromkeys(a.distribution for a in ADAPTERS))


__all__ = [
    "ADAPTERS",
    "BY_NAME",
    "DISTRIBUTIONS",
    "EXTRA",
    "Adapter",
    "AdapterInfo",
    "collect",
    "info_of",
    "library_installed",
    "library_version",
    "missing_message",
]
