"""The LangChain.js adapters: entry points, skip reasons, and each reviewed finding reproduced
through the bridge (skipped with a reason when node or the npm packages are missing)."""

from __future__ import annotations

import importlib
import shutil
import tomllib
from pathlib import Path

import pytest

from chunk_contract.engine.exec_probe import exec_session
from chunk_contract.integrations.adapters import findings, langchainjs
from chunk_contract.spec.model import Config
from chunk_contract.transport.exec_child import ExecChild
from chunk_contract.transport.messages import Raised, Split
from chunk_contract.transport.targets import TargetError

ROOT = Path(__file__).resolve().parents[2]
needs_js = pytest.mark.skipif(
    langchainjs.unavailable() is not None, reason=str(langchainjs.unavailable())
)

#: (adapter, document, max_size, overlap, invariant): the hand-reduced case of each finding.
REPRODUCERS: list[tuple[str, str, int, int, str]] = [
    ("langchainjs-recursive", "x a", 1, 0, "non_empty"),
    ("langchainjs-recursive", "\U0001f600", 1, 0, "codepoint_integrity"),
    ("langchainjs-recursive", "\ufeffab", 2, 0, "no_lost_text"),
    ("langchainjs-recursive", "a\nb", 1, 0, "line_citations"),
    ("langchainjs-recursive", "a\nbc\nd", 2, 1, "ordered"),
    ("langchainjs-recursive", "a b", 1, -1, "config_validation"),
    ("langchainjs-markdown", "\U0001f600", 1, 0, "codepoint_integrity"),
    ("langchainjs-latex", "x a", 1, 0, "non_empty"),
    ("langchainjs-python", "a\nbc\nd", 2, 1, "ordered"),
    ("langchainjs-js", "\ufeffab", 2, 0, "no_lost_text"),
    ("langchainjs-character", "TITLE\nAUTHOR\nDATE", 1, 0, "cap_respected"),
    ("langchainjs-character", "\ufeffa", 5, 0, "no_lost_text"),
    ("langchainjs-character", "a\n\n\x1d", 1, 0, "non_empty"),
    ("langchainjs-character", "\x85", 3, 1, "non_empty"),
    ("langchainjs-character", "a\n\nb", 1, -1, "config_validation"),
]


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
        assert Path(command[1]).is_absolute() and command[2] == splitter.argument
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
        reply = session.transport.call(Split("abc", 3, 3))
    assert reply.ok and isinstance(reply.value, Raised) and reply.value.rejects
    assert "Cannot have chunkOverlap >= chunkSize" in reply.value.message


@needs_js
def test_a_cut_astral_character_is_reported_once_under_codepoint_integrity() -> None:
    """The halves of a cut character are text the document does not hold only because of the
    cut: span_fidelity follows from codepoint_integrity, whose finding explains both."""
    with exec_session(langchainjs.Recursive.target, timeout=10) as session:
        seen = session.observe("\U0001f600", Config(1, 0))
    found = {v.invariant: v.follows_from for v in seen.violations}
    assert found.get("codepoint_integrity", "missing") is None
    assert found.get("span_fidelity") == "codepoint_integrity"
    assert ("langchainjs-recursive", "span_fidelity") not in findings.load()


@needs_js
@pytest.mark.parametrize(("adapter", "document", "size", "overlap", "rule"), REPRODUCERS)
def test_each_reviewed_finding_reproduces(
    adapter: str, document: str, size: int, overlap: int, rule: str
) -> None:
    finding = findings.load()[(adapter, rule)]
    with exec_session(langchainjs.BY_NAME[adapter].target, timeout=10) as session:
        seen = session.observe(document, Config(size, overlap))
    messages = [v.message for v in seen.violations if v.invariant == rule]
    assert messages, (adapter, rule, seen.violations, seen.records)
    assert any(finding.matches(m) for m in messages), messages
