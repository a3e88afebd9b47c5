"""Diagnoses (chunk_contract.diagnosis): each pattern is named on its own defect, confirmed by an
experiment, and never on a defect of another pattern or a correct chunker."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chunk_contract.diagnosis import Diagnosis, Probe, diagnose, pattern, patterns
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config, Violation
from chunk_contract.spec.registry import registry
from chunk_contract.transport.loading import load

HERE = Path(__file__).resolve().parent
DEFECTS_DIR = HERE.parent / "defects"


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_diagnosis_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


defects = _module(DEFECTS_DIR / "test_defects.py")
ours = _module(HERE / "defects.py")

#: Defect of tests/defects -> the patterns that may diagnose its findings (any other is wrong).
EXPECTED: dict[str, set[str]] = {
    "lines_from_find": {"offsets_from_find"},
    "byte_offsets_from_find": {"offsets_from_find"},
    # maps each chunk of a whitespace-collapsed copy back with document.find: a find() bug too
    "normalised_whitespace_offsets": {"offsets_from_find"},
    "lines_on_stripped_copy": {"lines_after_strip"},
    "overlap_on_top": {"overlap_on_top"},
    "children_overlap_on_top": {"overlap_on_top"},  # seed 002's bug inside a hierarchy
    "crlf_paragraphs": {"crlf_separator", "crlf_counted"},
    "lf_declared_not_normalised": {"crlf_not_normalised"},
    "crlf_heading_packed": {"crlf_not_normalised"},  # its heading regex fails on a CRLF line
    "chunk_text_no_progress": {"start_does_not_advance"},
    "chunk_text_heap_growth": {"start_does_not_advance"},
    "header_budget_negative": {"header_longer_than_cap"},
    "utf16_code_units": {"astral_split_into_surrogates"},
    "byte_offsets_as_chars": {"codepoints_as_byte_offsets"},
}
#: Invariant -> patterns right for any finding of it, whatever the defect: a pattern that
#: re-measures the finding itself describes it (every defect of the suite that rescans its
#: text from the start is quadratic too, so its scales_linearly finding is named, rightly).
BY_INVARIANT: dict[str, set[str]] = {"scales_linearly": {"superlinear_growth"}}


def acceptable(defect: str, invariant: str) -> set[str]:
    """The patterns that may diagnose ``defect``'s finding of ``invariant``."""
    return EXPECTED.get(defect, set()) | BY_INVARIANT.get(invariant, set())


#: Defects whose witness must be diagnosed (the pattern's own proof of red).
MUST: dict[str, str] = {
    "lines_from_find": "offsets_from_find",
    "byte_offsets_from_find": "offsets_from_find",
    "lines_on_stripped_copy": "lines_after_strip",
    "overlap_on_top": "overlap_on_top",
    "crlf_paragraphs": "crlf_separator",
    "lf_declared_not_normalised": "crlf_not_normalised",
    "chunk_text_no_progress": "start_does_not_advance",
    "header_budget_negative": "header_longer_than_cap",
    "utf16_code_units": "astral_split_into_surrogates",
    "byte_offsets_as_chars": "codepoints_as_byte_offsets",
}


def _diagnoses(target: str, calls: list[tuple[str, Config]], timeout: float) -> dict[str, Any]:
    """Each violated invariant of the last call -> its diagnosis (or None)."""
    with Session(load(target), timeout=timeout, memory_mb=256, selected=list(registry())) as s:
        seen = [s.observe(doc, config) for doc, config in calls][-1]
        out = {}
        for rule in sorted({v.invariant for v in seen.violations}):
            offending = sorted({i for v in seen.of(rule) for i in v.chunks})
            probe = Probe(rule, seen.document, seen.config, seen.records, offending, s,
                          timeout=timeout, unit=s.plugin.declarations.unit)
            out[rule] = diagnose(probe)
    return out


def _timeout(name: str) -> float:
    return 0.5 if name in defects.HANGS else 10.0


