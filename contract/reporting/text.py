"""The human report: a verdict table, then each violation with its shrunk input and a replay."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from contract.diagnosis import Diagnosis
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
    lines += _diagnosis(found.diagnosis)
    state = "shrunk" if found.shrunk else "not shrunk"
    if found.shrink_incomplete:
        state += f"; {shrink_cut_note(result)}"
    lines += [
        "",
        f"Failing input ({state}, {_size(found.document)}):",
        f"    document = {_doc_repr(found.document)}",
        f"    config   = {_config(found.config)}",
    ]
    if found.reproducer:
        lines += ["", "Reproduce with:", f"    chunk-contract replay {found.reproducer}"]
    return "\n".join(lines)


def shrink_cut_note(result: RunResult) -> str:
    """Says that a counterexample's shrink stopped on the budget (a smaller input may exist)."""
    budget = f"{result.settings.shrink_seconds:g} s "
    return f"the {budget}shrink budget ran out, a smaller failing input may exist"


def _diagnosis(found: Diagnosis | None) -> list[str]:
    """The confirmed bug pattern, when there is one (contract.diagnosis)."""
    if found is None:
        return []
    return ["", f"Diagnosis ({found.pattern}): {found.cause}.", f"    evidence: {found.evidence}",
            f"    usual fix: {found.fix}"]


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
            out.append(f"    chunk[{i}] = {_chunk_text(chunks[i].get('text'))}")
    return out


def _chunk_text(text: Any) -> str:
    """A chunk's text as ``ascii()``, cut in the middle past SHOW_CHARS codepoints."""
    return escape(text, SHOW_CHARS) if isinstance(text, str) else ascii(text)


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
    return _verdict(result) + "".join(f"\n{line}" for line in stop_notes(result))


def stop_notes(result: RunResult) -> list[str]:
    """Lines saying where the run's budgets cut it short (none when they did not)."""
    notes = [f"STOPPED EARLY: {result.early_stop}"] if result.early_stop else []
    cut = result.shrinks_cut_short
    if cut:
        notes.append(
            f"SHRINK CUT SHORT: {', '.join(cut)} (the {result.settings.shrink_seconds:g} s shrink "
            "budget ran out; a smaller failing input may exist)"
        )
    return notes


def _verdict(result: RunResult) -> str:
    if result.interrupted:
        return _interrupted(result)
    if result.passed:
        return (
            f"PASSED: no violation in {result.examples} examples (repeat with --seed {result.seed})"
        )
    ids = ", ".join(r.id for r in result.violated)
    checked = sum(r.status != "skipped" for r in result.results)
    return f"FAILED: {len(result.violated)} of {checked} invariants violated ({ids})"


def _interrupted(result: RunResult) -> str:
    """The last line of a run that stopped early: it has not passed."""
    found = ", ".join(r.id for r in result.violated)
    so_far = f"violated so far: {found}" if found else "no violation found so far"
    return (
        f"INTERRUPTED ({result.interrupted_reason or 'stopped early'}) after "
        f"{result.examples} examples: {so_far}; the run has not passed"
    )


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
