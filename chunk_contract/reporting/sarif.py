"""SARIF 2.1.0: violations as code-scanning alerts (GitHub ``upload-sarif`` reads this file).

One ``run`` for the whole invocation (one tool, so GitHub never has to combine runs); its
driver lists every invariant as a rule (id = invariant id, text = its rule). Each violated
invariant of each target is one ``result``: level ``error``, message = what was observed vs
what is allowed, the shrunk input and how to replay it.

Every result has a location, as GitHub code scanning requires (its rules GH1015, GH1016, GH1017):
a URI relative to ``%SRCROOT%`` (the checkout) with a region. It is the source of the chunker
(the plugin file of a ``file.py:attr`` target, the file of an ``exec:`` command, else the file
that defines the split function) when that file is inside the checkout; else the checkout's
pyproject.toml (at its ``[tool.chunk-contract]`` table when it has one); else an artifact named
after the target itself (``chunker.py``, ``pkg/module.py``), so that the alert still shows.
Each distinct counterexample of a violated invariant (up to 3: distinct by cause, see
chunk_contract.engine.findings) is one result. ``partialFingerprints`` hash target + invariant +
cause, so an alert stays one alert while its counterexample changes from run to run. A waived
invariant that still fails is a result with an external ``suppression`` carrying the waiver's
reason; every waiver, and whether it is still needed, is listed in the invocation's properties
(and a waiver no longer needed is a warning notification). Against a baseline each result has a
``baselineState`` ("new" or "unchanged"), and each baseline finding no longer seen is a result
whose state is "absent". Passed and skipped invariants are not results.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import _files
from chunk_contract.engine.results import InvariantResult, RunResult
from chunk_contract.reporting.formats import MergedFile, Output, ReportFormat, register
from chunk_contract.spec import SPEC_VERSION
from chunk_contract.spec.model import escape
from chunk_contract.spec.registry import Invariant, registry
from chunk_contract.store import reproducers
from chunk_contract.transport.kinds import kind_of

if TYPE_CHECKING:
    from chunk_contract.engine.results import InvariantResult, RunResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
TOOL = "chunk-contract"
#: Codepoints of the failing document quoted in a message.
DOC_CHARS = 300


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("chunk-contract")
    except PackageNotFoundError:
        return "0"


def _rule(rule: Invariant) -> dict[str, Any]:
    tags = ["chunking", "contract", *sorted(rule.kinds)] + (["opt-in"] if rule.opt_in else [])
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("_")),
        "shortDescription": {"text": rule.rule},
        "fullDescription": {"text": rule.rule},
        "help": {
            "text": f"{rule.rule} Run `chunk-contract list` for every invariant.",
            "markdown": f"**`{rule.id}`**: {rule.rule}\n\nRun `chunk-contract list` for "
            "every invariant.",
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": tags, "precision": "very-high", "problem.severity": "error"},
    }


def sarif_log(
    results: Iterable[RunResult], *, root: Path | None = None, plugins: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The SARIF log of ``results`` (one or several targets) as a JSON-ready dict.

    ``plugins`` maps a target to its resolved Plugin, to locate the chunker's source; without
    it, only file targets are located. ``root``: paths are written relative to it (default: the
    current folder), as GitHub expects for a checkout.
    """
    base = (root or Path.cwd()).resolve()
    rules = registry()
    index = {rule_id: i for i, rule_id in enumerate(rules)}
    sarif_results = []
    results = list(results)
    for result in results:
        where = _location(result.target, (plugins or {}).get(result.target), base)
        for item in result.violated:
            for found in item.all_counterexamples:
                sarif_results.append(_result(result, item, index[item.id], where, found))
        for item in result.waived:
            if item.counterexample is not None:
                waived = _result(result, item, index[item.id], where, item.counterexample)
                waived["suppressions"] = [
                    {"kind": "external", "status": "accepted", "justification": item.reason}
                ]
                sarif_results.append(waived)
        sarif_results += [_absent(result, entry, index, where) for entry in result.fixed
                          if entry.invariant in index]
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "version": _tool_version(),
                        "fullName": f"chunk-contract (spec {SPEC_VERSION})",
                        "properties": {"spec": SPEC_VERSION},
                        "rules": [_rule(rule) for rule in rules.values()],
                    }
                },
                "automationDetails": {"id": "chunk-contract/"},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "properties": {
                            "targets": [
                                {
                                    "target": r.target,
                                    "kind": r.kind,
                                    "seed": r.seed,
                                    "examples": r.examples,
                                    "examples_asked": r.examples_asked,
                                    "stopped_early": r.stopped_early,
                                    "passed": r.passed,
                                    "profile": r.settings.profile,
                                    "waived": {
                                        w.id: {"reason": w.reason, "needed": w.waiver_needed}
                                        for w in r.waived
                                    },
                                }
                                for r in results
                            ]
                        },
                        "toolExecutionNotifications": _notifications(results),
                    }
                ],
                "results": sarif_results,
            }
        ],
    }


