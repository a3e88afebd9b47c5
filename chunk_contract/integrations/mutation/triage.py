"""The triage file: every surviving mutant, with a verdict and a one-line reason.

A survivor is matched by its file, its function and the source line(s) it changes, before and
after (whitespace ignored), never by mutmut's mutant number (which shifts whenever a function is
edited). Verdicts:

``equivalent``
    no input can tell the mutant from the original (``"utf-8"`` vs ``"UTF-8"``);
``allowed``
    the output changes, but SPEC allows both outputs, so the contract is right not to object
    (a chunker that emits smaller windows, less overlap, or leaves out an optional field);
``hole``
    the contract should catch it: reported for a contract change, listed here until then.

Each entry is a ``[[survivor]]`` table::

    [[survivor]]
    file = "chunk_contract_reference/fixed.py"
    function = "_fit"
    before = 'head = text[start:start + budget].encode("utf-8", "surrogatepass")[:budget]'
    after = 'head = text[start:start + budget].encode("UTF-8", "surrogatepass")[:budget]'
    verdict = "equivalent"
    reason = "codec names are case-insensitive"
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from chunk_contract.errors import UsageError
from chunk_contract.integrations.mutation.results import Mutant

VERDICTS = ("equivalent", "allowed", "hole")


class TriageError(UsageError, ValueError):
    """A triage file that cannot be read: a usage error."""


@dataclass(frozen=True)
class Entry:
    file: str
    function: str
    before: str
    after: str
    verdict: str
    reason: str

    def matches(self, mutant: Mutant, display_path: str | None = None) -> bool:
        return (self.file in (mutant.path, display_path) and self.function == mutant.function
                and _norm(self.before) == _norm(mutant.line_before)
                and _norm(self.after) == _norm(mutant.line_after))


@dataclass
class Triage:
    entries: list[Entry] = field(default_factory=list)
    path: Path | None = None

    def find(self, mutant: Mutant, display_path: str | None = None) -> Entry | None:
        for entry in self.entries:
            if entry.matches(mutant, display_path):
                return entry
        return None

    def stale(self, survivors: Iterable[tuple[Mutant, str | None]]) -> list[Entry]:
        """Entries that match no survivor (the mutant is killed now, or the code changed)."""
        pairs = list(survivors)
        return [e for e in self.entries if not any(e.matches(m, d) for m, d in pairs)]


def _norm(text: str) -> str:
    """A line compared without any whitespace: reformatting (``a[b:c]`` to ``a[b : c]``)
    does not unmatch an entry."""
    return "\n".join("".join(line.split()) for line in text.strip().split("\n"))


def load(path: Path | str | None) -> Triage:
    """The triage file at ``path`` (an empty triage when ``path`` is None or missing)."""
    if path is None or not Path(path).is_file():
        return Triage([], Path(path) if path else None)
    try:
        data = tomllib.loads(Path(path).read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TriageError(f"{path}: cannot read the triage file: {exc}") from None
    entries = []
    for i, raw in enumerate(data.get("survivor", [])):
        missing = [k for k in ("file", "function", "before", "after", "verdict", "reason")
                   if not isinstance(raw.get(k), str)]
        if missing:
            raise TriageError(f"{path}: survivor #{i + 1} lacks {', '.join(missing)}")
        if raw["verdict"] not in VERDICTS:
            raise TriageError(f"{path}: survivor #{i + 1}: verdict {raw['verdict']!r} is not one "
                              f"of {', '.join(VERDICTS)}")
        if not raw["reason"].strip() or raw["reason"].strip().upper() == "TODO":
            raise TriageError(f"{path}: survivor #{i + 1} ({raw['file']}:{raw['function']}) "
                              f"needs a reason")
        entries.append(Entry(raw["file"], raw["function"], raw["before"], raw["after"],
                             raw["verdict"], raw["reason"].strip()))
    return Triage(entries, Path(path))


def entry_toml(mutant: Mutant, display_path: str | None = None, verdict: str = "equivalent",
               reason: str = "TODO") -> str:
    """A paste-ready ``[[survivor]]`` entry for ``mutant``."""
    return "\n".join([
        "[[survivor]]",
        f"file = {_string(display_path or mutant.path)}",
        f"function = {_string(mutant.function)}",
        f"before = {_string(mutant.line_before)}",
        f"after = {_string(mutant.line_after)}",
        f"verdict = {_string(verdict)}",
        f"reason = {_string(reason)}",
    ]) + "\n"


def _string(text: str) -> str:
    """A TOML string for ``text``: literal where it can be, else basic with escapes."""
    if "\n" in text:
        if "'''" not in text and not text.endswith("'"):
            return "'''\n" + text + "'''"
    elif "'" not in text and all(c >= " " or c == "\t" for c in text):
        return "'" + text + "'"
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
               .replace("\t", "\\t"))
    escaped = "".join(c if c >= " " else f"\\u{ord(c):04x}" for c in escaped)
    return '"' + escaped + '"'
