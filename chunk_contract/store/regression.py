"""``chunk-contract replay REPRODUCER --emit-pytest PATH``: a saved counterexample as a standalone
pytest regression test.

The test calls the user's chunker on the shrunk input and asserts the violated rule through the
public API (:func:`chunk_contract.check`; :func:`chunk_contract.run` for the whole-run rules
``scales_linearly`` and ``deterministic``), with no copy of the contract's internals: it fails
while the bug is there and passes once it is fixed. The document is written as a Python literal
with ``ascii()``, which keeps every string exact (lone surrogates, separated surrogate pairs,
control characters), so the test sees the very string that failed. Every other string from
the reproducer (the target, the message) is a literal too: a shared reproducer is data, and
cannot add code to the test. A file target inside a project is written relative to the project
root (the folder of the nearest pyproject.toml) and found from there when the test runs, so the
test can be committed and run from any folder or machine.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunk_contract import _files
from chunk_contract.store.reproducers import Reproducer

#: Rules seen only across a whole run: the test reruns the contract on that rule alone.
_WHOLE_RUN = ("scales_linearly", "deterministic")


def emit_pytest(saved: Reproducer, path: Path, *, source: str) -> Path:
    """Write the regression test for ``saved`` (read from ``source``) to ``path``."""
    text = render(saved, source=source)
    _files.write_text(path, text)
    return path


def render(saved: Reproducer, *, source: str) -> str:
    """The test module's text. Every string taken from the reproducer (target, message, source,
    document) is written as a Python literal (``repr``/``ascii``), never spliced into code or a
    docstring: a crafted reproducer cannot add code to the test."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"test_{saved.invariant}_regression")
    where = _portable(saved.target)
    call = "TARGET" if where is None else "_target()"  # a portable target is found at run time
    body = _whole_run(saved, call) if saved.invariant in _WHOLE_RUN else _one_call(saved, call)
    first = saved.message.splitlines()[0] if saved.message else ""
    return (
        '"""Regression test written by `chunk-contract replay --emit-pytest`.\n\n'
        "It fails while the bug is there and passes once it is fixed. The target, the input and\n"
        "what was observed when it was saved are the constants below.\n"
        '"""\n\n'
        f"{_imports(saved, portable=where is not None)}\n\n"
        f"SOURCE = {_literal(source)}\n"
        f"OBSERVED = {_literal(first)}\n"
        f"{_target_lines(saved.target, where)}"
        f"DOCUMENT = {_literal(saved.document)}\n"
        f"MAX_SIZE = {int(saved.config.max_size)!r}\n"
        f"OVERLAP = {int(saved.config.overlap)!r}\n"
        f"INVARIANT = {saved.invariant!r}\n\n\n"
        f"{_finder() if where is not None else ''}"
        f"def {name}() -> None:\n{body}"
    )


def _target_lines(target: str, where: tuple[str, str] | None) -> str:
    if where is None:
        return f"TARGET = {_literal(target)}\n"
    path, attr = where
    return (
        "# The chunker's file, relative to the project root (the folder of pyproject.toml).\n"
        f"TARGET_FILE = {_literal(path)}\n"
        f"TARGET_ATTR = {_literal(attr)}\n"
    )


def _finder() -> str:
    return (
        "def _target() -> str:\n"
        '    """TARGET_FILE:TARGET_ATTR from the project root: the nearest folder above this test\n'
        '    (else above the current folder) with a pyproject.toml and the file."""\n'
        "    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):\n"
        "        for folder in (start, *start.parents):\n"
        '            found = folder / TARGET_FILE\n'
        '            if (folder / "pyproject.toml").is_file() and found.is_file():\n'
        '                return f"{found}:{TARGET_ATTR}"\n'
        "    raise FileNotFoundError(\n"
        '        f"{TARGET_FILE} not found under a project root (a folder with pyproject.toml) "\n'
        '        f"above {Path(__file__).parent} or {Path.cwd()}")\n\n\n'
    )


def _imports(saved: Reproducer, *, portable: bool) -> str:
    first = "from pathlib import Path\n\n" if portable else ""
    if saved.invariant in _WHOLE_RUN:
        return first + "from chunk_contract import RunSettings, run"
    return first + "from chunk_contract import check"


def _one_call(saved: Reproducer, call: str) -> str:
    return (
        f"    violations = check({call}, DOCUMENT, max_size=MAX_SIZE, overlap=OVERLAP,\n"
        f"                       invariants=[INVARIANT], timeout={float(saved.timeout)!r})\n"
        '    assert not violations, "\\n".join(str(v) for v in violations)\n'
    )


def _whole_run(saved: Reproducer, call: str) -> str:
    seed = int(saved.seed) if saved.seed is not None else 0
    return (
        f"    settings = RunSettings(only=(INVARIANT,), seed={seed!r}, reproducers=None,\n"
        f"                           timeout={float(saved.timeout)!r})\n"
        f"    result = run({call}, settings)\n"
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


def _portable(target: str) -> tuple[str, str] | None:
    """``(file relative to the project root, attr)`` for a file target inside a project (the
    nearest folder above the file holding pyproject.toml), else None (the target as saved)."""
    where, colon, attr = target.rpartition(":")
    if not colon or not where.endswith(".py") or not Path(where).is_file():
        return None
    file = Path(where).resolve()
    for folder in file.parents:
        if (folder / "pyproject.toml").is_file():
            return file.relative_to(folder).as_posix(), attr
    return None
