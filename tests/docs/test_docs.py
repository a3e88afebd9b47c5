"""The documentation stays true: every runnable code block runs as written, data blocks parse,
the generated reference pages match the code, and the README's quick start works in a fresh
environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.docs.blocks import ROOT, Block, all_blocks, blocks, commands, pages

BLOCKS = all_blocks()
sys.path.insert(0, str(ROOT / "scripts"))
import gen_reference  # noqa: E402

PARSERS = {"toml": tomllib.loads, "yaml": yaml.safe_load, "json": json.loads}


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in PARSERS], ids=str)
def test_every_data_block_parses(block: Block) -> None:
    PARSERS[block.lang](block.text)


def test_every_code_block_runs_or_says_why() -> None:
    """A command or program block is run by test_each_page_runs, or marked with a reason."""
    silent = [str(b) for b in BLOCKS if b.lang in {"sh", "python", "js"}
              and b.mark == "not-run" and not b.value]
    unknown = [f"{b} ({b.lang})" for b in BLOCKS if b.lang in {"bash", "console", "shell"}]
    assert not silent, f"not-run without a reason: {silent}"
    assert not unknown, f"write shell blocks as ```sh: {unknown}"


def test_the_block_reader_sees_marks_and_files(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not-run: it installs -->\n```sh\npip install x\n```\n\n"
        "<!-- expect-exit: 1 -->\n```sh\nfalse  # fails\n```\n\n"
        "```python\n# plugin.py\nx = 1\n```\n"
    )
    found = list(blocks(page))
    assert [(b.mark, b.value, b.runs) for b in found] == [
        ("not-run", "it installs", False), ("expect-exit", "1", True), ("", "", True)]
    assert found[1].expected_exit == 1 and commands(found[1]) == ["false"]
    assert found[2].file == "plugin.py"


def _scratch(folder: Path) -> dict[str, str]:
    """A reader's folder: the repository's chunkers and tests at hand, the package importable."""
    for name in ("chunk_contract_reference", "tests"):
        (folder / name).symlink_to(ROOT / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "true", "NO_COLOR": "1"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(command: list[str], folder: Path, env: dict[str, str], block: Block) -> None:
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == block.expected_exit, (
        f"{block}: {' '.join(command)} exited {done.returncode}\n{done.stdout[-3000:]}"
        f"\n{done.stderr[-3000:]}")


def run_block(block: Block, folder: Path, env: dict[str, str]) -> None:
    """Run one block as a reader would, in ``folder``."""
    if block.file:
        target = folder / block.file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
        if block.lang == "python" and Path(block.file).name.startswith("test_"):
            _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", block.file],
                 folder, env, block)
        elif block.lang == "python":
            _run([sys.executable, block.file], folder, env, block)
        return
    if block.lang == "python":
        _run([sys.executable, "-c", block.text], folder, env, block)
    for command in commands(block) if block.lang == "sh" else []:
        _run(["bash", "-c", command], folder, env, block)


RUNNABLE_PAGES = [p for p in pages() if any(b.runs for b in blocks(p))]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_page_runs(page: Path, tmp_path: Path) -> None:
    """The page's runnable blocks, in order, in one scratch folder (a file block written by an
    earlier block is there for a later command)."""
    if any(b.lang == "js" and b.runs for b in blocks(page)) and not shutil.which("node"):
        pytest.skip("platform: node is not installed")
    env = _scratch(tmp_path)
    for block in blocks(page):
        if block.runs and not (page.name == "README.md" and "bootstrap" in block.text):
            run_block(block, tmp_path, env)


def test_a_failing_block_fails_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\nexit 3\n```\n")
    with pytest.raises(AssertionError, match="exited 3"):
        run_block(next(blocks(page)), tmp_path, dict(os.environ))


def test_the_generated_reference_pages_are_current() -> None:
    assert gen_reference.stale() == [], "run: python scripts/gen_reference.py"


def test_the_reference_lists_every_flag_invariant_key_and_adapter() -> None:
    from chunk_contract.config import pyproject
    from chunk_contract.integrations.adapters import ADAPTERS
    from chunk_contract.spec.registry import registry

    pages = {name: (ROOT / "docs" / "reference" / name).read_text(encoding="utf-8")
             for name in gen_reference.PAGES}
    flags = {s for p in gen_reference.command_parsers().values() for a in p._actions
             if a.help != "==SUPPRESS==" for s in a.option_strings}
    assert [f for f in sorted(flags) if f"`{f}`" not in pages["cli.md"]] == []
    assert [i for i in registry() if f"## `{i}`" not in pages["invariants.md"]] == []
    keys = {k.replace("_", "-") for k in pyproject.top_keys()}
    assert [k for k in sorted(keys) if f"`{k}`" not in pages["configuration.md"]] == []
    assert [a.name for a in ADAPTERS if f"`{a.name}`" not in pages["adapters.md"]] == []


#: The keys of SPEC §7's own example: everything else the JSON report writes is an extension.
SPEC_KEYS = {"version", "target", "passed", "invariants", "id", "status", "examples",
             "counterexample", "document", "config", "max_size", "overlap", "message", "chunks",
             "reproducer"}


def _keys(tree: object) -> set[str]:
    if isinstance(tree, dict):
        return set(tree) | {k for value in tree.values() for k in _keys(value)}
    return {k for item in tree for k in _keys(item)} if isinstance(tree, list) else set()


def test_the_report_guide_lists_every_extension_key_of_the_json_report() -> None:
    """A report with every optional part (a baseline, a waiver, a signal, a cut chunk list, a
    diagnosis) writes no key that is neither SPEC §7's nor listed in the report guide."""
    from chunk_contract.diagnosis.base import Diagnosis
    from chunk_contract.engine.findings import BaselineEntry
    from chunk_contract.engine.health import Finding
    from chunk_contract.engine.results import (
        Counterexample,
        InvariantResult,
        PhaseTime,
        RunResult,
        RunSettings,
    )
    from chunk_contract.generation.strategies.coverage import Coverage
    from chunk_contract.reporting.json_report import report_json
    from chunk_contract.spec.model import Config

    found = Counterexample("no_lost_text", "x y", Config(3, 1), ["lost 'y'"],
                           [{"text": "x" * 2**20, "start": 0, "end": 1}] * 2, shrunk=True,
                           offending=[0], diagnosis=Diagnosis("p", "cause", "fix", "evidence"),
                           follows_from="ordered", baseline="new", replayed_from="r.json")
    results = [InvariantResult("no_lost_text", "violated", 4, found),
               InvariantResult("ordered", "waived", 4, found, reason="known"),
               InvariantResult("non_empty", "skipped", 0, reason="why")]
    result = RunResult(
        "t.py:split", "text", 7, 4, results, 1.25, RunSettings(baseline=Path("b.json")),
        examples_asked=5, stopped_early="budget", coverage=Coverage(3, 4, {"f": (1, 2)}, ()),
        health=[Finding("check", "warning", "what", "why", "fix")],
        phases={"exploration": PhaseTime(1.5, 0.75, 0.25)}, total_time=PhaseTime(2.0, 1.0, 0.5),
        fixed=[BaselineEntry("t.py:split", "ordered", "cause", "message")],
        interrupted=True, interrupted_reason="SIGTERM",
    )
    report = report_json(result)
    assert "chunks_truncated" in report["invariants"][0]["counterexample"]  # the cut was made
    guide = (ROOT / "docs" / "how-to" / "read-a-report.md").read_text(encoding="utf-8")
    data = {"exploration", "f", "text", "start", "end"}  # a phase, a factor, a chunk's fields
    extensions = sorted(_keys(report) - SPEC_KEYS - data)
    missing = [k for k in extensions if f"`{k}`" not in guide]
    assert extensions and missing == [], missing


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- quickstart -->", 1)[1].split("<!-- /quickstart -->", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines()
            if line.strip() and not line.startswith("```")]