@pytest.mark.parametrize("name", sorted(n for n in defects.WITNESSES if n != "stale_cache"))
def test_defects_get_only_their_own_pattern(name: str) -> None:
    """A defect's findings get its own pattern or none: never another pattern's."""
    found = _diagnoses(defects.defect_target(name), defects.WITNESSES[name], _timeout(name))
    wrong = {rule: d.pattern for rule, d in found.items()
             if d is not None and d.pattern not in acceptable(name, rule)}
    assert not wrong, f"{name}: wrong diagnosis {wrong} in {found}"
    named = {d.pattern for d in found.values() if d is not None}
    if name in MUST:
        assert MUST[name] in named, f"{name}: expected {MUST[name]}, got {found}"


@pytest.mark.parametrize("name", sorted(ours.PATTERNS))
def test_new_defects_are_diagnosed(name: str) -> None:
    expected, rule, document, max_size, overlap = ours.PATTERNS[name]
    found = _diagnoses(f"{HERE / 'defects.py'}:{name}", [(document, Config(max_size, overlap))],
                       10.0)
    assert found.get(rule) is not None and found[rule].pattern == expected, found


def test_diagnosis_names_cause_fix_and_evidence() -> None:
    found = _diagnoses(defects.defect_target("overlap_on_top"),
                       defects.WITNESSES["overlap_on_top"], 10.0)["cap_respected"]
    assert isinstance(found, Diagnosis)
    assert found.as_dict().keys() == {"pattern", "cause", "fix", "evidence"}
    assert "max_size + overlap" in found.evidence and found.fix


# ----------------------------------------------------------------------------- the experiments


@dataclass
class _Seen:
    violations: list[Violation]
    records: list[dict[str, Any]] | None

    def of(self, rule: str) -> list[Violation]:
        return [v for v in self.violations if v.invariant == rule]


@dataclass
class FakeSession:
    """A plugin stand-in: ``answer(document, config)`` -> (invariants broken, records)."""

    answer: Callable[[str, Config], tuple[set[str], list[dict[str, Any]] | None]]
    calls: list[tuple[str, Config]] = field(default_factory=list)

    def observe(self, document: Any, config: Config, *, only: str | None = None,
                timeout: float | None = None) -> _Seen:
        self.calls.append((document, config))
        broken, records = self.answer(document, config)
        # As a real session: a hang or a crash is reported whatever rule was asked for.
        engine = ("terminates", "no_crash")
        return _Seen([Violation(r, "x") for r in broken if only in (None, r) or r in engine],
                     records)


def _probe(rule: str, document: str, config: Config, records: list[dict[str, Any]] | None,
           answer: Callable[[str, Config], tuple[set[str], Any]]) -> Probe:
    return Probe(rule, document, config, records, [], FakeSession(answer))


def test_overlap_on_top_needs_the_experiment_to_confirm() -> None:
    records = [{"text": "aaaa"}, {"text": "aabbbb"}]
    still = _probe("cap_respected", "aaaa bbbb", Config(4, 2), records,
                   lambda d, c: ({"cap_respected"}, records))
    assert diagnose(still) is None  # the cap still breaks with overlap 0: another bug
    gone = _probe("cap_respected", "aaaa bbbb", Config(4, 2), records,
                  lambda d, c: (set() if c.overlap == 0 else {"cap_respected"}, records))
    found = diagnose(gone)
    assert found is not None and found.pattern == "overlap_on_top"


@pytest.mark.parametrize("unanswered", ["terminates", "no_crash"])
def test_a_variation_the_plugin_did_not_answer_confirms_nothing(unanswered: str) -> None:
    """A variation that times out (a busy machine, the quick timeout) or crashes shows no
    violation of the rule asked for: it must not count as "the violation disappears"."""
    records = [{"text": "aaaa"}, {"text": "aabbbb"}]
    probe = _probe("cap_respected", "aaaa bbbb", Config(4, 2), records,
                   lambda d, c: ({unanswered} if c.overlap == 0 else {"cap_respected"}, None))
    assert diagnose(probe) is None


