"""``--html PATH``: one self-contained, offline page per run, with a picture of each violation.

For every violated invariant the page draws the shrunk document line by line on a character
grid, with each chunk's span as a numbered band beneath the characters it covers. Overlaps are
hatched, characters that lie in no chunk are crossed out and marked ``✗`` (never colour alone),
and a table sets the lines each chunk claims against the lines it actually covers. Lines with
nothing of interest (no chunk boundary, overlap, lost character or offending chunk) are folded
away. Workbook counterexamples get a grid of the sheet's content with each chunk's claimed
range drawn over it; a range reaching past the content is cut at a margin and says how far it
goes. The config, the diagnosis and the replay command come with each picture.

The page needs no network and no script to show; a small inline script only checks, once
loaded, that every band lines up with the characters it stands for, and records the answer in
``<html data-geometry="ok">`` (the browser test reads it).
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import _files
from chunk_contract.engine.results import Counterexample, InvariantResult, RunResult
from chunk_contract.reporting.formats import MergedFile, Output, ReportFormat, register
from chunk_contract.reporting.text import fixed_lines, gate_notes, waiver_note
from chunk_contract.spec.a1 import column_letters, parse_range
from chunk_contract.spec.model import Chunk, chunks_from_records
from chunk_contract.spec.placement import place_in_order
from chunk_contract.spec.registry import registry
from chunk_contract.spec.workbook import non_empty_cells
from chunk_contract.store import reproducers

if TYPE_CHECKING:
    from chunk_contract.engine.results import Counterexample, InvariantResult, RunResult

#: Uninteresting lines kept around an interesting one before the rest is folded.
CONTEXT_LINES = 1
#: Characters drawn on the grid at most; the rest of a long document is shown as plain text.
MAX_CELLS = 20_000
#: Chunks listed in the table of lines at most.
MAX_TABLE_ROWS = 200
#: Characters of plain text kept for a folded run of lines.
FOLDED_CHARS = 2_000
#: Rules found by whole-run measurements: their counterexample is no picture of chunks.
_NO_PICTURE = ("scales_linearly",)
#: Cells of margin drawn around a workbook's content box.
SHEET_MARGIN = 2
_VISIBLE = {"\n": "↵", "\t": "→", "\r": "¤", " ": "·", "\x0b": "↧", "\x0c": "§", "\x85": "‡",
            "\u2028": "¶", "\u2029": "¶", "\ufeff": "°"}


def write_html(path: str | Path, results: Iterable[RunResult]) -> None:
    """Write the page for ``results`` (one or several targets) to ``path``, whole."""
    _files.write_text(path, render_html(results))


def render_html(results: Iterable[RunResult]) -> str:
    """The page's text."""
    body = "".join(_target(result) for result in results)
    return (f"<!doctype html>\n<html lang=\"en\" data-geometry=\"pending\"><head>"
            f"<meta charset=\"utf-8\"><title>chunk-contract report</title>"
            f"<style>{_CSS}</style></head><body><h1>chunk-contract report</h1>{body}"
            f"<script>{_SCRIPT}</script></body></html>\n")


def _target(result: RunResult) -> str:
    verdict = "PASSED" if result.passed else f"FAILED: {len(result.violated)} violated"
    verdict += gate_notes(result)
    rows = "".join(_row(item) for item in result.results)
    sections = "".join(_violation(result, item) for item in result.violated)
    return (f"<section class=\"target\"><h2>{_e(result.target)} <span class=\"verdict\">"
            f"{_e(verdict)}</span></h2><p>seed {result.seed} · {result.examples} examples · "
            f"{result.kind} plugin</p>{_notes(result)}{sections}"
            f"<details class=\"all\"><summary>every invariant's verdict</summary>"
            f"<table class=\"verdicts\"><tr><th>invariant</th>"
            f"<th>verdict</th><th>detail</th></tr>{rows}</table></details></section>")


def _notes(result: RunResult) -> str:
    """Fixed baseline findings and waivers no longer needed, one paragraph each."""
    lines = fixed_lines(result)
    lines += [f.what for f in result.health if f.check == "waiver_unneeded"]
    return "".join(f"<p class=\"note\">{_e(line)}</p>" for line in lines)


