"""The contract on workbook plugins, end to end: the reference passes, each twin is caught with
the right id (and shrunk), ``check`` reads real .xlsx files, JSON reports and ``replay`` work.

The runs go through the real routing: ``chunk_contract.engine.runner.cases_for`` hands workbook
plugins to
:func:`chunk_contract.generation.strategies.workbooks.workbook_cases`.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.engine import runner
from chunk_contract.engine.runner import Event, Progress, RunResult, RunSettings
from chunk_contract.reporting.json_report import report_json

HERE = Path(__file__).resolve().parent
TWINS = HERE / "twins.py"
REFERENCE = "chunk_contract_reference.spreadsheet:split"
SHEET_RULES = (
    "terminates",
    "no_crash",
    "non_empty",
    "cap_respected",
    "unique_ids",
    "deterministic",
    "config_validation",
    "tiles_parent",
    "tight_range",
    "cells_covered",
)


def test_the_runner_routes_workbook_plugins_to_workbook_cases() -> None:
    from hypothesis import HealthCheck, given, settings

    from chunk_contract.transport.loading import load

    strategy = runner.cases_for(load(REFERENCE), RunSettings())

    @settings(max_examples=5, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def check(case: tuple[dict[str, Any], Any]) -> None:
        assert set(case[0]) == {"sheets"}

    check()


class Timed:
    """A run's result, its wall time, and when each invariant was first seen violated."""

    def __init__(
        self, target: str, run_seed: int, reproducers: Path | None, timeout: float = 2.0,
        shrink_seconds: float = 10.0,
    ) -> None:
        self.caught: dict[str, float] = {}
        started = time.monotonic()

        def listen(event: Event) -> None:
            if isinstance(event, Progress):
                for rule in event.violated:
                    self.caught.setdefault(rule, time.monotonic() - started)

        settings = RunSettings(
            max_examples=200, seed=run_seed, reproducers=reproducers, timeout=timeout,
            shrink_seconds=shrink_seconds,
        )
        self.result: RunResult = runner.run(target, settings, on_event=listen)
        self.elapsed = time.monotonic() - started

    def status(self, rule: str) -> str:
        return next(r.status for r in self.result.results if r.id == rule)


@pytest.fixture(scope="module")
def twin_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Timed]:
    """Each twin run once (seed 1), shared by the tests below.

    Without Hypothesis's local constants: it mixes literals from every module loaded so far
    into generation, so the same seed shrank to another workbook in the full suite than alone.
    """
    from hypothesis.internal.conjecture import providers

    folder = tmp_path_factory.mktemp("twins")
    saved = providers._get_local_constants
    empty = providers.Constants()
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    providers._get_local_constants = lambda: empty
    if cache is not None:
        cache.clear()
    try:
        return _twin_runs(folder)
    finally:
        providers._get_local_constants = saved
        if cache is not None:
            cache.clear()


def _twin_runs(folder: Path) -> dict[str, Timed]:
    # The shrink gets time enough to finish on a busy machine too: its size must not depend
    # on the load (the shrink's own limits end it, not the clock).
    return {
        name: Timed(f"{TWINS}:{name}", 1, folder / name, shrink_seconds=300.0)
        for name in ("OverClaim", "GapSplitter", "OverlapSplitter")
    }


@pytest.mark.slow
@pytest.mark.parametrize("run_seed", [1, 2, 3])
def test_reference_chunker_passes(run_seed: int) -> None:
    # a generous per-call limit: the reference answers in milliseconds, but a starved CI
    # machine must not turn one slow call into a `terminates` finding
    timed = Timed(REFERENCE, run_seed, None, timeout=10.0)
    assert timed.result.passed, [
        (r.id, r.counterexample.message) for r in timed.result.violated if r.counterexample
    ]
    assert {r.id for r in timed.result.results if r.status == "passed"} == set(SHEET_RULES)
    assert timed.result.examples >= 150


