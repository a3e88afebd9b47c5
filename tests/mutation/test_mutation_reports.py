"""Fast tests of chunk_contract.integrations.mutation: reading mutmut's results, triage, the three
reports, and the kill-test plumbing. No mutmut run here (``nox -s mutation`` does that); a small
fake ``mutants/`` folder in mutmut 3.8's layout stands in for one."""

from __future__ import annotations

import json
import os
import textwrap
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from chunk_contract.integrations.mutation import config, reports, results, running, suite, triage

HERE = Path(__file__).parent
SCHEMA = HERE / "mutation-testing-report-schema.json"

SOURCE = textwrap.dedent('''\
    """A toy chunker."""

    import re


    def windows(text, size):
        """Cut points."""
        out = []
        for i in range(0, len(text), size):
            out.append((i, i + size))
        return out


    class Chunker:
        unit = "chars"

        def split(self, text, *, max_size, overlap=0):
            return [text[a:b] for a, b in windows(text, max_size) if text[a:b].strip()]
''')

#: mutmut's generated file: for each function, its original copy and its mutants.
GENERATED = textwrap.dedent('''\
    """A toy chunker."""

    import re


    def windows(text, size):
        return x_windows__mutmut_orig(text, size)


    def x_windows__mutmut_orig(text, size):
        """Cut points."""
        out = []
        for i in range(0, len(text), size):
            out.append((i, i + size))
        return out


    def x_windows__mutmut_1(text, size):
        """Cut points."""
        out = None
        for i in range(0, len(text), size):
            out.append((i, i + size))
        return out


    def x_windows__mutmut_2(text, size):
        """Cut points."""
        out = []
        for i in range(1, len(text), size):
            out.append((i, i + size))
        return out


    def x_windows__mutmut_3(text, size):
        """Cut points."""
        out = []
        for i in range(0, len(text), size):
            out.append((i, i - size))
        return out


    class Chunker:
        unit = "chars"

        def split(self, text, *, max_size, overlap=0):
            return []

        def xǁChunkerǁsplit__mutmut_orig(self, text, *, max_size, overlap=0):
            return [text[a:b] for a, b in windows(text, max_size) if text[a:b].strip()]

        def xǁChunkerǁsplit__mutmut_1(self, text, *, max_size, overlap=1):
            return [text[a:b] for a, b in windows(text, max_size) if text[a:b].strip()]

        def xǁChunkerǁsplit__mutmut_2(self, text, *, max_size, overlap=0):
            return [text[a:b] for a, b in windows(text, max_size) if text[a:b].lower()]
''')

CODES = {
    "toy.chunker.x_windows__mutmut_1": 1,
    "toy.chunker.x_windows__mutmut_2": 0,
    "toy.chunker.x_windows__mutmut_3": -24,
    "toy.chunker.xǁChunkerǁsplit__mutmut_1": 0,
    "toy.chunker.xǁChunkerǁsplit__mutmut_2": 33,
}


@pytest.fixture(autouse=True)
def _restore_hypothesis(monkeypatch: pytest.MonkeyPatch) -> None:
    """suite.check() patches Hypothesis's constant pool process-wide (right under mutmut);
    undo it here so the rest of the test session generates as usual."""
    from hypothesis.internal.conjecture import providers

    monkeypatch.setattr(providers, "_get_local_constants", providers._get_local_constants)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "chunker.py").write_text(SOURCE, "utf-8")
    mutants = tmp_path / "mutants" / "toy"
    mutants.mkdir(parents=True)
    (mutants / "chunker.py").write_text(GENERATED, "utf-8")
    (mutants / "chunker.py.meta").write_text(json.dumps({
        "exit_code_by_key": CODES, "hash_by_function_name": {}, "type_check_error_by_key": {},
        "durations_by_key": {"toy.chunker.x_windows__mutmut_1": 0.5},
        "estimated_durations_by_key": {},
    }), "utf-8")
    kills = tmp_path / "mutants" / config.KILLS_DIR
    kills.mkdir()
    (kills / "toy.chunker.x_windows__mutmut_1.json").write_text(json.dumps(
        {"target": "toy.chunker:Chunker", "invariant": "no_crash", "message": "raised"}))
    return tmp_path


def _by_number(data: results.RunData) -> dict[str, results.Mutant]:
    return {m.name.rpartition(".")[2]: m for m in data.mutants}


