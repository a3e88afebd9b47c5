"""The GitHub Action, the example workflow and the pre-commit hooks: structure, and the
action's own shell step run for real on the sample project."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.cli.main import build_parser
from tests.gate.conftest import ROOT, subprocess_env

yaml = pytest.importorskip("yaml")


def load(name: str) -> Any:
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


def test_action_inputs_and_steps() -> None:
    action = load("action.yml")
    assert {"target", "profile", "python-version"} <= set(action["inputs"])
    assert action["inputs"]["profile"]["default"] == "ci"
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    for step in steps:
        if "run" in step:
            assert step["shell"] == "bash"  # composite run steps must name their shell
            assert "${{ inputs." not in step["run"]  # inputs reach scripts via env only


def test_the_verdict_shows_after_a_failure_and_installs_come_from_the_checkout() -> None:
    """The verdict step runs after any failure (``always()``); chunk-contract is installed from
    the action's own checkout unless the ``chunk-contract`` input names a requirement."""
    verdict = _step("Verdict")
    assert "always()" in verdict.get("if", "")
    install = _step("Install chunk-contract")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '"$ACTION_PATH"' in install["run"]
    assert load("action.yml")["inputs"]["chunk-contract"]["default"] == ""


def test_example_workflow_uses_the_action() -> None:
    workflow = load(".github/workflows/example.yml")
    assert workflow["permissions"]["security-events"] == "write"
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    used = [s for s in steps if s.get("uses") == "./"]
    assert {s["with"]["profile"] for s in used} == {"ci", "nightly"}


def test_pre_commit_hooks_run_valid_commands() -> None:
    hooks = load(".pre-commit-hooks.yaml")
    assert {h["id"] for h in hooks} == {"chunk-contract", "chunk-contract-system"}
    for hook in hooks:
        assert hook["pass_filenames"] is False
        words = shlex.split(hook["entry"])
        assert words[0] == "chunk-contract"
        args = build_parser().parse_args(words[1:])  # flags the CLI really has
        assert args.command == "run" and args.target is None
        assert args.profile == "quick"  # 1 to 1.6 s a commit; CI runs the rest


def _step(name: str) -> dict[str, Any]:
    return next(s for s in load("action.yml")["runs"]["steps"] if s.get("name") == name)


def test_the_action_run_step_on_the_sample_project(sample: Path, tmp_path: Path) -> None:
    """Run the action's bash script as GitHub would, with a stand-in ``chunk-contract``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "chunk-contract"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m chunk_contract.cli.main "$@"\n')
    shim.chmod(0o755)
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = subprocess_env(
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        RUNNER_TEMP=str(tmp_path),
        GITHUB_OUTPUT=str(output),
        GITHUB_STEP_SUMMARY=str(summary),
        TARGET="",
        PROFILE="ci",
        SARIF="out.sarif",
        HTML="report.html",
        REPRODUCERS="saved",
        ARGS="--max-examples 20",
    )
    script = _step("Run the contract")["run"]
    done = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=sample,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # the verdict comes later, after the upload
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs == {"exit-code": "1", "sarif": "out.sarif",
                       "reproducers": f"{sample}/saved", "html": f"{sample}/report.html"}
    (saved,) = (sample / "saved").iterdir()
    assert saved.name.startswith("no_lost_text-")
    log = json.loads((sample / "out.sarif").read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["no_lost_text"]
    assert summary.read_text().startswith("## chunk-contract: ❌ 1 violation")
    assert "✗ no_lost_text" in (sample / "report.html").read_text(encoding="utf-8")

    verdict = _step("Verdict")["run"]
    for code, expected in (("0", 0), ("1", 1), ("2", 2)):
        done = subprocess.run(
            ["bash", "-e", "-c", verdict],
            env={**env, "CODE": code},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == expected


def test_the_upload_step_uploads_what_the_run_step_writes() -> None:
    """The artifact holds the very files the run step wrote: the run step passes the
    ``reproducers`` and ``html`` inputs to ``chunk-contract run`` and names them in its outputs,
    and the upload step (actions/upload-artifact@v4, also after a failure) uploads exactly
    those outputs."""
    action = load("action.yml")
    run = _step("Run the contract")
    assert run["env"]["REPRODUCERS"] == "${{ inputs.reproducers }}"
    assert run["env"]["HTML"] == "${{ inputs.html }}"
    assert '--reproducers "$REPRODUCERS"' in run["run"] and '--html "$HTML"' in run["run"]
    assert 'echo "reproducers=$PWD/$REPRODUCERS"' in run["run"]
    assert 'echo "html=$PWD/$HTML"' in run["run"]
    upload = next(s for s in action["runs"]["steps"]
                  if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["uses"] == "actions/upload-artifact@v4"
    assert upload["if"].startswith("${{ always() && inputs.upload-artifacts == 'true'")
    paths = upload["with"]["path"].strip().splitlines()
    assert paths == ["${{ steps.contract.outputs.reproducers }}",
                     "${{ steps.contract.outputs.html }}"]
    assert upload["with"]["name"] == "${{ inputs.artifact-name }}"
    assert upload["with"]["include-hidden-files"] is True  # .chunk-contract/ is hidden
    steps = [s.get("name") for s in action["runs"]["steps"]]
    assert steps.index(upload["name"]) < steps.index("Verdict")  # before the failing step


def test_every_input_is_documented_and_used() -> None:
    action = load("action.yml")
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    for name, spec in action["inputs"].items():
        assert len(spec.get("description", "")) > 20, name
        assert "default" in spec, name
        assert f"inputs.{name} }}}}" in text or f"inputs.{name} " in text, name
    assert action["inputs"]["html"]["default"] == "chunk-contract-report.html"
    assert action["inputs"]["reproducers"]["default"] == ".chunk-contract/reproducers"