@pytest.mark.slow
@pytest.mark.parametrize(
    "twin, rule, clean",
    [
        ("OverClaim", "tight_range", ("cells_covered", "no_crash", "unique_ids")),
        ("GapSplitter", "tiles_parent", ("tight_range", "cap_respected", "cells_covered")),
        (
            "OverlapSplitter",
            "tiles_parent",
            ("tight_range", "cap_respected", "cells_covered", "unique_ids"),
        ),
    ],
)
def test_each_twin_is_caught_with_the_right_id(
    twin_runs: dict[str, Timed], twin: str, rule: str, clean: tuple[str, ...]
) -> None:
    timed = twin_runs[twin]
    assert timed.status(rule) == "violated"
    assert all(timed.status(other) == "passed" for other in clean)
    assert timed.caught[rule] < 30, f"{twin}: {rule} first seen after {timed.caught[rule]:.1f}s"
    # a hang guard only: shrinking has its own budgets, and shared CI machines are slow
    assert timed.elapsed < 300, f"{twin}: the whole run took {timed.elapsed:.1f}s"
    found = next(r.counterexample for r in timed.result.results if r.id == rule)
    assert found is not None and found.shrunk
    cells = sum(len(sheet) for sheet in found.document["sheets"].values())
    # shrunk (2-3 cells when the machine is idle; shrinking runs on a wall-clock budget)
    assert cells <= 20, found.document