def test_results_map_statuses_and_locate_each_change(project: Path) -> None:
    data = results.load(project)
    assert list(data.files) == ["toy/chunker.py"]
    found = _by_number(data)
    assert {k: m.status for k, m in found.items()} == {
        "x_windows__mutmut_1": "Killed", "x_windows__mutmut_2": "Survived",
        "x_windows__mutmut_3": "Timeout", "xǁChunkerǁsplit__mutmut_1": "Survived",
        "xǁChunkerǁsplit__mutmut_2": "NoCoverage",
    }
    two = found["x_windows__mutmut_2"]
    assert (two.function, two.original, two.replacement) == ("windows", "0", "1")
    line = SOURCE.splitlines().index("    for i in range(0, len(text), size):") + 1
    column = SOURCE.splitlines()[line - 1].index("0") + 1
    assert (two.start, two.end) == (results.Position(line, column),
                                    results.Position(line, column + 1))
    assert two.line_before == "for i in range(0, len(text), size):"
    assert two.line_after == "for i in range(1, len(text), size):"
    assert f"@@ -{line - 2}," in two.diff and "+    for i in range(1, len(text), size):" in two.diff
    assert two.mutator == "NumberLiteral"
    method = found["xǁChunkerǁsplit__mutmut_2"]
    assert method.function == "Chunker.split" and method.change == "strip -> lower"
    assert found["x_windows__mutmut_1"].change == "[] -> None"
    assert found["x_windows__mutmut_1"].killed_by == "no_crash"
    assert found["x_windows__mutmut_1"].duration == 0.5
    assert found["x_windows__mutmut_3"].mutator == "ArithmeticOperator"


def test_score_counts_timeouts_as_detected(project: Path) -> None:
    data = results.load(project)
    assert data.counts()["Killed"] == 1 and data.counts()["Timeout"] == 1
    assert data.score() == pytest.approx(100 * 2 / 5)
    assert [m.function for m in data.survivors()] == ["windows", "Chunker.split",
                                                     "Chunker.split"]


@pytest.mark.parametrize(("before", "after", "name"), [
    ("+", "-", "ArithmeticOperator"), ("<", "<=", "EqualityOperator"),
    ("and", "or", "LogicalOperator"), ('"a"', '"XXaXX"', "StringLiteral"),
    ("x", "None", "ReplaceWithNone"), ("+=", "=", "AssignmentOperator"),
    ("break", "return", "Keyword"), ("1", "2", "NumberLiteral"),
    ('"a", "b"', '"b"', "ArgumentRemoval"),
])
def test_classify(before: str, after: str, name: str) -> None:
    assert results.classify(before, after) == name


def _triage_file(tmp_path: Path, project: Path, verdict: str = "equivalent") -> Path:
    data = results.load(project)
    survivor = _by_number(data)["x_windows__mutmut_2"]
    path = tmp_path / "triage.toml"
    path.write_text(triage.entry_toml(survivor, verdict=verdict, reason="the first window "
                                      "starts at a space in every document"), "utf-8")
    return path


def test_triage_matches_by_lines_not_by_number(tmp_path: Path, project: Path) -> None:
    found = triage.load(_triage_file(tmp_path, project))
    data = results.load(project)
    by = _by_number(data)
    assert found.find(by["x_windows__mutmut_2"]) is not None
    assert found.find(by["xǁChunkerǁsplit__mutmut_1"]) is None
    renumbered = results.Mutant(**{**by["x_windows__mutmut_2"].__dict__,
                                   "name": "toy.chunker.x_windows__mutmut_9"})
    assert found.find(renumbered) is not None
    assert found.stale([]) == found.entries


def test_entry_toml_round_trips_awkward_lines() -> None:
    mutant = results.Mutant(
        "m.x_f__mutmut_1", "m.py", "f", "Survived", "survived", results.Position(1, 1),
        results.Position(1, 2), "'a'", '"b"', "x = 'a' + \"\\n\"", 'x = "b" + "\\n"\ny = 1',
        "", "StringLiteral")
    parsed = tomllib.loads(triage.entry_toml(mutant, reason="r"))["survivor"][0]
    assert parsed["before"] == mutant.line_before and parsed["after"] == mutant.line_after


