"""Resolve a target (SPEC §1) to a plugin and read its declarations (SPEC §3).

No plugin code runs in the host: :func:`load` imports the target, instantiates its class and
reads its declarations in a forked worker, under a time limit (``load_timeout``: at least
``LOAD_TIMEOUT`` s, or ``$CHUNK_CONTRACT_LOAD_TIMEOUT``) and the memory cap, and the host keeps
only the target string and the plain, validated declarations. A target that hangs, exits,
crashes or raises while loading is a :class:`TargetError`. A plugin object passed through the
Python API is the caller's own code: the worker inherits it, and reads its declarations there.
:func:`load_here` resolves a target in this very process, for code that must call the plugin
itself (a fresh child interpreter, the mutation suite, the in-process fuzz harness).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract.errors import MAX_TIMEOUT, UsageError, printable
from chunk_contract.spec.model import Declarations
from chunk_contract.spec.registry import EXTENSION_IDS, SPEC_IDS, registry

if TYPE_CHECKING:
    import importlib.metadata

ENTRY_POINT_GROUP = "chunk_contract.plugins"


class TargetError(UsageError):
    """A target that cannot be imported, resolved or called: a usage error, never a violation."""


@dataclass(frozen=True)
class Plugin:
    """A resolved chunker: the target it came from and its declarations.

    From :func:`load_here` (resolved in this process) it also holds its ``split`` and
    ``count_tokens`` callables. From :func:`load` (resolved in a worker) it holds none: ``spec``
    is the target string the worker loads (``target`` may be renamed for reports), or
    ``source`` the plugin object given through the API; ``location`` is where ``split`` is
    defined (file, 1-based line), when known.
    """

    target: str
    split: Callable[..., Any] | None
    declarations: Declarations
    count_tokens: Callable[[str], int] | None = None
    spec: str | None = None
    source: Any = None
    location: tuple[str, int] | None = None
    #: The folder an ``exec:`` target's command runs in (None: the current folder).
    cwd: str | None = None

    @property
    def kind(self) -> str:
        return self.declarations.kind


#: Seconds loading a plugin in its worker may take at least (or the per-call timeout, if longer).
LOAD_TIMEOUT = 10.0
LOAD_TIMEOUT_VAR = "CHUNK_CONTRACT_LOAD_TIMEOUT"


def load_timeout(timeout: float | None = None) -> float:
    """Seconds a worker gets to load a plugin: $CHUNK_CONTRACT_LOAD_TIMEOUT, else LOAD_TIMEOUT,
    and never less than the per-call ``timeout``."""
    text = os.environ.get(LOAD_TIMEOUT_VAR, "").strip()
    try:
        floor = float(text) if text else LOAD_TIMEOUT
    except ValueError:
        raise TargetError(
            f"{LOAD_TIMEOUT_VAR}={printable(text, limit=40)} is not a number of seconds"
        ) from None
    if not 0 < floor <= MAX_TIMEOUT:  # NaN and infinity fail too
        raise TargetError(
            f"{LOAD_TIMEOUT_VAR}={printable(text, limit=40)} must be a finite number of seconds "
            f"above 0 and at most {MAX_TIMEOUT:g}; unset it for the default {LOAD_TIMEOUT:g}"
        )
    return max(floor, timeout or 0.0)


def load_here(target: str | Any) -> Plugin:
    """Resolve ``target`` in this process (its code runs here): a Plugin with its callables."""
    if isinstance(target, Plugin):
        return target if target.split is not None else load_here(plugin_source(target))
    if not isinstance(target, str):
        return from_object(target, name=_name_of(target))
    if ":" not in target or _is_windows_drive(target):
        return from_object(_entry_point(target), name=target)
    where, _, attr = target.rpartition(":")
    if not where or not attr:
        raise TargetError(f"{target}: expected module:attr, path/to/file.py:attr or a plugin name")
    module = _load_file(where, target) if where.endswith(".py") else _import(where, target)
    return from_object(_getattr_path(module, attr, target, where), name=target)


def plugin_source(plugin: Plugin) -> str | Any:
    """What a worker loads for ``plugin``: its API object, else its target string."""
    if plugin.source is not None:
        return plugin.source
    return plugin.spec or plugin.target


def _is_windows_drive(target: str) -> bool:
    return len(target) > 2 and target[1] == ":" and target[2] in "\\/"


def _import(module_name: str, target: str) -> Any:
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise TargetError(f"{target}: cannot import {module_name!r}: {exc}") from None
    except BaseException as exc:  # the plugin's own import-time failure
        raise TargetError(f"{target}: importing {module_name!r} raised {_one_line(exc)}") from None


def _load_file(path_text: str, target: str) -> Any:
    path = Path(path_text).resolve()
    if not path.is_file():
        raise TargetError(f"{target}: no such file {path_text!r}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = "_chunk_contract_plugin_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"{target}: cannot load {path_text!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise TargetError(
            f"{target}: syntax error in {path_text} line {exc.lineno}: {exc.msg}"
        ) from None
    except BaseException as exc:
        raise TargetError(f"{target}: loading {path_text} raised {_one_line(exc)}") from None
    return module


def _getattr_path(module: Any, attr: str, target: str, where: str) -> Any:
    value = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise TargetError(f"{target}: {where} has no attribute {part!r}") from None
    return value


def entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    """Plugins registered under the ``chunk_contract.plugins`` entry-point group, by name."""
    import importlib.metadata  # here: loading a file.py or module target never needs it

    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _entry_point(name: str) -> Any:
    found = entry_points().get(name)
    if found is None:
        known = ", ".join(sorted(entry_points())) or "none installed"
        raise TargetError(
            f"{name}: not a file.py:attr or module:attr target, and no plugin of that name is "
            f"registered (known: {known})"
        )
    try:
        return found.load()
    except ImportError as exc:
        raise TargetError(f"{name}: {exc}") from None
    except BaseException as exc:
        raise TargetError(f"{name}: loading the plugin raised {_one_line(exc)}") from None


def from_object(obj: Any, *, name: str) -> Plugin:
    """A class is instantiated; an object with ``split`` is a plugin; a callable is the chunker."""
    if inspect.isclass(obj):
        try:
            obj = obj()
        except BaseException as exc:
            raise TargetError(
                f"{name}: instantiating {obj.__name__}() raised {_one_line(exc)}"
            ) from None
    split = getattr(obj, "split", None)
    if not callable(split):
        if not callable(obj):
            raise TargetError(
                f"{name}: {type(obj).__name__} is not callable and has no split method"
            )
        split = obj
    check_signature(split, name=name)
    return Plugin(
        target=name, split=split, declarations=declarations(obj, name), count_tokens=_counter(obj)
    )


#: How the contract calls every chunker (SPEC §2).
EXPECTED_CALL = "split(document, *, max_size=..., overlap=...)"


def check_signature(split: Callable[..., Any], *, name: str) -> None:
    """TargetError when ``split`` cannot take ``(document, *, max_size=..., overlap=...)``.

    Only a signature Python can read is judged: a C callable without one, or any object whose
    signature cannot be computed, is let through (its calls then show what it takes).
    """
    try:
        found = inspect.signature(split)
    except (TypeError, ValueError):
        return
    try:
        found.bind("document", max_size=1, overlap=0)
    except TypeError as exc:
        label = getattr(split, "__name__", None) or type(split).__name__
        raise TargetError(
            f"{name}: the chunker {label}{found} cannot be called as {EXPECTED_CALL} ({exc}); "
            f"give it that signature, or wrap it in a function that has it"
        ) from None


def _counter(obj: Any) -> Callable[[str], int] | None:
    counter = getattr(obj, "count_tokens", None)
    return counter if callable(counter) else None


def declarations(obj: Any, name: str) -> Declarations:
    """Read and validate ``kind``, ``unit``, ``newlines``, ``promises``, ``documents``,
    ``token_counting``, ``max_size_range`` and ``overlap_range`` from ``obj``."""
    promises = getattr(obj, "promises", ()) or ()
    if isinstance(promises, str) or not isinstance(promises, Iterable):
        raise TargetError(
            f"{name}: promises must be an iterable of invariant ids, got {promises!r}"
        )
    try:
        found = Declarations(
            kind=getattr(obj, "kind", "text"),
            unit=getattr(obj, "unit", "chars"),
            newlines=getattr(obj, "newlines", "preserve"),
            promises=frozenset(promises),
            has_count_tokens=_counter(obj) is not None,
            documents=getattr(obj, "documents", "text"),
            token_counting=getattr(obj, "token_counting", "exact"),
            max_size_range=getattr(obj, "max_size_range", (1, None)),
            overlap_range=getattr(obj, "overlap_range", (0, None)),
        )
    except ValueError as exc:
        raise TargetError(f"{name}: {exc}") from None
    _check_promises(found.promises, name)
    return found


def _check_promises(promises: frozenset[str], name: str) -> None:
    """A promise of an id no rule has is a TargetError. The built-in ids are known without
    loading the rules (a fresh interpreter of ``deterministic`` never needs them)."""
    unknown = sorted(p for p in promises if p not in (*SPEC_IDS, *EXTENSION_IDS)
                     and p not in registry())
    if unknown:
        raise TargetError(f"{name}: promises unknown invariant id(s) {', '.join(unknown)}")


def _name_of(obj: Any) -> str:
    return (
        getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    )


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
