"""A gate a team can live with: waivers for every rule, a baseline of accepted findings, and
every distinct failure of a rule (proof of red: tests/gate/gate_chunkers.py)."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.cli.main import main
from chunk_contract.engine import findings
from chunk_contract.engine.results import Counterexample, RunSettings
from chunk_contract.engine.runner import run
from chunk_contract.errors import UsageError
from chunk_contract.spec.model import Config, Violation
from tests.gate import ghas_rules
from tests.gate.conftest import HERE, run_in
from tests.gate.test_reports import MULTITOOL, _multitool, _validate

CHUNKERS = HERE / "gate_chunkers.py"
#: Small budgets: the findings here are found by the seed corpus and the first examples.
#: Small and fixed; no scaling probe (``quick``): waivers and baselines are judged on the
#: examples, and the probe of a chunker this fast grows documents to millions of characters.
BUDGET = ("--max-examples", "30", "--seed", "1", "--no-schedule", "-q", "--profile", "quick")


def _run(tmp_path: Path, target: str, *flags: str) -> int:
    return main(["run", target, *BUDGET, "--reproducers", str(tmp_path / "repro"), *flags])


def _reports(tmp_path: Path) -> tuple[list[str], dict[str, Path]]:
    paths = {name: tmp_path / f"report.{name}" for name in ("json", "sarif", "junit",
                                                            "markdown", "html")}
    return [a for name, path in paths.items() for a in (f"--{name}", str(path))], paths


def _invariants(path: Path) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads(path.read_text(encoding="utf-8"))["invariants"]}


# ----------------------------------------------------------------------------- waivers


def test_a_waived_no_crash_is_reported_as_waived_with_its_reason_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: ``--skip no_crash`` still reported no_crash violated (exit 1), reason lost."""
    flags, paths = _reports(tmp_path)
    reason = "upstream bug: crashes at some sizes"
    code = _run(tmp_path, f"{CHUNKERS}:one_crash", "--skip", f"no_crash={reason}", *flags)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no_crash" in out and "waived" in out and reason in out and "still fails" in out
    item = _invariants(paths["json"])["no_crash"]  # SPEC §7's statuses, and a waiver object
    assert (item["status"], item["reason"]) == ("skipped", f"waived: {reason}")
    assert item["waiver"]["reason"] == reason and item["waiver"]["needed"] is True
    assert "ZeroDivisionError" in item["waiver"]["counterexample"]["message"]
    log = json.loads(paths["sarif"].read_text(encoding="utf-8"))
    _validate(log)
    assert ghas_rules.problems(log) == []
    suppressed = [r for r in log["runs"][0]["results"] if r["ruleId"] == "no_crash"]
    assert suppressed and suppressed[0]["suppressions"][0]["justification"] == reason
    case = next(c for c in ET.parse(paths["junit"]).getroot().iter("testcase")
                if c.get("name") == "no_crash")
    assert case.find("failure") is None
    skipped = case.find("skipped")
    assert skipped is not None and reason in skipped.get("message", "")
    for name in ("markdown", "html"):
        text = paths[name].read_text(encoding="utf-8")
        assert "waived" in text and "upstream bug" in text, name


def test_a_waiver_in_pyproject_works_for_engine_rules_and_keeps_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunk-contract]\nskip = { no_crash = "tracked upstream" }\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "r.json"
    assert _run(tmp_path, f"{CHUNKERS}:one_crash", "--json", str(report)) == 0
    item = _invariants(report)["no_crash"]
    assert item["waiver"]["reason"] == "tracked upstream" and item["waiver"]["needed"]