def test_triage_rejects_missing_reason_and_unknown_verdict(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[[survivor]]\nfile="a"\nfunction="f"\nbefore="x"\nafter="y"\n'
                    'verdict="equivalent"\nreason="TODO"\n')
    with pytest.raises(triage.TriageError, match="needs a reason"):
        triage.load(path)
    path.write_text('[[survivor]]\nfile="a"\nfunction="f"\nbefore="x"\nafter="y"\n'
                    'verdict="fine"\nreason="r"\n')
    with pytest.raises(triage.TriageError, match="verdict"):
        triage.load(path)
    assert triage.load(tmp_path / "missing.toml").entries == []


def _report(project: Path, tmp_path: Path, **kw: object) -> reports.Report:
    return reports.Report(results.load(project), triage.load(_triage_file(tmp_path, project)),
                          title="toy/", **kw)  # type: ignore[arg-type]


def test_stryker_json_validates_against_the_schema(tmp_path: Path, project: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = reports.stryker(_report(project, tmp_path, config={"budget": {"max_examples": 3}}))
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text("utf-8"))).validate(data)
    assert data["schemaVersion"] == "2"
    mutants = {m["id"]: m for m in data["files"]["toy/chunker.py"]["mutants"]}
    assert mutants["toy.chunker.x_windows__mutmut_2"]["statusReason"].startswith("equivalent:")
    assert mutants["toy.chunker.x_windows__mutmut_2"]["status"] == "Ignored"
    assert mutants["toy.chunker.xǁChunkerǁsplit__mutmut_1"]["status"] == "Survived"
    assert "not triaged" in mutants["toy.chunker.xǁChunkerǁsplit__mutmut_1"]["statusReason"]
    killed = mutants["toy.chunker.x_windows__mutmut_1"]
    assert killed["statusReason"] == "killed by no_crash: raised"


def test_a_broken_report_fails_the_schema(tmp_path: Path, project: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = reports.stryker(_report(project, tmp_path))
    data["files"]["toy/chunker.py"]["mutants"][0]["status"] = "Dead"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(json.loads(SCHEMA.read_text("utf-8"))).validate(data)


def test_html_is_self_contained_and_shows_the_survivors(tmp_path: Path, project: Path) -> None:
    page = reports.html_page(_report(project, tmp_path))
    assert "Mutation score 50.0%" in page
    assert "raw score, every survivor counted: 40.0%" in page
    assert "for i in range(1, len(text), size):" in page  # a survivor's diff
    assert "not triaged" in page and "[[survivor]]" in page
    assert "mutation-test-report-app" in page and "customElements" in page  # the viewer, inline
    assert "http://" not in page.replace("http://www.w3.org", "")
    assert "src=\"http" not in page and "<link" not in page
    script = page.rsplit("<script>", 1)[1]
    assert "</script" not in script.split("</script>")[0]


def test_markdown_summary(tmp_path: Path, project: Path) -> None:
    text = reports.markdown(_report(project, tmp_path, fail_under=90.0))
    assert "**Mutation score 50.0%** ❌" in text  # the equivalent survivor is left out
    assert "| `toy/chunker.py` | 5 | 1 | 1 | 1 | 1 | 1 | 50.0% | 40.0% |" in text
    assert "2 survivor(s) not triaged" in text and "```diff" in text
    assert "Kills by invariant: `no_crash` 1" in text


def test_the_gate(tmp_path: Path, project: Path) -> None:
    assert not _report(project, tmp_path).passed  # two untriaged survivors
    assert _report(project, tmp_path, require_triage=False).passed
    assert _report(project, tmp_path, require_triage=False, fail_under=50.0).passed
    assert not _report(project, tmp_path, require_triage=False, fail_under=60.0).passed


def test_write_puts_three_files(tmp_path: Path, project: Path) -> None:
    paths = reports.write(_report(project, tmp_path), tmp_path / "out")
    assert sorted(p.name for p in paths.values()) == ["mutation.html", "mutation.json",
                                                      "mutation.md"]
    assert oct(paths["json"].stat().st_mode & 0o777) != oct(0o600)


# ----------------------------------------------------------------------------- plumbing


def test_mutmut_table_is_valid_toml() -> None:
    table = tomllib.loads(config.REFERENCE_MUTMUT.toml())["tool"]["mutmut"]
    assert table["source_paths"] == ["chunk_contract_reference/"]
    assert table["pytest_add_cli_args_test_selection"] == [config.KILL_TESTS]
    assert "chunk_contract/" in table["also_copy"] and table["timeout_multiplier"] == 3.0


def test_kill_tests_are_collected_only_under_mutmut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config.MUTANT_ENV, raising=False)
    assert suite.collect_ignore(str(HERE / "conftest.py"))[0].endswith("test_contract_kills.py")
    assert config.mutant_phase() is None
    monkeypatch.setenv(config.MUTANT_ENV, "stats")
    assert suite.collect_ignore(str(HERE / "conftest.py")) == []
    assert config.mutant_phase() == "stats"
    monkeypatch.setenv(config.MUTANT_ENV, "chunk_contract_reference.fixed.x_cuts__mutmut_3")
    assert config.mutant_phase() == "mutant"


