"""SARIF 2.1.0: violations as code-scanning alerts (GitHub ``upload-sarif`` reads this file).

One ``run`` for the whole invocation (one tool, so GitHub never has to combine runs); its
driver lists every invariant as a rule (id = invariant id, text = its rule). Each violated
invariant of each target is one ``result``: level ``error``, message = what was observed vs
what is allowed, the shrunk input and how to replay it; location = the source of the chunker
(the plugin file of a ``file.py:attr`` target, else the file that defines the split function)
when that file is inside the current folder, else the project's pyproject.toml, else none.
``partialFingerprints`` hash target + invariant, so an alert stays one alert while its
counterexample changes from run to run. Passed and skipped invariants are not results.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from contract.model import escape
from contract.registry import Invariant, registry
from contract.reproducers import write_atomic
from contract.runner import Event, Finished, InvariantResult, RunResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
TOOL = "chunk-contract"
INFO_URI = "https://example.invalid/chunk-contract"
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
            sarif_results.append(_result(result, item, index[item.id], where))
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "version": _tool_version(),
                        "informationUri": INFO_URI,
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
                                }
                                for r in results
                            ]
                        },
                    }
                ],
                "results": sarif_results,
            }
        ],
    }


def _result(
    result: RunResult, item: InvariantResult, rule_index: int, where: dict[str, Any] | None
) -> dict[str, Any]:
    found = item.counterexample
    assert found is not None
    observed = found.message.splitlines()[0]
    rule = registry()[item.id].rule
    document = (
        escape(found.document, DOC_CHARS)
        if isinstance(found.document, str)
        else repr(found.document)[:DOC_CHARS]
    )
    replay = (
        f" Reproduce with: chunk-contract replay {found.reproducer}" if found.reproducer else ""
    )
    diagnosis = (
        f" Diagnosis ({found.diagnosis.pattern}): {found.diagnosis.cause}; usual fix: "
        f"{found.diagnosis.fix}." if found.diagnosis else ""
    )
    text = (
        f"{result.target} violates {item.id}: {observed} (allowed: {rule}) "
        f"Failing input: document={document}, config {found.config.describe()}.{diagnosis}"
        f"{replay}"
    )
    fingerprint = hashlib.sha256(f"{result.target}\0{item.id}".encode()).hexdigest()[:32]
    out: dict[str, Any] = {
        "ruleId": item.id,
        "ruleIndex": rule_index,
        "level": "error",
        "kind": "fail",
        "message": {"text": text},
        "partialFingerprints": {"chunkContract/v1": fingerprint},
        "properties": {
            "target": result.target,
            "observed": found.messages,
            "allowed": rule,
            "config": found.config.as_dict(),
            "shrunk": found.shrunk,
            "shrink_incomplete": found.shrink_incomplete,
            "reproducer": found.reproducer,
            "diagnosis": found.diagnosis.as_dict() if found.diagnosis else None,
            "seed": result.seed,
        },
    }
    if where is not None:
        out["locations"] = [where]
    return out


def _location(target: str, plugin: Any, base: Path) -> dict[str, Any] | None:
    path, line = _source(target, plugin)
    if path is None:
        candidate = base / "pyproject.toml"
        path, line = (candidate, 1) if candidate.is_file() else (None, None)
    if path is None:
        return None
    try:
        uri = path.resolve().relative_to(base).as_posix()
    except ValueError:
        return None  # outside the checkout: GitHub could not show it
    region = {"startLine": max(1, line or 1)}
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
            "region": region,
        }
    }


def _source(target: str, plugin: Any) -> tuple[Path | None, int | None]:
    """The file (and line) that defines the chunker, if it can be found."""
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
    return None, None


def write_sarif(path: str | Path, results: Iterable[RunResult], **options: Any) -> None:
    """Write the SARIF log whole (temporary file, then rename)."""
    write_atomic(Path(path), sarif_log(results, **options))


class SarifReport:
    """Writes the SARIF file when the run finishes."""

    def __init__(self, path: str | Path, plugin: Any = None) -> None:
        self.path = Path(path)
        self.plugin = plugin

    def __call__(self, event: Event) -> None:
        if isinstance(event, Finished):
            plugins = {event.result.target: self.plugin} if self.plugin is not None else None
            write_sarif(self.path, [event.result], plugins=plugins)