def test_only_leaves_the_engine_rules_out_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: ``--only cap_respected`` still reported no_crash violated."""
    report = tmp_path / "r.json"
    code = _run(tmp_path, f"{CHUNKERS}:one_crash", "--only", "cap_respected",
                "--json", str(report))
    assert code == 0, capsys.readouterr().out
    status = {k: (v["status"], v.get("reason")) for k, v in _invariants(report).items()}
    assert status["no_crash"] == ("skipped", "deselected (not in --only)")
    assert status["cap_respected"][0] == "passed"


@pytest.mark.parametrize("flags", [("--skip", "no_crsh"), ("--skip", "no_crash,nope=x"),
                                   ("--skip", "ordered="), ("--only", "nope")])
def test_a_waiver_of_an_unknown_id_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, str]
) -> None:
    assert _run(tmp_path, f"{CHUNKERS}:correct", *flags) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) <= 2 and ("unknown invariant" in err or "ID=REASON" in err), err


def test_an_unknown_waiver_through_the_api_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown invariant"):
        run(f"{CHUNKERS}:correct", RunSettings(max_examples=1, waivers={"no_crsh": "typo"},
                                              reproducers=None))


def test_a_waiver_no_longer_needed_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    code = _run(tmp_path, f"{CHUNKERS}:correct", "--skip", "non_empty=whitespace chunks",
                "--json", str(report))
    out = capsys.readouterr().out
    assert code == 0
    assert "waiver no longer needed: non_empty" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [h["check"] for h in data["health"]] == ["waiver_unneeded"]
    waiver = _invariants(report)["non_empty"]["waiver"]
    assert waiver["needed"] is False and waiver["evaluated"] is True


def test_waiving_span_fidelity_says_what_it_implies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, f"{CHUNKERS}:correct", "--skip", "span_fidelity=rewrites text") == 0
    out = capsys.readouterr().out
    assert "span_fidelity is waived" in out and "ordered" in out


# ----------------------------------------------------------------------------- distinct failures


def test_two_distinct_crashes_are_both_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: one counterexample per rule: the KeyError hid behind the ZeroDivisionError."""
    report = tmp_path / "r.json"
    assert _run(tmp_path, f"{CHUNKERS}:two_crashes", "--json", str(report)) == 1
    out = capsys.readouterr().out
    item = _invariants(report)["no_crash"]
    causes = [c["cause"] for c in item["counterexamples"]]
    assert sorted(causes) == ["KeyError at gate_chunkers.py:_lookup",
                              "ZeroDivisionError at gate_chunkers.py:_divide"]
    assert item["counterexample"] == item["counterexamples"][0]  # the old key, kept
    assert all(c["reproducer"] for c in item["counterexamples"])
    assert sorted(len(c["document"]) for c in item["counterexamples"]) == [1, 2]  # shrunk
    assert "Other distinct failures of no_crash (1)" in out
    assert out.count("chunk-contract replay") == 2


def test_the_cause_key_ignores_what_varies_from_run_to_run() -> None:
    crash = ('raised KeyError: \'q\'\nTraceback (most recent call last):\n  File "/a/b/x.py", '
             'line 3, in split\n    f()\n  File "/a/b/y.py", line 9, in _inner\nKeyError')
    assert findings.cause_of(Violation("no_crash", crash)) == "KeyError at y.py:_inner"
    one = findings.cause_of(Violation("cap_respected", "chunk 3 has 45 chars > 40: 'abc'"))
    two = findings.cause_of(Violation("cap_respected", "chunk 7 has 90 chars > 12: 'zz'"))
    assert one == two == "chunk N has N chars > N: '…'"
    assert findings.cause_of(Violation("ordered", "chunk 2 starts before chunk 1")) != one
    js = ("raised TypeError: x is undefined\n    at pieces (/w/chunker.mjs:12:5)\n"
          "    at split (/w/c.mjs:3:1)")
    assert findings.cause_of(Violation("no_crash", js)) == "TypeError at chunker.mjs:pieces"
    found = Counterexample("no_crash", "x", Config(4, 0), [crash], None)
    assert findings.cause_of_counterexample(found) == "KeyError at y.py:_inner"


# ----------------------------------------------------------------------------- baseline

_PLUGIN = '''
def _divide(document):
    return len(document) / (len(document) % 3 - 1)


def _lookup(document):
    return {{}}[document[:1]]


def split(document, *, max_size, overlap):
    if max_size < 1 or overlap < 0 or overlap >= max_size:
        raise ValueError("bad config")
    step = max_size - overlap
    ends = range(0, max(len(document) - overlap, 1), step)
    chunks = [document[i:i + max_size] for i in ends]
    {body}
    return [c for c in chunks if c.strip()]
'''
_ON_X = "if len(document) % 3 == 1:\n        _divide(document)"
_ON_Q = "if len(document) % 3 == 2:\n        _lookup(document)"


def _plugin(folder: Path, *bodies: str) -> str:
    path = folder / "chunker.py"
    path.write_text(_PLUGIN.format(body="\n    ".join(bodies) or "pass"), encoding="utf-8")
    for cached in folder.glob("__pycache__/chunker.*"):
        cached.unlink()
    return f"{path}:split"


