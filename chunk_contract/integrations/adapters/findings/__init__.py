"""The reviewed findings: why each adapter breaks each invariant it breaks, as data.

Every ``*.toml`` file in this folder but ``notes.toml`` holds the findings of one adapter module
(``langchain.toml``, ``chonkie.toml``, ...; a new library is a new file)::

    [causes.lc-start-index]          # a cause shared by several findings, named once
    text = \"\"\"paragraph\"\"\"
    diagnoses = ["offsets_from_find"]  # the patterns that name this cause (optional)

    [[finding]]
    adapters = ["langchain-recursive", "langchain-markdown"]
    invariant = "no_lost_text"
    verdict = "bug"                  # bug | documented | design | disputed
    summary = "one line"
    cause = "lc-start-index"         # OR explanation = \"\"\"paragraph\"\"\" (exactly one)
    where = "library source that does it"
    docs = ""                        # the citation; required for "documented"
    expect = 'regex'                 # what the reported message must match
    diagnoses = []                   # optional: the patterns that name its own cause
    severity = "abort"               # only when the call does not return: abort | unbounded
    by_hand = "call, result"         # only for a violation the runs did not show

Each entry was written after reproducing the counterexample by hand and reading the library's
source at the pinned version. ``expect`` must match the message of every seed that shows the
violation (``re.search``, dot matching newlines), and only the reviewed behaviour: a pattern
that matches the empty string or a one-letter message is refused. ``notes.toml`` holds the notes
printed under an adapter's section (``[adapters]``), the notes on the contract (``contract``)
and how the committed evidence was made (``run``: the budget decisions).

``diagnoses`` lists the diagnosis patterns (:mod:`chunk_contract.diagnosis`) that describe a cause:
the ones a diagnosis of the finding's counterexample may name and be right. A finding's
acceptable patterns are its shared cause's plus its own; none listed means that no pattern
describes the cause, so a pattern named there is a wrong diagnosis (naming none is always
acceptable). bench/bench_diagnosis.py ``--matrix`` holds the diagnoses of the matrix's
counterexamples to these lists. A pattern is listed where the library's source does what the
pattern's cause says (``offsets_from_find`` for a ``start_index`` recovered with ``str.find``),
never because an experiment happened to confirm it.

The files are validated when loaded: an unknown key, verdict, cause, invariant id, adapter name
or pattern id, a bad or loose regex, a missing citation or a duplicate (adapter, invariant) pair
is a :class:`FindingsError` naming the file and the entry.

A finding with ``by_hand`` records a violation that a direct call of the library shows but that
the contract's runs did not (the rule held on every seed): ``by_hand`` gives that call and what
it returns, and, when known, why the contract misses it. The matrix then shows the cell as
violated "by hand" instead of ✓, so that no ✓ contradicts a reviewed finding; once a seed does
show the violation, ``by_hand`` must go (and ``expect`` must match the message).

One cause, one verdict: the findings that name the same ``cause``, and the findings of one
invariant that give the same ``where`` (compared without backticks, case or spacing), describe
one behaviour of the library, so they must carry the same verdict in every row
(:func:`verdict_conflicts`); the reason for the verdict is written once, in the cause or the
explanation.

``severity`` says what the behaviour does to the caller's process when it is worse than a wrong
answer or an exception, which no verdict may play down (:func:`severity_conflicts`):

* ``abort``: the process dies (a native abort or panic, a segmentation fault, the interpreter
  killed by a signal), so one document or config stops a whole ingestion;
* ``unbounded``: the call allocates memory, or runs, without bound until something kills it.

Such a finding is a ``bug`` or ``documented`` (the documentation warns of it), never ``design``
or ``disputed``: deliberate code does not abort the process, and no reading of the contract
makes an abort acceptable. The matrix also checks the field against the evidence: a seed whose
message says the worker process died needs ``severity = "abort"``, one whose memory grew past
the cap ``"unbounded"``.

Verdicts:

* ``bug``: the behaviour contradicts the library's own documentation or evident intent;
* ``documented``: the documentation says the library does this (cited in ``docs``);
* ``design``: deliberate in the code (a comment, an explicit branch), but not documented;
* ``disputed``: the contract's rule, not the library, is arguable here (see the contract notes).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from chunk_contract.errors import UsageError

FOLDER = Path(__file__).resolve().parent
NOTES_FILE = "notes.toml"

VERDICTS = {
    "bug": "library bug",
    "documented": "documented behaviour",
    "design": "by design (undocumented)",
    "disputed": "disputed (contract rule)",
}

_REQUIRED = frozenset({"adapters", "invariant", "verdict", "summary", "where", "expect"})
_OPTIONAL = frozenset({"cause", "explanation", "docs", "diagnoses", "severity", "by_hand"})
#: What a behaviour worse than a wrong answer or an exception does to the caller's process.
SEVERITIES = {
    "abort": "the process dies (native abort, panic, segmentation fault, fatal signal)",
    "unbounded": "memory or time grows without bound until the process is killed",
}
#: The verdicts a finding with a severity may carry: never one that plays the harm down.
SEVERE_VERDICTS = ("bug", "documented")
#: Messages no reviewed pattern may match: a pattern that does matches anything.
ARBITRARY_MESSAGES = ("", "x", "0", " ")


class FindingsError(UsageError):
    """A findings file that does not follow the schema (the message names file and entry)."""


@dataclass(frozen=True)
class Finding:
    """One reviewed finding, for one (adapter, invariant) pair."""

    verdict: str
    summary: str  # one line, for the summary list
    explanation: str  # one paragraph: the cause in the library's code
    where: str  # the library source that does it
    docs: str  # the citation ("documented"), else ""
    expect: str  # the regex every seed's message must match
    cause: str | None  # the shared cause's id, or None for an explanation of its own
    source: str  # "langchain.toml, finding 3": where it was written
    #: the diagnosis patterns that describe the cause (the shared cause's, then its own)
    diagnoses: tuple[str, ...] = ()
    severity: str = ""  # "abort" | "unbounded" | "" (the call returns or raises)
    by_hand: str = ""  # the direct call that shows a violation the runs did not, else ""

    def matches(self, message: str) -> bool:
        """Whether ``message`` is the reviewed behaviour."""
        return re.search(self.expect, message, re.S) is not None


@dataclass(frozen=True)
class Notes:
    """Observations the matrix does not show: per adapter, and on the contract itself."""

    adapters: Mapping[str, str]
    contract: tuple[str, ...]
    #: How the committed evidence was made, in the reviewer's words (budget decisions).
    run: str = ""


def load(
    folder: Path = FOLDER,
    *,
    adapters: Collection[str] | None = None,
    invariants: Collection[str] | None = None,
) -> dict[tuple[str, str], Finding]:
    """Every finding in ``folder``, keyed by (adapter, invariant); validated.

    ``adapters`` and ``invariants`` are the names an entry may use (default: the catalogue and
    the registry).
    """
    known = _Known.of(adapters, invariants)
    files = [p for p in sorted(folder.glob("*.toml")) if p.name != NOTES_FILE]
    tables = {path.name: _read(path) for path in files}
    causes = _causes(tables)
    named = _cause_diagnoses(tables, known)
    found: dict[tuple[str, str], Finding] = {}
    used: set[str] = set()
    for name, table in tables.items():
        _check_keys(table, {"causes", "finding"}, name)
        for k, entry in enumerate(_entries(table, name), start=1):
            where = f"{name}, finding {k}"
            finding = _finding(entry, where, causes, known)
            own = _diagnoses(entry, where, known)
            finding = replace(finding, diagnoses=named.get(finding.cause or "", ()) + own)
            used.update([finding.cause] if finding.cause else [])
            _add(found, entry["adapters"], entry["invariant"], finding)
    _check_used(causes, used)
    return found


def notes(folder: Path = FOLDER, *, adapters: Collection[str] | None = None) -> Notes:
    """The notes of ``notes.toml``; validated like the findings."""
    known = _Known.of(adapters, ())
    table = _read(folder / NOTES_FILE)
    _check_keys(table, {"adapters", "contract", "run"}, NOTES_FILE)
    by_adapter = table.get("adapters", {})
    _expect_type(by_adapter, dict, f"{NOTES_FILE}, [adapters]")
    for name, text in by_adapter.items():
        _check_adapter(name, known, f"{NOTES_FILE}, [adapters]")
        _expect_type(text, str, f"{NOTES_FILE}, [adapters] {name}")
    contract = table.get("contract", [])
    _expect_type(contract, list, f"{NOTES_FILE}, contract")
    for k, text in enumerate(contract, start=1):
        _expect_type(text, str, f"{NOTES_FILE}, contract note {k}")
    run = table.get("run", "")
    _expect_type(run, str, f"{NOTES_FILE}, run")
    return Notes(dict(by_adapter), tuple(contract), run.strip())


@lru_cache(maxsize=1)
def findings() -> dict[tuple[str, str], Finding]:
    """The shipped findings, loaded once."""
    return load()


# ----------------------------------------------------------------------------- consistency

Key = tuple[str, str]


def verdict_conflicts(found: Mapping[Key, Finding]) -> dict[Key, str]:
    """Rows whose finding shares a cause with another row but not its verdict, with why.

    A cause is a ``cause`` id, or one invariant's ``where`` (normalised): the same behaviour
    of the library is one verdict wherever it shows."""
    groups: dict[tuple[str, str], list[Key]] = {}
    for key, finding in found.items():
        for group in _cause_groups(key[1], finding):
            groups.setdefault(group, []).append(key)
    out: dict[Key, str] = {}
    for (kind, name), keys in groups.items():
        if len({found[k].verdict for k in keys}) > 1:
            text = _conflict(kind, name, keys, found)
            out.update({k: "; ".join(filter(None, [out.get(k), text])) for k in keys})
    return out


def _cause_groups(rule: str, finding: Finding) -> list[tuple[str, str]]:
    """The causes a finding belongs to: its cause id, and its invariant's normalised where."""
    where = re.sub(r"\s+", " ", finding.where.replace("`", "")).strip().rstrip(".").lower()
    named = [("cause", finding.cause)] if finding.cause else []
    return [*named, ("where", f"{rule} @ {where}")]


