"""The LangChain.js adapters: entry points, skip reasons, and each reviewed finding reproduced
through the bridge (skipped with a reason when node or the npm packages are missing)."""

from __future__ import annotations

import importlib
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from contract.engine.exec_child import ExecChild
from contract.engine.exec_probe import exec_session
from contract.engine.messages import Raised, Split
from contract.engine.targets import TargetError
from contract.integrations.adapters import conformance_js, langchainjs
from contract.integrations.adapters.findings import FINDINGS
from contract.spec.model import Config

ROOT = Path(__file__).resolve().parents[2]
needs_js = pytest.mark.skipif(
    langchainjs.unavailable() is not None, reason=str(langchainjs.unavailable())
)

REPRODUCERS = list(conformance_js.MINIMAL)


def test_every_entry_point_resolves_to_an_object_with_an_exec_command() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    points = meta["project"]["entry-points"]["chunk_contract.plugins"]
    js = {name: value for name, value in points.items() if name.startswith("langchainjs-")}
    assert set(js) == set(langchainjs.BY_NAME)
    for name, value in js.items():
        module, _, attr = value.partition(":")
        splitter = getattr(importlib.import_module(module), attr)
        command = splitter.exec_command
        assert splitter.name == name and Path(command[1]) == langchainjs.BRIDGE
        assert Path(command[1]).is_absolute() and command[2] == splitter.splitter
        assert splitter.target == "exec:" + " ".join(command)


def test_missing_node_is_a_clear_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    reason = langchainjs.Recursive.unavailable()
    assert reason and "langchainjs-recursive" in reason and "node" in reason
    assert langchainjs.Recursive.exec_command[0] == "node"


def test_missing_npm_packages_are_a_clear_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert langchainjs.npm_version(root=tmp_path) is None
    monkeypatch.setattr(langchainjs, "npm_version", lambda *a, **k: None)
    if langchainjs.node() is None:
        pytest.skip("node is not installed")
    reason = langchainjs.unavailable()
    assert reason and "npm ci --prefix" in reason and langchainjs.NPM_PACKAGE in reason


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_bridge_without_its_packages_is_a_usage_error_naming_the_install(
    tmp_path: Path,
) -> None:
    shutil.copy(langchainjs.BRIDGE, tmp_path / "bridge.mjs")
    child = ExecChild(f"exec:node {tmp_path / 'bridge.mjs'} recursive", start_timeout=20)
    with pytest.raises(TargetError, match="npm ci --prefix"):
        child.start()
    child.close()


@needs_js
def test_an_unknown_splitter_is_a_usage_error() -> None:
    child = ExecChild(f"exec:node {langchainjs.BRIDGE} nope", start_timeout=20)
    with pytest.raises(TargetError, match="one of: recursive, character"):
        child.start()
    child.close()


@needs_js
@pytest.mark.parametrize("splitter", langchainjs.SPLITTERS, ids=lambda s: s.name)
def test_each_splitter_hand_shakes_and_chunks_plain_text_cleanly(
    splitter: langchainjs.JsSplitter,
) -> None:
    text = "One sentence here.\n\nAnother one, a bit longer.\n\nA third line."
    with exec_session(splitter.target, timeout=10) as session:
        assert session.plugin.declarations.unit == "chars"
        seen = session.observe(text, Config(30, 5))
    assert seen.violations == [] and seen.records
    assert all(set(r) == {"text", "line_start", "line_end"} for r in seen.records)


@needs_js
def test_the_librarys_refusal_is_a_config_error() -> None:
    with exec_session(langchainjs.Recursive.target, timeout=10) as session:
        reply = session.worker.call(Split("abc", 3, 3))
    assert reply.ok and isinstance(reply.value, Raised) and reply.value.rejects
    assert "Cannot have chunkOverlap >= chunkSize" in reply.value.message


@needs_js
@pytest.mark.parametrize(("adapter", "document", "size", "overlap", "rule"), REPRODUCERS)
def test_each_reviewed_finding_reproduces(
    adapter: str, document: str, size: int, overlap: int, rule: str
) -> None:
    finding = FINDINGS[(adapter, rule)]
    with exec_session(langchainjs.BY_NAME[adapter].target, timeout=10) as session:
        seen = session.observe(document, Config(size, overlap))
    messages = [v.message for v in seen.violations if v.invariant == rule]
    assert messages, (adapter, rule, seen.violations, seen.records)
    assert any(re.search(finding.expect, m, re.S) for m in messages), messages


def test_the_conformance_page_flags_unreviewed_and_unexpected_violations() -> None:
    item = {"document": "a", "max_size": 1, "overlap": 0, "message": "something new"}
    runs = {"langchainjs-recursive": {"non_empty": item, "unique_ids": item}}
    found = conformance_js.problems(runs)
    assert any("non_empty: REVIEW AGAIN" in p for p in found)
    assert any("unique_ids: NOT REVIEWED" in p for p in found)
    page = conformance_js.render(runs, examples=1, seeds=(1,))
    assert "| `langchainjs-recursive` |" in page and "✗ ?" in page


def test_the_conformance_page_matches_its_runs_when_reviewed() -> None:
    item = {"document": "x a", "max_size": 1, "overlap": 0,
            "message": "chunk[1] is whitespace-only ' '"}
    runs = {"langchainjs-recursive": {"non_empty": item}}
    assert conformance_js.problems(runs) == []
    page = conformance_js.render(runs, examples=1, seeds=(1,))
    assert "✗ bug" in page and "document `'x a'`, max_size=1, overlap=0" in page
