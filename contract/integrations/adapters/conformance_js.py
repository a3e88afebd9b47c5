"""Regenerate ``docs/conformance-js.md``: the contract on every LangChain.js splitter.

    python -m contract.integrations.adapters.conformance_js [--examples N] [--seed N ...] [--out
    DIR] python -m contract.integrations.adapters.conformance_js --render-only [--out DIR]

Each splitter runs behind ``contract/integrations/adapters/js/bridge.mjs`` through
:func:`contract.engine.exec_probe.violations` (the seed corpus, then generated cases, every
applicable invariant); the first violation of each invariant is written to ``DIR/NAME.json`` and the
page is rendered from those files with the reviewed explanations of
:mod:`contract.integrations.adapters.findings` and the hand-reduced cases of :data:`MINIMAL` (which
tests/adapters/test_langchainjs.py reproduces). Once ``exec:`` targets are wired into the
runner, ``contract.integrations.adapters.conformance`` can take these adapters and this module can
go. A violation with no reviewed finding, or one whose message the finding does not expect, is
printed, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from contract.integrations.adapters import langchainjs
from contract.integrations.adapters.findings import FINDINGS, VERDICTS
from contract.spec.registry import registry

DEFAULT_OUT = Path(".chunk-contract/conformance-js")
DEFAULT_DOC = Path("docs/conformance-js.md")
SEEDS = (1, 2, 3)
_SHORT = {"bug": "✗ bug", "documented": "✗ doc", "design": "✗ design", "disputed": "✗ disputed"}

#: (adapter, document, max_size, overlap, invariant): the hand-reduced case of each finding.
MINIMAL: tuple[tuple[str, str, int, int, str], ...] = (
    ("langchainjs-recursive", "x a", 1, 0, "non_empty"),
    ("langchainjs-recursive", "\U0001f600", 1, 0, "codepoint_integrity"),
    ("langchainjs-recursive", "\U0001f600", 1, 0, "span_fidelity"),
    ("langchainjs-recursive", "\ufeffab", 2, 0, "no_lost_text"),
    ("langchainjs-recursive", "a\nb", 1, 0, "line_citations"),
    ("langchainjs-recursive", "a\nbc\nd", 2, 1, "ordered"),
    ("langchainjs-recursive", "a b", 1, -1, "config_validation"),
    ("langchainjs-markdown", "\U0001f600", 1, 0, "codepoint_integrity"),
    ("langchainjs-latex", "x a", 1, 0, "non_empty"),
    ("langchainjs-python", "a\nbc\nd", 2, 1, "ordered"),
    ("langchainjs-js", "\ufeffab", 2, 0, "no_lost_text"),
    ("langchainjs-character", "TITLE\nAUTHOR\nDATE", 1, 0, "cap_respected"),
    ("langchainjs-character", "\ufeffa", 5, 0, "no_lost_text"),
    ("langchainjs-character", "a\n\n\x1d", 1, 0, "non_empty"),
    ("langchainjs-character", "a\n\nb", 1, -1, "config_validation"),
)


def run_one(splitter: langchainjs.JsSplitter, out: Path, *, examples: int,
            seeds: Sequence[int]) -> dict[str, Any]:
    """Probe one splitter over ``seeds``; writes and returns {invariant: first violation}."""
    from contract.engine.exec_probe import exec_session, violations  # lazy: Hypothesis

    found: dict[str, Any] = {}
    with exec_session(splitter.target, timeout=10) as session:
        for seed in seeds:
            for rule, item in violations(session, examples=examples, seed=seed).items():
                found.setdefault(rule, asdict(item))
    (out / f"{splitter.name}.json").write_text(json.dumps(found, indent=2) + "\n", "utf-8")
    return found


def problems(runs: dict[str, dict[str, Any]]) -> list[str]:
    """Violations with no reviewed finding, or whose message the finding does not expect."""
    found = []
    for name, rules in runs.items():
        for rule, item in rules.items():
            finding = FINDINGS.get((name, rule))
            if finding is None:
                found.append(f"{name} / {rule}: NOT REVIEWED: {item['message'][:200]}")
            elif not re.search(finding.expect, item["message"], re.S):
                found.append(f"{name} / {rule}: REVIEW AGAIN: {item['message'][:200]}")
    return found


def _columns() -> list[str]:
    return [r.id for r in registry().values()
            if r.applies_to("text", frozenset()) and r.id != "scales_linearly"]


def _cell(name: str, rule: str, runs: dict[str, dict[str, Any]]) -> str:
    if rule not in runs[name]:
        return "✓"
    finding = FINDINGS.get((name, rule))
    return _SHORT[finding.verdict] if finding else "✗ ?"


def _matrix(runs: dict[str, dict[str, Any]]) -> list[str]:
    rules = _columns()
    lines = ["| adapter | wraps | " + " | ".join(f"`{r}`" for r in rules) + " |",
             "|---|---|" + "---|" * len(rules)]
    for s in langchainjs.SPLITTERS:
        if s.name in runs:
            cells = " | ".join(_cell(s.name, r, runs) for r in rules)
            lines.append(f"| `{s.name}` | `{s.wraps}` | {cells} |")
    return lines


def _finding_section(rule: str, items: list[tuple[str, dict[str, Any]]]) -> list[str]:
    finding = FINDINGS[(items[0][0], rule)]
    names = ", ".join(f"`{n}`" for n, _ in items)
    lines = [f"### `{rule}`: {VERDICTS[finding.verdict]}: {finding.summary}", "",
             f"Adapters: {names}. Source: {finding.where}.", "", finding.explanation, ""]
    for adapter, doc, size, overlap, minimal_rule in MINIMAL:
        if minimal_rule == rule and adapter in dict(items):
            lines.append(f"- minimal (hand-reduced; a test): `{adapter}`, document `{doc!a}`, "
                         f"max_size={size}, overlap={overlap}")
    name, item = items[0]
    doc = item["document"]
    shown = f"`{doc!a}`" if len(doc) <= 160 else f"`{doc[:160]!a}`… ({len(doc)} characters)"
    lines.append(f"- found by the run (`{name}`): max_size={item['max_size']}, "
                 f"overlap={item['overlap']}, document {shown}")
    lines.append("  - message: " + item["message"][:300].replace("\n", " "))
    return [*lines, ""]


def render(runs: dict[str, dict[str, Any]], *, examples: int, seeds: Sequence[int]) -> str:
    """The markdown page for ``runs`` ({adapter: {invariant: first violation}})."""
    version = langchainjs.npm_version() or "?"
    core = langchainjs.npm_version("@langchain/core") or "?"
    seed_args = " ".join(f"--seed {s}" for s in seeds)
    lines = [
        "# Conformance of LangChain.js splitters", "",
        "<!-- Generated by `python -m contract.integrations.adapters.conformance_js`; "
        "the explanations come",
        "     from contract/integrations/adapters/findings.py. Do not edit by hand. -->", "",
        f"The contract run on `@langchain/textsplitters` **{version}** (with `@langchain/core` "
        f"{core}), out of process through `contract/integrations/adapters/js/bridge.mjs` "
        "(SPEC §8). Until "
        "`exec:` targets are wired into the runner the cases come from "
        "`contract.engine.exec_probe` (the seed corpus, then the project's strategies, every "
        "applicable invariant, through `ExecChild`), not from `chunk-contract run`, so "
        "`scales_linearly` (a runner check) is not measured. Per splitter, the same as:", "",
        f"    python -m contract.engine.exec_probe --examples {examples} {seed_args} \\",
        "        -- node contract/integrations/adapters/js/bridge.mjs SPLITTER", "",
        "What the bridge reports: the chunk text and `line_start`/`line_end` from the library's "
        "`metadata.loc.lines` (`createDocuments` gives no character offsets, so none are "
        "reported and the contract places each text in the document itself); sizes in code "
        "points (`lengthFunction` counts code points, `unit = \"chars\"`; the library's default "
        "counts UTF-16 units).", "",
        *_matrix(runs), "",
        f"✓ no violation in the corpus and {examples * len(seeds)} generated cases; ✗ violated, "
        "with the reviewed verdict (" + "; ".join(f"{k}: {v}" for k, v in VERDICTS.items())
        + "). Opt-in invariants (not promised) are not checked.", "",
        "## Findings", "",
    ]
    grouped: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for name, rules in runs.items():
        for rule, item in rules.items():
            finding = FINDINGS.get((name, rule))
            key = (rule, finding.summary if finding else "NOT REVIEWED")
            grouped.setdefault(key, []).append((name, item))
    for (rule, _), items in grouped.items():
        if (items[0][0], rule) in FINDINGS:
            lines += _finding_section(rule, items)
    return "\n".join(lines).rstrip() + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m contract.integrations.adapters.conformance_js")
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC)
    parser.add_argument("--render-only", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run (unless --render-only), render the page, and report unreviewed violations."""
    args = _parser().parse_args(argv)
    seeds = tuple(args.seed or SEEDS)
    reason = langchainjs.unavailable()
    if reason and not args.render_only:
        print(f"conformance_js: {reason}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, dict[str, Any]] = {}
    for splitter in langchainjs.SPLITTERS:
        path = args.out / f"{splitter.name}.json"
        if args.render_only:
            if path.exists():
                runs[splitter.name] = json.loads(path.read_text("utf-8"))
            continue
        runs[splitter.name] = run_one(splitter, args.out, examples=args.examples, seeds=seeds)
        print(f"  {splitter.name:<24} {', '.join(runs[splitter.name]) or 'no violation'}")
    args.doc.write_text(render(runs, examples=args.examples, seeds=seeds), "utf-8")
    found = problems(runs)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