def test_budget_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(config.EXAMPLES_ENV, "7")
    assert config.budget().max_examples == 7
    monkeypatch.setenv(config.EXAMPLES_ENV, "x")
    assert config.budget() == config.DEFAULT_BUDGET
    settings = config.DEFAULT_BUDGET.run_settings(skip=("no_lost_text",))
    assert settings.skip == ("scales_linearly", "no_lost_text")
    assert settings.reproducers is None and settings.database is None


def test_listener_stops_only_on_a_new_violation() -> None:
    from chunk_contract.engine.runner import Progress, Shrinking

    listen = suite._stop_on_new_violation(frozenset({"no_lost_text"}))
    listen(Progress(3, 60, ("no_lost_text",)))
    listen(Shrinking("no_lost_text"))
    with pytest.raises(suite._Stop) as caught:
        listen(Progress(6, 60, ("no_lost_text", "cap_respected")))
    assert caught.value.invariant == "cap_respected" and caught.value.examples == 6
    assert not isinstance(caught.value, Exception)  # Hypothesis must not catch it
    with pytest.raises(suite._Stop):
        listen(Shrinking("ordered"))


def test_kill_test_catches_a_defect_and_passes_a_correct_chunker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config.MUTANT_ENV, raising=False)
    small = config.Budget(max_examples=12, max_length=80)
    suite.kill_test("chunk_contract_reference.fixed:split", budget=small)()
    with pytest.raises(suite.MutantDetected, match="no_lost_text"):
        suite.check("tests.mutation.defective:drops_tail", budget=small)
    # an expected violation does not kill; the chunker keeps everything else
    suite.check("tests.mutation.defective:drops_tail", frozenset({"no_lost_text"}), small)


def test_generated_kill_module_compiles(tmp_path: Path) -> None:
    target = running._resolve("tests/mutation/defective.py:drops_tail")
    assert target.display == "tests/mutation/defective.py"
    assert target.scratch_target == "chunker_under_test.defective:drops_tail"
    code = running._kill_module([target], {target.spec: ["no_lost_text"]},
                                config.DEFAULT_BUDGET)
    compile(code, "test_contract_kills.py", "exec")
    assert "expect_violated=['no_lost_text']" in code


