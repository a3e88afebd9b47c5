"""The covering schedule: every pair it claims is covered, by construction and seed-independently.

The pairs are recomputed here from each case's document (where each feature's text actually
sits, which line ending it is written with, what the config's cap holds), independently of
the schedule module's own bookkeeping, and compared with the factor lists.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from chunk_contract.engine.parallel import merge
from chunk_contract.engine.runner import (
    InvariantResult,
    RunResult,
    RunSettings,
    _explore,
    _Explored,
    _play,
    run,
)
from chunk_contract.engine.session import Observation
from chunk_contract.generation.strategies import schedule as sched
from chunk_contract.generation.strategies import workbook_schedule as wbs
from chunk_contract.generation.strategies.schedule import (
    DEGENERATE_REGIMES,
    ENDINGS,
    FEATURES,
    POSITIONS,
    REGIMES,
    VALID_REGIMES,
    Case,
    Feature,
    build_schedule,
    coverage_of,
    required_pairs,
    text_schedule,
    with_ending,
)
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.text import render
from chunk_contract.spec.model import Config, Declarations
from chunk_contract.spec.workbook import build, split_ref
from chunk_contract.transport.targets import Plugin

SCHEDULE = text_schedule()
ROOT = Path(__file__).resolve().parents[2]
SENSITIVE = [f for f in FEATURES if f.eol]


def _lf(text: str) -> str:
    """The document with every line ending written as LF (no feature holds a CR of its own)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _places(case: Case) -> list[tuple[Feature, str, int]]:
    """(feature, position, offset) read off the LF form of the document, not off the case's
    fields."""
    doc = _lf(case.document)
    offset, out = 0, []
    for k, feature in enumerate(case.features):
        assert doc.startswith(feature.text, offset), (case.names, k)
        end = offset + len(feature.text)
        if len(case.features) == 1:
            place = "alone"
        elif offset == 0:
            place = "start"
        elif k == len(case.features) - 1:
            assert doc[end:] in ("", "\n"), case.names
            place = "end" if end == len(doc) else "end_nl"
        else:
            place = "middle"
        out.append((feature, place, offset))
        offset = end + len(case.joiner)
    return out


def _ending(case: Case) -> str:
    doc = case.document
    breaks = {"crlf": doc.count("\r\n")}
    breaks["cr"] = doc.count("\r") - breaks["crlf"]
    breaks["lf"] = doc.count("\n") - breaks["crlf"]
    used = {name for name, n in breaks.items() if n}
    if len(used) > 1:
        return "mixed"
    return used.pop() if used else "lf"


def _holds(case: Case) -> set[str]:
    """What the cap holds: less than the longest line (``small``), every line (``line``), every
    block and every two neighbouring blocks (``section``)."""
    cap = case.config.max_size
    blocks = [with_ending(f.text, "crlf") for f in case.features]  # the widest line ending
    joiner = with_ending(case.joiner, "crlf")
    pairs = [_size(a + joiner + b) for a, b in itertools.pairwise(blocks)]
    longest = max(_size(line) for line in case.document.splitlines(keepends=True))
    out = {"line"} if cap >= longest else {"small"}
    if all(cap >= n for n in pairs + [_size(b) for b in blocks]):
        out.add("section")
    return out


def _written_with(case: Case, feature: Feature, at: int) -> bool:
    """The feature holds or is followed by a line break, of the kind the case says (mixed:
    at least two kinds in the document)."""
    doc = _lf(case.document)
    after = doc[at + len(feature.text) : at + len(feature.text) + 1]
    return ("\n" in feature.text or after == "\n") and _ending(case) == case.ending


