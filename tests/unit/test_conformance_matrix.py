"""docs/conformance.md agrees with its evidence and the reviewed findings (no library needed).

The page is rendered from docs/conformance-evidence.json and
chunk_contract/integrations/adapters/findings/*.toml; the committed page must be exactly that
render, and every disagreement between evidence and
findings (a violation without a finding, an ``expect`` that does not match, a finding no seed
reproduced) is a problem that ``--strict`` fails on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chunk_contract.integrations.adapters import BY_NAME, conformance, findings
from chunk_contract.integrations.adapters.conformance import (
    Budget,
    cell_text,
    review,
    seed_evidence,
)
from chunk_contract.integrations.adapters.findings import Finding, Notes

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "docs" / "conformance-evidence.json"
DOC = ROOT / "docs" / "conformance.md"


def finding(
    expect: str,
    verdict: str = "bug",
    *,
    cause: str | None = None,
    severity: str = "",
    by_hand: str = "",
) -> Finding:
    """A finding as the loader makes it."""
    return Finding(
        verdict, "summary", "explanation", "where", "", expect, cause, "t.toml, finding 1",
        severity=severity, by_hand=by_hand,
    )


def report(
    violations: dict[str, str],
    *,
    passed: tuple[str, ...] = ("ordered",),
    follows: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A JSON report (SPEC §7) with the given violations (invariant: message); ``follows``
    maps a violated rule to the rule its violation follows from."""
    items = [
        {
            "id": rule,
            "status": "violated",
            "examples": 10,
            "counterexample": {
                "document": "x a",
                "config": {"max_size": 1, "overlap": 0},
                "message": message,
                "chunks": [{"text": " ", "start": 1, "end": 2}],
                "shrunk": True,
                "follows_from": (follows or {}).get(rule),
            },
        }
        for rule, message in violations.items()
    ]
    items += [
        {"id": rule, "status": "passed", "examples": 40, "counterexample": None} for rule in passed
    ]
    items.append({"id": "unique_ids", "status": "skipped", "examples": 0, "counterexample": None})
    return {
        "examples": 40,
        "examples_asked": 50,
        "stopped_early": None,
        "elapsed": 1.0,
        "invariants": items,
    }


def evidence(*reports: dict[str, Any]) -> dict[str, Any]:
    """One adapter's evidence over one seed per report."""
    budget = Budget(100, 5.0)
    runs = [
        seed_evidence("semchunk", k + 1, budget, r, first=k == 0) for k, r in enumerate(reports)
    ]
    return conformance.adapter_evidence(BY_NAME["semchunk"], runs, budget)


WHITESPACE = "chunk[1] [1:2) is whitespace-only ' '"


def test_a_reviewed_violation_states_its_verdict_and_seeds() -> None:
    ev = evidence(report({"non_empty": WHITESPACE}), report({}))
    cell = review(
        "semchunk", "non_empty", ev, {("semchunk", "non_empty"): finding("whitespace-only")}
    )
    assert cell.problem is None and cell_text(cell) == "✗ bug 1/2"


def test_a_passed_cell_states_its_evidence_summed_over_seeds() -> None:
    ev = evidence(report({}), report({}), report({}))
    cell = review("semchunk", "ordered", ev, {})
    assert cell.problem is None and cell_text(cell) == "✓ 120"
    assert cell_text(review("semchunk", "unique_ids", ev, {})) == "·"


def test_a_violation_without_a_finding_is_a_problem() -> None:
    cell = review("semchunk", "non_empty", evidence(report({"non_empty": WHITESPACE})), {})
    assert cell.problem and cell.problem.startswith("NOT REVIEWED")
    assert cell_text(cell) == "✗ ? 1/1"


def test_a_message_the_finding_does_not_expect_on_any_seed_is_a_problem() -> None:
    ev = evidence(report({"non_empty": WHITESPACE}), report({"non_empty": "chunk[0] is empty"}))
    cell = review("semchunk", "non_empty", ev, {("semchunk", "non_empty"): finding("whitespace")})
    assert cell.problem and cell.problem.startswith("REVIEW AGAIN: 1 seed(s)")
    assert "chunk[0] is empty" in cell.problem and cell_text(cell) == "✗ ? 2/2"


def test_a_finding_no_seed_reproduced_is_a_problem() -> None:
    """A ✓ cell that contradicts a reviewed finding is never shown as plain ✓."""
    cell = review(
        "semchunk",
        "ordered",
        evidence(report({})),
        {("semchunk", "ordered"): finding("start does not increase")},
    )
    assert cell.problem and cell.problem.startswith("NOT REPRODUCED")


