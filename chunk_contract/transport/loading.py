"""Loading a plugin in its worker: the host never imports, instantiates or inspects it.

:func:`plugin_setup` is the ``setup`` of a plugin's worker
(:class:`chunk_contract.containment.worker.Worker`):
in each new child it resolves the plugin (a target string is imported there; an API object is
inherited through the fork), reads its declarations, and says hello with them as plain data.
:func:`load_in_worker` runs that once in a short-lived worker and turns the hello into a
:class:`~chunk_contract.transport.targets.Plugin` that holds only the target and validated
declarations; any
failure (an import that hangs, exits, crashes, raises, or declarations that are wrong) is a
:class:`~chunk_contract.transport.targets.TargetError` that says what happened.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from chunk_contract.containment.worker import Outcome, Setup, Task, Worker
from chunk_contract.spec.model import Declarations
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.outofprocess import load_out_of_process
from chunk_contract.transport.serving import serve
from chunk_contract.transport.targets import (
    Plugin,
    TargetError,
    entry_points,
    from_object,
    load_here,
    load_timeout,
    plugin_source,
)

_DECLARATION_KEYS = frozenset(("kind", "unit", "newlines", "promises", "has_count_tokens"))


def load_in_worker(
    target: str | Any, *, name: str | None, timeout: float | None, memory_mb: int | None
) -> Plugin:
    """Resolve ``target`` in a worker of its own; a Plugin with plain declarations only."""
    if isinstance(target, Plugin):
        return target
    limit = load_timeout(timeout)
    label = target if isinstance(target, str) else name or "the plugin object"
    setup = plugin_setup(target, serve=False, name=name)
    with Worker(setup=setup, timeout=limit, memory_mb=memory_mb, load_timeout=limit) as worker:
        hello = worker.start()
    if not hello.ok:
        raise TargetError(describe_failure(label, hello, limit))
    found = checked_hello(label, hello.value)
    if isinstance(target, str):
        return Plugin(target, None, found.declarations, spec=target, location=found.location)
    return Plugin(found.name, None, found.declarations, source=target, location=found.location)


def plugin_setup(
    source: str | Any, *, serve: bool = True, name: str | None = None
) -> Setup:
    """The setup of a worker for ``source`` (a target string, a plugin object or a Plugin)."""
    if isinstance(source, Plugin) and source.split is None:
        name = name or source.target
        source = plugin_source(source)

    def setup() -> tuple[Task, Any]:
        plugin = _resolve(source, name)
        return (_serve(plugin) if serve else _idle), hello_of(plugin)

    return setup


def _resolve(source: Any, name: str | None) -> Plugin:
    """The plugin, resolved in this (child) process."""
    if isinstance(source, Plugin):
        return source
    if isinstance(source, str) or name is None:
        return load_here(source)
    return from_object(source, name=name)


def _serve(plugin: Plugin) -> Task:
    return serve(plugin)


def _idle(_request: Any) -> None:
    """The task of a worker that only loads: it answers nothing useful."""


def hello_of(plugin: Plugin) -> dict[str, Any]:
    """A resolved plugin's declarations, name and location, as plain data."""
    decl = plugin.declarations
    return {
        "name": str(plugin.target),
        "kind": decl.kind,
        "unit": decl.unit,
        "newlines": decl.newlines,
        "promises": sorted(str(p) for p in decl.promises),
        "has_count_tokens": bool(decl.has_count_tokens),
        "documents": decl.documents,
        "token_counting": decl.token_counting,
        "max_size_range": list(decl.max_size_range),
        "overlap_range": list(decl.overlap_range),
        "location": _location(plugin.split),
    }


def _location(split: Callable[..., Any] | None) -> list[Any] | None:
    """[file, 1-based line] where ``split`` is defined, or None."""
    function = getattr(split, "__func__", split)
    try:
        source = inspect.getsourcefile(function)  # type: ignore[arg-type]
        line = inspect.getsourcelines(function)[1]  # type: ignore[arg-type]
    except (TypeError, OSError):
        return None
    return [str(source), int(line)] if source else None


class Hello:
    """A checked hello: the plugin's name, declarations and location."""

    def __init__(
        self, name: str, declarations: Declarations, location: tuple[str, int] | None
    ) -> None:
        self.name = name
        self.declarations = declarations
        self.location = location