def _notifications(results: Sequence[RunResult]) -> list[dict[str, Any]]:
    """The health findings (a waiver no longer needed among them) as notifications."""
    return [
        {"level": "warning" if found.severity == "warning" else "note",
         "message": {"text": f"{r.target}: {found.what}. {found.fix}."},
         "descriptor": {"id": found.check}}
        for r in results
        for found in r.health
    ]


def _fingerprint(target: str, invariant: str, cause: str) -> str:
    return hashlib.sha256(f"{target}\0{invariant}\0{cause}".encode()).hexdigest()[:32]


def _absent(
    result: RunResult, entry: Any, index: dict[str, int], where: dict[str, Any]
) -> dict[str, Any]:
    """A baseline finding this run no longer saw: baselineState "absent"."""
    return {
        "ruleId": entry.invariant,
        "ruleIndex": index[entry.invariant],
        "level": "none",
        "kind": "pass",
        "baselineState": "absent",
        "message": {"text": f"{result.target} no longer violates {entry.invariant} "
                            f"({entry.cause}): fixed since the baseline"},
        "partialFingerprints": {
            "chunkContract/v2": _fingerprint(result.target, entry.invariant, entry.cause)
        },
        "locations": [where],
        "properties": {"target": result.target, "cause": entry.cause},
    }


def _result(
    result: RunResult,
    item: InvariantResult,
    rule_index: int,
    where: dict[str, Any],
    found: Any,
) -> dict[str, Any]:
    observed = found.message.splitlines()[0]
    rule = registry()[item.id].rule
    document = (
        escape(found.document, DOC_CHARS)
        if isinstance(found.document, str)
        else repr(found.document)[:DOC_CHARS]
    )
    replay = (
        f" Reproduce with: {reproducers.replay_command(found.reproducer, result.target)}"
        if found.reproducer else ""
    )
    diagnosis = (
        f" Diagnosis ({found.diagnosis.pattern}): {found.diagnosis.cause}; usual fix: "
        f"{found.diagnosis.fix}." if found.diagnosis else ""
    )
    follows = f" {item.follows_note}" if item.follows_from else ""
    text = (
        f"{result.target} violates {item.id}{follows}: {observed} (allowed: {rule}) "
        f"Failing input: document={document}, config {found.config.describe()}.{diagnosis}"
        f"{replay}"
    )
    fingerprint = _fingerprint(result.target, item.id, found.cause)
    out: dict[str, Any] = {
        "ruleId": item.id,
        "ruleIndex": rule_index,
        "level": "error",
        "kind": "fail",
        "message": {"text": text},
        "partialFingerprints": {"chunkContract/v2": fingerprint},
        "locations": [where],
        "properties": {
            "target": result.target,
            "observed": found.messages,
            "allowed": rule,
            "config": found.config.as_dict(),
            "shrunk": found.shrunk,
            "shrink_incomplete": found.shrink_incomplete,
            "reproducer": found.reproducer,
            "diagnosis": found.diagnosis.as_dict() if found.diagnosis else None,
            "follows_from": found.follows_from,
            "seed": result.seed,
            "cause": found.cause,
        },
    }
    if found.baseline:
        out["baselineState"] = found.baseline
    return out