# ---------------------------------------------------------------- what contradicts a cell

SIBLING = "chunk[1] [0:2) follows chunk[0] [0:3): start does not increase"


def test_a_violation_that_follows_from_another_rule_shows_its_cause_and_needs_no_finding() -> None:
    ev = evidence(
        report({"span_fidelity": "chunk[0] [-1:3): bad", "ordered": SIBLING},
               passed=(), follows={"ordered": "span_fidelity"}),
        report({}),
    )
    assert ev["runs"][0]["violations"]["ordered"]["follows_from"] == "span_fidelity"
    cell = review("semchunk", "ordered", ev, {})
    assert cell.problem is None and cell.follows == "span_fidelity"
    assert cell_text(cell) == "✗ ← `span_fidelity` 1/2"
    page, _ = conformance.render({"semchunk": ev}, {}, Notes({}, ()))
    assert "### `ordered`: follows from `span_fidelity`" in page
    assert "On seed(s) 1 this follows from `span_fidelity`" in page


def test_a_finding_of_its_own_for_a_rule_that_only_follows_is_stale() -> None:
    ev = evidence(report({"ordered": SIBLING}, passed=(), follows={"ordered": "span_fidelity"}))
    cell = review("semchunk", "ordered", ev, {("semchunk", "ordered"): finding("increase")})
    assert cell.problem and cell.problem.startswith("FOLLOWS FROM span_fidelity")
    assert cell_text(cell) == "✗ ? 1/1"


def test_a_seed_that_violates_the_rule_on_its_own_still_needs_a_finding() -> None:
    ev = evidence(
        report({"ordered": SIBLING}, passed=(), follows={"ordered": "span_fidelity"}),
        report({"ordered": SIBLING}, passed=()),
    )
    cell = review("semchunk", "ordered", ev, {})
    assert cell.follows is None and cell.problem and cell.problem.startswith("NOT REVIEWED")
    mine = {("semchunk", "ordered"): finding("start does not increase")}
    assert review("semchunk", "ordered", ev, mine).problem is None


def test_a_note_that_speaks_of_a_passed_rule_contradicts_the_cell() -> None:
    ev = evidence(report({"non_empty": WHITESPACE}, passed=("ordered", "overlap_bounded")))
    reviewed = {("semchunk", "non_empty"): finding("whitespace-only")}
    note = Notes({"semchunk": "by hand: `overlap_bounded` fails on '  a'; `non_empty` too"}, ())
    cells = conformance.review_all({"semchunk": ev}, reviewed, note)
    problem = cells[("semchunk", "overlap_bounded")].problem
    assert problem and problem.startswith("CONTRADICTED BY A NOTE") and "semchunk" in problem
    assert cells[("semchunk", "non_empty")].problem is None  # violated: the note agrees
    assert cells[("semchunk", "ordered")].problem is None  # not named by the note
    _, problems = conformance.render({"semchunk": ev}, reviewed, note)
    assert any(p.startswith("semchunk / overlap_bounded: CONTRADICTED") for p in problems)


def test_rows_of_one_cause_with_different_verdicts_fail_every_such_cell() -> None:
    ev = evidence(report({"non_empty": WHITESPACE}))
    reviewed = {
        ("semchunk", "non_empty"): finding("whitespace-only", cause="c"),
        ("text-splitter", "non_empty"): finding("whitespace-only", "design", cause="c"),
    }
    cells = conformance.review_all({"semchunk": ev}, reviewed)
    problem = cells[("semchunk", "non_empty")].problem
    assert problem and "ONE CAUSE, SEVERAL VERDICTS: cause 'c'" in problem
    assert "bug in semchunk / non_empty" in problem and "design in text-splitter" in problem
    assert cell_text(cells[("semchunk", "non_empty")]) == "✗ ? 1/1"
    _, problems = conformance.render({"semchunk": ev}, reviewed, Notes({}, ()))
    assert any(p.startswith("text-splitter / non_empty: ONE CAUSE") for p in problems)


HAND = "chunk(' a', 3, 1) gives [(1, 'a'), (1, 'a')]"


