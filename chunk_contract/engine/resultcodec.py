"""A :class:`RunResult` as plain JSON data and back, for what a ``-n`` process sends the host.

A pool process ran plugin code beneath it, so the host treats what it sends as hostile: the
result travels as framed JSON (:mod:`chunk_contract.containment.framing`), never as a pickle, and
:func:`decode` builds only the dataclasses listed in :data:`CLASSES`, from their own fields,
with nothing called on the way but their constructors. Anything else is a :class:`ValueError`
(the run reports that process as failed), never code run in the host.

The tree: ``None``, bools, numbers and strings as themselves; every container tagged, as a
two-item list ``[tag, payload]``: ``["l", [...]]`` a list, ``["t", [...]]`` a tuple, ``["d",
[[key, value], ...]]`` a dict (any keys), ``["p", "text"]`` a path, ``["c", "Name", {field:
value}]`` one of :data:`CLASSES`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from chunk_contract.diagnosis.base import Diagnosis
from chunk_contract.engine.findings import BaselineEntry
from chunk_contract.engine.health import Finding
from chunk_contract.engine.results import (
    Counterexample,
    InvariantResult,
    PhaseTime,
    RunResult,
    RunSettings,
)
from chunk_contract.generation.strategies.coverage import Coverage
from chunk_contract.spec.model import Config

#: The only classes :func:`decode` builds, by name.
CLASSES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (RunResult, InvariantResult, Counterexample, RunSettings, Config, Diagnosis,
                Coverage, Finding, PhaseTime, BaselineEntry)
}
_SCALARS = (type(None), bool, int, float, str)
#: Nesting deeper than this is refused (a document is far shallower).
MAX_DEPTH = 200


def encode(value: Any) -> Any:
    """``value`` (a RunResult, or anything it holds) as a tagged JSON-ready tree."""
    if type(value) in _SCALARS:
        return value
    if type(value) in (list, tuple):
        return ["l" if type(value) is list else "t", [encode(item) for item in value]]
    if type(value) is dict:
        return ["d", [[encode(k), encode(v)] for k, v in value.items()]]
    if isinstance(value, Path):
        return ["p", str(value)]
    name = type(value).__name__
    if CLASSES.get(name) is type(value):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return ["c", name, fields]
    raise TypeError(f"a run result cannot hold a {name}")


def decode(tree: Any, depth: int = 0) -> Any:
    """The value :func:`encode` made ``tree`` from; ValueError for anything else."""
    if depth > MAX_DEPTH:
        raise ValueError("the result is nested too deeply")
    if type(tree) in _SCALARS:
        return tree
    if type(tree) is not list or not tree or type(tree[0]) is not str:
        raise ValueError(f"not a tagged value: {_brief(tree)}")
    tag, rest = tree[0], tree[1:]
    if tag in ("l", "t") and len(rest) == 1 and type(rest[0]) is list:
        items = [decode(item, depth + 1) for item in rest[0]]
        return items if tag == "l" else tuple(items)
    if tag == "d" and len(rest) == 1 and type(rest[0]) is list:
        return dict(_pair(item, depth) for item in rest[0])
    if tag == "p" and len(rest) == 1 and type(rest[0]) is str:
        return Path(rest[0])
    if tag == "c" and len(rest) == 2 and type(rest[1]) is dict:
        return _instance(rest[0], rest[1], depth)
    raise ValueError(f"not a tagged value: {_brief(tree)}")


def decode_result(tree: Any) -> RunResult:
    """The RunResult in ``tree``; ValueError when it holds anything else."""
    try:
        result = decode(tree)
    except (TypeError, RecursionError) as exc:
        raise ValueError(f"a malformed result: {exc}") from None
    if type(result) is not RunResult:
        raise ValueError(f"a {type(result).__name__} where a run result belongs")
    return result


def _pair(item: Any, depth: int) -> tuple[Any, Any]:
    if type(item) is not list or len(item) != 2:
        raise ValueError(f"not a key and a value: {_brief(item)}")
    key = decode(item[0], depth + 1)
    if type(key) not in (*_SCALARS, tuple):
        raise ValueError(f"a {type(key).__name__} as a mapping key")
    return key, decode(item[1], depth + 1)


def _instance(name: Any, fields: dict[str, Any], depth: int) -> Any:
    """One of CLASSES from exactly its own fields (constructors check the rest)."""
    cls = CLASSES.get(name) if type(name) is str else None
    if cls is None:
        raise ValueError(f"{_brief(name)} is not a class a run result holds")
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    if set(fields) != names:
        raise ValueError(f"{name} with fields {sorted(fields)}, expected {sorted(names)}")
    return cls(**{key: decode(value, depth + 1) for key, value in fields.items()})


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
