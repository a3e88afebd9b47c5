"""The human report: a verdict table, then each violation with its shrunk input and a replay.

Colour (green PASSED, red violations, dim skipped rows) only on a terminal, never in a pipe or
a CI log; ``NO_COLOR`` (any non-empty value) turns it off and ``FORCE_COLOR`` (non-empty, not
``0``) turns it on anywhere; when both are set, ``NO_COLOR`` wins (the reader's own opt-out).
``quiet`` prints only the title line (which target, which seed: several targets may run), what
failed (the rows of the violated invariants, then each violation), and the verdict line: no row
for a passed, skipped or deselected invariant.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from chunk_contract.diagnosis import Diagnosis
from chunk_contract.engine.events import Event
from chunk_contract.engine.results import InvariantResult, RunResult
from chunk_contract.errors import printable
from chunk_contract.reporting.formats import ReportFormat, finished, register
from chunk_contract.spec import SPEC_VERSION
from chunk_contract.spec.model import Config, escape, plural
from chunk_contract.spec.registry import registry
from chunk_contract.store import reproducers

if TYPE_CHECKING:
    from chunk_contract.engine.events import Event
    from chunk_contract.engine.results import InvariantResult, RunResult

_MAX_MESSAGES = 5
_MAX_CHUNKS = 4

#: SGR codes of the few styles the report uses.
_SGR = {"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}


def colour_wanted(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Whether to colour output to ``stream``: a terminal, unless NO_COLOR/FORCE_COLOR/CI say."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    if env.get("CI") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


class Style:
    """Paints text with ANSI colours when ``enabled``, and leaves it alone otherwise."""

    def __init__(self, *, enabled: bool = False) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles:
            return text
        codes = ";".join(_SGR[name] for name in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


PLAIN = Style()


#: Codepoints of a failing document shown in full; longer ones are cut in the middle (the
#: reproducer file always holds the whole document).
SHOW_CHARS = 1200


def _doc_repr(document: Any) -> str:
    if isinstance(document, str):
        return escape(document, SHOW_CHARS)
    return repr(document)


def _size(document: Any) -> str:
    if isinstance(document, str):
        return plural(len(document), "codepoint")
    sheets = document.get("sheets", {}) if isinstance(document, dict) else {}
    cells = sum(len(c) for c in sheets.values())
    return f"{plural(len(sheets), 'sheet')}, {plural(cells, 'cell')}"


def _config(config: Config) -> str:
    note = "" if config.is_valid else "  (degenerate)"
    return config.describe() + note


def render_violation(result: RunResult, item: InvariantResult) -> str:
    """One violated invariant: rule, observed vs allowed, the failing input, how to replay."""
    found = item.counterexample
    assert found is not None
    lines = [f"- {registry()[item.id].rule}", ""]
    if item.follows_from:
        lines += [f"    {follows_line(item)}", ""]
    lines += [f"    {m}" for m in _messages(found.messages)]
    lines += _offending(found.chunks, found.offending)
    lines += _diagnosis(found.diagnosis)
    state = _state(found.shrunk, found.replayed_from)
    if found.shrink_incomplete:
        state += f"; {shrink_cut_note(result)}"
    lines += [
        "",
        f"Failing input ({state}, {_size(found.document)}):",
        f"    document = {_doc_repr(found.document)}",
        f"    config   = {_config(found.config)}",
    ]
    if found.reproducer:
        command = reproducers.replay_command(found.reproducer, result.target)
        lines += ["", "Reproduce with:", f"    {command}"]
    return "\n".join(lines)


def follows_line(item: InvariantResult) -> str:
    """What a following verdict means, for the reports that explain it."""
    return (
        f"{item.follows_note}: with the chunks' offsets set aside (each chunk placed by its "
        f"text), this rule holds; fix {item.follows_from} first"
    )


def shrink_cut_note(result: RunResult) -> str:
    """Says that a counterexample's shrink stopped on the budget (a smaller input may exist)."""
    budget = f"{result.settings.shrink_seconds:g} s "
    return f"the {budget}shrink budget ran out, a smaller failing input may exist"


def _diagnosis(found: Diagnosis | None) -> list[str]:
    """The confirmed bug pattern, when there is one (chunk_contract.diagnosis)."""
    if found is None:
        return []
    return ["", f"Diagnosis ({found.pattern}): {found.cause}.",
            f"    evidence: {printable(found.evidence)}", f"    usual fix: {found.fix}"]


