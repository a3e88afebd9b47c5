"""Mutation reports: Stryker JSON, one offline HTML page, and a markdown summary for CI.

All three are built from :class:`Report` (the run's mutants plus their triage) and written whole
(to a temporary file, then renamed). The JSON follows the mutation-testing-report-schema
(``schemaVersion`` 2), so any Stryker-compatible dashboard reads it; the HTML page lists the
score and every surviving mutant's diff in plain HTML, and embeds the vendored
``mutation-testing-elements`` viewer for browsing the sources (it needs no network).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from chunk_contract import _files
from chunk_contract.integrations.mutation.results import DETECTED, INVALID, Mutant, RunData
from chunk_contract.integrations.mutation.triage import Entry, Triage, entry_toml

#: Score bands of the Stryker thresholds (and of the colours in the reports).
HIGH, LOW = 90, 75
#: Triage verdicts that leave a survivor out of the score (it cannot, or must not, be killed).
EXCLUDED = ("equivalent", "allowed")
STATUSES = ("Killed", "Survived", "Timeout", "NoCoverage", "CompileError", "RuntimeError",
            "Ignored", "Pending")
_VIEWER = "vendor/mutation-test-elements.js"


@dataclass
class Report:
    """One run's results, triaged."""

    data: RunData
    triage: Triage = field(default_factory=Triage)
    title: str = "chunk_contract_reference/"
    config: dict[str, Any] = field(default_factory=dict)
    fail_under: float | None = None
    #: Whether an untriaged survivor fails the report (the reference chunkers' gate).
    require_triage: bool = True
    #: Sentences shown under the score (e.g. what the unmutated chunker already violates).
    notes: list[str] = field(default_factory=list)
    #: A third-party file: code no target reaches (other functions of the file) is out of
    #: scope, Ignored rather than NoCoverage.
    uncovered_out_of_scope: bool = False
    #: The mutation tool that made the mutants, and the report's ``framework`` object (None:
    #: mutmut's); a StrykerJS run (chunk_contract.integrations.mutation.js) sets both.
    tool: str = "mutmut"
    framework: dict[str, Any] | None = None

    def display(self, mutant: Mutant) -> str:
        """The path a reader knows the mutant's file by."""
        return self.data.display.get(mutant.path, mutant.path)

    def entry(self, mutant: Mutant) -> Entry | None:
        return self.triage.find(mutant, self.display(mutant))

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.data.survivors() if not self._out_of_scope(m)]

    def _out_of_scope(self, mutant: Mutant) -> bool:
        return (self.uncovered_out_of_scope and mutant.status == "NoCoverage"
                and self.entry(mutant) is None)

    @property
    def untriaged(self) -> list[Mutant]:
        return [m for m in self.survivors if self.entry(m) is None]

    @property
    def stale(self) -> list[Entry]:
        return self.triage.stale((m, self.display(m)) for m in self.survivors)

    def status(self, mutant: Mutant) -> str:
        """The mutant's Stryker status after triage: a survivor triaged ``equivalent`` or
        ``allowed`` is Ignored (as Stryker marks mutants disabled with a reason)."""
        if mutant.status in ("Survived", "NoCoverage"):
            entry = self.entry(mutant)
            if (entry is not None and entry.verdict in EXCLUDED) or self._out_of_scope(mutant):
                return "Ignored"
        return mutant.status

    def outside(self, path: str | None = None) -> int:
        """Mutants outside a third-party target (of one file, or of all)."""
        return sum(1 for m in self.data.mutants
                   if (path is None or m.path == path) and self._out_of_scope(m))

    def counts(self, path: str | None = None) -> dict[str, int]:
        """Stryker statuses after triage (of one file, or of all)."""
        found = dict.fromkeys(STATUSES, 0)
        for mutant in self.data.mutants:
            if path is None or mutant.path == path:
                found[self.status(mutant)] += 1
        return found

    def score(self, path: str | None = None) -> float | None:
        """Detected / (mutants tested, less those triaged equivalent or allowed), in percent:
        the textbook mutation score, which leaves equivalent mutants out."""
        return _score(self.counts(path))

    def raw_score(self, path: str | None = None) -> float | None:
        """Detected / mutants tested, every survivor counted (mutmut's own number, less the
        code outside a third-party target)."""
        found = dict.fromkeys(STATUSES, 0)
        for mutant in self.data.mutants:
            if (path is None or mutant.path == path) and not self._out_of_scope(mutant):
                found[mutant.status] += 1
        return _score(found)

    @property
    def passed(self) -> bool:
        """No untriaged survivor, and the score is not under ``fail_under``."""
        low = self.fail_under is not None and (self.score() or 0.0) < self.fail_under
        return not (self.require_triage and self.untriaged) and not low

    def verdict_counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for mutant in self.survivors:
            entry = self.entry(mutant)
            key = entry.verdict if entry else "untriaged"
            found[key] = found.get(key, 0) + 1
        return found