def _conflict(kind: str, name: str, keys: list[Key], found: Mapping[Key, Finding]) -> str:
    """One cause's verdicts, each with its rows and findings, for the page and ``--strict``."""
    by_label: dict[tuple[str, str], list[str]] = {}
    for adapter, rule in sorted(keys):
        finding = found[(adapter, rule)]
        by_label.setdefault((finding.verdict, finding.source), []).append(f"{adapter} / {rule}")
    labels = "; ".join(
        f"{verdict} in {', '.join(rows)} ({source})" for (verdict, source), rows in by_label.items()
    )
    what = f"cause {name!r}" if kind == "cause" else f"the same where ({name})"
    return f"ONE CAUSE, SEVERAL VERDICTS: {what} is {labels}"


def severity_conflicts(found: Mapping[Key, Finding]) -> dict[Key, str]:
    """Rows whose finding aborts the process or grows without bound yet is not a bug or
    documented."""
    return {
        key: (
            f"SEVERITY PLAYED DOWN: {f.source} says severity = {f.severity!r} "
            f"({SEVERITIES[f.severity]}) but is labelled {f.verdict!r}; such a finding is "
            f"{' or '.join(SEVERE_VERDICTS)}"
        )
        for key, f in found.items()
        if f.severity and f.verdict not in SEVERE_VERDICTS
    }


