"""A markdown summary for a CI page (``$GITHUB_STEP_SUMMARY``): a table, then each violation.

For every target: a verdict line, one table row per invariant (verdict, and the first line of
what was observed, or why it was skipped), then a collapsible section per violation holding the
text report of that violation (rule, observed vs allowed, shrunk input, replay command).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chunk_contract import _files
from chunk_contract.errors import printable
from chunk_contract.reporting.formats import MergedFile, Output, ReportFormat, register
from chunk_contract.reporting.text import (
    baseline_tag,
    fixed_lines,
    gate_notes,
    others,
    render_violation,
    stop_notes,
    waiver_note,
)
from chunk_contract.spec.model import plural

if TYPE_CHECKING:
    from chunk_contract.engine.results import InvariantResult, RunResult

_ICON = {"passed": "✅ passed", "violated": "❌ **violated**", "skipped": "⏭️ skipped",
         "waived": "⚠️ waived"}
_CELL_CHARS = 160


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped, cut to a readable length."""
    line = " ".join(printable(text).split())
    if len(line) > _CELL_CHARS:
        line = line[: _CELL_CHARS - 1] + "…"
    return line.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _detail(item: InvariantResult) -> str:
    if item.status == "violated" and item.counterexample is not None:
        note = f"{item.follows_note} " if item.follows_from else ""
        states = "".join(baseline_tag(f) for f in item.all_counterexamples[:1])
        more = len(item.all_counterexamples) - 1
        extra = f" (+{more} distinct)" if more else ""
        return _cell(note + item.counterexample.message.splitlines()[0] + states + extra)
    if item.status == "waived":
        return _cell(waiver_note(item))
    if item.status == "skipped":
        return _cell(item.reason)
    return ""


def render_markdown(results: Iterable[RunResult]) -> str:
    """The summary of one or several runs."""
    results = list(results)
    failed = [r for r in results if not r.passed]
    if failed:
        count = sum(len(r.violated) for r in results)
        head = f"## chunk-contract: ❌ {plural(count, 'violation')}"
    else:
        head = "## chunk-contract: ✅ every applicable invariant holds"
    out = [head, ""]
    for result in results:
        out += _target(result)
    return "\n".join(out).rstrip() + "\n"


def _target(result: RunResult) -> list[str]:
    checked = sum(r.status != "skipped" for r in result.results)
    verdict = "PASSED" if result.passed else f"FAILED ({len(result.violated)} violated)"
    verdict += gate_notes(result)
    if result.interrupted:
        verdict = f"INTERRUPTED ({result.interrupted_reason}; {len(result.violated)} violated)"
    profile = f" · profile `{result.settings.profile}`" if result.settings.profile else ""
    out = [
        f"### `{result.target}`: {verdict}",
        "",
        f"{result.kind} plugin · {plural(result.examples, 'example')} · "
        f"{plural(checked, 'invariant')} checked · "
        f"seed `{result.seed}`{profile} · {result.elapsed:.1f} s",
        "",
        *[f"> ⚠️ {note}\n" for note in stop_notes(result)],
        *[f"> ✅ {line}\n" for line in fixed_lines(result)],
        *[f"> ⚠️ {found.what}\n" for found in result.health if found.check == "waiver_unneeded"],
        "| invariant | verdict | details |",
        "|---|---|---|",
    ]
    for item in result.results:
        out.append(f"| `{item.id}` | {_ICON.get(item.status, item.status)} | {_detail(item)} |")
    out.append("")
    for item in result.violated:
        body = "\n".join([render_violation(result, item), *others(item)])
        fence = _fence(body)
        out += [
            f"<details><summary><code>{item.id}</code>: {_detail(item)}</summary>",
            "",
            f"{fence}text",
            body,
            fence,
            "",
            "</details>",
            "",
        ]
    return out


def write_markdown(path: str | Path, results: Iterable[RunResult]) -> None:
    """Write the summary to ``path`` (a temporary file, then a rename)."""
    _files.write_text(path, render_markdown(results))


def _write(output: Output, results: Sequence[RunResult]) -> None:
    assert output.path is not None
    write_markdown(output.path, results)


FORMAT = register(
    ReportFormat(
        name="markdown",
        flag="--markdown",
        help="write a markdown summary (CI page)",
        open=lambda output: MergedFile(output, _write),
    )
)