# ----------------------------------------------------------------------------- JSON


def stryker(report: Report) -> dict[str, Any]:
    """The report as a mutation-testing-report-schema object (schemaVersion 2)."""
    files: dict[str, Any] = {}
    for path, source_file in report.data.files.items():
        mutants = []
        for m in source_file.mutants:
            item: dict[str, Any] = {
                "id": m.name,
                "mutatorName": m.mutator,
                "replacement": m.replacement,
                "location": {"start": {"line": m.start.line, "column": m.start.column},
                             "end": {"line": m.end.line, "column": m.end.column}},
                "status": report.status(m),
                "description": f"{m.function}: {m.change} ({report.tool}: {m.mutmut_status})",
                "static": False,
            }
            reason = _status_reason(report, m)
            if reason:
                item["statusReason"] = reason
            if m.duration is not None:
                item["duration"] = round(m.duration * 1000, 1)
            mutants.append(item)
        files[report.data.display.get(path, path)] = {
            "language": _language(path), "source": source_file.source, "mutants": mutants,
        }
    out: dict[str, Any] = {
        "schemaVersion": "2",
        "thresholds": {"high": HIGH, "low": LOW},
        "files": files,
        "framework": report.framework or {
            "name": "chunk-contract (mutmut)", "version": _version("chunk-contract"),
            "dependencies": {"mutmut": _version("mutmut"), "hypothesis": _version("hypothesis")}},
    }
    if report.config:
        out["config"] = report.config
    return out


def _language(path: str) -> str:
    """The report schema's language of a source file, from its extension."""
    return "javascript" if path.endswith((".js", ".mjs", ".cjs")) else "python"


def _status_reason(report: Report, mutant: Mutant) -> str:
    if mutant.killed_by:
        return f"killed by {mutant.killed_by}: {mutant.kill_message}".rstrip(": ")
    if report._out_of_scope(mutant):
        return "not reached by the target(s): another function of the file"
    if mutant.status not in ("Survived", "NoCoverage"):
        return ""
    entry = report.entry(mutant)
    if entry is None:
        return "not triaged: add it to the triage file, or strengthen the contract"
    rerun = "" if mutant.rerun else " (triaged, so not re-run; --recheck re-runs it)"
    return f"{entry.verdict}: {entry.reason}{rerun}"


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


# ----------------------------------------------------------------------------- markdown