def test_a_variation_that_timed_out_is_asked_again_with_the_full_timeout() -> None:
    """Timed out under the quick timeout, answered under the full one: the experiment stands."""
    records = [{"text": "aaaa"}, {"text": "aabbbb"}]
    timeouts: list[float | None] = []

    class Slow(FakeSession):
        timeout = 2.0

        def observe(self, document: Any, config: Config, *, only: str | None = None,
                    timeout: float | None = None) -> _Seen:
            timeouts.append(timeout)
            return super().observe(document, config, only=only, timeout=timeout)

    def answer(d: str, c: Config) -> tuple[set[str], Any]:
        quick = timeouts[-1] != 2.0
        return ({"terminates"} if quick else set(), None) if c.overlap == 0 else (
            {"cap_respected"}, records)

    probe = Probe("cap_respected", "aaaa bbbb", Config(4, 2), records, [], Slow(answer),
                  timeout=0.1)
    found = diagnose(probe)
    assert found is not None and found.pattern == "overlap_on_top" and 2.0 in timeouts


def test_overlap_on_top_needs_a_chunk_of_exactly_cap_plus_overlap() -> None:
    records = [{"text": "aaaaa"}]  # 5 = neither 4 + 2 nor anything the pattern predicts
    probe = _probe("cap_respected", "aaaaa", Config(4, 2), records,
                   lambda d, c: (set() if c.overlap == 0 else {"cap_respected"}, records))
    assert diagnose(probe) is None


def test_find_needs_a_reported_place_and_a_repeated_text() -> None:
    bare = [{"text": "ab"}, {"text": "ab"}]
    probe = _probe("ordered", "ab ab", Config(2, 0), bare, lambda d, c: (set(), bare))
    assert diagnose(probe) is None  # bare strings: the contract placed them, not find()
    placed = [{"text": "ab", "start": 0, "end": 2}, {"text": "ab", "start": 0, "end": 2}]
    fixed = _probe("ordered", "ab ab", Config(2, 0), placed,
                   lambda d, c: (set() if d[0] != d[3] else {"ordered"}, placed))
    found = diagnose(fixed)
    assert found is not None and found.pattern == "offsets_from_find"
    any_change = _probe("ordered", "ab ab", Config(2, 0), placed,
                        lambda d, c: (set() if d != "ab ab" else {"ordered"}, placed))
    assert diagnose(any_change) is None  # gone on ANY other document: a cache, not find()
    kept = _probe("ordered", "ab ab", Config(2, 0), placed, lambda d, c: ({"ordered"}, placed))
    assert diagnose(kept) is None  # still broken with unique copies: not find()


def test_strip_needs_line_numbers_that_ignore_a_new_leading_line() -> None:
    records = [{"text": "abc", "line_start": 1, "line_end": 1}]

    def moving(document: str, config: Config) -> tuple[set[str], Any]:
        shift = len(document) - len(document.lstrip("\n"))
        return {"line_citations"}, [{"text": "abc", "line_start": 1 + shift, "line_end": 1}]

    assert diagnose(_probe("line_citations", "\n\nabc", Config(9, 0), records, moving)) is None

    def frozen(document: str, config: Config) -> tuple[set[str], Any]:
        return ({"line_citations"} if document.startswith("\n") else set()), records

    found = diagnose(_probe("line_citations", "\n\nabc", Config(9, 0), records, frozen))
    assert found is not None and found.pattern == "lines_after_strip"


def test_a_hang_that_does_not_come_back_is_not_diagnosed() -> None:
    calls: list[int] = []

    def once(document: str, config: Config) -> tuple[set[str], Any]:
        calls.append(1)
        return set(), [{"text": "a"}]  # the hang seen once does not happen again

    probe = _probe("terminates", "a b", Config(2, 1), None, once)
    assert diagnose(probe) is None and calls


def test_a_lone_surrogate_the_document_holds_is_no_cut() -> None:
    records = [{"text": "\udc00b"}]
    probe = _probe("codepoint_integrity", "\U0001f680 \udc00b", Config(2, 0), records,
                   lambda d, c: (set(), records))
    assert diagnose(probe) is None


def test_no_pattern_for_an_invariant_it_does_not_explain() -> None:
    records = [{"text": "aaaaaa"}]
    probe = _probe("unique_ids", "aaaa bbbb", Config(4, 2), records, lambda d, c: (set(), records))
    assert diagnose(probe) is None


def test_a_pattern_id_is_registered_once() -> None:
    first = next(iter(patterns()))
    with pytest.raises(ValueError, match="twice"):
        pattern(first, invariants=("ordered",), cause="c", fix="f")(lambda probe: None)


