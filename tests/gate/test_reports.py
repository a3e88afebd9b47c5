"""SARIF 2.1.0 (validated against the OASIS schema), JUnit XML (read back by parsers), markdown."""

from __future__ import annotations

import copy
import html
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from chunk_contract import SPEC_VERSION
from chunk_contract.cli.main import main
from chunk_contract.config import profiles
from chunk_contract.engine import runner
from chunk_contract.engine.events import Finished, Progress, RunPhase, Shrinking, Started
from chunk_contract.engine.results import RunResult
from chunk_contract.engine.runner import run
from chunk_contract.reporting import formats
from chunk_contract.reporting import sarif as sarif_mod
from chunk_contract.reporting.junit import junit_tree
from chunk_contract.reporting.markdown import render_markdown, write_markdown
from chunk_contract.reporting.sarif import sarif_log, write_sarif
from chunk_contract.spec.registry import registry
from tests.gate import ghas_rules
from tests.gate.conftest import HERE, ROOT, SAMPLE, run_in

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
    assert skipped == {i.id for i in failing.results if i.status in ("skipped", "waived")}
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
    assert "timed" not in text and "skipped | applies to" in text  # skip reasons are shown
    assert "waived | no reason given (--skip)" in text  # and waivers' reasons
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


# --- every format of the registry on every front door: run, check, matrix, pytest -------------


def _json_targets(path: Path, folder: bool, many: bool) -> set[str]:
    files = sorted(path.glob("*.json")) if folder else [path]
    if many and not folder:
        files = sorted(path.parent.glob(f"{path.stem}.*.json"))
    return {json.loads(f.read_text(encoding="utf-8"))["target"] for f in files}


def _junit_targets(path: Path) -> set[str]:
    suites = ET.parse(path).getroot().findall("testsuite")
    return {s.get("name", "").removeprefix("chunk-contract ") for s in suites}


def _sarif_targets(path: Path) -> set[str]:
    log = json.loads(path.read_text(encoding="utf-8"))
    _validate(log)
    return {t["target"] for t in log["runs"][0]["invocations"][0]["properties"]["targets"]}


def _markdown_targets(path: Path) -> set[str]:
    return set(re.findall(r"^### `(.+?)`: ", path.read_text(encoding="utf-8"), re.M))


def _html_targets(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    return {html.unescape(t) for t in re.findall(r'<section class="target"><h2>(.+?) <span', text)}


#: How each format's file names the targets it covers. A format added to the registry without a
#: reader here fails test_every_format_has_a_reader: each format gets a test on each front door.
READERS = {
    "junit": _junit_targets,
    "sarif": _sarif_targets,
    "markdown": _markdown_targets,
    "html": _html_targets,
}


def test_every_format_has_a_reader() -> None:
    assert set(READERS) | {"json"} == {f.name for f in formats.file_formats("run")}


def _flags(folder: Path, command: str, prefix: str = "--") -> list[str]:
    """Every file format's flag, each writing into ``folder`` (matrix's JSON: a folder)."""
    out = []
    for fmt in formats.file_formats(command):
        name = "json-reports" if fmt.is_folder(command) else f"r.{fmt.name}"
        out += [f"{prefix}{fmt.name}", str(folder / name)]
    return out


def _assert_written(folder: Path, command: str, targets: set[str]) -> None:
    """Each format wrote one file covering ``targets`` (JSON: one per target, or one)."""
    many = len(targets) > 1
    for fmt in formats.file_formats(command):
        if fmt.name == "json":
            where = folder / ("json-reports" if fmt.is_folder(command) else "r.json")
            assert _json_targets(where, fmt.is_folder(command), many) == targets, command
        else:
            assert READERS[fmt.name](folder / f"r.{fmt.name}") == targets, (command, fmt.name)


FAST = ["--max-examples", "10", "--seed", "1"]


def test_run_writes_every_format_merged_over_its_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")  # plain progress lines, whatever runs the tests
    args = ["run", *FAST, "--no-schedule", "--no-corpus", "--skip", "scales_linearly"]
    args += ["--reproducers", str(tmp_path / "repro")]
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.chunk-contract]\ntargets = ["{BUGGY}", "{CORRECT}"]\n', encoding="utf-8"
    )
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main([*args, *_flags(tmp_path, "run")]) == 1
    finally:
        os.chdir(before)
    _assert_written(tmp_path, "run", {BUGGY, CORRECT})
    out, err = capsys.readouterr()
    assert f"chunk-contract · {BUGGY}" in out and f"chunk-contract · {CORRECT}" in out
    assert f"checking {BUGGY} (target 1 of 2): " in err and "· exploring" in err
    assert re.search(rf"checking {re.escape(CORRECT)} \(target 2 of 2\): \d+ examples · passed",
                     err)


