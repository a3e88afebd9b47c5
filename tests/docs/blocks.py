"""The code blocks of the documentation: found, classified and run the way a reader would.

A fenced block whose language is a command (``sh``) or a program (``python``, ``js``) is
runnable. Its first line may name the file it shows (``# my_chunker.py``, ``// chunker.mjs``):
such a block is written to that file in the page's scratch folder, where the page's later
blocks run. A comment just above a block says how to treat it:

- ``<!-- not-run: reason -->``: the block is not run (an install, a command against the
  reader's own project); the reason must be given;
- ``<!-- expect-exit: N -->``: each command of the block must exit with status N (a run that
  finds a violation exits 1).

Data blocks (``toml``, ``yaml``, ``json``) must parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Pages written by a generator from data, with no examples of their own.
GENERATED = {"conformance.md", "mutation-report-js.md"}
RUNNABLE = {"sh", "python", "js"}
DATA = {"toml", "yaml", "json"}
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARK = re.compile(r"^<!--\s*(not-run|expect-exit):\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int
    lang: str
    text: str
    mark: str = ""
    value: str = ""

    def __str__(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"

    @property
    def file(self) -> str | None:
        """The file the block shows, named on its first line (``# name.py``, ``// name.mjs``)."""
        first = self.text.split("\n", 1)[0]
        found = re.match(r"^(?:#|//)\s*([\w./-]+\.(?:py|mjs|js))\b", first)
        return found.group(1) if found else None

    @property
    def runs(self) -> bool:
        return self.lang in RUNNABLE and self.mark != "not-run"

    @property
    def expected_exit(self) -> int:
        return int(self.value) if self.mark == "expect-exit" else 0


def pages() -> list[Path]:
    """Every page of the documentation, the README and the contributor's files."""
    found = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "ARCHITECTURE.md"]
    found += sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name not in GENERATED)
    return found


def blocks(page: Path) -> Iterator[Block]:
    """The fenced blocks of ``page``, each with the mark just above it (if any)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        above = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        mark = _MARK.match(above)
        yield Block(page, i + 1, fence.group(1), "\n".join(lines[i + 1 : end]) + "\n",
                    *(mark.groups() if mark else ()))
        i = end + 1


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in blocks(page)]


def commands(block: Block) -> list[str]:
    """The commands of a shell block: one a line, comments and blank lines left out."""
    out = []
    for line in block.text.splitlines():
        command = re.sub(r"\s+#\s.*$", "", line).strip()
        if command and not command.startswith("#"):
            out.append(command)
    return out