def _observed_pairs(case: Case) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    for feature, _, _ in _places(case):
        out.add(("regime", feature.name, case.regime))
    if not case.config.is_valid:
        return out
    holds = _holds(case)
    coarse = "small" if "small" in holds else "large"
    for feature, place, at in _places(case):
        out.add(("position", feature.name, place))
        if place in ("start", "middle", "end"):
            out.add(("position_cap", feature.name, f"{place}/{coarse}"))
        if feature.eol and _written_with(case, feature, at):
            out.add(("ending", feature.name, case.ending))
            if place in ("middle", "end", "end_nl"):
                out |= {("ending_cap", feature.name, f"{case.ending}/{h}") for h in holds}
    for a, b in itertools.pairwise(case.names):
        out.add(("adjacent", *sorted((a, b))))
    return out


def _factor_lists() -> set[tuple[str, str, str]]:
    """The target, from the factor lists alone."""
    names = [f.name for f in FEATURES]
    want = {("position", n, p) for n in names for p in POSITIONS}
    want |= {("regime", n, r) for n in names for r in REGIMES}
    want |= {("position_cap", n, f"{p}/{c}") for n in names for p in ("start", "middle", "end")
             for c in ("small", "large")}
    want |= {("ending", f.name, e) for f in SENSITIVE for e in ENDINGS}
    want |= {("ending_cap", f.name, f"{e}/{c}") for f in SENSITIVE for e in ENDINGS
             for c in ("small", "line", "section")}
    want |= {("adjacent", *sorted(p)) for p in itertools.combinations(names, 2)}
    return want


# ----------------------------------------------------------------------------- the pairs


def test_every_claimed_pair_is_covered_by_the_documents_themselves() -> None:
    want = _factor_lists()
    assert required_pairs() == want
    seen: set[tuple[str, str, str]] = set()
    for case in SCHEDULE.cases:
        seen |= _observed_pairs(case)
    missing = sorted(want - seen)
    assert not missing, f"{len(missing)} pairs not in any document, e.g. {missing[:5]}"


def test_the_bookkeeping_claims_no_pair_a_document_does_not_show() -> None:
    for case in SCHEDULE.cases:
        assert case.pairs() <= _observed_pairs(case), case.names


