"""What makes two failures the same finding: the cause key, and the baseline of accepted findings.

A finding's identity is ``(target, invariant, cause)``, stable across seeds and runs:

- the confirmed bug pattern's id (chunk_contract.diagnosis), when an experiment confirmed one;
- for ``no_crash``: the exception type and the innermost frame (file basename:function);
- otherwise the *shape* of the violation's first line: digits and quoted text normalised, so
  "chunk 3 has 45 chars" and "chunk 7 has 90 chars" are one finding.

The same key decides which counterexamples of one rule are distinct (a run reports up to
:data:`DISTINCT` per rule) and which findings a baseline file accepts. The baseline file is
JSON, versioned, sorted and indented, so a change to it reads as a plain diff in review.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import _files
from chunk_contract.errors import UsageError
from chunk_contract.spec.model import Violation

if TYPE_CHECKING:
    from chunk_contract.engine.results import Counterexample, RunResult

__all__ = [
    "DISTINCT",
    "BaselineEntry",
    "cause_of",
    "cause_of_counterexample",
    "compare",
    "entries_of",
    "load_baseline",
    "message_shape",
    "write_baseline",
]

#: Distinct counterexamples a run reports per rule.
DISTINCT = 3
#: The baseline file's format name and version.
FORMAT = "chunk-contract-baseline"
VERSION = 1

_RAISED = re.compile(r"raised ([\w.]+)")
_FRAME = re.compile(r'File "([^"]*)", line \d+, in (\S+)')
#: A JavaScript stack line, innermost first: "at name (path/file.js:3:9)".
_JS_FRAME = re.compile(r"^\s*at (\S+) \(([^()]*?):\d+:\d+\)", re.MULTILINE)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_NUMBER = re.compile(r"\d+")
#: A quoted text cut in the middle ('abc'...(N more)...'xyz'): one quoted text.
_CUT = re.compile(r"'…'\.\.\.\(N more\)\.\.\.'…'")


def message_shape(message: str) -> str:
    """The first line of ``message`` with quoted text as '…' and every number as N."""
    first = message.splitlines()[0] if message else ""
    return _CUT.sub("'…'", _NUMBER.sub("N", _QUOTED.sub("'…'", first))).strip()


def cause_of(violation: Violation) -> str:
    """The cause key of one violation, before any diagnosis (see the module's docstring)."""
    if violation.invariant == "no_crash":
        crash = _crash_cause(violation.message)
        if crash:
            return crash
    return message_shape(violation.message)


def _crash_cause(message: str) -> str | None:
    """"ZeroDivisionError at plugin.py:split" for a raised exception with its traceback."""
    raised = _RAISED.match(message)
    if raised is None:
        return None
    frames = _FRAME.findall(message)
    if frames:  # a Python traceback: innermost last
        path, function = frames[-1]
        return f"{raised.group(1)} at {Path(path).name}:{function}"
    js = _JS_FRAME.search(message)
    if js:  # a JavaScript stack: innermost first
        return f"{raised.group(1)} at {Path(js.group(2)).name}:{js.group(1)}"
    return raised.group(1)


def cause_of_counterexample(found: Counterexample) -> str:
    """The cause key of a reported counterexample: its confirmed diagnosis first."""
    if found.diagnosis is not None:
        return f"pattern:{found.diagnosis.pattern}"
    return cause_of(Violation(found.invariant, found.message))


@dataclass(frozen=True, order=True)
class BaselineEntry:
    """One accepted finding. ``message`` is for the reader; it is not part of the identity."""

    target: str
    invariant: str
    cause: str
    message: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.target, self.invariant, self.cause

    def as_dict(self) -> dict[str, str]:
        return {"target": self.target, "invariant": self.invariant, "cause": self.cause,
                "message": self.message}


def entries_of(result: RunResult) -> list[BaselineEntry]:
    """The gating findings of ``result`` as baseline entries (waived rules are not findings)."""
    return [
        BaselineEntry(result.target, item.id, found.cause, found.message.splitlines()[0])
        for item in result.violated
        for found in item.all_counterexamples
    ]


def load_baseline(path: Path) -> list[BaselineEntry]:
    """The entries of a baseline file, or a UsageError saying what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"baseline file {path} does not exist: write one with "
            f"`chunk-contract run TARGET --write-baseline {path}`"
        ) from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"baseline file {path} cannot be read as JSON: {exc}") from None
    return _entries(data, path)


def _entries(data: Any, path: Path) -> list[BaselineEntry]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a chunk-contract baseline (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise UsageError(
            f"baseline file {path} has version {data.get('version')!r}; this chunk-contract "
            f"reads version {VERSION}: write it again with --write-baseline"
        )
    try:
        return [BaselineEntry(str(e["target"]), str(e["invariant"]), str(e["cause"]),
                              str(e.get("message", ""))) for e in data["findings"]]
    except (KeyError, TypeError) as exc:
        raise UsageError(f"baseline file {path}: a finding lacks {exc}") from None


def write_baseline(
    path: Path, results: Iterable[RunResult], *, keep: Iterable[BaselineEntry] = ()
) -> list[BaselineEntry]:
    """Write the findings of ``results`` to ``path``; entries of ``keep`` whose target did not
    run are kept. Fixed findings (in the old file, not found now) are dropped."""
    results = list(results)
    ran = {r.target for r in results}
    entries = {e.key: e for e in keep if e.target not in ran}
    for result in results:
        entries.update({e.key: e for e in entries_of(result)})
    ordered = sorted(entries.values())
    document = {"format": FORMAT, "version": VERSION,
                "findings": [e.as_dict() for e in ordered]}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    _files.write_text(path, text, what="cannot write the baseline file")
    return ordered


def compare(result: RunResult, accepted: Iterable[BaselineEntry]) -> None:
    """Mark each finding of ``result`` new or unchanged against ``accepted``, and list the
    accepted findings of this target that no longer occur as fixed.

    A rule the baseline accepts that fails with another cause is a new finding. An accepted
    finding counts as fixed only when its rule was checked in this run and the run went to
    its end (an interrupted or deselected rule proves nothing).
    """
    mine = {e.key: e for e in accepted if e.target == result.target}
    seen = set()
    for item in result.violated:
        for found in item.all_counterexamples:
            key = (result.target, item.id, found.cause)
            found.baseline = "unchanged" if key in mine else "new"
            seen.add(key)
    checked = _checked(result)
    result.fixed = [e for k, e in sorted(mine.items()) if k not in seen and e.invariant in checked]


def _checked(result: RunResult) -> set[str]:
    if result.interrupted:
        return set()
    return {r.id for r in result.results if r.status in ("passed", "violated")}


def baseline_summary(result: RunResult) -> Mapping[str, int] | None:
    """Counts of new, unchanged and fixed findings, or None when no baseline was given."""
    if result.settings.baseline is None:
        return None
    states = [f.baseline for item in result.violated for f in item.all_counterexamples]
    return {"new": states.count("new"), "unchanged": states.count("unchanged"),
            "fixed": len(result.fixed)}