def test_the_quick_start_is_two_commands_from_a_fresh_venv() -> None:
    first, second = _quick_start()
    assert first.startswith("python3 scripts/bootstrap.py") and "nox -s contract" in first
    assert second == ".venv/bin/nox -s tests"


@pytest.mark.slow
def test_the_quick_start_runs_in_a_fresh_clone_without_ensurepip(tmp_path: Path) -> None:
    """The README's first command, verbatim, in a fresh clone, with a Python whose venv comes
    without pip (as Debian's python3 without python3-venv): the contract runs and passes."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    for path in ("scripts/bootstrap.py", "README.md", "noxfile.py"):
        shutil.copy(ROOT / path, clone / path)  # the working tree's, committed or not
    shim = tmp_path / "bin"
    shim.mkdir()
    no_ensurepip = ("import runpy, sys; sys.modules['ensurepip'] = None; sys.argv = sys.argv[1:]; "
                    "runpy.run_path(sys.argv[0], run_name='__main__')")
    (shim / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} -c "{no_ensurepip}" "$@"\n')
    (shim / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "NOX"))}
    env["PATH"] = f"{shim}{os.pathsep}/usr/bin:/bin"
    done = subprocess.run(["sh", "-c", _quick_start()[0]], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Session contract was successful" in done.stdout + done.stderr