def label_problems(found: Mapping[Key, Finding]) -> dict[Key, str]:
    """Every row whose verdict the findings themselves contradict (cause or severity)."""
    out = dict(verdict_conflicts(found))
    for key, text in severity_conflicts(found).items():
        out[key] = "; ".join(filter(None, [out.get(key), text]))
    return out


# ----------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Known:
    """The adapter names and invariant ids an entry may use (None: anything)."""

    adapters: Collection[str] | None
    invariants: Collection[str] | None

    @property
    def patterns(self) -> Collection[str]:
        """The diagnosis patterns a ``diagnoses`` list may name: the registered ones."""
        from chunk_contract.diagnosis import patterns  # lazy: only a diagnoses list needs them

        return set(patterns())

    @staticmethod
    def of(adapters: Collection[str] | None, invariants: Collection[str] | None) -> _Known:
        """The given names, or the catalogue's and the registry's."""
        if adapters is None:
            # lazy: the catalogue imports the adapter modules, which read findings
            from chunk_contract.integrations.adapters import BY_NAME

            adapters = set(BY_NAME)
        if invariants is None:
            from chunk_contract.spec.registry import registry  # lazy: loads every rule

            invariants = set(registry())
        return _Known(adapters, invariants)


def _read(path: Path) -> dict[str, Any]:
    """One TOML file, a parse error named with the file."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise FindingsError(f"{path.name}: cannot read the findings: {exc}") from None


def _causes(tables: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Every named cause of every file; a cause named twice is an error."""
    causes: dict[str, str] = {}
    origin: dict[str, str] = {}
    for name, table in tables.items():
        defined = table.get("causes", {})
        _expect_type(defined, dict, f"{name}, [causes]")
        for cause, body in defined.items():
            where = f"{name}, [causes.{cause}]"
            if cause in causes:
                raise FindingsError(f"{where}: cause {cause!r} is already named in {origin[cause]}")
            _expect_type(body, dict, where)
            _check_keys(body, {"text", "diagnoses"}, where)
            causes[cause], origin[cause] = _text(body, "text", where), name
    return causes


