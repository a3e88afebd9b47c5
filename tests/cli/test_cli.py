"""The command line of SPEC §6: exit codes, reports, reproducers, replay, check, list."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chunk_contract.cli.main import main
from chunk_contract.spec.registry import EXTENSION_IDS, SPEC_IDS

HERE = Path(__file__).parent
PLUGINS = f"{HERE / 'plugins.py'}"
FIXED = "chunk_contract_reference/fixed.py:split"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.chdir(HERE.parent.parent)
    return tmp_path


def run_cli(*args: str, tmp_path: Path | None = None) -> int:
    extra = ["--reproducers", str(tmp_path / "repro")] if tmp_path and args[0] == "run" else []
    return main([*args, *extra])


@pytest.mark.parametrize(
    "target, says",
    [
        ("missing/file.py:split", "no such file"),
        (f"{PLUGINS}:nope", "has no attribute 'nope'"),
        (f"{PLUGINS}:not_callable", "is not callable"),
        ("no_such_module_xyz:split", "cannot import"),
        ("no-such-plugin-name", "no plugin of that name"),
    ],
)
def test_bad_target_is_a_usage_error(
    target: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", target, "-q"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_syntax_error_in_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def split(d, *, max_size, overlap):\n    return [d\n")
    assert main(["run", f"{broken}:split", "-q"]) == 2
    err = capsys.readouterr().err
    assert "syntax error" in err and "line 2" in err and "Traceback" not in err


def test_console_script_exit_code_for_bad_flag() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", FIXED, "--max-examples", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "expected a number" in done.stderr


def test_unknown_invariant_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", FIXED, "--only", "cap_respectd"]) == 2
    assert "unknown invariant id(s) cap_respectd" in capsys.readouterr().err


def test_reference_chunker_passes_with_json_and_junit(tmp_path: Path) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code = run_cli(
        "run",
        FIXED,
        "--max-examples",
        "60",
        "--seed",
        "7",
        "-q",
        "--json",
        str(report),
        "--junit",
        str(junit),
        tmp_path=tmp_path,
    )
    assert code == 0
    data = json.loads(report.read_text())
    assert data["version"] == 1 and data["passed"] is True and data["target"] == FIXED
    ids = [item["id"] for item in data["invariants"]]
    assert ids == [*SPEC_IDS, *EXTENSION_IDS]  # SPEC order, then the (opt-in) extensions
    assert {item["status"] for item in data["invariants"]} <= {"passed", "violated", "skipped"}
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert sorted(c.get("name") for c in cases) == sorted([*SPEC_IDS, *EXTENSION_IDS])
    assert not ET.parse(junit).getroot().findall(".//failure")


def test_violation_report_json_reproducer_and_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code = run_cli(
        "run",
        f"{PLUGINS}:words_only",
        "--seed",
        "3",
        "--profile",  # the reports and the replay, not the scaling probe (tests/scale has it)
        "quick",
        "-q",
        "--json",
        str(report),
        "--junit",
        str(junit),
        tmp_path=tmp_path,
    )
    assert code == 1
    out = capsys.readouterr().out
    assert (
        "____ no_lost_text" in out and "Reproduce with:" in out and "chunk-contract replay" in out
    )
    data = json.loads(report.read_text())
    lost = next(i for i in data["invariants"] if i["id"] == "no_lost_text")
    example = lost["counterexample"]
    assert lost["status"] == "violated" and "lies in no chunk" in example["message"]
    assert set(example) >= {"document", "config", "message", "chunks", "reproducer"}
    assert len(example["document"]) <= 10, "the counterexample is shrunk"
    failures = ET.parse(junit).getroot().findall(".//testcase/failure")
    assert "no_lost_text" in {f.get("type") for f in failures}
    assert main(["replay", example["reproducer"], "--trust-target"]) == 1
    assert "STILL FAILS: no_lost_text" in capsys.readouterr().out


def test_replay_of_a_fixed_bug_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "r.json"
    saved.write_text(
        json.dumps(
            {
                "format": "chunk-contract-reproducer",
                "version": 1,
                "target": f"{PLUGINS}:slices",
                "invariant": "no_lost_text",
                "kind": "text",
                "document": "ab cd",
                "config": {"max_size": 3, "overlap": 0},
                "message": "old",
            }
        )
    )
    assert main(["replay", str(saved), "--trust-target"]) == 0
    assert "FIXED" in capsys.readouterr().out


def test_replay_rejects_other_files(tmp_path: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text("{}")
    assert main(["replay", str(other), "--trust-target"]) == 2
    assert main(["replay", str(tmp_path / "missing.json"), "--trust-target"]) == 2


def test_hang_is_reported_and_the_run_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(
        "run",
        f"{PLUGINS}:hangs",
        "--seed",
        "1",
        "--max-examples",
        "40",
        "--timeout",
        "0.5",
        "-q",
        "--only",
        "terminates",
        tmp_path=tmp_path,
    )
    assert code == 1
    out = capsys.readouterr().out
    assert "____ terminates" in out and "the call was killed" in out


def test_abort_is_a_crash_not_the_suites_death(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(
        "run",
        f"{PLUGINS}:aborts",
        "--seed",
        "1",
        "--max-examples",
        "60",
        "-q",
        "--only",
        "no_crash",
        tmp_path=tmp_path,
    )
    assert code == 1
    out = capsys.readouterr().out
    assert "SIGABRT" in out
    assert re.search(r"document = '[0-9]'", out), out


def test_only_and_skip_select_invariants(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    run_cli(
        "run",
        FIXED,
        "--max-examples",
        "20",
        "-q",
        "--skip",
        "ordered,no_lost_text",
        "--json",
        str(report),
        tmp_path=tmp_path,
    )
    status = {
        i["id"]: (i["status"], i.get("reason"))
        for i in json.loads(report.read_text())["invariants"]
    }
    assert status["ordered"] == ("skipped", "waived: no reason given (--skip)")  # not gating
    assert status["cap_respected"][0] == "passed"


def test_check_on_real_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # check saves its reproducers under the current folder
    good = tmp_path / "doc.txt"
    good.write_text("alpha beta\n\ngamma supercalifragilistic\n", encoding="utf-8")
    assert main(["check", f"{PLUGINS}:slices", str(good), "--max-size", "8", "--overlap", "2"]) == 0
    assert main(["check", f"{PLUGINS}:words_only", str(good), "--max-size", "8"]) == 1
    assert "supercal" in capsys.readouterr().out


def test_check_judges_deterministic_across_interpreters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids from hash() agree with themselves in the forked worker; ``check`` re-chunks the file
    in fresh interpreters, as ``run`` does its inputs, and names the file."""
    monkeypatch.chdir(tmp_path)
    doc = tmp_path / "doc.txt"
    doc.write_text("alpha beta\n\ngamma delta epsilon\n", encoding="utf-8")
    target = f"{HERE.parent / 'defects' / 'chunkers.py'}:hash_ids"
    assert main(["check", target, str(doc), "--max-size", "8"]) == 1
    assert f"in {doc}: a fresh interpreter (PYTHONHASHSEED=" in capsys.readouterr().out


def test_check_rejects_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert main(["check", FIXED, str(binary), "--max-size", "8"]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_list_names_every_invariant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(rule in out for rule in SPEC_IDS)