def test_a_finding_by_hand_turns_a_passed_cell_into_a_violation_shown_as_such() -> None:
    ev = evidence(report({}), report({}))
    reviewed = {("semchunk", "ordered"): finding("start does not increase", by_hand=HAND)}
    cell = review("semchunk", "ordered", ev, reviewed)
    assert cell.problem is None and cell_text(cell) == "✗ bug by hand"
    page, problems = conformance.render({"semchunk": ev}, reviewed, Notes({}, ()))
    assert problems == [] and "### `ordered`: library bug, found by hand" in page
    assert HAND in page and "`ordered` (bug, by hand): summary" in page
    assert "Every applicable invariant held" not in page


def test_a_finding_by_hand_that_a_seed_now_shows_must_drop_by_hand() -> None:
    ev = evidence(report({"ordered": SIBLING}, passed=()))
    reviewed = {("semchunk", "ordered"): finding("start does not increase", by_hand=HAND)}
    cell = review("semchunk", "ordered", ev, reviewed)
    assert cell.problem and cell.problem.startswith("NOW FOUND BY THE CONTRACT")
    assert cell_text(cell) == "✗ ? 1/1"


def test_a_note_is_no_substitute_for_a_finding_by_hand() -> None:
    """The same observation as a note contradicts the ✓; as a finding by hand it does not."""
    ev = evidence(report({}))
    note = Notes({"semchunk": f"by hand, `ordered` fails: {HAND}"}, ())
    reviewed = {("semchunk", "ordered"): finding("start does not increase", by_hand=HAND)}
    assert conformance.render({"semchunk": ev}, {}, note)[1]
    assert conformance.render({"semchunk": ev}, reviewed, Notes({}, ()))[1] == []


DIED = (
    "degenerate config max_size=0, overlap=0 was neither refused with ValueError/TypeError nor "
    "handled cleanly: [no_crash] the worker process died: worker killed by SIGABRT"
)


@pytest.mark.parametrize(
    ("severity", "verdict", "problem"),
    [
        ("", "bug", "SEVERITY MISSING"),
        ("unbounded", "bug", "SEVERITY MISSING"),
        ("abort", "design", "SEVERITY PLAYED DOWN"),
        ("abort", "bug", None),
    ],
)
def test_a_process_that_died_needs_an_abort_severity_and_a_verdict_that_says_so(
    severity: str, verdict: str, problem: str | None
) -> None:
    ev = evidence(report({"config_validation": DIED}))
    reviewed = {("semchunk", "config_validation"): finding("neither refused", verdict,
                                                           severity=severity)}
    found = conformance.review_all({"semchunk": ev}, reviewed)[("semchunk", "config_validation")]
    assert (found.problem or "").startswith(problem or "") and bool(found.problem) == bool(problem)


def test_the_page_marks_problems_and_strict_fails_on_them(tmp_path: Path) -> None:
    path = tmp_path / "evidence.json"
    conformance.save_evidence(path, {"semchunk": evidence(report({"non_empty": WHITESPACE}))})
    doc = tmp_path / "page.md"
    argv = ["--render-only", "--evidence", str(path), "--doc", str(doc)]
    assert conformance.main(argv) == 0
    assert conformance.main([*argv, "--strict"]) == 1
    page = doc.read_text("utf-8")
    assert "| `semchunk` |" in page and "✗ ? 1/1" in page and "NOT REVIEWED" in page


def test_only_reruns_the_named_adapters_and_keeps_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.json"
    old = evidence(report({}))
    conformance.save_evidence(path, {"semchunk": old, "text-splitter": old})
    fresh = evidence(report({}), report({}))

    def fake_run(
        plan: dict[str, list[int]], budget: Budget, *, jobs: int, on_run: Any, kept: Any
    ) -> dict[str, Any]:
        assert plan == {"text-splitter": [1, 2]} and budget.max_examples == 7 and kept is None
        on_run("text-splitter", fresh)
        return {"text-splitter": fresh}

    monkeypatch.setattr(conformance, "run_adapters", fake_run)
    argv = [
        "--only",
        "text-splitter",
        "--seeds",
        "2",
        "--max-examples",
        "7",
        "--evidence",
        str(path),
        "--doc",
        str(tmp_path / "page.md"),
    ]
    assert conformance.main(argv) == 0
    kept = conformance.load_evidence(path)
    assert kept["semchunk"] == old and len(kept["text-splitter"]["runs"]) == 2


