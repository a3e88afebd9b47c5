"""Runs that stop early say so: examples checked vs asked, why exploration stopped, and which
shrinks the budget cut short, in the RunResult, in every report, and through ``-n``'s merge.

The budgets are set through RunSettings, and the slow plugin is far slower than the budget
allows (0.2 s per call, 0.5 s for 200 examples), so no verdict depends on the machine's speed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chunk_contract.engine.parallel import merge
from chunk_contract.engine.runner import (
    Counterexample,
    InvariantResult,
    RunResult,
    RunSettings,
    run,
)
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.junit import junit_tree
from chunk_contract.reporting.markdown import render_markdown
from chunk_contract.reporting.sarif import sarif_log
from chunk_contract.reporting.text import render
from chunk_contract.spec.model import Config
from chunk_contract.spec.registry import registry

HERE = Path(__file__).resolve().parent
SLOW = f"{HERE / 'budget_plugins.py'}:slow_windows"
FLAWED = f"{HERE / 'budget_plugins.py'}:blank_tail"


def _settings(**changes: object) -> RunSettings:
    values: dict[str, object] = dict(
        seed=7,
        reproducers=None,
        corpus=False,
        schedule=False,
        measure=False,
        skip=("scales_linearly",),
    )
    values.update(changes)
    return RunSettings(**values)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the runner


def test_a_run_out_of_exploration_budget_says_so() -> None:
    result = run(SLOW, _settings(max_examples=200, explore_seconds=0.5, only=("non_empty",)))
    assert result.examples_asked == 200
    assert result.examples < 200  # 0 only if generating one example took over 0.5 s
    assert result.stopped_early == "the 0.5 s exploration budget ran out"
    assert result.early_stop == (
        f"checked {result.examples} of 200 examples: the 0.5 s exploration budget ran out"
    )
    assert result.passed  # the verdict stands; the report says how much it rests on


def test_a_covering_schedule_cut_by_the_budget_counts_as_asked() -> None:
    from chunk_contract.generation.strategies.schedule import schedule_for

    result = run(SLOW, _settings(max_examples=200, explore_seconds=0.5, only=("non_empty",),
                                 schedule=True))
    assert result.examples_asked == len(list(schedule_for("text").items())) + 200
    assert result.stopped_early == (
        "the covering schedule's budget ran out before its end; "
        "the 0.5 s exploration budget ran out"
    )
    assert result.coverage is not None and result.coverage.covered < result.coverage.total


def test_the_covering_schedule_outlives_the_exploration_budget() -> None:
    """On a busy machine the wall-clock budget runs out early; the schedule (coverage by
    construction) still plays to its end, within its own budget, and the generated examples
    stop. Here the exploration budget is spent before the first case (0 s)."""
    result = run(FLAWED, _settings(max_examples=50, explore_seconds=0.0, schedule_seconds=600.0,
                                   only=("cap_respected",), schedule=True))
    assert result.coverage is not None and result.coverage.covered == result.coverage.total
    assert result.stopped_early == "the 0 s exploration budget ran out"
    assert result.examples < result.examples_asked


def test_the_schedule_budget_is_never_below_the_exploration_budget() -> None:
    assert RunSettings(explore_seconds=45.0).schedule_budget == 180.0
    assert RunSettings(explore_seconds=45.0, schedule_seconds=10.0).schedule_budget == 45.0
    assert RunSettings(explore_seconds=1.0, schedule_seconds=60.0).schedule_budget == 60.0


def test_a_run_within_its_budget_does_not_claim_an_early_stop() -> None:
    result = run(FLAWED, _settings(max_examples=20, only=("cap_respected",)))
    assert result.examples == result.examples_asked == 20
    assert result.stopped_early is None and result.early_stop is None
    assert result.shrinks_cut_short == []


def test_replayed_inputs_count_among_the_examples_asked() -> None:
    result = run(FLAWED, _settings(max_examples=5, only=("cap_respected",), corpus=True))
    assert result.examples == result.examples_asked > 5
    assert result.stopped_early is None


def test_a_shrink_cut_short_by_its_budget_is_marked() -> None:
    result = run(FLAWED, _settings(max_examples=50, shrink_seconds=0.0, only=("non_empty",)))
    found = {r.id: r for r in result.violated}["non_empty"].counterexample
    assert found is not None and found.shrink_incomplete
    assert result.shrinks_cut_short == ["non_empty"]


def test_a_shrink_within_its_budget_is_not_marked() -> None:
    result = run(FLAWED, _settings(max_examples=50, shrink_seconds=60.0, only=("non_empty",)))
    found = {r.id: r for r in result.violated}["non_empty"].counterexample
    assert found is not None and not found.shrink_incomplete
    assert found.shrunk and len(found.document) == 3


# --------------------------------------------------------------------------- the merge of -n


def _result(examples: int, asked: int, stopped: str | None, *, cut: bool = False) -> RunResult:
    found = Counterexample(
        "non_empty", "abc", Config(2, 0), ["chunk[1] is whitespace only"], None,
        shrunk=True, shrink_incomplete=cut,
    )
    results = [
        InvariantResult(rule, "violated", examples, found)
        if rule == "non_empty"
        else InvariantResult(rule, "passed", examples)
        for rule in registry()
    ]
    return RunResult(
        "plugin.py:split", "text", 1, examples, results,
        settings=RunSettings(explore_seconds=45.0, shrink_seconds=10.0),
        examples_asked=asked, stopped_early=stopped,
    )


BUDGET = "the 45 s exploration budget ran out"


def test_merge_adds_up_examples_and_keeps_the_reason() -> None:
    merged = merge(
        [_result(30, 100, BUDGET), _result(100, 100, None)], seed=1, elapsed=1.0,
        settings=RunSettings(),
    )
    assert (merged.examples, merged.examples_asked) == (130, 200)
    assert merged.stopped_early == f"{BUDGET} (in 1 of 2 runs)"
    assert merged.early_stop == f"checked 130 of 200 examples: {BUDGET} (in 1 of 2 runs)"


def test_merge_of_complete_runs_has_no_reason() -> None:
    merged = merge(
        [_result(100, 100, None), _result(100, 100, None)], seed=1, elapsed=1.0,
        settings=RunSettings(),
    )
    assert merged.examples == merged.examples_asked == 200 and merged.stopped_early is None


def test_merge_names_each_reason_once() -> None:
    merged = merge(
        [_result(3, 100, BUDGET), _result(4, 100, BUDGET), _result(100, 100, None)],
        seed=1, elapsed=1.0, settings=RunSettings(),
    )
    assert merged.stopped_early == f"{BUDGET} (in 2 of 3 runs)"


# --------------------------------------------------------------------------- the reports


@pytest.fixture
def stopped() -> RunResult:
    return _result(57, 200, BUDGET, cut=True)


def test_text_report_shows_the_early_stop_next_to_the_verdict(stopped: RunResult) -> None:
    text = render(stopped)
    verdict = text.index("FAILED:")
    assert text[verdict:].splitlines()[1] == f"STOPPED EARLY: checked 57 of 200 examples: {BUDGET}"
    assert "SHRINK CUT SHORT: non_empty (the 10 s shrink budget ran out" in text
    assert "shrunk; the 10 s shrink budget ran out, a smaller failing input may exist" in text


def test_text_report_of_a_complete_run_has_no_budget_line() -> None:
    text = render(_result(200, 200, None))
    assert "STOPPED EARLY" not in text and "SHRINK CUT SHORT" not in text
    assert "shrink budget" not in text


def test_json_report_has_the_counts_and_the_reason(stopped: RunResult) -> None:
    report = json.loads(json.dumps(report_json(stopped)))
    assert (report["examples"], report["examples_asked"]) == (57, 200)
    assert report["stopped_early"] == BUDGET
    item = next(i for i in report["invariants"] if i["id"] == "non_empty")
    assert item["counterexample"]["shrink_incomplete"] is True
    complete = report_json(_result(200, 200, None))
    assert complete["stopped_early"] is None
    item = next(i for i in complete["invariants"] if i["id"] == "non_empty")
    assert item["counterexample"]["shrink_incomplete"] is False


def test_junit_has_properties_and_system_out(stopped: RunResult) -> None:
    suite = junit_tree(stopped).getroot().find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["examples"] == "57" and props["examples_asked"] == "200"
    assert props["stopped_early"] == BUDGET and props["shrink_incomplete"] == "non_empty"
    out = suite.find("system-out")
    assert out is not None and f"checked 57 of 200 examples: {BUDGET}" in (out.text or "")
    assert list(suite)[-1].tag == "system-out"  # after the testcases
    complete = junit_tree(_result(200, 200, None)).getroot().find("testsuite")
    assert complete is not None and complete.find("system-out") is None
    ET.fromstring(ET.tostring(suite))  # well-formed


def test_markdown_and_sarif_carry_the_early_stop(stopped: RunResult) -> None:
    text = render_markdown([stopped])
    assert f"> ⚠️ STOPPED EARLY: checked 57 of 200 examples: {BUDGET}" in text
    assert "> ⚠️ SHRINK CUT SHORT: non_empty" in text
    assert "STOPPED EARLY" not in render_markdown([_result(200, 200, None)])
    log = sarif_log([stopped])
    target = log["runs"][0]["invocations"][0]["properties"]["targets"][0]
    assert (target["examples"], target["examples_asked"]) == (57, 200)
    assert target["stopped_early"] == BUDGET
    result = log["runs"][0]["results"][0]
    assert result["properties"]["shrink_incomplete"] is True