@pytest.mark.slow
@pytest.mark.parametrize("twin, sheets", [("HashIds", 1), ("SetOrderSheets", 2)])
def test_output_that_follows_the_hash_seed_is_caught_in_fresh_interpreters(
    twin: str, sheets: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The forked worker shares the host's hash seed, so only fresh interpreters see ids from
    hash() or sheets in set order; the finding is narrowed down to a cell per sheet it needs,
    and replays the same."""
    timed = Timed(f"{TWINS}:{twin}", 1, tmp_path)
    assert timed.status("deterministic") == "violated"
    assert all(timed.status(rule) == "passed" for rule in SHEET_RULES if rule != "deterministic")
    found = next(r.counterexample for r in timed.result.results if r.id == "deterministic")
    assert found is not None and found.shrunk and found.reproducer
    assert "a fresh interpreter (PYTHONHASHSEED=" in found.message
    assert len(found.document["sheets"]) == sheets
    assert sum(map(len, found.document["sheets"].values())) == sheets
    assert cli.main(["replay", found.reproducer, "--trust-target"]) == 1
    assert "STILL FAILS: deterministic" in capsys.readouterr().out


def test_over_claim_is_reported_as_seed_001_would_want(twin_runs: dict[str, Timed]) -> None:
    found = next(
        r.counterexample for r in twin_runs["OverClaim"].result.results if r.id == "tight_range"
    )
    assert found is not None
    assert re.search(r"empty columns?; content bbox is", found.message), found.message
    assert found.chunks and any(":" in (c.get("range") or "") for c in found.chunks)


def test_json_report_describes_the_workbook(twin_runs: dict[str, Timed]) -> None:
    report = json.loads(json.dumps(report_json(twin_runs["GapSplitter"].result)))
    assert report["kind"] == "workbook" and report["passed"] is False
    entry = next(i for i in report["invariants"] if i["id"] == "tiles_parent")
    document = entry["counterexample"]["document"]
    assert set(document) == {"sheets"}
    for title, cells in document["sheets"].items():
        assert isinstance(title, str) and isinstance(cells, dict)
        assert all(ref[0].isalpha() and ref[-1].isdigit() for ref in cells)
    assert Path(entry["counterexample"]["reproducer"]).is_file()
    assert {i["id"] for i in report["invariants"] if i["status"] == "skipped"} >= {
        "span_fidelity",
        "ordered",
        "line_citations",
    }


@pytest.mark.parametrize(
    "twin, rule", [("OverClaim", "tight_range"), ("GapSplitter", "tiles_parent")]
)
def test_replay_rebuilds_the_workbook_and_still_fails(
    twin_runs: dict[str, Timed],
    twin: str,
    rule: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = next(r.counterexample for r in twin_runs[twin].result.results if r.id == rule)
    assert found is not None and found.reproducer
    saved = json.loads(Path(found.reproducer).read_text(encoding="utf-8"))
    assert saved["kind"] == "workbook" and set(saved["document"]) == {"sheets"}
    assert cli.main(["replay", found.reproducer, "--trust-target"]) == 1
    assert f"STILL FAILS: {rule}" in capsys.readouterr().out
    # the same workbook replayed against the reference chunker: fixed
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps({**saved, "target": REFERENCE}), encoding="utf-8")
    assert cli.main(["replay", str(fixed), "--trust-target"]) == 0
    assert f"FIXED: {rule}" in capsys.readouterr().out


# --------------------------------------------------------------------------- check on .xlsx


@pytest.fixture
def book_xlsx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A3:C4-style table with a header, a filled cell out at XFD1, and an empty second sheet."""
    from openpyxl import Workbook
    from openpyxl.styles import Border, PatternFill, Side

    monkeypatch.chdir(tmp_path)  # check writes its reproducers under the current folder
    book = Workbook()
    sheet = book.active
    sheet.title = "Data"
    sheet.append(["name", "qty", "price"])
    for row in (["apple", 3, 1.5], ["pear", 0, 2.25], ["fig", 12, 0.5]):
        sheet.append(row)
    sheet["XFD1"].fill = PatternFill(fill_type="solid", start_color="FFFF00", end_color="FFFF00")
    sheet["B9"].border = Border(bottom=Side(style="thin"))  # a border-only styled-empty cell
    sheet["A7"] = "   "  # whitespace only: empty
    book.create_sheet("Notes")
    path = tmp_path / "book.xlsx"
    book.save(path)
    return path


def test_check_flags_the_over_claim_on_a_real_file(book_xlsx: Path) -> None:
    report = book_xlsx.parent / "report.json"
    code = cli.main(
        ["check", f"{TWINS}:OverClaim", str(book_xlsx), "--max-size", "200", "--json", str(report)]
    )
    assert code == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    entry = next(i for i in data["invariants"] if i["id"] == "tight_range")
    assert entry["status"] == "violated"
    assert "Data!A1:XFD4" in entry["counterexample"]["message"]
    cells = entry["counterexample"]["document"]["sheets"]["Data"]
    assert cells["XFD1"] == {"value": None, "style": "fill"} and cells["A1"] == "name"


def test_check_passes_the_reference_on_a_real_file(book_xlsx: Path) -> None:
    assert cli.main(["check", REFERENCE, str(book_xlsx), "--max-size", "200"]) == 0
    assert cli.main(["check", REFERENCE, str(book_xlsx), "--max-size", "8"]) == 0  # split too


def test_check_judges_a_workbook_across_interpreters(
    book_xlsx: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids from hash() of a sheet's title agree with themselves in the forked worker; ``check``
    re-chunks the file in fresh interpreters and narrows the difference down to a cell."""
    report = book_xlsx.parent / "report.json"
    code = cli.main(["check", f"{TWINS}:HashIds", str(book_xlsx), "--max-size", "200",
                     "--json", str(report)])
    assert code == 1
    assert f"in {book_xlsx}: a fresh interpreter (PYTHONHASHSEED=" in capsys.readouterr().out
    entry = next(i for i in json.loads(report.read_text(encoding="utf-8"))["invariants"]
                 if i["id"] == "deterministic")
    assert sum(map(len, entry["counterexample"]["document"]["sheets"].values())) == 1


def test_check_catches_a_splitter_bug_on_a_real_file(book_xlsx: Path) -> None:
    assert cli.main(["check", f"{TWINS}:GapSplitter", str(book_xlsx), "--max-size", "20"]) == 1
