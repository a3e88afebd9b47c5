"""SPEC 1.1 §7: every document and chunk text round-trips exactly through every file we write.

``'x\\udbff\\udc00y'`` holds two separated surrogates; plain JSON merges them into one astral
character on reading. Reproducer files, shared-database entries and the JSON report keep them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chunk_contract import exactjson
from chunk_contract.engine.runner import Counterexample, Finished, InvariantResult, RunResult
from chunk_contract.reporting.json_report import JsonReport
from chunk_contract.spec.model import Config
from chunk_contract.store import database, reproducers

SEPARATED = "x\udbff\udc00y"
ASTRAL = "x\U0010fc00y"
TARGET = "tests/cli/plugins.py:slices"


def _saved(document: str = SEPARATED) -> reproducers.Reproducer:
    return reproducers.Reproducer(
        target=TARGET,
        invariant="no_lost_text",
        document=document,
        config=Config(3, 0),
        message=f"lost {document!r}",
        chunks=[{"text": document}],
    )


def test_reproducer_file(tmp_path: Path) -> None:
    path = reproducers.save(_saved(), tmp_path)
    loaded = reproducers.load(path)
    assert loaded.document == SEPARATED and loaded.chunks == [{"text": SEPARATED}]
    assert loaded.message == _saved().message


def test_separated_and_astral_reproducers_are_two_files(tmp_path: Path) -> None:
    assert reproducers.save(_saved(), tmp_path) != reproducers.save(_saved(ASTRAL), tmp_path)
    assert {reproducers.load(p).document for p in tmp_path.iterdir()} == {SEPARATED, ASTRAL}


def test_dumps_and_parse() -> None:
    assert reproducers.parse(reproducers.dumps(_saved())).document == SEPARATED
    assert reproducers.parse(reproducers.dumps(_saved(ASTRAL))).document == ASTRAL


def test_shared_database() -> None:
    shared = database.open_database(":memory:")
    shared.save(_saved())
    shared.save(_saved(ASTRAL))
    documents = {r.document for r in shared.fetch(TARGET, "text")}
    assert documents == {SEPARATED, ASTRAL}


def test_shared_database_folder(tmp_path: Path) -> None:
    shared = database.open_database(str(tmp_path / "db"))
    shared.save(_saved())
    assert [r.document for r in shared.fetch(TARGET, "text")] == [SEPARATED]


def test_json_report(tmp_path: Path) -> None:
    found = Counterexample("no_lost_text", SEPARATED, Config(3, 0), ["lost"], [{"text": SEPARATED}])
    result = RunResult(
        TARGET, "text", 1, 1, [InvariantResult("no_lost_text", "violated", 1, found)]
    )
    path = tmp_path / "report.json"
    JsonReport(path)(Finished(result))
    report = exactjson.loads(path.read_text(encoding="utf-8"))
    example = report["invariants"][0]["counterexample"]
    assert example["document"] == SEPARATED and example["chunks"] == [{"text": SEPARATED}]


@pytest.mark.parametrize("text", ["plain", "é ✓", "\udc00", "\ud800\udc00\ud800"])
def test_ordinary_json_readers_see_plain_strings_unless_surrogates(text: str) -> None:
    encoded = exactjson.encode(text)
    assert (encoded == text) == (text in ("plain", "é ✓"))
    assert exactjson.loads(exactjson.dumps(text)) == text