def test_add_seeds_keeps_the_runs_and_numbers_the_new_seeds_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.json"
    conformance.save_evidence(path, {"semchunk": evidence(report({}), report({}))})
    seen: dict[str, Any] = {}

    def fake_run(
        plan: dict[str, list[int]], budget: Budget, *, jobs: int, on_run: Any, kept: Any
    ) -> dict[str, Any]:
        seen.update(plan=plan, kept=kept, budget=budget)
        return {}

    monkeypatch.setattr(conformance, "run_adapters", fake_run)
    argv = [
        "--only",
        "semchunk",
        "--add-seeds",
        "3",
        "--explore-more-seconds",
        "12",
        "--evidence",
        str(path),
        "--doc",
        str(tmp_path / "page.md"),
    ]
    assert conformance.main(argv) == 0
    assert seen["plan"] == {"semchunk": [3, 4, 5]}
    assert [r["seed"] for r in seen["kept"]["semchunk"]] == [1, 2]
    assert seen["budget"].explore_more_seconds == 12


def test_only_the_first_seed_of_a_fresh_run_plays_the_seed_independent_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, int, bool]] = []

    def fake_one(name: str, seed: int, budget: Budget, *, first: bool) -> dict[str, Any]:
        calls.append((name, seed, first))
        return seed_evidence(name, seed, budget, report({}), first=first)

    monkeypatch.setattr(conformance, "run_one", fake_one)
    monkeypatch.setattr(conformance, "ProcessPoolExecutor", _InlinePool)
    plan = {"semchunk": [1, 2], "text-splitter": [1, 2]}
    out = conformance.run_adapters(plan, Budget(5, 5.0), jobs=1)
    assert calls == [
        ("semchunk", 1, True),
        ("text-splitter", 1, True),
        ("semchunk", 2, False),
        ("text-splitter", 2, False),
    ]
    assert [r["first"] for r in out["semchunk"]["runs"]] == [True, False]
    calls.clear()
    conformance.run_adapters({"semchunk": [3]}, Budget(5, 5.0), jobs=1, kept={"semchunk": []})
    assert calls == [("semchunk", 3, False)]


class _InlinePool:
    """A stand-in for ProcessPoolExecutor that runs each call at once, in this process."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max_workers

    def __enter__(self) -> _InlinePool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from concurrent.futures import Future

        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_separated_surrogates_survive_the_evidence_file(tmp_path: Path) -> None:
    path = tmp_path / "evidence.json"
    ev = evidence(report({"non_empty": "chunk '\udbff' then '\udc00'"}))
    ev["runs"][0]["violations"]["non_empty"]["document"] = "x\udbff\udc00y"
    conformance.save_evidence(path, {"semchunk": ev})
    back = conformance.load_evidence(path)["semchunk"]["runs"][0]["violations"]["non_empty"]
    assert back["document"] == "x\udbff\udc00y" and len(back["document"]) == 4


# --------------------------------------------------------------------------- the committed page


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    """The committed evidence."""
    return conformance.load_evidence(EVIDENCE)


def test_the_committed_page_is_the_render_of_evidence_and_findings(
    committed: dict[str, Any],
) -> None:
    page, _ = conformance.render(committed, findings.load(), findings.notes())
    assert DOC.read_text("utf-8") == page, (
        "docs/conformance.md is out of date: "
        "python -m chunk_contract.integrations.adapters.conformance --render-only"
    )


def test_the_committed_evidence_and_findings_agree(committed: dict[str, Any]) -> None:
    _, problems = conformance.render(committed, findings.load(), findings.notes())
    assert problems == []


def test_every_adapter_has_evidence_on_five_seeds(committed: dict[str, Any]) -> None:
    from chunk_contract.integrations.adapters import ADAPTERS

    short = {a.name: len(committed.get(a.name, {}).get("runs", [])) for a in ADAPTERS}
    assert {name: n for name, n in short.items() if n < 5} == {}


def test_every_finding_matches_its_recorded_messages(committed: dict[str, Any]) -> None:
    for (name, rule), found in findings.load().items():
        for run in committed.get(name, {}).get("runs", []):
            seen = run["violations"].get(rule)
            if seen and not seen.get("follows_from"):  # a follower is its cause's finding's
                assert found.matches(seen["message"]), (name, rule, run["seed"])


def test_notes_render_under_their_adapter() -> None:
    notes = Notes({"semchunk": "seen by hand"}, ("- a contract note",))
    page, _ = conformance.render({"semchunk": evidence(report({}))}, {}, notes)
    assert "Note: seen by hand" in page and "- a contract note" in page