def _row(item: InvariantResult) -> str:
    mark = {"passed": "✓ passed", "violated": "✗ violated", "skipped": "– skipped",
            "waived": "! waived"}
    detail = item.reason if item.status == "skipped" else (
        item.counterexample.message.splitlines()[0] if item.counterexample else "")
    if item.follows_from:
        detail = f"{item.follows_note} {detail}"
    if item.status == "waived":
        detail = waiver_note(item)
    elif item.counterexample is not None:
        detail += "".join(f" [{f.baseline}]" for f in item.all_counterexamples[:1] if f.baseline)
        more = len(item.all_counterexamples) - 1
        detail += f" (+{more} distinct: see the text report)" if more else ""
    return (f"<tr class=\"{item.status}\"><td><a href=\"#{item.id}\">{item.id}</a></td>"
            f"<td>{mark.get(item.status, item.status)}</td><td>{_e(detail)}</td></tr>")


def _violation(result: RunResult, item: InvariantResult) -> str:
    found = item.counterexample
    assert found is not None
    if item.id in _NO_PICTURE or found.chunks is None:
        picture = ("<p>(no chunks to draw: the call gave none, or the rule is a measurement)</p>"
                   + _document_text(found.document))
    elif isinstance(found.document, str):
        picture = _text_picture(found)
    else:
        picture = _sheet_picture(found)
    messages = "".join(map(_message, found.messages[:10]))
    command = reproducers.replay_command(found.reproducer or "", result.target)
    replay = (f"<p>Reproduce with: <code>{_e(command)}</code></p>"
              if found.reproducer else "")
    follows = f" {_e(item.follows_note)}" if item.follows_from else ""
    return (f"<details class=\"violation\" id=\"{item.id}\" open><summary>✗ {item.id}{follows}: "
            f"{_e(registry()[item.id].rule)}</summary><ul class=\"messages\">{messages}</ul>"
            f"{_diagnosis(found)}<p>config: <code>{_e(found.config.describe())}</code> · "
            f"document: {_size(found.document)} · "
            f"{'shrunk' if found.shrunk else 'not shrunk'}</p>{picture}{replay}</details>")


def _message(text: str) -> str:
    """One message: a traceback or any other multi-line text keeps its lines and carets."""
    return f"<li><pre>{_e(text)}</pre></li>" if "\n" in text else f"<li>{_e(text)}</li>"


#: How much of a document without a picture is shown.
_SHOWN = 2000


def _document_text(document: object) -> str:
    """The failing document as text, cut at _SHOWN characters, when no picture shows it."""
    if not isinstance(document, str):
        return ""
    more = len(document) - _SHOWN
    tail = f" … ({more:,} more characters)" if more > 0 else ""
    return f"<pre class=\"document\">document = {_e(ascii(document[:_SHOWN]))}{_e(tail)}</pre>"


def _diagnosis(found: Counterexample) -> str:
    d = found.diagnosis
    if d is None:
        return ""
    return (f"<div class=\"diagnosis\"><b>Diagnosis ({_e(d.pattern)})</b>: {_e(d.cause)}."
            f"<br>evidence: {_e(d.evidence)}<br>usual fix: {_e(d.fix)}</div>")


def _size(document: Any) -> str:
    if isinstance(document, str):
        return f"{len(document)} codepoint{'s' if len(document) != 1 else ''}"
    sheets = document.get("sheets", {}) if isinstance(document, dict) else {}
    return f"{len(sheets)} sheet{'s' if len(sheets) != 1 else ''}"


# ----------------------------------------------------------------------------- text documents


@dataclass(frozen=True)
class _Band:
    chunk: int
    start: int
    end: int
    offending: bool


