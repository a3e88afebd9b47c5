"""The JSON report of SPEC §7 (plus a few extension keys), written whole.

Strings are written by chunk_contract.exactjson: one holding a surrogate code point is an object
``{"$str": [...]}``, so separated surrogates read back exactly (README, JSON report).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import _files
from chunk_contract.reporting.formats import (
    PER_TARGET,
    Output,
    PerTargetFile,
    ReportFormat,
    register,
)
from chunk_contract.reporting.formats import finished as _finished
from chunk_contract.spec import SPEC_VERSION
from chunk_contract.store.reproducers import truncate_chunks

if TYPE_CHECKING:
    from chunk_contract.engine.events import Event
    from chunk_contract.engine.results import Counterexample, InvariantResult, RunResult

VERSION = 1


def _counterexample(found: Counterexample | None) -> dict[str, Any] | None:
    if found is None:
        return None
    chunks, note = truncate_chunks(found.chunks)
    return {
        "document": found.document,
        "config": found.config.as_dict(),
        "message": found.message,
        "messages": found.messages,
        "chunks": chunks,
        **({"chunks_truncated": note} if note else {}),
        "offending_chunks": found.offending,
        "shrunk": found.shrunk,
        "shrink_incomplete": found.shrink_incomplete,
        "reproducer": found.reproducer,
        "diagnosis": found.diagnosis.as_dict() if found.diagnosis else None,
        "replayed_from": found.replayed_from,
        "follows_from": found.follows_from,
        "cause": found.cause,
        **({"baseline_state": found.baseline} if found.baseline else {}),
    }


def _baseline(result: RunResult) -> dict[str, Any]:
    """The baseline's file and its findings this run no longer saw, when one was given."""
    if result.settings.baseline is None:
        return {}
    return {"baseline": {"file": str(result.settings.baseline),
                         "fixed": [e.as_dict() for e in result.fixed]}}


def report_json(result: RunResult) -> dict[str, Any]:
    """The report as a JSON-ready dict: every invariant exactly once."""
    return {
        "version": VERSION,
        "spec": SPEC_VERSION,
        "target": result.target,
        "passed": result.passed,
        "kind": result.kind,
        "documents": result.documents,
        "health": [found.as_dict() for found in result.health],
        "seed": result.seed,
        "examples": result.examples,
        "examples_asked": result.examples_asked,
        "stopped_early": result.stopped_early,
        "elapsed": round(result.elapsed, 3),
        "phases": {name: spent.as_dict() for name, spent in result.phases.items()},
        "total_time": result.total_time.as_dict() if result.total_time else None,
        **(
            {"interrupted": True, "interrupted_reason": result.interrupted_reason}
            if result.interrupted
            else {}
        ),
        "coverage": result.coverage.as_dict() if result.coverage is not None else None,
        **_baseline(result),
        "invariants": [_invariant(r) for r in result.results],
    }


def _invariant(r: InvariantResult) -> dict[str, Any]:
    """One invariant's entry. A waived one keeps SPEC §7's statuses: ``skipped``, its reason,
    and a ``waiver`` object (the reason, whether it is still needed, the input that still
    breaks it)."""
    if r.status == "waived":
        waiver = {"reason": r.reason, "needed": r.waiver_needed,
                  "evaluated": bool(r.examples),
                  "counterexample": _counterexample(r.counterexample)}
        return {"id": r.id, "status": "skipped", "examples": r.examples,
                "counterexample": None, "counterexamples": [], "reason": f"waived: {r.reason}",
                "waiver": waiver}
    return {
        "id": r.id,
        "status": r.status,
        "examples": r.examples,
        "counterexample": _counterexample(r.counterexample),
        **({"follows_from": r.follows_from} if r.follows_from else {}),
        "counterexamples": [_counterexample(c) for c in r.all_counterexamples],
        **({"reason": r.reason} if r.reason else {}),
    }


def write_json(path: Path, result: RunResult) -> None:
    """Write the JSON report of ``result`` to ``path``, whole (exact strings)."""
    _files.write_json(path, report_json(result), exact=True)


class JsonReport:
    """Writes the JSON report to ``path`` when the run finishes (one target)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __call__(self, event: Event) -> None:
        result = _finished(event)
        if result is not None:
            write_json(self.path, result)

    def close(self) -> None:
        """Nothing left to write."""


def _open(output: Output) -> PerTargetFile:
    return PerTargetFile(output, write_json, suffix=".json")


FORMAT = register(
    ReportFormat(
        name="json",
        flag="--json",
        help="write the JSON report (SPEC §7)",
        open=_open,
        merge=PER_TARGET,
        folder_in=frozenset({"matrix"}),
    )
)