def _states(sarif: Path) -> list[tuple[str, str, str]]:
    log = json.loads(sarif.read_text(encoding="utf-8"))
    _validate(log)
    assert ghas_rules.problems(log) == []
    return sorted((r["ruleId"], r["properties"]["cause"].split(" ")[0], r.get("baselineState", ""))
                  for r in log["runs"][0]["results"])


def test_a_baseline_accepts_known_findings_fails_on_new_ones_and_reports_fixed_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, sarif, report = tmp_path / "baseline.json", tmp_path / "r.sarif", tmp_path / "r.json"
    target = _plugin(tmp_path, _ON_X)
    assert _run(tmp_path, target) == 1  # red without a baseline
    assert _run(tmp_path, target, "--write-baseline", str(baseline)) == 0
    written = json.loads(baseline.read_text(encoding="utf-8"))
    assert written["format"] == "chunk-contract-baseline" and written["version"] == 1
    assert [(f["invariant"], f["cause"]) for f in written["findings"]] == [
        ("no_crash", "ZeroDivisionError at chunker.py:_divide")]

    # 1. the same finding (another seed): accepted
    code = main(["run", target, "--max-examples", "30", "--seed", "7", "--no-schedule", "-q",
                 "--reproducers", str(tmp_path / "repro2"), "--baseline", str(baseline),
                 "--sarif", str(sarif)])
    assert code == 0, capsys.readouterr().out
    assert _states(sarif) == [("no_crash", "ZeroDivisionError", "unchanged")]

    # 2. a new cause of the same rule: a new finding, exit 1
    target = _plugin(tmp_path, _ON_X, _ON_Q)
    assert _run(tmp_path, target, "--baseline", str(baseline), "--sarif", str(sarif)) == 1
    assert _states(sarif) == [("no_crash", "KeyError", "new"),
                              ("no_crash", "ZeroDivisionError", "unchanged")]
    assert "baseline: 1 new, 1 unchanged, 0 fixed" in capsys.readouterr().out

    # 3. the accepted crash fixed: reported absent / fixed; --write-baseline drops it
    target = _plugin(tmp_path, _ON_Q)
    code = _run(tmp_path, target, "--baseline", str(baseline), "--sarif", str(sarif),
                "--json", str(report))
    assert code == 1  # the KeyError is still not accepted
    assert _states(sarif) == [("no_crash", "KeyError", "new"),
                              ("no_crash", "ZeroDivisionError", "absent")]
    fixed = json.loads(report.read_text(encoding="utf-8"))["baseline"]["fixed"]
    assert [f["cause"] for f in fixed] == ["ZeroDivisionError at chunker.py:_divide"]
    assert "Fixed (in the baseline, no longer found" in capsys.readouterr().out
    assert _run(tmp_path, target, "--write-baseline", str(baseline)) == 0
    causes = [f["cause"] for f in json.loads(baseline.read_text())["findings"]]
    assert causes == ["KeyError at chunker.py:_lookup"]
    assert _run(tmp_path, target, "--baseline", str(baseline)) == 0


def test_a_baseline_in_pyproject_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _plugin(tmp_path, _ON_X)
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, target, "--write-baseline", "accepted.json") == 0
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunk-contract]\nbaseline = "accepted.json"\n', encoding="utf-8")
    assert _run(tmp_path, target) == 0


@pytest.mark.parametrize("content, says", [
    (None, "does not exist"), ("{", "cannot be read as JSON"), ('{"findings": []}', "not a"),
    ('{"format": "chunk-contract-baseline", "version": 9, "findings": []}', "version 9"),
])
def test_a_bad_baseline_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, says: str
) -> None:
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert _run(tmp_path, f"{CHUNKERS}:correct", "--baseline", str(path)) == 2
    assert says in capsys.readouterr().err


@pytest.mark.slow
def test_the_official_multitool_accepts_a_baseline_sarif(tmp_path: Path) -> None:
    if not os.access(MULTITOOL, os.X_OK):
        pytest.skip("sarif-multitool not installed: run `npm ci --prefix .ci/sarif`")
    sarif = tmp_path / "r.sarif"
    target = _plugin(tmp_path, _ON_X, _ON_Q)
    baseline = tmp_path / "b.json"
    _run(tmp_path, _plugin(tmp_path, _ON_X), "--write-baseline", str(baseline))
    _run(tmp_path, target, "--baseline", str(baseline), "--sarif", str(sarif))
    assert _multitool(json.loads(sarif.read_text(encoding="utf-8")), tmp_path) == []