def _bands(document: str, chunks: Sequence[Chunk], offending: set[int]) -> list[_Band | None]:
    """Each chunk's span: its own codepoint offsets, else its placement in document order."""
    fixed = [c.start if c.start is not None and c.end is not None else None for c in chunks]
    placed = place_in_order(document, [c.text for c in chunks], fixed).spans
    out: list[_Band | None] = []
    for chunk, span in zip(chunks, placed):
        own = (chunk.start, chunk.end) if fixed[chunk.index] is not None else span
        if own is None or own[0] is None or own[1] is None:
            out.append(None)
        else:
            start, end = max(0, own[0]), min(len(document), own[1])
            out.append(_Band(chunk.index, start, max(start, end), chunk.index in offending))
    return out


def _text_picture(found: Counterexample) -> str:
    document = found.document
    chunks = chunks_from_records(found.chunks or [])
    bands = [b for b in _bands(document, chunks, set(found.offending)) if b is not None]
    covered = _coverage(len(document), bands)
    lines = _lines(document)
    per_line = _by_line(lines, bands)
    interesting = [_interesting(document, *lines[n], per_line[n], covered)
                   for n in range(len(lines))]
    rows = _folded(document, lines, interesting,
                   lambda n: _line(document, n, *lines[n], per_line[n], covered))
    drawn = {b.chunk for b in bands}
    unplaced = [c.index for c in chunks if c.index not in drawn]
    note = (f"<p class=\"unplaced\">chunks not drawn (no place in document order): "
            f"{', '.join(f'#{i}' for i in unplaced)}</p>" if unplaced else "")
    return (f"<div class=\"legend\">Each band is a chunk (#n), under the characters it covers; "
            f"<span class=\"hatch\">hatched</span>: in two chunks; <span class=\"lost\">✗"
            f"</span>: in no chunk; ⚠: a chunk the violation names; · → ¤ ↵: space, tab, CR, "
            f"LF; ¬: another control character."
            f"</div><div class=\"doc\">{''.join(rows)}</div>{note}"
            f"{_line_table(document, chunks, bands, set(found.offending))}")


def _coverage(size: int, bands: Sequence[_Band]) -> list[int]:
    """How many chunks cover each character (a difference array: linear)."""
    delta = [0] * (size + 1)
    for band in bands:
        delta[band.start] += 1
        delta[band.end] -= 1
    out, running = [], 0
    for k in range(size):
        running += delta[k]
        out.append(running)
    return out