def test_reports_show_the_diagnosis(tmp_path: Path) -> None:
    """Text (and so pytest failures and markdown), JSON and SARIF carry the diagnosis.

    The search is not under test here: the counterexample is the defect's witness, diagnosed
    by the experiment itself, so no report depends on what a shrink under load ended on.
    """
    from chunk_contract.engine.results import Counterexample, InvariantResult, RunResult
    from chunk_contract.reporting.json_report import report_json
    from chunk_contract.reporting.sarif import sarif_log
    from chunk_contract.reporting.text import render

    target = defects.defect_target("overlap_on_top")
    document, config = defects.WITNESSES["overlap_on_top"][-1]
    diagnosis = _diagnoses(target, defects.WITNESSES["overlap_on_top"], 10.0)["cap_respected"]
    assert diagnosis is not None and diagnosis.pattern == "overlap_on_top"
    found = Counterexample("cap_respected", document, config, ["chunk[1] is 6 > max_size 4"],
                           None, shrunk=True, diagnosis=diagnosis)
    result = RunResult(target, "text", 1, 1, [InvariantResult("cap_respected", "violated", 1,
                                                              found)])
    assert "Diagnosis (overlap_on_top):" in render(result)
    entry = next(r for r in report_json(result)["invariants"] if r["id"] == "cap_respected")
    assert entry["counterexample"]["diagnosis"]["pattern"] == "overlap_on_top"
    sarif = sarif_log([result], root=tmp_path)
    assert "Diagnosis (overlap_on_top)" in sarif["runs"][0]["results"][0]["message"]["text"]


def test_the_runner_diagnoses_every_counterexample(monkeypatch: pytest.MonkeyPatch) -> None:
    """run() asks for a diagnosis of each shrunk counterexample and stores what it gets."""
    from chunk_contract.engine import runner
    from chunk_contract.engine.runner import RunSettings, run

    asked: list[str] = []
    marker = Diagnosis("marker", "a cause", "a fix", "the evidence")

    def fake(probe: Probe) -> Diagnosis:
        asked.append(probe.invariant)
        return marker

    monkeypatch.setattr(runner, "diagnose", fake)
    settings = RunSettings(max_examples=10, seed=1, reproducers=None, only=("cap_respected",))
    result = run(defects.defect_target("overlap_on_top"), settings)
    assert asked == ["cap_respected"]
    assert result.violated[0].counterexample.diagnosis is marker


def test_diagnosis_can_be_switched_off() -> None:
    from chunk_contract.engine.runner import RunSettings, run

    settings = RunSettings(max_examples=10, seed=1, reproducers=None, only=("cap_respected",),
                           diagnose=False)
    result = run(defects.defect_target("overlap_on_top"), settings)
    assert result.violated and result.violated[0].counterexample.diagnosis is None


def test_a_document_of_no_scaling_family_gets_no_growth_diagnosis() -> None:
    probe = _probe("scales_linearly", "not a family", Config(200, 20), None,
                   lambda d, c: (set(), None))
    assert diagnose(probe) is None


@pytest.mark.slow
@pytest.mark.parametrize(("name", "family"), [("rescans_paragraphs", "paragraphs")])
def test_superlinear_growth_is_measured_again_and_named(name: str, family: str) -> None:
    from chunk_contract.engine import scaling

    target = f"{HERE.parent / 'scale' / 'scaling_chunkers.py'}:{name}"
    document = scaling.FAMILIES[family](scaling.SIZES[0])
    with Session(load(target), timeout=2.0, memory_mb=1024, selected=list(registry())) as s:
        probe = Probe("scales_linearly", document, scaling.CONFIG, None, [], s, timeout=2.0)
        found = diagnose(probe)
    assert found is not None and found.pattern == "superlinear_growth", found
    assert found.evidence.startswith(f"{family}, measured again")


@pytest.mark.slow
def test_a_linear_chunker_gets_no_growth_diagnosis() -> None:
    from chunk_contract.engine import scaling

    document = scaling.FAMILIES["paragraphs"](scaling.SIZES[0])
    target = str(HERE.parents[1] / "chunk_contract_reference" / "fixed.py") + ":split"
    with Session(load(target), timeout=2.0, memory_mb=1024, selected=list(registry())) as s:
        probe = Probe("scales_linearly", document, scaling.CONFIG, None, [], s, timeout=2.0)
        assert diagnose(probe) is None


