"""Rewrite the old import paths of chunk-contract (before issue 16's layout) in files, in place.

    python scripts/relayout.py FILE...        # rewrite; lists each file it changed
    python scripts/relayout.py --check FILE... # change nothing; exit 1 if a file would change

It uses the one table of moves, :data:`contract._legacy.MOVED`, and rewrites three forms:

- dotted names anywhere (``import contract.runner``, ``from contract.adapters.langchain import``,
  ``"contract.adapters.langchain:Character"``, ``monkeypatch.setattr("contract.worker.x", ...)``);
- ``from contract import runner, cli`` (a moved module is imported from its new package, under
  its old name if it was renamed: ``from contract.engine import targets as plugins``);
- file paths in prose and configuration (``contract/adapters/js`` ->
  ``contract/integrations/adapters/js``).

Old paths keep working without it (the finder in :mod:`contract._legacy`); rewriting makes the
code say where the modules are, and mypy follows only the new paths.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contract._legacy import MOVED, new_name

_DOTTED = re.compile(r"(?<![\w.])contract(?:\.\w+)+")
_PATH = re.compile(r"(?<![\w-])contract(?:/\w+)+(?:\.py)?")
_FROM = re.compile(
    r"^(?P<indent>[ \t]*)from contract import (?P<names>\([^)]*\)|[^\n#]*)(?P<note>#[^\n]*)?", re.M
)


def rewrite_dotted(text: str) -> str:
    """Every dotted name under a moved module, at its new path."""
    return _DOTTED.sub(lambda m: new_name(m.group(0)) or m.group(0), text)


def rewrite_paths(text: str) -> str:
    """Every ``contract/...`` file or folder path under a moved module, at its new path."""

    def one(match: re.Match[str]) -> str:
        path = match.group(0)
        stem, suffix = (path[:-3], ".py") if path.endswith(".py") else (path, "")
        moved = new_name(stem.replace("/", "."))
        return moved.replace(".", "/") + suffix if moved else path

    return _PATH.sub(one, text)


def _split(names: str) -> list[tuple[str, str | None]]:
    """``"a, b as c"`` (or its parenthesised, multi-line form) as ``[(a, None), (b, c)]``."""
    out: list[tuple[str, str | None]] = []
    for item in names.strip("()").replace("\n", " ").split(","):
        name, _, alias = item.strip().partition(" as ")
        if name:
            out.append((name.strip(), alias.strip() or None))
    return out


def _from_lines(indent: str, names: list[tuple[str, str | None]], note: str) -> str:
    """``from contract import`` lines for ``names``, each moved module from its new package;
    a trailing comment (``# noqa: E402``) is kept on every line."""
    groups: dict[str, list[str]] = {}
    for name, alias in names:
        moved = MOVED.get(f"contract.{name}")
        package, _, leaf = (moved or f"contract.{name}").rpartition(".")
        shown = alias or (name if leaf != name else None)
        groups.setdefault(package, []).append(f"{leaf} as {shown}" if shown else leaf)
    tail = f"  {note}" if note else ""
    lines = [f"{indent}from {p} import {', '.join(items)}{tail}" for p, items in groups.items()]
    return "\n".join(lines)


def rewrite_from_contract(text: str) -> str:
    """``from contract import m`` of a moved module ``m``, split by new package."""

    def one(match: re.Match[str]) -> str:
        names = _split(match.group("names"))
        if not any(f"contract.{name}" in MOVED for name, _ in names):
            return match.group(0)
        return _from_lines(match.group("indent"), names, match.group("note") or "")

    return _FROM.sub(one, text)


def rewrite(text: str) -> str:
    """``text`` with every old import path of chunk-contract replaced by its new one."""
    return rewrite_paths(rewrite_dotted(rewrite_from_contract(text)))


def main(argv: list[str] | None = None) -> int:
    """Rewrite each file; with ``--check``, only report the files that would change."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    args = parser.parse_args(argv)
    changed = []
    for path in args.files:
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for path in changed:
        print(f"{'would rewrite' if args.check else 'rewrote'} {path}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
