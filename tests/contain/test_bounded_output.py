"""What a run writes is bounded: chunk text is truncated past a cap, the document never."""

from __future__ import annotations

import json
from pathlib import Path

from chunk_contract.engine.runner import Counterexample, InvariantResult, RunResult
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.text import SHOW_CHARS, render
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers

CAP = reproducers.CHUNK_TEXT_CAP
DOCUMENT = "x" * (3 * CAP)


def _chunks(count: int, size: int) -> list[dict[str, object]]:
    return [{"text": "x" * size, "start": k * size, "end": (k + 1) * size} for k in range(count)]


def test_truncate_keeps_a_prefix_within_the_cap_and_says_so() -> None:
    kept, note = reproducers.truncate_chunks(_chunks(5, CAP // 2 + 1))
    assert kept is not None and len(kept) == 1
    assert note == f"chunks truncated: kept 1 of 5, {CAP // 2 + 1} bytes (cap {CAP} bytes)"


def test_chunks_within_the_cap_are_untouched() -> None:
    chunks = _chunks(4, 10)
    assert reproducers.truncate_chunks(chunks) == (chunks, "")
    assert reproducers.truncate_chunks(None) == (None, "")


def test_lone_surrogates_are_counted_not_crashed_on() -> None:
    kept, note = reproducers.truncate_chunks([{"text": "\udc00" * 10}], cap=29)
    assert kept == [] and "kept 0 of 1, 0 bytes" in note


def test_a_saved_reproducer_keeps_the_document_whole(tmp_path: Path) -> None:
    saved = reproducers.Reproducer(
        target="t.py:split", invariant="non_empty", document=DOCUMENT, config=Config(5, 0),
        message="m", chunks=_chunks(3, CAP),
    )
    body = json.loads(reproducers.save(saved, tmp_path).read_text())
    assert body["document"] == DOCUMENT
    assert len(body["chunks"]) == 1 and body["chunks_truncated"].startswith("chunks truncated")


def _result() -> RunResult:
    found = Counterexample("non_empty", DOCUMENT, Config(5, 0), ["m"], _chunks(3, CAP),
                           offending=[2])
    return RunResult("t.py:split", "text", 1, 1, [InvariantResult("non_empty", "violated", 1,
                                                                  found)])


def test_the_json_report_truncates_chunks_but_not_the_document() -> None:
    entry = report_json(_result())["invariants"][0]["counterexample"]
    assert entry["document"] == DOCUMENT
    assert len(entry["chunks"]) == 1 and "kept 1 of 3" in entry["chunks_truncated"]


def test_the_text_report_cuts_a_huge_offending_chunk() -> None:
    text = render(_result())
    line = next(x for x in text.splitlines() if x.startswith("    chunk[2] = "))
    assert len(line) < SHOW_CHARS + 200 and "more)" in line
