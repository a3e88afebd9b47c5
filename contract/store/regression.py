"""``chunk-contract replay REPRODUCER --emit-pytest PATH``: a saved counterexample as a standalone
pytest regression test.

The test calls the user's chunker on the shrunk input and asserts the violated rule through the
public API (:func:`contract.check`; :func:`contract.run` for the whole-run rules
``scales_linearly`` and ``deterministic``), with no copy of the contract's internals: it fails
while the bug is there and passes once it is fixed. The document is written as a Python literal
with ``ascii()``, which keeps every string exact (lone surrogates, separated surrogate pairs,
control characters), so the test sees the very string that failed.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from contract.store.reproducers import Reproducer

#: Rules seen only across a whole run: the test reruns the contract on that rule alone.
_WHOLE_RUN = ("scales_linearly", "deterministic")


def emit_pytest(saved: Reproducer, path: Path, *, source: str) -> Path:
    """Write the regression test for ``saved`` (read from ``source``) to ``path``."""
    text = render(saved, source=source)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def render(saved: Reproducer, *, source: str) -> str:
    """The test module's text."""
    name = re.sub(r"\W", "_", f"test_{saved.invariant}_regression")
    body = _whole_run(saved) if saved.invariant in _WHOLE_RUN else _one_call(saved)
    first = saved.message.splitlines()[0] if saved.message else ""
    return (
        f'"""Regression test for {saved.invariant} on {saved.target}.\n\n'
        f"Written by `chunk-contract replay {source} --emit-pytest`. It fails while the bug is\n"
        f"there and passes once it is fixed. Observed when it was saved:\n\n"
        f"    {ascii(first)[1:-1]}\n"
        '"""\n\n'
        f"{_imports(saved)}\n\n"
        f"TARGET = {_target(saved.target)!r}\n"
        f"DOCUMENT = {_literal(saved.document)}\n"
        f"MAX_SIZE = {saved.config.max_size!r}\n"
        f"OVERLAP = {saved.config.overlap!r}\n"
        f"INVARIANT = {saved.invariant!r}\n\n\n"
        f"def {name}() -> None:\n{body}"
    )


def _imports(saved: Reproducer) -> str:
    if saved.invariant in _WHOLE_RUN:
        return "from contract import RunSettings, run"
    return "from contract import check"


def _one_call(saved: Reproducer) -> str:
    return (
        "    violations = check(TARGET, DOCUMENT, max_size=MAX_SIZE, overlap=OVERLAP,\n"
        f"                       invariants=[INVARIANT], timeout={saved.timeout!r})\n"
        '    assert not violations, "\\n".join(str(v) for v in violations)\n'
    )


def _whole_run(saved: Reproducer) -> str:
    seed = saved.seed if saved.seed is not None else 0
    return (
        f"    settings = RunSettings(only=(INVARIANT,), seed={seed!r}, reproducers=None,\n"
        f"                           timeout={saved.timeout!r})\n"
        "    result = run(TARGET, settings)\n"
        "    assert result.passed, [r.counterexample.message for r in result.violated]\n"
    )


def _literal(document: object) -> str:
    """A Python literal for the document that gives back the exact value."""
    if isinstance(document, str):
        return _wrapped(ascii(document))
    return repr(document)


def _wrapped(literal: str, width: int = 88) -> str:
    """A long string literal as implicitly joined pieces in parentheses (no piece cuts an
    escape sequence in two)."""
    if len(literal) <= width:
        return literal
    quote, inner = literal[0], literal[1:-1]
    pieces, start = [], 0
    while start < len(inner):
        end = min(len(inner), start + width)
        while end < len(inner) and _inside_escape(inner, end):
            end -= 1
        pieces.append(f"    {quote}{inner[start:end]}{quote}")
        start = end
    return "(\n" + "\n".join(pieces) + "\n)"


def _inside_escape(inner: str, at: int) -> bool:
    """Whether a cut before ``inner[at]`` falls inside a backslash escape."""
    back = inner.rfind("\\", max(0, at - 9), at)
    if back < 0:
        return False
    run = len(inner[:back + 1]) - len(inner[:back + 1].rstrip("\\"))
    if run % 2 == 0:
        return False  # an escaped backslash, not the start of an escape
    kind = inner[back + 1:back + 2]
    size = {"x": 4, "u": 6, "U": 10}.get(kind, 2)
    return at < back + size


def _target(target: str) -> str:
    """A file target with an absolute path, so the test runs from any folder."""
    where, colon, attr = target.rpartition(":")
    if colon and where.endswith(".py") and Path(where).is_file():
        return f"{Path(where).resolve()}:{attr}"
    return target
