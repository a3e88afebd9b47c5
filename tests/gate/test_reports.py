"""SARIF 2.1.0 (validated against the OASIS schema), JUnit XML (read back by parsers), markdown."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from contract import SPEC_VERSION, profiles
from contract.engine.runner import RunResult, run
from contract.reporting import sarif as sarif_mod
from contract.reporting.junit import junit_tree
from contract.reporting.markdown import render_markdown, write_markdown
from contract.reporting.sarif import sarif_log, write_sarif
from contract.spec.registry import registry
from tests.gate import ghas_rules
from tests.gate.conftest import HERE, ROOT, SAMPLE

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


# --- GitHub code scanning's own rules (GH1015, GH1016, GH1017, GH2012, GH1005) -----------------

MULTITOOL = ROOT / ".ci" / "sarif" / "node_modules" / ".bin" / "sarif-multitool"


def _uri(log: dict) -> tuple[str, int]:
    where = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    return where["artifactLocation"]["uri"], where["region"]["startLine"]


def test_every_result_is_located_when_the_source_is_outside_the_checkout(
    results: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    """A chunker installed elsewhere (``pip install .``, a ``../`` target) still gets a location:
    the checkout's pyproject.toml at its table, else an artifact named after the target."""
    failing = results[0]
    bare = tmp_path / "bare"
    bare.mkdir()
    log = sarif_log([failing], root=bare)
    assert _uri(log) == ("chunker.py", 1)
    assert ghas_rules.problems(log) == []
    (bare / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.chunk-contract]\n')
    log = sarif_log([failing], root=bare)
    assert _uri(log) == ("pyproject.toml", 4)
    assert ghas_rules.problems(log) == [] and not ghas_rules.problems(sarif_log(results))
    _validate(log)


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("../elsewhere/my chunker.py:split", "my_chunker.py"),
        ("mypkg.chunkers:split", "mypkg/chunkers.py"),
        ("langchain-recursive", "langchain-recursive"),
        ("exec:node ../x/chunk.js --fast", "chunk.js"),
        ("exec:'/opt/my tools/chunker'", "chunker"),
        ("https://chunker.test:8080/v1", "chunker.test_8080/v1"),
    ],
)
def test_artifact_names_are_relative_uris(target: str, name: str) -> None:
    """Every target gives a relative URI without ``..`` or a scheme (GH1005)."""
    assert sarif_mod._artifact_name(target, None) == name


def test_the_sarif_tool_info_names_the_spec_version(results: tuple[RunResult, RunResult]) -> None:
    driver = sarif_log([results[0]])["runs"][0]["tool"]["driver"]
    assert driver["properties"]["spec"] == SPEC_VERSION == "1.1"
    assert "example.invalid" not in json.dumps(driver)


def _broken_logs(log: dict) -> dict[str, dict]:
    """One copy of ``log`` per GitHub rule, each broken the way that rule forbids."""
    cases: dict[str, dict] = {}

    def broken(rule: str) -> dict:
        cases[rule] = copy.deepcopy(log)
        return cases[rule]["runs"][0]

    del broken("GH1015")["results"][0]["locations"]
    del broken("GH1016")["results"][0]["locations"][0]["physicalLocation"]
    del broken("GH1017")["results"][0]["locations"][0]["physicalLocation"]["region"]
    broken("GH2012")["tool"]["driver"]["rules"][3]["help"] = {"text": " "}
    where = broken("GH1005")["results"][0]["locations"][0]["physicalLocation"]
    where["artifactLocation"]["uri"] = "../outside/chunker.py"
    return cases


def test_the_github_rules_check_rejects_what_github_rejects(
    results: tuple[RunResult, RunResult],
) -> None:
    log = sarif_log([results[0]], root=SAMPLE)
    assert ghas_rules.problems(log) == []
    for rule, broken in _broken_logs(log).items():
        found = ghas_rules.problems(broken)
        assert found and all(f.startswith(rule) for f in found), (rule, found)


def _multitool(log: dict, folder: Path) -> list[str]:
    """The rule ids that the official multitool's GitHub rules report for ``log``."""
    source, output = folder / "in.sarif", folder / "validation.sarif"
    source.write_text(json.dumps(log), encoding="utf-8")
    subprocess.run(
        [str(MULTITOOL), "validate", "--rule-kind", "Ghas", "--log", "ForceOverwrite",
         "-o", str(output), str(source)],
        capture_output=True, text=True, timeout=300, check=True,
        env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"},
    )
    found = json.loads(output.read_text(encoding="utf-8-sig"))["runs"][0]["results"]
    return sorted({r["ruleId"] for r in found if r.get("level", "warning") == "error"})


@pytest.mark.slow
def test_the_official_multitool_accepts_our_sarif(
    results: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    """``sarif-multitool validate --rule-kind Ghas`` (pinned in .ci/sarif, installed by
    ``npm ci --prefix .ci/sarif``): no error for a log whose chunker lies outside the
    checkout, and GH1015 for the same log without locations (so the check can fail)."""
    if not os.access(MULTITOOL, os.X_OK):
        pytest.skip("sarif-multitool not installed: run `npm ci --prefix .ci/sarif`")
    bare = tmp_path / "bare"
    bare.mkdir()
    log = sarif_log(results, root=bare)
    assert _multitool(log, tmp_path) == []
    del log["runs"][0]["results"][0]["locations"]
    assert "GH1015" in _multitool(log, tmp_path)
