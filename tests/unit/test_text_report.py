"""Reporter manners: colour only where wanted, plural-correct wording, the replayed label, -q."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from chunk_contract import SPEC_VERSION
from chunk_contract.engine.runner import Counterexample, Finished, InvariantResult, RunResult, run
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.markdown import render_markdown
from chunk_contract.reporting.matrix import render_matrix
from chunk_contract.reporting.text import Style, TextReport, colour_wanted, render
from chunk_contract.spec.model import Config, plural

ESC = "\x1b["
PLUGINS = Path(__file__).parent.parent / "cli" / "plugins.py"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _result(*, examples: int = 1, violated: bool = False, replayed: str | None = None) -> RunResult:
    found = Counterexample(
        "no_lost_text", "x a", Config(1, 0), ["document[0] 'x' lies in no chunk"], [],
        shrunk=True, replayed_from=replayed,
    )
    items = [
        InvariantResult("non_empty", "passed", examples),
        InvariantResult("heading_boundary", "skipped", 0, reason="not promised"),
        InvariantResult(
            "no_lost_text", "violated" if violated else "passed", examples,
            found if violated else None,
        ),
    ]
    return RunResult("plugins.py:split", "text", 7, examples, items, 0.5)


@pytest.mark.parametrize(
    ("env", "tty", "wanted"),
    [
        ({}, True, True),
        ({}, False, False),  # a pipe or a file
        ({"CI": "true"}, True, False),  # a CI log, even on a pseudo-terminal
        ({"TERM": "dumb"}, True, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "1", "CI": "true"}, False, True),
        ({"FORCE_COLOR": "0"}, False, False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),  # the opt-out wins
        ({"NO_COLOR": ""}, True, True),  # an empty NO_COLOR is unset
    ],
)
def test_colour_only_on_a_terminal_unless_told(
    env: dict[str, str], tty: bool, wanted: bool
) -> None:
    stream = _Tty() if tty else io.StringIO()
    assert colour_wanted(stream, env) is wanted


def test_colours_of_the_verdicts() -> None:
    style = Style(enabled=True)
    passed = render(_result(), style=style)
    assert f"{ESC}32;1mPASSED{ESC}0m" in passed and f"{ESC}32mpassed{ESC}0m" in passed
    skipped_row = next(line for line in passed.splitlines() if "heading_boundary" in line)
    assert skipped_row.startswith(f"{ESC}2m") and "not promised" in skipped_row
    failed = render(_result(violated=True), style=style)
    assert f"{ESC}31;1mFAILED{ESC}0m" in failed and f"{ESC}31mviolated{ESC}0m" in failed
    assert ESC not in render(_result(violated=True))  # plain by default


def test_text_report_follows_its_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "CI", "TERM"):
        monkeypatch.delenv(name, raising=False)
    pipe, tty = io.StringIO(), _Tty()
    TextReport(pipe)(Finished(_result()))
    TextReport(tty)(Finished(_result()))
    assert ESC not in pipe.getvalue() and ESC in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    quiet_tty = _Tty()
    TextReport(quiet_tty)(Finished(_result()))
    assert ESC not in quiet_tty.getvalue()


def test_plural() -> None:
    assert [plural(n, "example") for n in (0, 1, 2)] == ["0 examples", "1 example", "2 examples"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries").endswith(
        "entries"
    )


#: "1 examples", "1 invariants", "1 sheet(s)": a count of one with a plural noun.
_ONE_PLURAL = re.compile(r"(?<![\d.])1 [a-z-]+(?:s|\(s\))(?![a-z])")


def test_the_reports_say_1_example_not_1_examples() -> None:
    one = _result(examples=1, violated=True)
    texts = [render(one), render(_result(examples=1)), render_markdown([one]),
             render_matrix([_result(examples=1)])]
    for text in texts:
        assert not _ONE_PLURAL.search(text), _ONE_PLURAL.search(text)
    assert "1 example ·" in texts[1] and "no violation in 1 example " in texts[1]
    assert "2 examples" in render(_result(examples=2))
    assert "PASSED: 1 chunker," in texts[3]


def test_the_plural_check_can_fail() -> None:
    assert _ONE_PLURAL.search("1 examples · 3 invariants")
    assert _ONE_PLURAL.search("1 sheet(s)") and not _ONE_PLURAL.search("11 examples, 1 example")


def test_header_and_json_name_the_spec_version() -> None:
    title = render(_result()).splitlines()[0]
    assert title == f"chunk-contract · plugins.py:split (text) · seed 7 · spec {SPEC_VERSION}"
    assert report_json(_result())["spec"] == SPEC_VERSION == "1.1"


def test_quiet_prints_only_what_failed_and_the_verdict() -> None:
    loud, quiet = render(_result(violated=True)), render(_result(violated=True), quiet=True)
    assert "  non_empty" in loud and "heading_boundary" in loud
    assert "non_empty" not in quiet and "heading_boundary" not in quiet
    title = "chunk-contract · plugins.py:split (text) · seed 7 · spec 1.1"
    row = "  no_lost_text      violated"
    assert quiet.splitlines()[:5] == [
        title, "", row, "", "____ no_lost_text · plugins.py:split ____"
    ]
    assert "checked" not in quiet  # the second header line (counts) is left out too
    assert quiet.splitlines()[-1].startswith("FAILED: 1 of 2 invariants violated")
    assert render(_result(), quiet=True).splitlines() == [
        title, "", "PASSED: no violation in 1 example (repeat with --seed 7)"
    ]


def test_a_replayed_reproducer_is_labelled_so() -> None:
    text = render(_result(violated=True, replayed="repro/no_lost_text-1234.json"))
    assert "Failing input (replayed from repro/no_lost_text-1234.json, 3 codepoints):" in text
    assert "not shrunk" not in text
    assert "Failing input (shrunk, 3 codepoints):" in render(_result(violated=True))
    json_item = report_json(_result(violated=True, replayed="r.json"))["invariants"][2]
    assert json_item["counterexample"]["replayed_from"] == "r.json"


def test_a_run_that_replays_a_saved_failure_says_where_from(tmp_path: Path) -> None:
    """Run twice on a defective chunker: the second run replays the first one's reproducer
    before generating anything, and its report names that file instead of "not shrunk"."""
    from chunk_contract.config import profiles

    settings = profiles.build(
        profiles.get("ci"), max_examples=30, only=("no_lost_text",), reproducers=tmp_path
    )
    target = f"{PLUGINS}:words_only"
    first = run(target, settings).results
    saved = next(r for r in first if r.id == "no_lost_text").counterexample
    assert saved is not None and saved.replayed_from is None and saved.reproducer
    again = next(r for r in run(target, settings).results if r.id == "no_lost_text")
    assert again.counterexample is not None
    assert again.counterexample.document == saved.document
    assert again.counterexample.replayed_from == saved.reproducer
