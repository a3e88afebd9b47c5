"""JSON that gives back the very strings it was given (SPEC 1.1 §7).

Plain JSON cannot tell a lone high surrogate followed by a lone low surrogate (two characters,
legal in a Python ``str``) from the astral character the pair would spell: ``json.loads`` merges
``"\\ud800\\udc00"`` into U+10000. Every document, chunk text and message that crosses a file or
a process boundary therefore goes through this module.

The encoding: a string that holds no surrogate code point (U+D800-U+DFFF) is written as itself,
so almost every file reads as ordinary JSON. A string that holds one is written as an object
``{"$str": [...]}`` whose list alternates runs of ordinary text (strings) with the surrogates'
code points (integers), in order::

    'x\\udbff\\udc00y'   ->   {"$str": ["x", 56319, 56320, "y"]}

A mapping that happens to have a ``"$str"`` or ``"$dict"`` key is wrapped as
``{"$dict": {...}}``, so no input is mistaken for an encoded string. Mapping keys must be
strings without surrogates (field names, sheet titles, A1 references): one that holds a
surrogate raises ``ValueError`` rather than be written wrongly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_SURROGATE = re.compile("([\ud800-\udfff])")
_STR, _DICT = "$str", "$dict"


def encode(value: Any) -> Any:
    """``value`` as a JSON-ready tree in which every string survives a JSON round trip."""
    if isinstance(value, str):
        return _encode_str(value)
    if isinstance(value, Mapping):
        tree = {_key(k): encode(v) for k, v in value.items()}
        return {_DICT: tree} if _STR in tree or _DICT in tree else tree
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    return value


def decode(tree: Any) -> Any:
    """The value that :func:`encode` turned into ``tree``."""
    if isinstance(tree, dict):
        if len(tree) == 1 and _STR in tree:
            return _decode_str(tree[_STR])
        if len(tree) == 1 and isinstance(tree.get(_DICT), dict):
            return {k: decode(v) for k, v in tree[_DICT].items()}
        return {k: decode(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [decode(item) for item in tree]
    return tree


def dumps(value: Any, **options: Any) -> str:
    """JSON text for ``value``; ``json.dumps`` options pass through. Always UTF-8 encodable."""
    return json.dumps(encode(value), **options)


def loads(text: str | bytes) -> Any:
    """The value written by :func:`dumps`. Raises ``ValueError`` on text that is not JSON, or on
    a malformed ``$str`` object."""
    return decode(json.loads(text))


def _encode_str(text: str) -> Any:
    if _SURROGATE.search(text) is None:
        return text
    parts = _SURROGATE.split(text)  # odd positions hold the surrogates themselves
    return {_STR: [ord(p) if i % 2 else p for i, p in enumerate(parts) if p]}


def _decode_str(parts: Any) -> str:
    if not isinstance(parts, list):
        raise ValueError(f"{_STR} must hold a list, got {type(parts).__name__}")
    return "".join(_piece(p) for p in parts)


def _piece(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, int) and not isinstance(part, bool) and 0 <= part <= 0x10FFFF:
        return chr(part)
    raise ValueError(f"{_STR} pieces are strings or code points, got {part!r}")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        return str(key) if isinstance(key, (int, float, bool)) or key is None else _bad_key(key)
    if _SURROGATE.search(key) is not None:
        raise ValueError(f"mapping key {key!r} holds a lone surrogate; JSON cannot keep it exact")
    return key


def _bad_key(key: Any) -> str:
    raise TypeError(f"mapping keys must be strings, got {type(key).__name__}")
