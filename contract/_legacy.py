"""Old import paths (before the layered layout of issue 16), kept working for users.

:data:`MOVED` is the one table OLD -> NEW. A name under a moved module or package moves with it
(``contract.adapters.langchain`` -> ``contract.integrations.adapters.langchain``). The finder
that :func:`install` puts first on :data:`sys.meta_path` answers an old name with the very
module object imported under its new name, so ``contract.runner is contract.engine.runner``:
isinstance checks, monkeypatching, pickles and ``python -m contract.mutation`` keep working, and
no shim file exists. The package, its tests and its benchmarks import only new paths
(tests/unit/test_layout.py checks it); ``python scripts/relayout.py FILE...`` rewrites a file.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence

__all__ = ["MOVED", "LegacyFinder", "current", "install", "new_name", "old_name"]

#: Every module or package that moved: old dotted name -> new dotted name.
MOVED: dict[str, str] = {
    "contract.model": "contract.spec.model",
    "contract.registry": "contract.spec.registry",
    "contract.placement": "contract.spec.placement",
    "contract.invariants": "contract.spec.invariants",
    "contract.workbook": "contract.spec.workbook",
    "contract.strategies": "contract.generation.strategies",
    "contract.corpus": "contract.generation.corpus",
    "contract.plugins": "contract.engine.targets",
    "contract.execution": "contract.engine.session",
    "contract.worker": "contract.engine.worker",
    "contract.runner": "contract.engine.runner",
    "contract.minimize": "contract.engine.minimize",
    "contract.scaling": "contract.engine.scaling",
    "contract.crossrun": "contract.engine.crossrun",
    "contract.parallel": "contract.engine.parallel",
    "contract.reproducers": "contract.engine.reproducers",
    "contract.database": "contract.engine.database",
    "contract.exec_probe": "contract.engine.exec_probe",
    "contract.verify": "contract.engine.verify",
    "contract.regression": "contract.engine.regression",
    "contract.adapters": "contract.integrations.adapters",
    "contract.mutation": "contract.integrations.mutation",
}


def new_name(name: str) -> str | None:
    """The new dotted name of ``name`` if it is (or lies under) a moved module, else None."""
    head, dot, tail = name, "", ""
    while head:
        if head in MOVED:
            return MOVED[head] + dot + tail
        head, _, last = head.rpartition(".")
        tail = last + dot + tail if tail else last
        dot = "."
    return None


def current(reference: str) -> str:
    """``reference`` (a dotted name, or an entry-point value ``module:attr``) at its new path.

    Installed metadata written before the move still says ``contract.adapters.X:Y``; code that
    compares module names goes through this, so an old install and a new one agree.
    """
    module, colon, attr = reference.partition(":")
    return (new_name(module) or module) + colon + attr


def _alias_loaded(package: str) -> None:
    """Give every imported submodule of the moved ``package`` its old name in sys.modules.

    The import system binds a submodule as an attribute of its parent after loading it; for
    an old name, that would rebind the real package's attribute (``strategies.cases`` is a
    function that its ``__init__`` imports over the ``cases`` module). A name already in
    sys.modules is returned before that binding, so the package's loaded submodules get their
    old names up front. Submodules imported later were never rebound by the ``__init__``.
    """
    prefix = package + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            old = old_name(name)
            if old is not None:
                sys.modules.setdefault(old, module)


def old_name(name: str) -> str | None:
    """The old dotted name of the moved module ``name`` (inverse of :func:`new_name`)."""
    for old, new in MOVED.items():
        if name == new or name.startswith(new + "."):
            return old + name[len(new) :]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module already imported (or now imported) under its new name."""

    def __init__(self, new: str, real: importlib.machinery.ModuleSpec) -> None:
        self.new = new
        self.real = real
        self.saved: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """The real module itself: the old name becomes a second key for one module object."""
        module = importlib.import_module(self.new)
        self.saved = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run; undo the import system's relabelling of the real module's spec, and
        alias the package's submodules already imported (see :func:`_alias_loaded`)."""
        module.__spec__ = self.saved
        if self.real.submodule_search_locations is not None:
            _alias_loaded(module.__spec__.name if module.__spec__ else self.new)

    def get_code(self, fullname: str) -> types.CodeType | None:
        """The real module's code, for ``python -m OLD.NAME`` (runpy asks the loader)."""
        get_code = getattr(self.real.loader, "get_code", None)
        return get_code(self.new) if get_code is not None else None

    def is_package(self, fullname: str) -> bool:
        """Whether the real module is a package (runpy then runs its ``__main__``)."""
        return self.real.submodule_search_locations is not None


class LegacyFinder(importlib.abc.MetaPathFinder):
    """Finds old module names (see :data:`MOVED`) and aliases them to the new modules."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec whose loader returns the new module, or None for a name that did not move."""
        new = new_name(fullname) if fullname.startswith("contract.") else None
        if new is None:
            return None
        real = sys.modules[new].__spec__ if new in sys.modules else importlib.util.find_spec(new)
        if real is None:
            return None
        package = real.submodule_search_locations is not None
        spec = importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(new, real), origin=real.origin, is_package=package
        )
        if package:
            spec.submodule_search_locations = list(real.submodule_search_locations or [])
        return spec


def install() -> None:
    """Put one :class:`LegacyFinder` first on :data:`sys.meta_path` (idempotent).

    First, because a package's submodule under its old name (``contract.adapters.langchain``)
    would otherwise be found on disk by the path finder and imported a second time.
    """
    if not any(isinstance(finder, LegacyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, LegacyFinder())