# --------------------------------------------------------------------- grapheme clusters


def test_a_cluster_over_the_cap_is_named_when_cutting_clusters_down_fixes_it() -> None:
    records = [{"text": "a"}, {"text": "\U0001f44d\U0001f3fd"}]
    probe = _probe("cap_respected", "a\U0001f44d\U0001f3fd", Config(1, 0), records,
                   lambda d, c: ({"cap_respected"} if "\U0001f44d\U0001f3fd" in d else set(),
                                 records))
    found = diagnose(probe)
    assert found is not None and found.pattern == "grapheme_cluster_kept_whole"
    assert "grapheme_integrity" in found.fix


def test_a_cluster_is_not_named_when_the_cap_still_breaks_without_it() -> None:
    records = [{"text": "\U0001f44d\U0001f3fd"}]
    probe = _probe("cap_respected", "\U0001f44d\U0001f3fd", Config(1, 0), records,
                   lambda d, c: ({"cap_respected"}, records))
    assert diagnose(probe) is None


def test_two_clusters_in_one_chunk_are_no_cluster_kept_whole() -> None:
    records = [{"text": "\U0001f44d\U0001f44d"}]
    probe = _probe("cap_respected", "\U0001f44d\U0001f44d", Config(1, 0), records,
                   lambda d, c: (set(), records))
    found = diagnose(probe)
    assert found is None or found.pattern != "grapheme_cluster_kept_whole"


def test_a_chunker_keeping_clusters_whole_is_told_to_declare_it() -> None:
    target = f"{Path(__file__).parent / 'grapheme_whole.py'}:split"
    found = _diagnoses(target, [("ab\U0001f44d\U0001f3fd", Config(1, 0))], timeout=10.0)
    assert found["cap_respected"] is not None
    assert found["cap_respected"].pattern == "grapheme_cluster_kept_whole"


# --------------------------------------------------------------------- controls of real libraries


def _confirms(name: str, probe: Probe) -> bool:
    """Whether the pattern ``name`` alone confirms itself on ``probe``."""
    return patterns()[name].confirm(probe) is not None


def test_overlap_on_top_needs_a_chunk_that_repeats_its_predecessor() -> None:
    """A chunk of max_size + overlap that repeats nothing has no overlap on top of it: a merge
    of windows that also spans the whitespace between them (semchunk) is over the cap only
    with an overlap, but not by adding one."""
    def gone_without_overlap(d: str, c: Config) -> tuple[set[str], Any]:
        return (set() if c.overlap == 0 else {"cap_respected"}), None

    alone = [{"text": "x a"}]
    assert not _confirms("overlap_on_top", _probe("cap_respected", "x a", Config(2, 1), alone,
                                                  gone_without_overlap))
    fresh = [{"text": "ab"}, {"text": "cde"}]
    assert not _confirms("overlap_on_top", _probe("cap_respected", "ab cde", Config(2, 1),
                                                  fresh, gone_without_overlap))
    repeated = [{"text": "ab"}, {"text": "bcd"}]
    assert _confirms("overlap_on_top", _probe("cap_respected", "abcd", Config(2, 1), repeated,
                                              gone_without_overlap))
    # the overlap repeated only a space, which the earlier chunk lost to strip(): unknown
    spaced = [{"text": "x"}, {"text": " aa"}]
    assert _confirms("overlap_on_top", _probe("cap_respected", "x aa", Config(2, 1), spaced,
                                              gone_without_overlap))


def test_a_cluster_is_not_named_when_the_unit_is_miscounted() -> None:
    """'e' + U+0301 is 2 characters and 3 bytes: a chunker that measures characters where it
    declares bytes breaks the cap on it, and cutting it to 'e' fixes that, but so it does on
    'e' + U+00DF (two clusters, the same sizes), which a cluster-keeping chunker would cut."""
    records = [{"text": "e\u0301"}]

    def bytes_over(d: str, c: Config) -> tuple[set[str], Any]:
        return ({"cap_respected"} if len(d) <= c.max_size < len(d.encode()) else set()), records

    probe = _probe("cap_respected", "e\u0301", Config(2, 0), records, bytes_over)
    probe.unit = "bytes"
    assert not _confirms("grapheme_cluster_kept_whole", probe)