def _lines(document: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every line, its ``\\n`` included (only ``\\n`` ends a line)."""
    out, start = [], 0
    while True:
        nl = document.find("\n", start)
        if nl < 0:
            out.append((start, len(document)))
            return out
        out.append((start, nl + 1))
        start = nl + 1


def _by_line(lines: Sequence[tuple[int, int]], bands: Sequence[_Band]) -> list[list[_Band]]:
    """The bands that touch each line (an empty band: the line holding its position)."""
    starts = [a for a, _ in lines]
    out: list[list[_Band]] = [[] for _ in lines]
    for band in bands:
        first = bisect.bisect_right(starts, band.start) - 1
        last = bisect.bisect_right(starts, max(band.start, band.end - 1)) - 1
        for n in range(max(0, first), last + 1):
            out[n].append(band)
    return out


def _interesting(document: str, a: int, b: int, bands: Sequence[_Band],
                 covered: Sequence[int]) -> bool:
    edges = any(a <= x.start < b or a < x.end <= b for x in bands)
    flagged = any(x.offending and x.start < b and a < x.end for x in bands)
    odd = any(covered[k] != 1 and (covered[k] > 1 or not document[k].isspace())
              for k in range(a, b))
    return edges or flagged or odd


def _folded(document: str, lines: list[tuple[int, int]], interesting: list[bool],
            draw: Any) -> list[str]:
    """Drawn rows for the interesting lines (and CONTEXT_LINES around them), at most MAX_CELLS
    characters in all; every other run of lines folded away as plain text."""
    keep = [any(interesting[max(0, i - CONTEXT_LINES):i + CONTEXT_LINES + 1])
            for i in range(len(lines))]
    out: list[str] = []
    run: list[int] = []
    budget = MAX_CELLS
    for n, shown in enumerate(keep):
        size = lines[n][1] - lines[n][0]
        if shown and size <= budget:
            out += [*_fold(document, lines, run), draw(n)]
            budget -= size
            run = []
        else:
            run.append(n)
    return out + _fold(document, lines, run)


def _fold(document: str, lines: list[tuple[int, int]], run: list[int]) -> list[str]:
    if not run:
        return []
    text = document[lines[run[0]][0]:lines[run[-1]][1]]
    shown = _e(text[:FOLDED_CHARS]) + ("…" if len(text) > FOLDED_CHARS else "")
    count = f"{len(run)} line{'s' if len(run) != 1 else ''}"
    return [f"<details class=\"fold\"><summary>… {count} ({len(text)} characters) not drawn: "
            f"nothing to show there, or past the drawing's size …</summary><pre>{shown}</pre>"
            "</details>"]


def _line(document: str, number: int, a: int, b: int, bands: Sequence[_Band],
          covered: Sequence[int]) -> str:
    cells = "".join(_cell(document[k], k - a + 1, covered[k]) for k in range(a, b))
    tracks = "".join(_band_cell(x, a, b, row) for row, x in enumerate(bands, start=2))
    width = max(1, b - a)
    return (f"<div class=\"line\"><span class=\"lineno\">{number + 1}</span><div class=\"grid\" "
            f"style=\"grid-template-columns: repeat({width}, var(--cell))\" "
            f"data-line-start=\"{a}\">"
            f"{cells}{tracks}</div></div>")


def _cell(char: str, column: int, depth: int) -> str:
    kind = "lost" if depth == 0 and not char.isspace() else ("hatch" if depth > 1 else "")
    shown = _shown(char)
    mark = "✗" if kind == "lost" else ""
    return (f"<span class=\"ch {kind}\" style=\"grid-column:{column};grid-row:1\" "
            f"title=\"U+{ord(char):04X}\">{_e(shown)}<sup>{mark}</sup></span>")


def _shown(char: str) -> str:
    """One visible glyph for one character (whitespace and controls made visible)."""
    if char in _VISIBLE:
        return _VISIBLE[char]
    if "\ud800" <= char <= "\udfff":
        return "�"
    return char if char.isprintable() else "¬"


def _band_cell(band: _Band, a: int, b: int, row: int) -> str:
    start, end = max(band.start, a), min(band.end, b)
    first, last = start - a + 1, max(start - a + 2, end - a + 1)
    flag = " ⚠" if band.offending else ""
    cls = "band offending" if band.offending else "band"
    return (f"<span class=\"{cls}\" style=\"grid-column:{first}/{last};grid-row:{row}\" "
            f"data-chunk=\"{band.chunk}\" data-from=\"{start - a}\" data-to=\"{end - a}\">"
            f"#{band.chunk}{flag}</span>")


def _line_table(document: str, chunks: Sequence[Chunk], bands: Sequence[_Band],
                offending: set[int]) -> str:
    by_chunk = {b.chunk: b for b in bands}
    breaks = [k for k, ch in enumerate(document) if ch == "\n"]
    shown = _table_rows(chunks, offending)
    rows = []
    for chunk in shown:
        band = by_chunk.get(chunk.index)
        actual = _actual_lines(breaks, band) if band else None
        claimed = (chunk.line_start, chunk.line_end)
        claim = "–" if claimed == (None, None) else f"{claimed[0]}–{claimed[1]}"
        seen = "–" if actual is None else f"{actual[0]}–{actual[1]}"
        wrong = claimed != (None, None) and actual is not None and claimed != actual
        span = f"[{band.start}:{band.end})" if band else "not placed"
        rows.append(f"<tr class=\"{'mismatch' if wrong else ''}\"><td>#{chunk.index}</td>"
                    f"<td>{span}</td><td><code>{_e(ascii(chunk.text)[:120])}</code></td>"
                    f"<td>{claim}</td><td>{seen}{' ≠' if wrong else ''}</td></tr>")
    more = len(chunks) - len(shown)
    note = f"<p>… and {more} more chunk{'s' if more != 1 else ''} not listed</p>" if more else ""
    return ("<table class=\"chunks\"><tr><th>chunk</th><th>span</th><th>text</th>"
            f"<th>lines claimed</th><th>lines covered</th></tr>{''.join(rows)}</table>{note}")


def _table_rows(chunks: Sequence[Chunk], offending: set[int]) -> list[Chunk]:
    """At most MAX_TABLE_ROWS chunks: the offending ones and their neighbours first."""
    near = {i + d for i in offending for d in (-1, 0, 1)}
    first = [c for c in chunks if c.index in near]
    rest = [c for c in chunks if c.index not in near]
    return sorted((first + rest)[:MAX_TABLE_ROWS], key=lambda c: c.index)


def _actual_lines(breaks: Sequence[int], band: _Band) -> tuple[int, int] | None:
    """1-based lines of the band's first and last character (``breaks``: offsets of ``\n``)."""
    if band.end <= band.start:
        return None
    return bisect.bisect_left(breaks, band.start) + 1, bisect.bisect_left(breaks, band.end - 1) + 1


# ----------------------------------------------------------------------------- workbooks


def _sheet_picture(found: Counterexample) -> str:
    cells = non_empty_cells(found.document) if isinstance(found.document, dict) else {}
    chunks = chunks_from_records(found.chunks or [])
    parts = []
    for title, sheet in cells.items():
        claims = [(c, parse_range(c.range)) for c in chunks if c.sheet == title and c.range]
        parts.append(_sheet(title, sheet, claims, set(found.offending), column_letters))
    return "".join(parts) or "<p>(no sheet to draw)</p>"


def _sheet(title: str, sheet: dict[tuple[int, int], Any], claims: list[tuple[Chunk, Any]],
           offending: set[int], letters: Any) -> str:
    rows = [r for r, _ in sheet] or [1]
    cols = [c for _, c in sheet] or [1]
    top, left = max(1, min(rows) - SHEET_MARGIN), max(1, min(cols) - SHEET_MARGIN)
    bottom, right = max(rows) + SHEET_MARGIN, max(cols) + SHEET_MARGIN
    grid = [f"<span class=\"hdr\" style=\"grid-row:1;grid-column:{c - left + 2}\">{letters(c)}"
            f"</span>" for c in range(left, right + 1)]
    grid += [f"<span class=\"hdr\" style=\"grid-row:{r - top + 2};grid-column:1\">{r}</span>"
             for r in range(top, bottom + 1)]
    grid += [f"<span class=\"cell\" style=\"grid-row:{r - top + 2};grid-column:{c - left + 2}\">"
             f"{_e(str(v)[:12])}</span>" for (r, c), v in sheet.items()]
    notes = []
    for chunk, box in claims:
        if box is None:
            continue
        grid.append(_claim(chunk, box, (top, left, bottom, right), chunk.index in offending))
        notes.append(_claim_note(chunk, box, (top, left, bottom, right)))
    width = right - left + 2
    return (f"<h4>sheet {_e(title)}</h4><div class=\"sheet\" style=\"grid-template-columns: "
            f"repeat({width}, var(--sheet-cell))\">{''.join(grid)}</div><ul>{''.join(notes)}</ul>")


def _claim(chunk: Chunk, box: Any, view: tuple[int, int, int, int], flagged: bool) -> str:
    top, left, bottom, right = view
    r1, c1, r2, c2 = box
    rs, re_ = max(r1, top), min(r2, bottom)
    cs, ce = max(c1, left), min(c2, right)
    if rs > re_ or cs > ce:
        return ""
    return (f"<span class=\"claim{' offending' if flagged else ''}\" style=\"grid-row:"
            f"{rs - top + 2}/{re_ - top + 3};grid-column:{cs - left + 2}/{ce - left + 3}\">"
            f"#{chunk.index}{' ⚠' if flagged else ''}</span>")


def _claim_note(chunk: Chunk, box: Any, view: tuple[int, int, int, int]) -> str:
    _top, _left, bottom, right = view
    _r1, _c1, r2, c2 = box
    past = []
    if r2 > bottom:
        past.append(f"{r2 - bottom} row{'s' if r2 - bottom != 1 else ''} below")
    if c2 > right:
        past.append(f"{c2 - right} column{'s' if c2 - right != 1 else ''} to the right")
    beyond = f" (reaches {', '.join(past)} the drawing, cut)" if past else ""
    return f"<li>#{chunk.index}: claims {_e(chunk.range or '')}{beyond}</li>"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


_CSS = """
:root { --cell: 1.35em; --sheet-cell: 5.5em; font-family: system-ui, sans-serif; }
body { margin: 1.5em; color: #1b1b1b; }
code, .doc { font-family: ui-monospace, monospace; }
.verdict { font-size: 0.8em; padding: 0.1em 0.5em; border: 1px solid; }
table { border-collapse: collapse; margin: 0.6em 0; }
td, th { border: 1px solid #bbb; padding: 0.15em 0.5em; text-align: left; vertical-align: top; }
tr.violated td { font-weight: bold; }
tr.mismatch td { background: #fde2e2; font-weight: bold; }
.violation { border: 2px solid #b00020; padding: 0.5em 1em; margin: 1em 0; }
.violation > summary { font-weight: bold; cursor: pointer; }
.diagnosis { border-left: 4px double #444; padding: 0.4em 0.8em; background: #f3f3f3; }
.doc { overflow-x: auto; border: 1px solid #ddd; padding: 0.4em; }
.line { display: flex; align-items: flex-start; margin-bottom: 0.35em; }
.lineno { width: 3em; color: #666; text-align: right; padding-right: 0.6em; flex: none; }
.grid { display: grid; grid-auto-rows: 1.3em; }
.ch { text-align: center; border-bottom: 1px dotted #ccc; white-space: pre; }
.ch sup { font-size: 0.6em; }
.lost { background: #fde2e2; text-decoration: line-through wavy #b00020; font-weight: bold; }
.hatch, .legend .hatch {
  background: repeating-linear-gradient(45deg, #ffe9a8 0 3px, #fff 3px 6px); }
.band { border: 1px solid #2456a6; background: #dce8fb; font-size: 0.75em; margin: 1px 0;
        overflow: hidden; white-space: nowrap; padding-left: 2px; }
.band.offending { border: 2px dashed #b00020; background: #fde2e2; font-weight: bold; }
.fold > summary { color: #666; cursor: pointer; }
.legend { font-size: 0.85em; margin: 0.5em 0; }
.sheet { display: grid; grid-auto-rows: 1.6em; border: 1px solid #ddd; overflow-x: auto; }
.sheet .hdr { color: #666; font-size: 0.8em; text-align: center; }
.sheet .cell { border: 1px solid #ccc; font-size: 0.8em; overflow: hidden; }
.claim { border: 2px solid #2456a6; font-size: 0.7em; z-index: 1; background: rgba(36,86,166,.08); }
.claim.offending { border: 3px dashed #b00020; }
"""

#: Checks that every band spans exactly the character cells it stands for.
_SCRIPT = """
(function () {
  var bad = [];
  document.querySelectorAll('.grid').forEach(function (grid) {
    var cells = grid.querySelectorAll('.ch');
    grid.querySelectorAll('.band').forEach(function (band) {
      var from = +band.dataset.from, to = +band.dataset.to, r = band.getBoundingClientRect();
      if (to <= from || !cells[from] || !cells[to - 1]) { return; }
      var a = cells[from].getBoundingClientRect(), b = cells[to - 1].getBoundingClientRect();
      if (Math.abs(r.left - a.left) > 1.5 || Math.abs(r.right - b.right) > 1.5) {
        bad.push(band.dataset.chunk);
      }
    });
  });
  document.documentElement.dataset.geometry = bad.length ? 'mismatch:' + bad.join(',') : 'ok';
})();
"""


def _write(output: Output, results: Sequence[RunResult]) -> None:
    assert output.path is not None
    write_html(output.path, results)


FORMAT = register(
    ReportFormat(
        name="html",
        flag="--html",
        help="write one self-contained HTML page with a picture of each violation",
        open=lambda output: MergedFile(output, _write),
    )
)