def markdown(report: Report, *, max_diffs: int = 60) -> str:
    """A summary for CI job pages (``$GITHUB_STEP_SUMMARY``): score, counts, survivors."""
    lines = [f"## Mutation testing: {report.title}", "", f"**{_score_text(report.score())}** "
             f"{_badge(report)} · {summary_line(report)}"]
    if report.fail_under is not None:
        lines.append(f"(the gate: a score of at least {report.fail_under:g}% and every survivor "
                     f"triaged)")
    for note in [*report.notes, rerun_note(report)]:
        if note:
            lines += ["", note]
    lines += ["", "| file | mutants | killed | timeout | survived | equivalent | no coverage "
              "| score | raw score |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for path, source_file in report.data.files.items():
        k = report.counts(path)
        equivalent = k["Ignored"] - report.outside(path)
        lines.append(f"| `{report.data.display.get(path, path)}` | {len(source_file.mutants)} | "
                     f"{k['Killed']} | {k['Timeout']} | {k['Survived']} | {equivalent} | "
                     f"{k['NoCoverage']} | {_score_text(report.score(path), short=True)} | "
                     f"{_score_text(report.raw_score(path), short=True)} |")
    kills = kills_by_invariant(report)
    if kills:
        lines += ["", "Kills by invariant: " + ", ".join(f"`{k}` {n}" for k, n in kills)]
    verdicts = report.verdict_counts()
    lines += ["", f"### Surviving mutants: {len(report.survivors)}"]
    if report.survivors:
        lines.append(", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    untriaged = report.untriaged
    if untriaged:
        lines += ["", f"**{len(untriaged)} survivor(s) not triaged.** Each one is a change to the "
                  "chunker that the contract did not notice: strengthen the contract, or add the "
                  "entry below (with a reason) to the triage file.", ""]
        for m in untriaged[:max_diffs]:
            lines += _markdown_mutant(report, m, open_=True)
            lines += ["<details><summary>triage entry</summary>", "", "```toml",
                      suggested_entry(report, m).rstrip(), "```", "</details>", ""]
    order = {"hole": 0, "allowed": 1, "equivalent": 2}
    triaged = sorted((m for m in report.survivors if report.entry(m) is not None),
                     key=lambda m: order.get(getattr(report.entry(m), "verdict", ""), 3))
    if triaged:
        lines += ["", "<details><summary>Triaged survivors "
                  f"({len(triaged)})</summary>", ""]
        for m in triaged[:max_diffs]:
            lines += _markdown_mutant(report, m, open_=False)
        if len(triaged) > max_diffs:
            lines.append(f"... and {len(triaged) - max_diffs} more (see the HTML report)")
        lines += ["</details>", ""]
    if report.stale:
        lines += ["", f"{len(report.stale)} triage entr{'y' if len(report.stale) == 1 else 'ies'} "
                  "matched no survivor (killed now, or the code changed): consider removing "
                  "them.", ""]
        for e in report.stale[:20]:
            lines.append(f"- `{e.file}` `{e.function}`: `{_one_line(e.after)}`")
    return "\n".join(lines).rstrip() + "\n"


def _markdown_mutant(report: Report, m: Mutant, *, open_: bool) -> list[str]:
    entry = report.entry(m)
    verdict = f" — {entry.verdict}: {entry.reason}" if entry else ""
    out = [f"**`{report.display(m)}:{m.start.line}`** `{m.function}` · {m.status} · "
           f"`{_one_line(m.change)}`{verdict}", ""]
    if m.evidence and entry is None:
        out += [f"*Evidence:* {evidence_text(m.evidence)}", ""]
    return [*out, "```diff", m.diff.rstrip(), "```", ""]


def suggested_entry(report: Report, m: Mutant) -> str:
    """A triage entry for ``m``, its verdict guessed from the evidence (the reason is TODO)."""
    verdict = "equivalent"
    if m.evidence and "difference" in m.evidence:
        verdict = "allowed"
    return entry_toml(m, report.display(m), verdict=verdict)


def evidence_text(evidence: Mapping[str, Any]) -> str:
    """What chunk_contract.integrations.mutation.explain found, in one sentence for a triager."""
    if "difference" not in evidence and not evidence.get("cases"):
        return "no kill test reaches this code, so nothing was compared."
    if "difference" not in evidence:
        return (f"the original and the mutant gave the same chunks on all {evidence['cases']} "
                "generated cases: probably equivalent.")
    document = repr(evidence.get("document"))
    if len(document) > 160:
        document = document[:150] + "..." + document[-8:]
    size, overlap = evidence.get("config", ["?", "?"])
    return (f"after {evidence['cases']} cases, {evidence.get('target')} on document "
            f"{document} (max_size={size}, overlap={overlap}): {evidence['difference']}. The "
            "contract accepted both: SPEC allows the change (allowed), or it is a hole.")


def summary_line(report: Report) -> str:
    """``1066 mutants: 990 killed, ...`` with the raw score, in one line."""
    c = report.counts()
    invalid = sum(c[s] for s in INVALID if s != "Ignored")
    outside = sum(1 for m in report.data.mutants if report._out_of_scope(m))
    return (f"{len(report.data.mutants)} mutants: {c['Killed']} killed, {c['Timeout']} timed "
            f"out, {c['Survived']} survived, {c['Ignored'] - outside} survived but triaged "
            f"equivalent, {c['NoCoverage']} not covered"
            + (f", {outside} outside the target" if outside else "")
            + (f", {invalid} not run" if invalid else "")
            + f" (raw score, every survivor counted: "
            f"{_score_text(report.raw_score(), short=True)})")


def kills_by_invariant(report: Report) -> list[tuple[str, int]]:
    """How many killed mutants each invariant caught first, most first."""
    found: dict[str, int] = {}
    for mutant in report.data.mutants:
        if mutant.killed_by:
            found[mutant.killed_by] = found.get(mutant.killed_by, 0) + 1
    return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))