def _state(shrunk: bool, replayed_from: str | None) -> str:
    """How the failing input was reached: replayed from a saved failure, shrunk, or not."""
    if replayed_from:
        return f"replayed from {replayed_from}"
    return "shrunk" if shrunk else "not shrunk"


def _messages(messages: list[str]) -> list[str]:
    """The first messages, each cut and escaped (they quote what the plugin said)."""
    escaped = (printable(m, lines=True) for m in messages[:_MAX_MESSAGES])
    shown = [line for m in escaped for line in m.split("\n")]
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


def render(
    result: RunResult, *, quiet: bool = False, verbose: bool = False, style: Style = PLAIN
) -> str:
    """The whole report for ``result``; ``quiet``: the title, the violations and the verdict;
    ``verbose``: also where the time went, phase by phase."""
    header = _header(result)
    rows = _rows(result, style, only_violated=quiet)
    out = [header.splitlines()[0] if quiet else header]
    out += ["", *rows] if rows else []
    for item in result.violated:
        state = baseline_tag(item.counterexample)
        heading = style(f"____ {item.id} · {_shown(result.target)}{state} ____", "red", "bold")
        out += ["", heading, render_violation(result, item), *others(item)]
    out += _fixed(result)
    out += _health(result, style)
    out += ["", *_coverage(result), _verdict(result, style)]
    if verbose and not quiet:
        out += ["", *phase_lines(result)]
    return "\n".join(out)


def phase_lines(result: RunResult) -> list[str]:
    """Wall and CPU seconds of each phase (CPU: the host and every process it started, then
    the part of it in the processes the plugin ran in)."""
    if result.total_time is None:
        return []
    rows = [*result.phases.items(), ("total", result.total_time)]
    width = max(len(name) for name, _ in rows)
    lines = ["time (wall / CPU of the host and its workers / of which the plugin's processes):"]
    lines += [f"  {name:<{width}}  {t.wall:7.2f} s  {t.cpu:7.2f} s  {t.plugin_cpu:7.2f} s"
              for name, t in rows]
    return lines


def baseline_tag(found: Any) -> str:
    """" · new" / " · unchanged" against a baseline, else nothing."""
    state = getattr(found, "baseline", None)
    return f" · {state}" if state else ""


def others(item: InvariantResult) -> list[str]:
    """The other distinct counterexamples of a violated rule, one line each with its replay."""
    rest = item.all_counterexamples[1:]
    if not rest:
        return []
    lines = ["", f"Other distinct failures of {item.id} ({len(rest)}):"]
    for found in rest:
        where = f"chunk-contract replay {found.reproducer}" if found.reproducer else "not saved"
        lines.append(f"  - {printable(found.message.splitlines()[0])}{baseline_tag(found)} · "
                     f"document = {_doc_repr(found.document)[:80]} · "
                     f"{found.config.describe()} · {where}")
    return lines


def _fixed(result: RunResult) -> list[str]:
    """The baseline's findings this run no longer saw."""
    if not result.fixed:
        return []
    lines = ["", "Fixed (in the baseline, no longer found; --write-baseline drops them):"]
    lines += [printable(f"  - {e.invariant} · {e.cause}") for e in result.fixed]
    return lines


def _health(result: RunResult, style: Style) -> list[str]:
    """The health findings (chunk_contract.engine.health): what, why, how to fix; never a
    failure."""
    lines = []
    for found in result.health:
        first, *rest = (printable(line) for line in found.lines())
        lines += ["", style(first, "yellow" if found.severity == "warning" else "dim"), *rest]
    return lines


def _rows(result: RunResult, style: Style, *, only_violated: bool = False) -> list[str]:
    """One row per invariant: its id and verdict (skipped rows dim, violated ones red)."""
    width = max(len(r.id) for r in result.results)
    rows = []
    for item in result.results:
        if only_violated and item.status not in ("violated", "waived"):
            continue
        if item.status == "skipped":
            reason = printable(item.reason)
            rows.append(style(f"  {item.id:<{width}}  skipped  {reason}".rstrip(), "dim"))
        elif item.status == "waived":
            rows.append(f"  {item.id:<{width}}  {style('waived', 'yellow')}   {waiver_note(item)}")
        else:
            colour = "red" if item.status == "violated" else "green"
            note = f"  {item.follows_note}" if item.follows_from else ""
            rows.append(f"  {item.id:<{width}}  {style(item.status, colour)}{note}")
    return rows