def _first_line(document: str) -> list[str]:
    return document.split("\n", 1)[0].split()


def test_header_longer_than_cap_needs_the_cap_to_be_the_cause() -> None:
    """A chunker that breaks on any first line of several words (a code splitter refusing a
    line that is not code), or on a first line that repeats a word (offsets found with
    str.find), breaks on the long header whatever the cap: not the header's budget."""
    records = [{"text": "t1\nt2\nt3\nbody", "start": 0, "end": 14}]

    def rejects(answer: Callable[[str, Config], bool]) -> bool:
        probe = _probe("ordered", "t1\nt2\nt3\nbody", Config(4, 0), records,
                       lambda d, c: ({"ordered"} if answer(d, c) else set(), records))
        return _confirms("header_longer_than_cap", probe)

    assert not rejects(lambda d, c: len(_first_line(d)) > 1)
    assert not rejects(lambda d, c: len(set(_first_line(d))) < len(_first_line(d)))
    assert rejects(lambda d, c: len(d.split("2024\n")[0]) + 5 > c.max_size)


def test_find_needs_offsets_the_rule_judges() -> None:
    """A chunk that reports its lines but no offsets is placed in the text by the contract:
    a no_lost_text finding there is not the chunker's find() (the lines rule still is)."""
    lines_only = [{"text": "ab", "line_start": 1, "line_end": 1},
                  {"text": "ab", "line_start": 1, "line_end": 1}]

    def probe(rule: str) -> Probe:
        return _probe(rule, "ab\nab", Config(2, 0), lines_only,
                      lambda d, c: (set() if d[0] != d[3] else {rule}, lines_only))

    assert not _confirms("offsets_from_find", probe("no_lost_text"))
    assert _confirms("offsets_from_find", probe("line_citations"))


def test_crlf_not_normalised_needs_the_cr_itself_not_whitespace() -> None:
    """A splitter that cuts at spaces, else character by character, and strips each piece
    (LangChain's LaTeX splitter): on a text without spaces, a run of whitespace around a line
    end is stripped out of a window, and the overlap then puts one chunk inside another. The
    '\\r' of a CRLF does that, and so does a tab; a space does not (a cut goes there), so the
    space copy alone passing proves nothing about the CRLF."""
    document = "ff\r\n\r\n\\b"
    records = [{"text": "ff", "start": 0, "end": 2}, {"text": "\\", "start": 6, "end": 7},
               {"text": "\\b", "start": 6, "end": 8}]

    def strands_whitespace(d: str, c: Config) -> tuple[set[str], Any]:
        stranded = " " not in d and any(blank in d for blank in "\r\t")
        return ({"ordered"} if stranded else set()), records

    probe = _probe("ordered", document, Config(4, 1), records, strands_whitespace)
    assert not _confirms("crlf_not_normalised", probe)
    # a chunker that breaks on the '\r' itself is still named
    probe = _probe("ordered", document, Config(4, 1), records,
                   lambda d, c: ({"ordered"} if "\r" in d else set(), records))
    assert _confirms("crlf_not_normalised", probe)


def test_fence_lookalike_needs_the_look_not_the_line() -> None:
    """A splitter that knows only headings with text ('# x'; LlamaIndex's markdown parser)
    packs an empty '#' with the line before it, whatever that line is. Without the line the
    heading starts its chunk, but with the line kept as plain text (no backtick) the violation
    stays: the line's look is not the cause."""
    document = "```a`\n#"
    records = [{"text": document, "start": 0, "end": 7}]

    def packs_empty_heading(d: str, c: Config) -> tuple[set[str], Any]:
        return ({"heading_boundary"} if "\n#" in d else set()), records

    probe = _probe("heading_boundary", document, Config(1, 0), records, packs_empty_heading)
    assert not _confirms("fence_lookalike", probe)
    # a chunker that hides the heading behind the backticks is still named
    probe = _probe("heading_boundary", document, Config(1, 0), records,
                   lambda d, c: ({"heading_boundary"} if "```" in d else set(), records))
    assert _confirms("fence_lookalike", probe)