def rerun_note(report: Report) -> str:
    """A sentence on the triaged survivors that were not re-run, or ""."""
    n = sum(1 for m in report.survivors if not m.rerun)
    if not n:
        return ""
    return (f"{n} survivor(s) triaged equivalent or allowed were not re-run this time (their "
            "verdict stands until the triage file changes; --recheck re-runs them).")


def _score(counts: Mapping[str, int]) -> float | None:
    detected = sum(counts[s] for s in DETECTED)
    valid = sum(n for s, n in counts.items() if s not in INVALID)
    return 100.0 * detected / valid if valid else None


def _score_text(score: float | None, *, short: bool = False) -> str:
    if score is None:
        return "n/a" if short else "no mutant tested"
    return f"{score:.1f}%" if short else f"Mutation score {score:.1f}%"


def _badge(report: Report) -> str:
    return "✅" if report.passed else "❌"


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("`", "'")


# ----------------------------------------------------------------------------- HTML


def html_page(report: Report) -> str:
    """One self-contained HTML page: the score, the survivors' diffs, and the source viewer."""
    score = report.score()
    band = ("none" if score is None else "high" if score >= HIGH else "mid" if score >= LOW
            else "low")
    rows = []
    for path, source_file in report.data.files.items():
        k = report.counts(path)
        rows.append(
            f"<tr><td><code>{_e(report.data.display.get(path, path))}</code></td>"
            f"<td>{len(source_file.mutants)}</td><td>{k['Killed']}</td><td>{k['Timeout']}</td>"
            f"<td>{k['Survived']}</td><td>{k['Ignored'] - report.outside(path)}</td>"
            f"<td>{k['NoCoverage']}</td>"
            f"<td>{_e(_score_text(report.score(path), short=True))}</td>"
            f"<td>{_e(_score_text(report.raw_score(path), short=True))}</td></tr>")
    survivors = []
    rank = {"hole": 1, "allowed": 2, "equivalent": 3}
    for m in sorted(report.survivors, key=lambda m: (
            rank.get(getattr(report.entry(m), "verdict", ""), 0), report.display(m),
            m.start.line)):
        entry = report.entry(m)
        verdict = (f'<span class="verdict {entry.verdict}">{_e(entry.verdict)}</span> '
                   f"{_e(entry.reason)}" if entry else
                   '<span class="verdict untriaged">not triaged</span> strengthen the contract, '
                   "or add this entry to the triage file:"
                   f"<pre>{_e(suggested_entry(report, m))}</pre>")
        survivors.append(
            f'<details class="mutant"{" open" if entry is None else ""}>'
            f"<summary><code>{_e(report.display(m))}:{m.start.line}</code> "
            f"<code>{_e(m.function)}</code> {_status_label(m, entry)} "
            f"<code>{_e(m.change)}</code></summary>"
            f'<p class="why">{verdict}</p>'
            + (f'<p class="evidence">Evidence: {_e(evidence_text(m.evidence))}</p>'
               if m.evidence and entry is None else "")
            + f'<p class="id">{_e(m.name)} · {_e(m.mutator)}</p>'
            f"{_diff_html(m.diff)}</details>")
    verdicts = ", ".join(f"{n} {v}" for v, n in sorted(report.verdict_counts().items()))
    data = json.dumps(stryker(report), ensure_ascii=False).replace("<", "\\u003c")
    viewer = _viewer_script()
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mutation testing: {_e(report.title)}</title>
<style>{_CSS}</style></head>
<body>
<h1>Mutation testing: {_e(report.title)}</h1>
<p class="score {band}">{_e(_score_text(score))} <span class="gate">{_badge(report)}</span></p>
<p>{_e(summary_line(report))}. {_e(rerun_note(report))}</p>
{''.join(f"<p>{_e(note)}</p>" for note in report.notes)}
<p>A mutant is <em>killed</em> when the contract, run on the mutated chunker, reports a
violation the original does not have; a <em>survivor</em> is a change to the chunker that no
invariant noticed. The score leaves out survivors triaged <em>equivalent</em> (no input tells
them apart) or <em>allowed</em> (SPEC permits both outputs); the raw score counts them.</p>
<table><thead><tr><th>file</th><th>mutants</th><th>killed</th><th>timeout</th><th>survived</th>
<th>equivalent</th><th>no coverage</th><th>score</th><th>raw score</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>
<p>{_e("Kills by invariant: " + ", ".join(f"{k} {n}" for k, n in kills_by_invariant(report)))
    if kills_by_invariant(report) else ""}</p>
