"""The JSON report of SPEC §7 (plus a few extension keys), written whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract import SPEC_VERSION
from contract.reproducers import write_atomic
from contract.runner import Counterexample, Event, Finished, RunResult

VERSION = 1


def _counterexample(found: Counterexample | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {
        "document": found.document,
        "config": found.config.as_dict(),
        "message": found.message,
        "messages": found.messages,
        "chunks": found.chunks,
        "offending_chunks": found.offending,
        "shrunk": found.shrunk,
        "reproducer": found.reproducer,
        "replayed_from": found.replayed_from,
    }


def report_json(result: RunResult) -> dict[str, Any]:
    """The report as a JSON-ready dict: every invariant exactly once."""
    return {
        "version": VERSION,
        "spec": SPEC_VERSION,
        "target": result.target,
        "passed": result.passed,
        "kind": result.kind,
        "seed": result.seed,
        "examples": result.examples,
        "elapsed": round(result.elapsed, 3),
        "invariants": [
            {
                "id": r.id,
                "status": r.status,
                "examples": r.examples,
                "counterexample": _counterexample(r.counterexample),
                **({"reason": r.reason} if r.reason else {}),
            }
            for r in result.results
        ],
    }


class JsonReport:
    """Writes the JSON report to ``path`` when the run finishes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __call__(self, event: Event) -> None:
        if isinstance(event, Finished):
            write_atomic(self.path, report_json(event.result))
