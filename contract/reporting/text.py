"""The human report: a verdict table, then each violation with its shrunk input and a replay."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from contract.model import Config, escape
from contract.registry import registry
from contract.runner import (
    Event,
    Finished,
    InvariantResult,
    Measuring,
    Progress,
    RunResult,
    Shrinking,
    Started,
)

_MAX_MESSAGES = 5
_MAX_CHUNKS = 4


#: Codepoints of a failing document shown in full; longer ones are cut in the middle (the
#: reproducer file always holds the whole document).
SHOW_CHARS = 1200


def _doc_repr(document: Any) -> str:
    if isinstance(document, str):
        return escape(document, SHOW_CHARS)
    return repr(document)


def _size(document: Any) -> str:
    if isinstance(document, str):
        return f"{len(document)} codepoint" + ("" if len(document) == 1 else "s")
    sheets = document.get("sheets", {}) if isinstance(document, dict) else {}
    return f"{len(sheets)} sheet(s), {sum(len(c) for c in sheets.values())} cell(s)"


def _config(config: Config) -> str:
    note = "" if config.is_valid else "  (degenerate)"
    return config.describe() + note


def render_violation(result: RunResult, item: InvariantResult) -> str:
    """One violated invariant: rule, observed vs allowed, the failing input, how to replay."""
    found = item.counterexample
    assert found is not None
    lines = [f"- {registry()[item.id].rule}", ""]
    lines += [f"    {m}" for m in _messages(found.messages)]
    lines += _offending(found.chunks, found.offending)
    state = "shrunk" if found.shrunk else "not shrunk"
    lines += [
        "",
        f"Failing input ({state}, {_size(found.document)}):",
        f"    document = {_doc_repr(found.document)}",
        f"    config   = {_config(found.config)}",
    ]
    if found.reproducer:
        lines += ["", "Reproduce with:", f"    chunk-contract replay {found.reproducer}"]
    return "\n".join(lines)


def _messages(messages: list[str]) -> list[str]:
    shown = [line for m in messages[:_MAX_MESSAGES] for line in m.splitlines()]
    if len(messages) > _MAX_MESSAGES:
        shown.append(f"... and {len(messages) - _MAX_MESSAGES} more")
    return shown


def _offending(chunks: list[dict[str, Any]] | None, indices: list[int]) -> list[str]:
    if not chunks or not indices:
        return []
    out = [""]
    for i in indices[:_MAX_CHUNKS]:
        if i < len(chunks):
            out.append(f"    chunk[{i}] = {chunks[i].get('text')!a}")
    return out


def render(result: RunResult) -> str:
    """The whole report for ``result``."""
    out = [_header(result), ""]
    width = max(len(r.id) for r in result.results)
    for item in result.results:
        note = f"  {item.reason}" if item.status == "skipped" else ""
        out.append(f"  {item.id:<{width}}  {item.status}{note}")
    for item in result.violated:
        out += ["", f"____ {item.id} · {result.target} ____", render_violation(result, item)]
    out += ["", *_coverage(result), _summary(result)]
    return "\n".join(out)


def _coverage(result: RunResult) -> list[str]:
    """The covering schedule's line: what the run covered whatever its seed (nothing for a
    ``check`` of given files, which plays no schedule)."""
    if result.coverage is not None:
        return [f"coverage: {result.coverage.describe()} of the covering schedule"]
    if not result.settings.schedule:
        return ["coverage: no covering schedule played (--no-schedule)"]
    return []


def _header(result: RunResult) -> str:
    checked = sum(r.status != "skipped" for r in result.results)
    return (
        f"chunk-contract · {result.target} ({result.kind}) · seed {result.seed}\n"
        f"{result.examples} examples · {checked} invariants checked · {result.elapsed:.1f} s"
    )


def _summary(result: RunResult) -> str:
    if result.passed:
        return (
            f"PASSED: no violation in {result.examples} examples (repeat with --seed {result.seed})"
        )
    ids = ", ".join(r.id for r in result.violated)
    checked = sum(r.status != "skipped" for r in result.results)
    return f"FAILED: {len(result.violated)} of {checked} invariants violated ({ids})"


class TextReport:
    """Prints the report to ``stream`` when the run finishes."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def __call__(self, event: Event) -> None:
        if isinstance(event, Finished):
            print(render(event.result), file=self.stream, flush=True)


class ProgressPrinter:
    """Shows what a long run is doing, on stderr: start, progress, shrinking."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            self._say(
                f"checking {event.target} ({event.kind}): {len(event.invariants)} "
                f"invariants, {event.max_examples} examples, seed {event.seed}"
            )
        elif isinstance(event, Progress) and event.examples % max(1, event.max_examples // 4) == 0:
            found = f" · violated so far: {', '.join(event.violated)}" if event.violated else ""
            self._say(f"  {event.examples}/{event.max_examples} examples{found}")
        elif isinstance(event, Shrinking):
            self._say(f"  shrinking the {event.invariant} counterexample")
        elif isinstance(event, Measuring):
            self._say(f"  measuring {event.invariant} on doubling documents")

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