def waiver_note(item: InvariantResult) -> str:
    """A waived rule's reason, and whether it still fails (the first line of its finding)."""
    found = item.counterexample
    if found is None and not item.examples:
        return printable(f"{item.reason} (not evaluated in this run)")
    if found is None:
        return printable(f"{item.reason} (held: waiver no longer needed)")
    return printable(f"{item.reason} (still fails: {found.message.splitlines()[0]})")


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
        f"chunk-contract · {_shown(result.target)} ({_kinds(result)}) · seed {result.seed} · "
        f"spec {SPEC_VERSION}\n"
        f"{plural(result.examples, 'example')} · {plural(checked, 'invariant')} checked · "
        f"{result.elapsed:.1f} s"
    )


def _shown(target: str) -> str:
    """A target as printed: escaped, at most a few lines' worth."""
    return printable(target, limit=300)


def _kinds(result: RunResult) -> str:
    """The plugin's kind, and the documents it declared when not plain text."""
    documents = result.documents
    return result.kind if documents == "text" else f"{result.kind}, documents {documents}"


def _verdict(result: RunResult, style: Style) -> str:
    """The summary line, its PASSED / FAILED word coloured."""
    line = _summary(result)
    word, sep, rest = line.partition(":")
    return style(word, "green" if result.passed else "red", "bold") + sep + rest


def _summary(result: RunResult) -> str:
    return _summary_line(result) + "".join(f"\n{line}" for line in stop_notes(result))


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


def _summary_line(result: RunResult) -> str:
    if result.interrupted:
        return _interrupted(result)
    if result.passed:
        what = "no new violation" if result.violated else "no violation"
        return (
            f"PASSED: {what} in {plural(result.examples, 'example')} "
            f"(repeat with --seed {result.seed}){_gate_notes(result)}"
        )
    ids = ", ".join(r.id for r in result.violated)
    checked = sum(r.status != "skipped" for r in result.results)
    return (f"FAILED: {len(result.violated)} of {plural(checked, 'invariant')} violated ({ids})"
            f"{_gate_notes(result)}")


def gate_notes(result: RunResult) -> str:
    """What does not gate the run, for every report: "; baseline: ...; waived: ..."."""
    return _gate_notes(result)


def fixed_lines(result: RunResult) -> list[str]:
    """The baseline's findings this run no longer saw, one line each (none: no such)."""
    return [printable(f"fixed since the baseline: {e.invariant} · {e.cause}") for e in result.fixed]


def _gate_notes(result: RunResult) -> str:
    """"; baseline: 1 new, 2 unchanged, 0 fixed; waived: no_crash" (what does not gate)."""
    notes = []
    if result.settings.baseline is not None:
        states = [f.baseline for r in result.violated for f in r.all_counterexamples]
        notes.append(f"baseline: {states.count('new')} new, {states.count('unchanged')} "
                     f"unchanged, {len(result.fixed)} fixed")
    if result.waived:
        notes.append(f"waived: {', '.join(r.id for r in result.waived)}")
    return "".join(f"; {n}" for n in notes)


def _interrupted(result: RunResult) -> str:
    """The last line of a run that stopped early: it has not passed."""
    found = ", ".join(r.id for r in result.violated)
    so_far = f"violated so far: {found}" if found else "no violation found so far"
    return (
        f"INTERRUPTED ({result.interrupted_reason or 'stopped early'}) after "
        f"{plural(result.examples, 'example')}: {so_far}; the run has not passed"
    )


class TextReport:
    """Prints the report to ``stream`` when the run finishes.

    ``colour``: None decides by the stream and the environment (:func:`colour_wanted`).
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        verbose: bool = False,
        colour: bool | None = None,
    ) -> None:
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self.verbose = verbose
        wanted = colour_wanted(self.stream) if colour is None else colour
        self.style = Style(enabled=wanted)

    def __call__(self, event: Event) -> None:
        result = finished(event)
        if result is not None:
            text = render(result, quiet=self.quiet, verbose=self.verbose, style=self.style)
            try:
                print(text, file=self.stream, flush=True)
            except UnicodeEncodeError:  # a stream that cannot take every character (ASCII)
                encoding = getattr(self.stream, "encoding", None) or "ascii"
                shown = text.encode(encoding, "backslashreplace").decode(encoding)
                print(shown, file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing left to print: each report was printed when its target finished."""


FORMAT = register(
    ReportFormat(
        name="text",
        help="the human report, on stdout (-q: the title, the violations and the verdict)",
        open=lambda output: TextReport(
            output.stream, quiet=output.quiet, verbose=output.verbose
        ),
    )
)