def _location(target: str, plugin: Any, base: Path) -> dict[str, Any]:
    """Where GitHub shows the alerts of ``target``: always a relative URI with a region."""
    path, line = _source(target, plugin, base)
    uri = _inside(path, base) if path is not None else None
    if uri is None:
        uri, line = _project_file(base)
    if uri is None:
        uri, line = _artifact_name(target, path), 1
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(1, line or 1)},
        }
    }


def _inside(path: Path, base: Path) -> str | None:
    """``path`` as a URI relative to ``base``, or None when it lies outside."""
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return None


def _project_file(base: Path) -> tuple[str | None, int]:
    """The checkout's pyproject.toml, at its ``[tool.chunk-contract]`` line when it has one."""
    candidate = base / "pyproject.toml"
    if not candidate.is_file():
        return None, 1
    lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
    table = "[tool.chunk-contract"
    found = (n for n, text in enumerate(lines, 1) if text.strip().startswith(table))
    return "pyproject.toml", next(found, 1)


def _artifact_name(target: str, path: Path | None) -> str:
    """A relative artifact name for a chunker whose source is not in the checkout."""
    where, sep, _ = target.rpartition(":")
    kind = kind_of(target)
    if kind is not None:  # an out-of-process target: its kind says where it lives
        name = kind.sarif_location(target)[0]
    elif sep and where.endswith(".py"):
        name = Path(where).name
    elif sep and re.fullmatch(r"[\w.]+", where):
        name = where.replace(".", "/") + ".py"
    elif path is not None:
        name = path.name
    else:
        name = target
    safe = re.sub(r"[^A-Za-z0-9._/-]+", "_", name)
    parts = [p for p in safe.split("/") if p not in ("", ".", "..")]
    return "/".join(parts) or "chunker"


#: The highest line number a location may claim (beyond it, the claim is not believed).
MAX_LINE = 10**7


def _source(target: str, plugin: Any, base: Path) -> tuple[Path | None, int | None]:
    """The file (and line) that defines the chunker, if it can be found: the location the
    plugin's worker reported when it is believable (:func:`_claimed`), else the host's own
    look at ``split``, else the target's file."""
    claimed = _claimed(target, getattr(plugin, "location", None), base)
    if claimed is not None:
        return claimed
    split = getattr(plugin, "split", None)
    func = getattr(split, "__func__", split)
    if func is not None:
        try:
            source = inspect.getsourcefile(func)
            line = inspect.getsourcelines(func)[1]
            if source:
                return Path(source), line
        except (TypeError, OSError):
            pass
    where, sep, _ = target.rpartition(":")
    if sep and where.endswith(".py") and Path(where).is_file():
        return Path(where), 1
    kind = kind_of(target)
    found = kind.sarif_location(target)[1] if kind is not None else None
    return (found, 1) if found is not None else (None, None)


def _claimed(target: str, location: Any, base: Path) -> tuple[Path, int] | None:
    """The location a plugin claimed for itself, if it names an existing file with a sane line
    that is the target's own file or lies in the project folder ``base``; else None (a plugin
    must not point code scanning at any file it likes). Read in the worker, which runs the
    plugin's code: it is checked like anything else from there."""
    if not (isinstance(location, (tuple, list)) and len(location) == 2):
        return None
    where, line = location
    if not (isinstance(where, str) and type(line) is int and 1 <= line <= MAX_LINE):
        return None
    if len(where) > 4096 or not where.isprintable():
        return None
    path = Path(where)
    own, _, _ = target.rpartition(":")
    try:
        resolved = path.resolve()
        own_file = own.endswith(".py") and resolved == Path(own).resolve()
        believable = path.is_file() and (own_file or resolved.is_relative_to(base))
    except (OSError, ValueError, RuntimeError):
        return None
    return (path, line) if believable else None




def write_sarif(path: str | Path, results: Iterable[RunResult], **options: Any) -> None:
    """Write the SARIF log whole (temporary file, then rename)."""
    _files.write_json(Path(path), sarif_log(results, **options))


def _write(output: Output, results: Sequence[RunResult]) -> None:
    assert output.path is not None
    write_sarif(output.path, results, plugins=dict(output.plugins))


FORMAT = register(
    ReportFormat(
        name="sarif",
        flag="--sarif",
        help="write a SARIF 2.1.0 log (code scanning)",
        open=lambda output: MergedFile(output, _write),
    )
)
