"""StrykerJS mutation reports for JavaScript chunkers (chunk_contract.integrations.mutation.js): the
conversion of Stryker's report into the project's reports, and (slow) a real Stryker run on the JS
reference chunker, skipped with a reason when node or the npm packages are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunk_contract.integrations.mutation import js, reports

SOURCE = """const LIMIT = 3;

/** Doc. */
function fits(n) {
  return n <= LIMIT;
}

class Text {
  trim(lo, hi) {
    while (lo < hi) lo++;
    return [lo, hi];
  }
}
"""


def _raw(mid: str, line: int, col: int, end_col: int, replacement: str, status: str,
         reason: str = "") -> dict[str, object]:
    return {"id": mid, "mutatorName": "EqualityOperator", "replacement": replacement,
            "status": status, "statusReason": reason,
            "location": {"start": {"line": line, "column": col},
                         "end": {"line": line, "column": end_col}}}


def test_a_stryker_mutant_becomes_a_report_mutant_with_its_lines_and_function() -> None:
    raw = _raw("7", 5, 10, 20, "n < LIMIT", "Survived")
    mutant = js.to_mutant(raw, "x.mjs", SOURCE)
    assert mutant.function == "fits" and mutant.original == "n <= LIMIT"
    assert mutant.line_before == "return n <= LIMIT;"
    assert mutant.line_after == "return n < LIMIT;"
    assert "-  return n <= LIMIT;" in mutant.diff and "+  return n < LIMIT;" in mutant.diff
    assert mutant.killed_by is None


def test_a_method_is_named_and_the_killing_invariant_is_read_from_the_probe() -> None:
    reason = "terminates: max_size=1, overlap=0, document='a'\n    the call did not return"
    raw = _raw("9", 10, 12, 19, "lo <= hi", "Killed", reason)
    mutant = js.to_mutant(raw, "x.mjs", SOURCE)
    assert mutant.function == "trim" and mutant.killed_by == "terminates"
    assert mutant.kill_message.startswith("max_size=1")


def test_a_mutant_that_breaks_the_handshake_is_killed_by_handshake() -> None:
    reason = "exec_probe: exec:node chunker.mjs: the child exited with status 1 before replying"
    mutant = js.to_mutant(_raw("3", 5, 10, 20, "true", "Killed", reason), "x.mjs", SOURCE)
    assert mutant.killed_by == "handshake" and mutant.kill_message.startswith("exec:node")


def test_the_reports_are_written_with_javascript_and_strykers_framework(tmp_path: Path) -> None:
    stryker_json = tmp_path / "s.json"
    stryker_json.write_text(json.dumps({"files": {"x.mjs": {"mutants": [
        _raw("1", 5, 10, 20, "n < LIMIT", "Survived"),
        _raw("2", 5, 10, 20, "true", "Killed", "cap_respected: x"),
    ]}}}), "utf-8")
    data = js.run_data(stryker_json, "x.mjs", SOURCE)
    framework = {"name": "chunk-contract (StrykerJS command runner)", "version": "0"}
    report = reports.Report(data, title="x.mjs", tool="stryker", framework=framework)
    paths = reports.write(report, tmp_path / "out")
    written = json.loads(paths["json"].read_text("utf-8"))
    assert written["files"]["x.mjs"]["language"] == "javascript"
    assert written["framework"] == framework
    assert [m["status"] for m in written["files"]["x.mjs"]["mutants"]] == ["Survived", "Killed"]
    assert "(stryker: survived)" in written["files"]["x.mjs"]["mutants"][0]["description"]
    schema = json.loads((Path(__file__).with_name("mutation-testing-report-schema.json"))
                        .read_text("utf-8"))
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft7Validator(schema).validate(written)
    assert data.score() == 50.0 and paths["html"].is_file() and paths["markdown"].is_file()


def test_missing_stryker_is_a_clear_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(js, "STRYKER_BIN", tmp_path / "nope.js")
    reason = js.unavailable()
    assert reason is not None and ("npm ci --prefix" in reason or "node" in reason)
    assert js.main(["--report-dir", str(tmp_path)]) == 2


@pytest.mark.slow
@pytest.mark.skipif(js.unavailable() is not None, reason=str(js.unavailable()))
def test_stryker_runs_on_the_js_reference_chunker(tmp_path: Path) -> None:
    # checkConfig only (a few mutants): the whole file is the documented command's job.
    code = js.main(["--mutate", "138-147", "--examples", "20", "--report-dir", str(tmp_path),
                    "--triage", str(tmp_path / "none.toml")])
    written = json.loads((tmp_path / "mutation.json").read_text("utf-8"))
    mutants = written["files"][js.DEFAULT_CHUNKER]["mutants"]
    assert mutants and written["files"][js.DEFAULT_CHUNKER]["language"] == "javascript"
    assert any(m["status"] == "Killed" for m in mutants)
    survivors = [m for m in mutants if m["status"] in ("Survived", "NoCoverage")]
    assert code == (1 if survivors else 0)
    assert (tmp_path / "mutation.html").is_file() and (tmp_path / "mutation.md").is_file()
