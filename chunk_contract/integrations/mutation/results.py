"""Read a finished mutmut run back: every mutant with its status, place, change and diff.

mutmut 3 keeps its results in ``mutants/``: ``<file>.meta`` (JSON: the exit code of each
mutant's test run) next to the generated file, which holds, for every function, the original
copy (``x_<name>__mutmut_orig``) and every mutant (``x_<name>__mutmut_<n>``). This module reads
both with the standard library only (no mutmut import, so reports can be rebuilt and tested
anywhere), finds where each mutant changes the original source file, and renders its diff
against that file with the file's own line numbers.
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import re
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chunk_contract.integrations.mutation.config import EVIDENCE_FILE, KILLS_DIR

#: mutmut 3.8's exit code -> status word (mutmut.stats.status_by_exit_code).
MUTMUT_STATUS = {
    1: "killed", 3: "killed", 0: "survived", 5: "no tests", 2: "check was interrupted by user",
    None: "not checked", 33: "no tests", 34: "skipped", 35: "suspicious", 36: "timeout",
    37: "caught by type check", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
    -11: "segfault", -9: "segfault",
}
#: mutmut's status word -> the Stryker report schema's status.
STRYKER_STATUS = {
    "killed": "Killed",
    "survived": "Survived",
    "timeout": "Timeout",
    "no tests": "NoCoverage",
    "skipped": "Ignored",
    "caught by type check": "CompileError",
    "suspicious": "RuntimeError",
    "segfault": "RuntimeError",
    "check was interrupted by user": "Pending",
    "not checked": "Pending",
}
#: Statuses that count as detected, and those the score leaves out (Stryker's definitions).
DETECTED = ("Killed", "Timeout")
INVALID = ("CompileError", "RuntimeError", "Ignored", "Pending")
_SEPARATOR = "ǁ"


@dataclass(frozen=True)
class Position:
    """1-based line and column, as the Stryker schema counts them."""

    line: int
    column: int


@dataclass(frozen=True)
class Mutant:
    """One mutant: where it is, what it changes, and what the contract made of it."""

    name: str  #: mutmut's key, e.g. ``chunk_contract_reference.fixed.x__fit__mutmut_5``
    path: str  #: the source file, relative to the project, ``/``-separated
    function: str  #: ``_fit`` or ``Class.method``
    status: str  #: Stryker status: Killed, Survived, Timeout, NoCoverage, ...
    mutmut_status: str
    start: Position
    end: Position  #: exclusive
    original: str  #: the original text of the changed region
    replacement: str  #: what the mutant puts there
    line_before: str  #: the original line(s) holding the change, stripped
    line_after: str  #: the same line(s) in the mutant, stripped
    diff: str  #: unified diff against the source file, with the file's line numbers
    mutator: str
    duration: float | None = None
    #: For a killed mutant: the invariant that caught it (from the kill test's note).
    killed_by: str | None = None
    kill_message: str = ""
    #: False for a survivor whose test passed at once because it is triaged (not re-run).
    rerun: bool = True
    #: For a survivor: original vs mutant outputs on generated cases
    #: (chunk_contract.integrations.mutation.explain).
    evidence: dict[str, Any] | None = None

    @property
    def number(self) -> int:
        return int(self.name.rpartition("__mutmut_")[2])

    @property
    def change(self) -> str:
        """A one-line description: ``'+' -> '-'``."""
        before = _squash(self.original) or "(nothing)"
        return f"{before} -> {_squash(self.replacement) or '(nothing)'}"


@dataclass
class SourceFile:
    path: str
    source: str
    mutants: list[Mutant] = field(default_factory=list)


@dataclass
class RunData:
    """Every mutated file of one run, with its mutants, in file order."""

    files: dict[str, SourceFile]
    #: The source path as the report shows it (a third-party file keeps its own path).
    display: dict[str, str] = field(default_factory=dict)

    @property
    def mutants(self) -> list[Mutant]:
        return [m for f in self.files.values() for m in f.mutants]

    def counts(self) -> dict[str, int]:
        found = dict.fromkeys(("Killed", "Survived", "Timeout", "NoCoverage", "CompileError",
                               "RuntimeError", "Ignored", "Pending"), 0)
        for mutant in self.mutants:
            found[mutant.status] += 1
        return found

    def score(self) -> float | None:
        """Detected / valid mutants, in percent (None when no mutant was tested)."""
        counts = self.counts()
        detected = sum(counts[s] for s in DETECTED)
        valid = sum(n for s, n in counts.items() if s not in INVALID)
        return 100.0 * detected / valid if valid else None

    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if m.status in ("Survived", "NoCoverage")]


def load(project: Path | str, sources: Iterable[str] | None = None,
         display: Mapping[str, str] | None = None) -> RunData:
    """The results of the mutmut run in ``project`` (its ``mutants/`` folder).

    ``sources``: the source files to read (relative paths); default: every ``*.py.meta`` found.
    """
    root = Path(project)
    mutants_dir = root / "mutants"
    if sources is None:
        sources = sorted(str(p.relative_to(mutants_dir))[: -len(".meta")]
                         for p in mutants_dir.rglob("*.py.meta"))
    files: dict[str, SourceFile] = {}
    try:
        evidence = json.loads((mutants_dir / EVIDENCE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        evidence = {}
    for rel in sources:
        rel = Path(rel).as_posix()
        meta_path = mutants_dir / (rel + ".meta")
        if not meta_path.is_file():
            continue
        meta = json.loads(meta_path.read_text("utf-8"))
        codes: dict[str, int | None] = meta.get("exit_code_by_key", {})
        if not codes:
            continue
        source = (root / rel).read_text("utf-8")
        generated = (mutants_dir / rel).read_text("utf-8")
        durations = meta.get("durations_by_key", {})
        found = read_mutants(rel, source, generated, codes, durations,
                             label=(display or {}).get(rel, rel))
        found = [_with_kill_note(m, mutants_dir / KILLS_DIR) for m in found]
        files[rel] = SourceFile(rel, source, [
            replace(m, evidence=evidence[m.name])
            if m.status in ("Survived", "NoCoverage") and isinstance(evidence.get(m.name), dict)
            else m for m in found])
    return RunData(files, dict(display or {}))


def _with_kill_note(mutant: Mutant, folder: Path) -> Mutant:
    """Add what the kill test noted (chunk_contract.integrations.mutation.suite): the killing
    invariant, or that a triaged survivor was not re-run."""
    if mutant.status not in ("Killed", "Survived"):
        return mutant
    try:
        note = json.loads((folder / f"{mutant.name}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return mutant
    if not isinstance(note, dict):
        return mutant
    if mutant.status == "Survived":
        return replace(mutant, rerun=False) if note.get("skipped") else mutant
    if not isinstance(note.get("invariant"), str):
        return mutant
    return replace(mutant, killed_by=note["invariant"], kill_message=str(note.get("message", "")))


def read_mutants(path: str, source: str, generated: str, codes: Mapping[str, int | None],
                 durations: Mapping[str, float] | None = None, *,
                 label: str | None = None) -> list[Mutant]:
    """The mutants of one file, from its source, mutmut's generated file and exit codes
    (``label``: the file's name in the diffs, default ``path``)."""
    functions = _generated_functions(generated)
    originals = _functions(source)
    out = []
    for name, code in codes.items():
        word = MUTMUT_STATUS.get(code, "suspicious")
        out.append(describe(path, source, name, word, functions, originals,
                            (durations or {}).get(name), label=label))
    out.sort(key=lambda m: (m.start.line, m.start.column, m.number))
    return out


def describe(path: str, source: str, name: str, word: str,
             generated: Mapping[str, str], originals: Mapping[str, tuple[int, str]],
             duration: float | None = None, *, label: str | None = None) -> Mutant:
    """One mutant, located in ``source``."""
    label = label or path
    mangled, _, _ = name.rpartition(".")[2].partition("__mutmut_")
    function = _function_name(mangled)
    generated_name = name.rpartition(".")[2]
    before = generated.get(mangled + "__mutmut_orig")
    after = generated.get(generated_name)
    status = STRYKER_STATUS.get(word, "RuntimeError")
    where = originals.get(function)
    if before is None or after is None or where is None:
        line = where[0] if where else 1
        return Mutant(name, path, function, status, word, Position(line, 1), Position(line + 1, 1),
                      "", "", "", "", "", "Unknown", duration)
    short = function.rpartition(".")[2]
    before = before.replace(mangled + "__mutmut_orig", short, 1)
    after = after.replace(generated_name, short, 1)
    first_line, original_text = where
    if original_text != before:
        # the generated copy is not the verbatim original (should not happen): whole function
        return Mutant(name, path, function, status, word, Position(first_line, 1),
                      Position(first_line + original_text.count("\n"), 1), "", "", "", "",
                      _diff(label, source, source), "Unknown", duration)
    lo, hi_before, hi_after = _changed_region(before, after)
    offset = _offset_of_line(source, first_line)
    start, end = offset + lo, offset + hi_before
    mutated = source[:start] + after[lo:hi_after] + source[end:]
    line_lo = source.rfind("\n", 0, start) + 1
    line_hi = _line_end(source, end - 1 if end > start else start)
    line_hi_after = line_hi + (hi_after - lo) - (end - start)
    return Mutant(
        name=name, path=path, function=function, status=status, mutmut_status=word,
        start=_position(source, start), end=_position(source, end),
        original=before[lo:hi_before], replacement=after[lo:hi_after],
        line_before=_strip_lines(source[line_lo:line_hi]),
        line_after=_strip_lines(mutated[line_lo:line_hi_after]),
        diff=_diff(label, source, mutated),
        mutator=classify(before[lo:hi_before], after[lo:hi_after]),
        duration=duration,
    )


def _function_name(mangled: str) -> str:
    if mangled.startswith("x" + _SEPARATOR):
        _, cls, method = mangled.split(_SEPARATOR)
        return f"{cls}.{method}"
    return mangled.removeprefix("x_")


def _generated_functions(text: str) -> dict[str, str]:
    """The functions of mutmut's generated file by their generated names (``x_f__mutmut_3``,
    ``xǁCǁm__mutmut_orig``): their source from the ``def`` on."""
    return {name.rpartition(".")[2]: chunk for name, (_, chunk) in _functions(text).items()}


def _functions(text: str) -> dict[str, tuple[int, str]]:
    """Top-level functions and methods of ``text``: ``f`` or ``C.m`` -> (def line, source)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    lines = text.splitlines(keepends=True)
    found: dict[str, tuple[int, str]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.lineno
                chunk = "".join(lines[first - 1:node.end_lineno]).rstrip("\n")
                chunk = chunk[node.col_offset:] if chunk[:node.col_offset].isspace() else chunk
                found[prefix + node.name] = (first, chunk)
            elif isinstance(node, ast.ClassDef) and not prefix:
                visit(node.body, node.name + ".")

    visit(tree.body, "")
    return found


def _changed_region(before: str, after: str) -> tuple[int, int, int]:
    """(start, end in ``before``, end in ``after``) of the one region the two texts differ in,
    widened to whole Python tokens so that a change reads ``"utf-8" -> "UTF-8"``."""
    lo = 0
    limit = min(len(before), len(after))
    while lo < limit and before[lo] == after[lo]:
        lo += 1
    tail = 0
    while tail < limit - lo and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    hi = len(before) - tail
    spans = _token_spans(before)
    if lo == hi:  # an insertion: show it with the token it is glued to
        glued = [s for s in spans if s[0] == lo] or [s for s in spans if s[1] == lo]
        if glued:
            lo, hi = min(lo, glued[0][0]), max(hi, glued[0][1])
    for start, end in spans:
        if start < hi and end > lo:
            lo, hi = min(lo, start), max(hi, end)
    return lo, hi, hi + len(after) - len(before)


def _token_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of the tokens of ``text`` (an indented block parses too); [] if it does not."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                              tokenize.ENDMARKER, tokenize.COMMENT):
                continue
            (r1, c1), (r2, c2) = token.start, token.end
            spans.append((starts[r1 - 1] + c1, starts[r2 - 1] + c2))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return spans


def _offset_of_line(text: str, line: int) -> int:
    offset = 0
    for _ in range(line - 1):
        offset = text.index("\n", offset) + 1
    # the function's text starts at its ``def``, after the indentation
    while offset < len(text) and text[offset] in " \t":
        offset += 1
    return offset


def _line_end(text: str, offset: int) -> int:
    found = text.find("\n", offset)
    return len(text) if found < 0 else found


def _position(text: str, offset: int) -> Position:
    line = text.count("\n", 0, offset) + 1
    return Position(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def _strip_lines(text: str) -> str:
    return "\n".join(line.strip() for line in text.split("\n"))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _diff(path: str, source: str, mutated: str) -> str:
    return "".join(difflib.unified_diff(
        source.splitlines(keepends=True), mutated.splitlines(keepends=True),
        fromfile=f"a/{path}", tofile=f"b/{path}", n=2,
    ))


# ----------------------------------------------------------------------------- mutators

_ARITHMETIC = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@",
               "+=", "-=", "*=", "/=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^="}
_COMPARISON = {"<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"}
_LOGICAL = {"and", "or"}
_KEYWORDS = {"break", "continue", "return", "True", "False", "None", "pass"}


def classify(original: str, replacement: str) -> str:
    """A Stryker-style mutator name for a change (mutmut does not record one)."""
    a, b = _squash(original), _squash(replacement)
    if b == "None" and a != "None":
        return "ReplaceWithNone"
    if a.endswith("=") and b == "=" and a[:-1] in _ARITHMETIC:
        return "AssignmentOperator"
    if _is_number(a) and _is_number(b):
        return "NumberLiteral"
    if _is_string(a) and _is_string(b):
        return "StringLiteral"
    if a in _ARITHMETIC and b in _ARITHMETIC:
        return "ArithmeticOperator"
    if a in _COMPARISON and b in _COMPARISON:
        return "EqualityOperator"
    if a in _LOGICAL and b in _LOGICAL:
        return "LogicalOperator"
    if {a, b} <= {"True", "False"}:
        return "BooleanLiteral"
    if a in _KEYWORDS and b in _KEYWORDS:
        return "Keyword"
    if ((b.startswith("not ") and b[4:] == a) or (a.startswith("not ") and a[4:] == b)
            or (a.startswith(("-", "~")) and b == a[1:])):
        return "UnaryOperator"
    if b.startswith(("(", a)) and (" and False" in b or " or True" in b or "if" in a):
        return "ConditionalExpression"
    if len(b) < len(a) and (a.startswith(b.rstrip(", ")) or "," in a):
        return "ArgumentRemoval"
    if re.fullmatch(r"\w+", a) and re.fullmatch(r"\w+", b):
        return "NameReplacement"
    return "Other"


def _is_number(text: str) -> bool:
    try:
        complex(text.replace("_", ""))
    except ValueError:
        return False
    return bool(text)


def _is_string(text: str) -> bool:
    return bool(re.fullmatch(r"""[rRbBuUfF]{0,2}("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""", text))
