"""Target kinds: how a target string that names an out-of-process chunker is reached.

A kind is one record, :class:`TargetKind`: the prefix its targets start with, the factory of
the child that answers SPEC §8's calls, the folder a target runs in (kept in its reproducers so
that ``replay`` works from anywhere), and where a SARIF result points. ``exec:`` and
``http(s)://`` are the two built-in kinds; a new one (``docker:``, ``grpc://``) is one
``register_kind(TargetKind(...))`` in a plugin module (see docs/how-to/extend.md). Nothing else
in the package tests a target's prefix: it asks :func:`kind_of`.

A child (what ``transport`` returns) has the interface of
:class:`chunk_contract.transport.exec_child.ExecChild`: ``start()`` returns the handshake
(:class:`chunk_contract.transport.wire.Handshake`), ``call(request, *, timeout)`` returns an
:class:`~chunk_contract.containment.worker.Outcome`, ``close()`` stops it, and ``restarts`` counts
its starts. The simplest kind maps its target to a command line and returns :func:`command_child`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunk_contract._extensions import register_objects

__all__ = [
    "EXEC", "HTTP", "TargetKind", "command_child", "exec_target", "is_out_of_process", "kind_of",
    "kinds", "register_kind", "working_folder",
]

#: ``transport(target, *, timeout, memory_mb, cwd, start_timeout)``: a started-on-demand child.
ChildFactory = Callable[..., Any]
#: ``sarif_location(target)``: (a relative artifact name, the source file if one is known).
Location = Callable[[str], tuple[str, Path | None]]


def _no_folder(target: str) -> str | None:
    return None


def _here(target: str) -> str | None:
    return str(Path.cwd().resolve())


def _after_scheme(target: str) -> tuple[str, Path | None]:
    return target.partition("://")[2] or target, None


@dataclass(frozen=True)
class TargetKind:
    """One way of reaching a chunker outside the host: see the module docstring."""

    #: The prefix (or prefixes) a target of this kind starts with: ``"exec:"``.
    prefix: str | tuple[str, ...]
    #: The child factory: ``transport(target, *, timeout, memory_mb, cwd, start_timeout)``.
    transport: ChildFactory
    #: The folder a target of this kind runs in (None: it runs nowhere on this machine).
    working_folder: Callable[[str], str | None] = _no_folder
    #: Where a SARIF result about a target of this kind points.
    sarif_location: Location = _after_scheme

    @property
    def prefixes(self) -> tuple[str, ...]:
        return (self.prefix,) if isinstance(self.prefix, str) else tuple(self.prefix)

    def owns(self, target: object) -> bool:
        """Whether ``target`` is a target string of this kind."""
        return isinstance(target, str) and target.startswith(self.prefixes)


_KINDS: dict[str, TargetKind] = {}


def register_kind(kind: TargetKind) -> TargetKind:
    """Add ``kind`` (once: a prefix another kind already owns is an error)."""
    if not kind.prefixes or not all(isinstance(p, str) and p for p in kind.prefixes):
        raise ValueError(f"a target kind needs a non-empty prefix, got {kind.prefix!r}")
    for prefix in kind.prefixes:
        known = _KINDS.get(prefix)
        if known is not None and known != kind:
            raise ValueError(f"target prefix {prefix!r} is registered twice; rename one")
    for prefix in kind.prefixes:
        _KINDS[prefix] = kind
    return kind


def kinds() -> dict[str, TargetKind]:
    """Every registered kind by prefix: the built-in ones, then those of the installed
    ``chunk_contract.target_kinds`` entry points (a module, or a TargetKind)."""
    register_objects("chunk_contract.target_kinds", TargetKind, register_kind)
    return dict(_KINDS)


def kind_of(target: object) -> TargetKind | None:
    """The kind of an out-of-process ``target``, or None (a Python target or object): the
    registered kind with the longest matching prefix."""
    if not isinstance(target, str):
        return None
    known = kinds()
    owners = [p for p in known if target.startswith(p)]
    return known[max(owners, key=len)] if owners else None


def is_out_of_process(target: object) -> bool:
    """Whether ``target`` names an out-of-process chunker (a registered kind's prefix)."""
    return kind_of(target) is not None


def working_folder(target: str) -> str | None:
    """The folder an out-of-process ``target`` runs in (None: none, or not out of process)."""
    kind = kind_of(target)
    return None if kind is None else kind.working_folder(target)


# ----------------------------------------------------------------------------- built-in kinds


def command_child(argv: Sequence[str], **limits: Any) -> Any:
    """A child that runs the command ``argv`` and speaks SPEC §8 over its pipes (contained,
    killed as a group): the transport of ``exec:``, and of any kind that maps to a command."""
    # lazy: the exec machinery is imported only for targets that run a command
    from chunk_contract.transport.exec_child import ExecChild

    return ExecChild(exec_target(argv), **limits)


def exec_target(argv: Sequence[str]) -> str:
    """The ``exec:`` target that runs ``argv``."""
    return EXEC.prefixes[0] + shlex.join(argv)


def _exec_child(target: str, **limits: Any) -> Any:
    # lazy: the exec machinery is imported only for exec: targets
    from chunk_contract.transport.exec_child import ExecChild

    return ExecChild(target, **limits)


def _http_child(target: str, *, timeout: float, start_timeout: float, **_: Any) -> Any:
    # lazy: urllib is imported only for http(s) targets
    from chunk_contract.transport.http_target import HttpTarget

    return HttpTarget(target, timeout=timeout, start_timeout=start_timeout)


def _words(command: str) -> list[str] | None:
    try:
        return shlex.split(command)
    except ValueError:
        return None


def _exec_location(target: str) -> tuple[str, Path | None]:
    """The script of an ``exec:`` command: its name (``node ../x/chunk.js`` -> chunk.js) and
    the first word that names an existing file."""
    command = target.removeprefix("exec:")
    words = _words(command)
    source = next((Path(w) for w in words if Path(w).is_file()), None) if words else None
    words = words if words is not None else command.split()
    scripts = [Path(w).name for w in words[1:] if not w.startswith("-") and Path(w).suffix]
    return next(iter(scripts), Path(words[0]).name if words else "chunker"), source


EXEC = register_kind(TargetKind("exec:", _exec_child, _here, _exec_location))
HTTP = register_kind(TargetKind(("http://", "https://"), _http_child))