def test_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    assert running.main(["no/such/file.py:split"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert running.main(["--max-children", "0"]) == 2
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname='x'\n")
    assert running.main([]) == 2
    assert "[tool.mutmut]" in capsys.readouterr().err


def test_report_only_rebuilds_the_reports(tmp_path: Path, project: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    (project / "pyproject.toml").write_text(
        config.MutmutSettings(source_paths=("toy/",), tests=(config.KILL_TESTS,)).toml())
    out = tmp_path / "reports"
    code = running.main(["--report-only", "--report-dir", str(out),
                         "--baseline", str(_triage_file(tmp_path, project))])
    assert code == 1  # untriaged survivors, score under 90
    assert json.loads((out / "mutation.json").read_text())["schemaVersion"] == "2"
    assert os.path.getsize(out / "mutation.html") > 100_000  # the viewer is inline


def test_triaged_survivors_are_not_rerun(tmp_path: Path, project: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = _triage_file(tmp_path, project)
    monkeypatch.chdir(project / "mutants")  # where mutmut runs the tests
    monkeypatch.setenv(config.TRIAGE_ENV, json.dumps({"file": str(path), "display": {}}))
    assert suite._read_triaged() == {"toy.chunker.x_windows__mutmut_2"}
    monkeypatch.setenv(config.MUTANT_ENV, "toy.chunker.x_windows__mutmut_2")
    monkeypatch.setattr(suite, "_TRIAGED", None)
    monkeypatch.setattr(suite, "_require_mutated_copy", lambda target: None)
    suite.check("chunk_contract_reference.fixed:split")  # returns at once: no contract run
    note = json.loads((Path(config.KILLS_DIR) / "toy.chunker.x_windows__mutmut_2.json")
                      .read_text())
    assert note["skipped"] == "triaged"
    report = _report(project, tmp_path)
    mutant = _by_number(report.data)["x_windows__mutmut_2"]
    assert not mutant.rerun and "not re-run" in reports._status_reason(report, mutant)
    assert "were not re-run" in reports.markdown(report)


def test_the_mutated_copy_is_required_under_mutmut(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    import chunk_contract_reference.fixed  # noqa: F401 - imported from the repository

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="not from mutmut's copy"):
        suite._require_mutated_copy("chunk_contract_reference.fixed:split")


def test_explain_helpers() -> None:
    from chunk_contract.integrations.mutation import explain

    stats = {"tests_by_mangled_function_name": {"m.x_f": ["t::a", "t::b", "t::gone"]}}
    assert explain.targets_of("m.x_f__mutmut_3", stats, {"t::a": "m:f", "t::b": "m:g"}) == [
        "m:f", "m:g"]
    one = [{"text": "ab", "start": 0, "end": 2, "bare": False}]
    two = [{"text": "a", "start": 0, "end": 1, "bare": False},
           {"text": "b", "start": 1, "end": 2, "bare": False}]
    assert explain._difference(("chunks", one), ("chunks", two)) == (
        "chunk[0] differs (text: 'ab' -> 'a', end: 2 -> 1)")
    assert explain._difference(("chunks", two[:1]), ("chunks", two)).startswith(
        "1 chunks -> 2 chunks")
    assert explain._difference(("raised", "ValueError"), ("chunks", [])) == (
        "original: raised ValueError; mutant: 0 chunks")


def test_evidence_shapes_the_suggested_entry(tmp_path: Path, project: Path) -> None:
    report = _report(project, tmp_path)
    survivor = _by_number(report.data)["xǁChunkerǁsplit__mutmut_1"]
    same = replace(survivor, evidence={"cases": 200, "targets": ["toy:split"]})
    assert "probably equivalent" in reports.evidence_text(same.evidence or {})
    assert "verdict = 'equivalent'" in reports.suggested_entry(report, same)
    differs = replace(survivor, evidence={"cases": 3, "target": "toy:split", "document": "ab",
                                          "config": [1, 0], "difference": "chunk[0] differs"})
    assert "verdict = 'allowed'" in reports.suggested_entry(report, differs)
    assert "'ab' (max_size=1, overlap=0): chunk[0] differs" in reports.evidence_text(
        differs.evidence or {})


def test_triage_survives_reformatting() -> None:
    entry = triage.Entry("m.py", "f", "x = a[b:c]", "x = a[b:c + 1]", "equivalent", "r")
    mutant = results.Mutant(
        "m.x_f__mutmut_1", "m.py", "f", "Survived", "survived", results.Position(1, 1),
        results.Position(1, 2), "", "", "x = a[b : c]", "x = a[b : c + 1]", "", "Other")
    assert entry.matches(mutant)


def test_generation_does_not_depend_on_imported_modules() -> None:
    from hypothesis.internal.conjecture import providers

    assert suite.stabilize_generation() and suite.stabilize_generation()  # idempotent
    assert len(providers._get_local_constants()) == 0


def test_code_outside_a_third_party_target_is_out_of_scope(tmp_path: Path,
                                                           project: Path) -> None:
    report = _report(project, tmp_path, uncovered_out_of_scope=True)
    uncovered = _by_number(report.data)["xǁChunkerǁsplit__mutmut_2"]
    assert report.status(uncovered) == "Ignored" and uncovered not in report.survivors
    assert "another function" in reports._status_reason(report, uncovered)
    assert report.raw_score() == pytest.approx(100 * 2 / 4)
    assert "1 outside the target" in reports.summary_line(report)