def test_the_coverage_check_can_fail() -> None:
    """Dropping any one case loses a pair: the coverage count is not a constant."""
    full = SCHEDULE.coverage(len(SCHEDULE.cases))
    assert full.complete and full.covered == full.total == len(_factor_lists())
    for k in (0, len(SCHEDULE.cases) // 2, len(SCHEDULE.cases) - 1):
        rest = SCHEDULE.cases[:k] + SCHEDULE.cases[k + 1 :]
        partial = coverage_of(rest, SCHEDULE.required)
        assert not partial.complete and partial.uncovered, k


def test_every_feature_of_the_generators_is_there() -> None:
    names = {f.name for f in FEATURES}
    for wanted in ("lone_surrogates", "odd_breaks", "bom", "nul", "whitespace_only",
                   "heading_closing", "heading_tab", "setext", "thematic", "fence",
                   "fence_lookalike", "fence_unclosed", "list", "table", "front_matter",
                   "json_block", "header", "repeated_blocks", "long_run", "early_space",
                   "cjk", "zwj", "flags", "combining"):
        assert wanted in names
    assert len(names) == len(FEATURES)
    for feature in FEATURES:
        assert "\r" not in feature.text, feature.name  # line endings come from the case
        assert feature.eol == ("\n" in feature.text or feature.name.startswith(("heading",))), (
            feature.name)


# ----------------------------------------------------------------------------- the configs


@pytest.mark.parametrize("regime", REGIMES)
def test_each_regime_gives_its_config(regime: str) -> None:
    cases = [c for c in SCHEDULE.cases if c.regime == regime]
    assert cases, regime
    for case in cases:
        config, size = case.config, _size(case.document)
        assert config.is_valid == (regime in VALID_REGIMES)
        if regime == "tiny1":
            assert config == Config(1, 0)
        elif regime == "tiny3":
            assert config == Config(3, 2)
        elif regime.startswith("whole"):
            assert config.max_size > size
        elif regime.startswith("line"):
            assert all(config.max_size >= _size(line)
                       for line in case.document.splitlines(keepends=True))
        if regime.endswith("_overlap"):
            assert config.overlap == config.max_size - 1


def test_the_degenerate_families_of_spec_2_are_all_there() -> None:
    broken = {c.regime: c.config for c in SCHEDULE.cases if not c.config.is_valid}
    assert set(broken) == set(DEGENERATE_REGIMES)
    assert broken["size_zero"].max_size == 0 and broken["size_negative"].max_size < 0
    assert broken["overlap_negative"].overlap < 0
    assert broken["overlap_equal"].overlap == broken["overlap_equal"].max_size
    assert broken["overlap_above"].overlap > broken["overlap_above"].max_size
    first_broken = next(k for k, c in enumerate(SCHEDULE.cases) if not c.config.is_valid)
    assert all(not c.config.is_valid for c in SCHEDULE.cases[first_broken:])  # valid first


def test_mixed_endings_use_all_three() -> None:
    text = with_ending("a\nb\nc\nd\n", "mixed")
    assert text == "a\r\nb\nc\rd\r\n" and _lf(text) == "a\nb\nc\nd\n"


# ----------------------------------------------------------------------------- size, determinism


def test_the_schedule_is_small() -> None:
    assert 100 <= len(SCHEDULE.cases) <= 300
    assert max(len(c.document) for c in SCHEDULE.cases) <= 800
    assert len(set(SCHEDULE.items())) == len(SCHEDULE.cases)  # no case played twice


def test_the_build_is_deterministic() -> None:
    again = build_schedule(FEATURES)
    assert again.items() == SCHEDULE.items() and again.required == SCHEDULE.required


def test_the_build_covers_any_feature_list() -> None:
    few = [Feature("a", "alpha"), Feature("h", "# H", eol=True), Feature("f", "```\nx\n```", True),
           Feature("w", " \n ", eol=True)]
    small = build_schedule(few)
    assert small.coverage(len(small.cases)).complete
    with pytest.raises(ValueError, match="at least 3 features"):
        build_schedule(few[:2])
    with pytest.raises(ValueError, match="distinct names"):
        build_schedule([few[0], few[0], few[1]])


class _Recorder:
    """A stand-in session: records each call, sees no violation."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Config]] = []
        self.plugin = Plugin("recorder", None, Declarations())  # no declared ranges

    def observe(self, document: Any, config: Config, **options: Any) -> Observation:
        self.calls.append((document, config))
        return Observation(document, config)


def _settings(**changes: Any) -> RunSettings:
    values: dict[str, Any] = dict(max_examples=3, seed=1, reproducers=None, measure=False,
                                  skip=("scales_linearly",))
    values.update(changes)
    return RunSettings(**values)


@pytest.mark.parametrize("seed", [0, 1, 2**31])
def test_every_seed_plays_the_same_schedule_first(seed: int) -> None:
    recorder = _Recorder()
    found = _explore(recorder, st.just(("x", Config(1, 0))), _settings(seed=seed), seed,  # type: ignore[arg-type]
                     lambda event: None, (), plan=SCHEDULE)
    n = len(SCHEDULE.cases)
    assert recorder.calls[:n] == SCHEDULE.items()
    assert found.coverage is not None and found.coverage.complete


def test_a_run_stopped_early_says_what_it_did_not_cover() -> None:
    found = _Explored()
    coverage = _play(_Recorder(), SCHEDULE, SCHEDULE.items(), time.monotonic() - 1, found,  # type: ignore[arg-type]
                     lambda event: None, 0)
    assert coverage.covered == 0 and found.examples == 0
    assert len(coverage.uncovered) == coverage.total
    partial = SCHEDULE.coverage(10)
    assert 0 < partial.covered < partial.total
    assert "stopped early" in partial.describe() and "more" in partial.describe()


# ----------------------------------------------------------------------------- the reports


def _result(coverage: Any, **changes: Any) -> RunResult:
    verdicts = [InvariantResult("no_crash", "passed", 5)]
    return RunResult("t.py:f", "text", 1, 5, verdicts, settings=_settings(**changes),
                     coverage=coverage)


def test_the_reports_state_the_coverage() -> None:
    full = SCHEDULE.coverage(len(SCHEDULE.cases))
    total = full.total
    assert f"covered {total}/{total} pairs" in render(_result(full))
    assert report_json(_result(full))["coverage"] == {
        "covered": total, "total": total, "uncovered": [],
        "by_factor": {k: {"covered": t, "total": t} for k, (_, t) in full.by_factor.items()},
    }
    partial = SCHEDULE.coverage(3)
    data = report_json(_result(partial))["coverage"]
    assert data["covered"] < total and len(data["uncovered"]) == total - data["covered"]
    assert "--no-schedule" in render(_result(None, schedule=False))
    assert "coverage" not in render(_result(None))  # `check`: given files, no schedule
    assert report_json(_result(None, schedule=False))["coverage"] is None


def test_the_parallel_merge_keeps_the_coverage() -> None:
    full = SCHEDULE.coverage(len(SCHEDULE.cases))
    merged = merge([_result(None), _result(full)], seed=1, elapsed=0.0, settings=_settings())
    assert merged.coverage == full


def test_a_run_reports_full_coverage_and_counts_the_cases() -> None:
    target = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
    result = run(target, _settings(max_examples=1, corpus=False))
    assert result.passed and result.coverage is not None and result.coverage.complete
    assert result.examples == len(SCHEDULE.cases) + 1
    off = run(target, _settings(max_examples=1, corpus=False, schedule=False))
    assert off.coverage is None and off.examples == 1


# ----------------------------------------------------------------------------- workbooks


def _first_cell(sheet: dict[str, Any]) -> tuple[int, int]:
    return min(split_ref(ref) for ref in sheet)


def test_the_workbook_schedule_places_what_it_claims() -> None:
    plan = sched.schedule_for("workbook")
    assert plan is not SCHEDULE and 20 <= len(plan.cases) <= 60
    full = plan.coverage(len(plan.cases))
    assert full.complete and full.covered == len(wbs.workbook_pairs())
    cells = dict(wbs.WORKBOOK_FEATURES)
    for case in plan.cases:
        description = case.document
        build(description)  # openpyxl accepts it
        sheets = list(description["sheets"].values())
        names = [n for n, _ in case.placed]
        for name, place in case.placed:
            if name not in cells:
                continue
            here = sheets[1] if place == "second_sheet" else sheets[0]
            values = [repr(v) for v in cells[name].values()]
            assert all(v in map(repr, here.values()) for v in values), (name, place)
            if place == "alone":
                assert sum(map(len, sheets)) == len(cells[name]) and names == [name]
        if case.placed[0][1] == "A1" and case.placed[0][0] not in ("far_column", "far_row"):
            first = cells[case.placed[0][0]][(0, 0)]
            assert sheets[0][f"A{_first_cell(sheets[0])[0]}"] == first
            assert _first_cell(sheets[0]) == (1, 1)


def test_every_workbook_regime_and_degenerate_family_is_there() -> None:
    plan = sched.schedule_for("workbook")
    regimes = {c.regime: c.config for c in plan.cases}
    assert set(regimes) == set(wbs.REGIMES)
    assert regimes["tiny1"] == Config(1, 0) and regimes["row_overlap"].overlap == 39
    assert [r for r in wbs.DEGENERATE_REGIMES if regimes[r].is_valid] == []


def test_a_workbook_run_plays_its_schedule() -> None:
    target = f"{ROOT / 'chunk_contract_reference' / 'spreadsheet.py'}:split"
    result = run(target, _settings(max_examples=1, corpus=False))
    assert result.passed, [r.id for r in result.violated]
    assert result.coverage is not None and result.coverage.complete
    assert result.examples == len(sched.schedule_for("workbook").cases) + 1