<h2>Surviving mutants ({len(report.survivors)}{': ' + _e(verdicts) if verdicts else ''})</h2>
{''.join(survivors) or '<p>None: the contract caught every mutant.</p>'}
<h2>Sources</h2>
<p>Every mutant in its source (click a mark). Rendered by the embedded mutation-testing-elements
viewer (Apache-2.0), with no network access.</p>
<mutation-test-report-app title-postfix="{_e(report.title)}"></mutation-test-report-app>
{viewer}
<script>document.querySelector("mutation-test-report-app").report = {data};</script>
</body></html>
"""


def _status_label(mutant: Mutant, entry: Entry | None) -> str:
    """A survivor's label: its triage verdict when it has one, else mutmut's status."""
    if entry is None:
        return f'<span class="status">{_e(mutant.status)}</span>'
    return f'<span class="verdict {entry.verdict}">{_e(entry.verdict)}</span>'


def _viewer_script() -> str:
    try:
        package = resources.files("chunk_contract.integrations.mutation")
        code = package.joinpath(_VIEWER).read_text("utf-8")
    except (FileNotFoundError, OSError):
        return "<p>(the source viewer is not installed)</p>"
    if "</script" in code.lower() or "<script" in code.lower():
        import base64

        encoded = base64.b64encode(code.encode("utf-8")).decode("ascii")
        return f'<script src="data:text/javascript;base64,{encoded}"></script>'
    return f"<script>{code}</script>"


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        kind = ("add" if line.startswith("+") and not line.startswith("+++") else
                "del" if line.startswith("-") and not line.startswith("---") else
                "hunk" if line.startswith("@@") else "ctx")
        out.append(f'<span class="{kind}">{_e(line)}</span>')
    return '<pre class="diff">' + "".join(out) + "</pre>"  # block spans: no newline between


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1f2328;line-height:1.45}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #d0d7de;padding:.25rem .6rem;
text-align:right}td:first-child,th:first-child{text-align:left}
.score{font-size:1.6rem;font-weight:600}.score.high{color:#1a7f37}.score.mid{color:#9a6700}
.score.low{color:#cf222e}
details.mutant{border:1px solid #d0d7de;border-radius:6px;margin:.5rem 0;padding:.3rem .6rem}
details.mutant summary{cursor:pointer}.status{color:#cf222e;font-weight:600}
.verdict{font-weight:600;padding:0 .3rem;border-radius:4px}.verdict.equivalent{background:#dafbe1}
.verdict.allowed{background:#ddf4ff}.verdict.hole{background:#fff8c5}
.verdict.untriaged{background:#ffebe9;color:#cf222e}.id{color:#656d76;font-size:.85em;margin:0}
pre.diff{background:#f6f8fa;padding:.5rem;overflow-x:auto}
.diff .add{background:#dafbe1;display:block}
.diff .del{background:#ffebe9;display:block}.diff .hunk{color:#8250df;display:block}
.diff .ctx{display:block}.evidence{background:#f6f8fa;padding:.3rem .5rem;border-radius:4px}
"""


# ----------------------------------------------------------------------------- writing


def write(report: Report, folder: Path | str) -> dict[str, Path]:
    """Write ``mutation.json``, ``mutation.html`` and ``mutation.md`` into ``folder``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "mutation.json",
        "html": out / "mutation.html",
        "markdown": out / "mutation.md",
    }
    _atomic(paths["json"], json.dumps(stryker(report), indent=1, ensure_ascii=False) + "\n")
    _atomic(paths["html"], html_page(report))
    _atomic(paths["markdown"], markdown(report))
    return paths


def _atomic(path: Path, text: str) -> None:
    _files.write_text(path, text)