def _cause_diagnoses(
    tables: Mapping[str, Mapping[str, Any]], known: _Known
) -> dict[str, tuple[str, ...]]:
    """The ``diagnoses`` of every named cause (checked by :func:`_causes` for the rest)."""
    return {
        cause: _diagnoses(body, f"{name}, [causes.{cause}]", known)
        for name, table in tables.items()
        for cause, body in table.get("causes", {}).items()
    }


def _diagnoses(body: Mapping[str, Any], where: str, known: _Known) -> tuple[str, ...]:
    """A ``diagnoses`` list (default empty): registered pattern ids, each once."""
    listed = body.get("diagnoses", [])
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise FindingsError(f"{where}: diagnoses must be an array of pattern ids")
    unknown = sorted(set(listed) - set(known.patterns)) if listed else []
    if unknown:
        raise FindingsError(
            f"{where}: unknown diagnosis pattern(s) {', '.join(unknown)}; see "
            "chunk_contract.diagnosis.patterns() for the ids"
        )
    return tuple(dict.fromkeys(listed))


def _entries(table: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """The ``[[finding]]`` entries of one file."""
    entries = table.get("finding", [])
    _expect_type(entries, list, f"{name}, [[finding]]")
    for k, entry in enumerate(entries, start=1):
        _expect_type(entry, dict, f"{name}, finding {k}")
    return list(entries)


def _finding(
    entry: Mapping[str, Any], where: str, causes: Mapping[str, str], known: _Known
) -> Finding:
    """One entry, checked key by key."""
    _check_keys(entry, _REQUIRED | _OPTIONAL, where)
    missing = sorted(_REQUIRED - set(entry))
    if missing:
        raise FindingsError(f"{where}: missing key(s) {', '.join(missing)}")
    _check_names(entry, where, known)
    verdict = _text(entry, "verdict", where)
    if verdict not in VERDICTS:
        raise FindingsError(
            f"{where}: unknown verdict {verdict!r}; use one of {', '.join(VERDICTS)}"
        )
    docs = _text(entry, "docs", where, required=False)
    if verdict == "documented" and not docs:
        raise FindingsError(f"{where}: a 'documented' finding needs docs = the citation")
    severity = _text(entry, "severity", where, required=False)
    if severity and severity not in SEVERITIES:
        raise FindingsError(
            f"{where}: unknown severity {severity!r}; use one of {', '.join(SEVERITIES)} "
            "(or leave it out when the call returns or raises)"
        )
    return Finding(
        verdict=verdict,
        summary=_text(entry, "summary", where),
        explanation=_explanation(entry, where, causes),
        where=_text(entry, "where", where),
        docs=docs,
        expect=_pattern(entry, where),
        cause=entry.get("cause"),
        source=where,
        severity=severity,
        by_hand=_text(entry, "by_hand", where, required=False),
    )


def _check_names(entry: Mapping[str, Any], where: str, known: _Known) -> None:
    """The adapters and the invariant an entry names must exist."""
    adapters = entry["adapters"]
    if not isinstance(adapters, list) or not adapters:
        raise FindingsError(f"{where}: adapters must be a non-empty list of adapter names")
    for name in adapters:
        _check_adapter(name, known, where)
    rule = _text(entry, "invariant", where)
    if known.invariants is not None and rule not in known.invariants:
        raise FindingsError(
            f"{where}: unknown invariant id {rule!r}; see chunk-contract list for the ids"
        )


def _check_adapter(name: Any, known: _Known, where: str) -> None:
    """``name`` must be an adapter of the catalogue."""
    if known.adapters is not None and name not in known.adapters:
        raise FindingsError(
            f"{where}: adapter {name!r} is not in the catalogue; see chunk-contract list "
            "--adapters (a new adapter needs its class and its pyproject.toml entry point)"
        )


def _explanation(entry: Mapping[str, Any], where: str, causes: Mapping[str, str]) -> str:
    """The entry's own explanation, or its named cause's text: exactly one of them."""
    has_cause, has_text = "cause" in entry, "explanation" in entry
    if has_cause == has_text:
        raise FindingsError(
            f'{where}: give exactly one of cause = "<id>" (a shared cause) or '
            f'explanation = """...""" (this finding\'s own)'
        )
    if has_text:
        return _text(entry, "explanation", where)
    cause = _text(entry, "cause", where)
    if cause not in causes:
        known = ", ".join(sorted(causes)) or "none"
        raise FindingsError(f"{where}: unknown cause {cause!r}; named causes: {known}")
    return causes[cause]


def _pattern(entry: Mapping[str, Any], where: str) -> str:
    """The entry's ``expect``: a valid regex that matches no arbitrary message."""
    pattern = _text(entry, "expect", where)
    try:
        compiled = re.compile(pattern, re.S)
    except re.error as exc:
        raise FindingsError(f"{where}: expect {pattern!r} is not a valid regex: {exc}") from None
    loose = [m for m in ARBITRARY_MESSAGES if compiled.search(m)]
    if loose:
        raise FindingsError(
            f"{where}: expect {pattern!r} matches the arbitrary message {loose[0]!r}, so it "
            "would match any violation; make it match only the reviewed message"
        )
    return pattern


def _add(
    found: dict[tuple[str, str], Finding], adapters: Iterable[str], rule: str, finding: Finding
) -> None:
    """Record ``finding`` for each adapter; a pair already explained is an error."""
    for name in adapters:
        if (name, rule) in found:
            raise FindingsError(
                f"{finding.source}: ({name}, {rule}) is already explained by "
                f"{found[(name, rule)].source}; one finding per adapter and invariant"
            )
        found[(name, rule)] = finding


def _check_used(causes: Mapping[str, str], used: set[str]) -> None:
    """A named cause no finding uses is dead text."""
    unused = sorted(set(causes) - used)
    if unused:
        raise FindingsError(f"cause(s) {', '.join(unused)} are named but no finding uses them")


def _check_keys(table: Mapping[str, Any], allowed: Collection[str], where: str) -> None:
    """No key outside ``allowed``."""
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise FindingsError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def _text(entry: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str:
    """A string value (stripped); a missing optional one is ""."""
    value = entry.get(key, None if required else "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise FindingsError(f"{where}: {key} must be a non-empty string")
    return value.strip()


def _expect_type(value: Any, kind: type, where: str) -> None:
    """``value`` must be of ``kind`` (a table, a list, a string)."""
    if not isinstance(value, kind):
        names: dict[type, str] = {dict: "a table", list: "an array", str: "a string"}
        raise FindingsError(f"{where}: must be {names.get(kind, kind.__name__)}")


__all__ = [
    "SEVERITIES",
    "VERDICTS",
    "Finding",
    "FindingsError",
    "Notes",
    "findings",
    "label_problems",
    "load",
    "notes",
    "severity_conflicts",
    "verdict_conflicts",
]
