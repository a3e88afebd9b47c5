"""SARIF 2.1.0 (validated against the OASIS schema), JUnit XML (read back by parsers), markdown."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from contract import profiles
from contract.registry import registry
from contract.reporting.junit import junit_tree
from contract.reporting.markdown import render_markdown, write_markdown
from contract.reporting.sarif import sarif_log, write_sarif
from contract.runner import RunResult, run
from tests.gate.conftest import HERE, SAMPLE

SCHEMA = HERE / "schemas" / "sarif-schema-2.1.0.json"
BUGGY = f"{SAMPLE / 'chunker.py'}:split"
CORRECT = f"{HERE / 'plugins.py'}:windows"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, RunResult]:
    """One failing run (the sample project's chunker) and one passing run."""
    folder = tmp_path_factory.mktemp("reports")
    settings = profiles.build(
        profiles.get("ci"), max_examples=40, skip=("scales_linearly",), reproducers=folder / "repro"
    )
    return run(BUGGY, settings), run(CORRECT, settings)


def _validate(log: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]


def test_sarif_is_valid_and_has_one_result_per_violation(
    results: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    failing, passing = results
    path = tmp_path / "out.sarif"
    write_sarif(path, [failing, passing], root=SAMPLE)
    log = json.loads(path.read_text(encoding="utf-8"))
    _validate(log)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(registry())
    assert all(r["shortDescription"]["text"] == registry()[r["id"]].rule for r in rules)
    found = run_["results"]
    assert len(found) == len(failing.violated) >= 1  # the passing run adds none
    for result in found:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
        item = next(i for i in failing.results if i.id == result["ruleId"])
        assert item.status == "violated" and item.counterexample is not None
        text = result["message"]["text"]
        assert item.counterexample.message.splitlines()[0] in text  # observed
        assert registry()[item.id].rule in text  # allowed
        assert "chunk-contract replay" in text
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"]["uri"] == "chunker.py"  # the plugin file
        assert where["region"]["startLine"] >= 1


def test_sarif_validation_catches_a_broken_log(results: tuple[RunResult, RunResult]) -> None:
    log = sarif_log([results[0]], root=SAMPLE)
    log["runs"][0]["results"][0]["level"] = "fatal"
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(schema).iter_errors(log))


def test_sarif_of_a_passing_run_is_valid_and_empty(results: tuple[RunResult, RunResult]) -> None:
    log = sarif_log([results[1]])
    _validate(log)
    assert log["runs"][0]["results"] == []


def test_junit_is_read_by_standard_parsers(
    results: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    failing, _ = results
    path = tmp_path / "junit.xml"
    junit_tree(failing).write(path, encoding="utf-8", xml_declaration=True)
    root = ET.parse(path).getroot()
    cases = root.findall(".//testcase")
    assert sorted(c.get("name") for c in cases) == sorted(registry())
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert failed == {i.id for i in failing.violated}
    skipped = {c.get("name") for c in cases if c.find("skipped") is not None}
    assert skipped == {i.id for i in failing.results if i.status == "skipped"}
    suite = root.find("testsuite")
    assert suite is not None and int(suite.get("failures", "-1")) == len(failed)

    junitparser = pytest.importorskip("junitparser")
    xml = junitparser.JUnitXml.fromfile(str(path))
    parsed = {case.name: [type(r).__name__ for r in case.result] for suite in xml for case in suite}
    assert {n for n, r in parsed.items() if "Failure" in r} == failed


def test_markdown_summary(results: tuple[RunResult, RunResult], tmp_path: Path) -> None:
    failing, passing = results
    text = render_markdown([failing, passing])
    assert text.startswith(f"## chunk-contract: ❌ {len(failing.violated)} violation")
    assert f"### `{failing.target}`: FAILED" in text and f"### `{passing.target}`: PASSED" in text
    assert text.count("| invariant | verdict | details |") == 2
    for item in failing.results:
        assert f"| `{item.id}` |" in text
    for item in failing.violated:
        assert f"<details><summary><code>{item.id}</code>" in text
    assert "```text" in text and "chunk-contract replay" in text
    assert "timed" not in text and "deselected" in text  # skip reasons are shown
    write_markdown(tmp_path / "summary.md", [passing])
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").startswith("## chunk-contract: ✅")