@pytest.mark.usefixtures("canned")
def test_run_quiet_shows_no_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-q", CORRECT, *FAST, "--json", "r.json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "PASSED" in out
    assert json.loads((tmp_path / "r.json").read_text())["target"] == CORRECT


def test_check_writes_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "doc.txt").write_text("a tiny text with averyveryverylongword in it\n")
    before = os.getcwd()
    os.chdir(tmp_path)  # check's reproducers land here
    try:
        code = main(["check", BUGGY, "doc.txt", "--max-size", "8", *_flags(tmp_path, "check")])
    finally:
        os.chdir(before)
    assert code == 1
    _assert_written(tmp_path, "check", {BUGGY})
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert {i["id"] for i in report["invariants"] if i["status"] == "violated"} == {"no_lost_text"}
    assert "FAIL doc.txt" in capsys.readouterr().err


@pytest.fixture
def canned(
    results: tuple[RunResult, RunResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``matrix`` runs answered by the module's two real runs, their events as the runner emits
    them (a real matrix run is tested in tests/outofprocess/test_front_doors.py)."""
    by_target = {r.target: r for r in results}

    def run(plugin: Any, settings: Any, on_event: Any) -> RunResult:
        result = by_target[plugin.target]
        found = tuple(r.id for r in result.violated)
        on_event(Started(result.target, result.kind, (), result.seed, 10))
        on_event(RunPhase("exploring", asked=result.examples, budget_s=45.0))
        on_event(Progress(result.examples, 10, found))
        for rule in found:
            on_event(Shrinking(rule, 10.0))
        on_event(Finished(result))
        return result

    monkeypatch.setattr(runner, "run", run)


@pytest.mark.usefixtures("canned")
def test_matrix_writes_every_format_and_one_progress_line_per_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")  # plain lines, whatever runs the tests
    assert main(["matrix", BUGGY, CORRECT, *FAST, *_flags(tmp_path, "matrix")]) == 1
    _assert_written(tmp_path, "matrix", {BUGGY, CORRECT})
    names = {p.name for p in (tmp_path / "json-reports").iterdir()}
    assert names == {"chunker.json", "plugins-windows.json"}  # today's file names
    out, err = capsys.readouterr()
    assert "no_lost_text" in out and "VIOLATED" in out  # the table
    assert re.search(rf"checking {re.escape(BUGGY)} \(target 1 of 2\): \d+ examples · "
                     r"1 violation · (\d+|under 1) s", err)
    assert re.search(rf"checking {re.escape(CORRECT)} \(target 2 of 2\): \d+ examples · passed",
                     err)
    assert "· exploring" in err and "· shrinking no_lost_text" in err
    assert f"____ no_lost_text · {BUGGY} ____" in err  # a failing target's text report


@pytest.mark.usefixtures("canned")
def test_matrix_quiet_shows_no_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matrix", "-q", CORRECT, *FAST]) == 0
    assert capsys.readouterr().err == ""


#: A quick correct chunker for the pytest plugin's session (run merges several: tested above).
QUICK = (CORRECT,)


def test_the_pytest_plugin_writes_every_format(sample: Path) -> None:
    """``--chunk-contract-NAME PATH`` for each format, over the session's targets."""
    (sample / "pyproject.toml").write_text(
        (sample / "pyproject.toml").read_text()
        .replace('addopts = "--chunk-contract-declared ', 'addopts = "')
    )
    plugin = ("-m", "pytest", "-p", "chunk_contract.pytest.plugin", "-m", "chunk_contract")
    given = _flags(sample, "pytest", prefix="--chunk-contract-")
    targets = [arg for target in QUICK for arg in ("--chunk-contract", target)]
    done = run_in(sample, *plugin, *targets, "--chunk-contract-max-examples", "10",
                  "--chunk-contract-skip", "scales_linearly", *given)
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_written(sample, "pytest", set(QUICK))


def test_the_pytest_plugin_refuses_an_unusable_report_path(sample: Path) -> None:
    done = run_in(sample, "-m", "pytest", "-p", "chunk_contract.pytest.plugin",
                  "--chunk-contract-junit", str(sample))
    assert done.returncode == 4 and "--chunk-contract-junit" in done.stderr, done.stderr
    assert "is a directory" in done.stderr