def checked_hello(label: str, value: Any) -> Hello:
    """The hello a worker sent, validated as plain data; TargetError when it is malformed."""
    if type(value) is not dict or not value.keys() >= _DECLARATION_KEYS:
        raise TargetError(f"{label}: the worker sent malformed declarations {_brief(value)}")
    kind, unit, newlines, promises = (value[k] for k in ("kind", "unit", "newlines", "promises"))
    counts = value["has_count_tokens"]
    if not all(type(x) is str for x in (kind, unit, newlines)) or type(counts) is not bool:
        raise TargetError(f"{label}: the worker sent malformed declarations {_brief(value)}")
    if type(promises) is not list or not all(type(p) is str for p in promises):
        raise TargetError(f"{label}: the worker sent malformed promises {_brief(promises)}")
    extra = _optional_declarations(label, value)
    try:
        declarations = Declarations(
            kind=kind, unit=unit, newlines=newlines, promises=frozenset(promises),
            has_count_tokens=counts, **extra,
        )
    except ValueError as exc:
        raise TargetError(f"{label}: {exc}") from None
    name = value.get("name")
    return Hello(name if type(name) is str else label, declarations, _checked_location(value))


def _optional_declarations(label: str, value: dict[str, Any]) -> dict[str, Any]:
    """The hello's ``documents`` and ``token_counting`` (strings, when sent) and its ranges
    (checked by Declarations)."""
    extra: dict[str, Any] = {k: value[k] for k in ("documents", "token_counting") if k in value}
    if not all(type(x) is str for x in extra.values()):
        raise TargetError(f"{label}: the worker sent malformed declarations {_brief(value)}")
    extra.update({k: value[k] for k in ("max_size_range", "overlap_range") if k in value})
    return extra


def _checked_location(value: dict[str, Any]) -> tuple[str, int] | None:
    where = value.get("location")
    if type(where) is list and len(where) == 2 and [type(x) for x in where] == [str, int]:
        return where[0], where[1]
    return None


def describe_failure(label: str, hello: Outcome, limit: float) -> str:
    """One line for a TargetError: how loading ``label`` in its worker failed."""
    if hello.kind == "timeout":
        return f"{label}: loading timed out after {limit:g} s"
    if hello.kind == "memory":
        return f"{label}: loading ran out of memory ({hello.message})"
    if hello.kind == "crash":
        return _crash_line(label, hello.message)
    if hello.error_type.endswith("TargetError"):
        return hello.message
    return f"{label}: loading raised {hello.error_type}: {hello.message}".rstrip(": ")


def _crash_line(label: str, message: str) -> str:
    prefix = "worker exited with status "
    if message.startswith(prefix):
        status = message.removeprefix(prefix)
        return f"{label}: the plugin exited the worker while loading (exit status {status})"
    return f"{label}: the worker died while loading the plugin ({message})"


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def load(
    target: str | Any,
    *,
    name: str | None = None,
    timeout: float | None = None,
    memory_mb: int | None = 1024,
) -> Plugin:
    """Resolve ``target`` (a target string, or a plugin object, class or callable) in a worker.

    Returns a Plugin with plain declarations and no callables; raises TargetError for a target
    that cannot be loaded, or that hangs, exits, crashes or raises while loading.
    """
    if isinstance(target, str) and ":" not in target:
        command = _built_in_exec_target(target)  # a built-in adapter of another language
        if command is not None:
            name, target = name or target, command
    if is_out_of_process(target):
        return load_out_of_process(target, name=name, timeout=timeout, memory_mb=memory_mb)
    return load_in_worker(target, name=name, timeout=timeout, memory_mb=memory_mb)


def _built_in_exec_target(name: str) -> str | None:
    """The ``exec:`` target behind a built-in adapter of another language (an entry point of
    ``chunk_contract.integrations.adapters`` whose object carries ``exec_command``), or None. Only
    the project's own adapter modules are imported here, in the host."""
    found = entry_points().get(name)
    if found is None or not found.value.startswith("chunk_contract.integrations.adapters."):
        return None
    obj = found.load()
    if not hasattr(obj, "exec_command"):
        return None
    reason = obj.unavailable()
    if reason:
        raise TargetError(reason)  # it names the adapter and what to install
    return str(obj.target)