# ----------------------------------------------------------------------------- the pytest plugin

PYTEST = ("-m", "pytest", "-p", "chunk_contract.pytest.plugin", "-p", "no:cacheprovider", "-rfsx",
          "--chunk-contract-max-examples", "30", "--chunk-contract-seed", "1",
          "--chunk-contract-profile", "quick")


def test_the_pytest_plugin_takes_waivers_and_a_baseline(tmp_path: Path) -> None:
    """A waived no_crash is skipped with its reason; a baselined one is xfailed; a new one fails."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunk-contract]\nreproducers = "repro"\n', encoding="utf-8")
    target = _plugin(tmp_path, _ON_X)
    assert main(["run", target, *BUDGET, "--reproducers", str(tmp_path / "repro"),
                 "--write-baseline", str(tmp_path / "b.json")]) == 0
    done = run_in(tmp_path, *PYTEST, "--chunk-contract", target)
    assert done.returncode == 1 and re.search(r"FAILED \S*::no_crash", done.stdout)
    done = run_in(tmp_path, *PYTEST, "--chunk-contract", target,
                  "--chunk-contract-skip", "no_crash")
    assert done.returncode == 0, done.stdout
    assert "waived: no reason given (--skip) (still fails: raised ZeroDivisionError" in done.stdout
    done = run_in(tmp_path, *PYTEST, "--chunk-contract", target, "--contract-baseline", "b.json")
    assert done.returncode == 0, done.stdout
    assert "XFAIL" in done.stdout and "accepted by the baseline" in done.stdout
    target = _plugin(tmp_path, _ON_X, _ON_Q)
    done = run_in(tmp_path, *PYTEST, "--chunk-contract", target, "--contract-baseline", "b.json")
    assert done.returncode == 1 and "KeyError" in done.stdout


def test_the_span_fidelity_note_only_when_it_is_waived_or_deselected() -> None:
    from chunk_contract.engine.results import InvariantResult
    from chunk_contract.engine.runner import waiver_findings

    def notes(span: str, *, only: tuple[str, ...] = ()) -> list[str]:
        results = [InvariantResult("span_fidelity", span, 5, reason="r"),
                   InvariantResult("ordered", "passed", 5)]
        return [f.check for f in waiver_findings(results, active=("ordered",), only=only)]

    assert notes("waived") == ["span_fidelity_unchecked"]
    assert notes("skipped", only=("ordered",)) == ["span_fidelity_unchecked"]
    assert notes("skipped") == []  # not applicable to the plugin: nothing implied
    assert notes("passed") == []


def test_a_parallel_run_keeps_waivers_distinct_failures_and_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-n 2``: each process's result crosses the result codec; the merge keeps every cause."""
    baseline, report = tmp_path / "b.json", tmp_path / "r.json"
    target = f"{CHUNKERS}:two_crashes"
    assert _run(tmp_path, target, "--write-baseline", str(baseline)) == 0
    code = _run(tmp_path, target, "-n", "2", "--force-jobs", "--skip", "non_empty=why not",
                "--baseline", str(baseline), "--json", str(report))
    assert code == 0, capsys.readouterr().out
    items = _invariants(report)
    states = sorted((c["cause"].split(" ")[0], c["baseline_state"])
                    for c in items["no_crash"]["counterexamples"])
    assert states == [("KeyError", "unchanged"), ("ZeroDivisionError", "unchanged")]
    assert items["non_empty"]["waiver"]["reason"] == "why not"


def test_a_waived_scales_linearly_is_not_called_unneeded_since_the_probe_never_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A waived rule is not measured: no probe, so no claim that it held."""
    report = tmp_path / "r.json"
    code = _run(tmp_path, f"{CHUNKERS}:correct", "--skip", "scales_linearly=slow on purpose",
                "--json", str(report))
    out = capsys.readouterr().out
    assert code == 0 and "waiver no longer needed" not in out
    waiver = _invariants(report)["scales_linearly"]["waiver"]
    assert waiver["evaluated"] is False
