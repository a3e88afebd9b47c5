"""Proof of red for the ``count_tokens_additive`` health check, through ``chunk-contract run``:
a plugin whose count_tokens is not additive where its chunks meet is warned about (and the run
still passes: a health check is never a violation); correct token plugins get no warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunk_contract.cli.main import main
from chunk_contract.exactjson import loads

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TOKENIZERS = HERE / "tokenizers.py"
#: No scaling probe (``quick``): health is judged on the examples, not on its documents.
ARGS = ("--max-examples", "30", "--seed", "7", "--no-corpus", "-q", "--profile", "quick")


def _run(target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict]:
    report = tmp_path / "report.json"
    status = main(["run", target, *ARGS, "--json", str(report),
                   "--reproducers", str(tmp_path / "repro")])
    return status, capsys.readouterr().out, loads(report.read_text())


@pytest.mark.parametrize("name", ["char_windows_word_tokens", "bare_char_windows_word_tokens"])
def test_a_non_additive_count_is_warned_about(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, report = _run(f"{TOKENIZERS}:{name}", tmp_path, capsys)
    assert status == 0, out  # every invariant holds; the warning is not a failure
    assert "WARNING (count_tokens_additive): count_tokens is not additive" in out
    assert "why it matters:" in out and "how to fix:" in out
    [found] = report["health"]
    assert found["check"] == "count_tokens_additive" and found["severity"] == "warning"
    assert "count_tokens(" in found["what"]


def test_a_declared_approximate_count_gets_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, report = _run(f"{TOKENIZERS}:approximate_word_tokens", tmp_path, capsys)
    assert status == 0 and "WARNING" not in out
    assert "NOTE (count_tokens_additive)" in out
    assert [f["severity"] for f in report["health"]] == ["note"]


@pytest.mark.parametrize(
    "target",
    [
        f"{TOKENIZERS}:char_tokens",
        str(ROOT / "chunk_contract_reference" / "header.py") + ":split",
        str(HERE / "correct.py") + ":token_words",
    ],
)
def test_correct_token_plugins_get_no_warning(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, report = _run(target, tmp_path, capsys)
    assert status == 0, out
    assert "count_tokens_additive" not in out
    assert report["health"] == []
    assert json.dumps(report["documents"]) == '"text"'
