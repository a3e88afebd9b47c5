"""Input kinds end to end: ``chunk_contract.run`` on a plugin declaring ``documents`` feeds it
mostly documents of that kind (measured on what the plugin was called with), and names the kind in
its reports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from chunk_contract.engine.runner import RunSettings, run

HERE = Path(__file__).resolve().parent
PLUGINS = HERE / "kinds_plugins.py"
SETTINGS = RunSettings(max_examples=80, seed=11, corpus=False, schedule=False, probe=False,
                       measure=False, diagnose=False)
MARKDOWN = re.compile(
    r"^ {0,3}(#{1,6}([ \t]|$)|[-*+] |\d+[.)] |```|~~~|\|.*\||>|(=+|-+)[ \t]*$)|\]\(", re.M
)


def _fed(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The distinct documents a run fed ``kinds_plugins.<name>``."""
    log = tmp_path / "fed.txt"
    monkeypatch.setenv("KINDS_LOG", str(log))
    result = run(f"{PLUGINS}:{name}", SETTINGS)
    assert result.passed, [r.id for r in result.violated]
    assert result.documents == {"markdown": "markdown", "python": "code:python"}[name]
    lines = log.read_text(encoding="ascii").splitlines()
    return sorted({ast.literal_eval(line) for line in lines})


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def test_a_markdown_plugins_run_is_mostly_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fed = _fed("markdown", tmp_path, monkeypatch)
    assert len(fed) >= 40
    assert sum(bool(MARKDOWN.search(d)) for d in fed) / len(fed) > 0.6


def test_a_python_plugins_run_mostly_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fed = _fed("python", tmp_path, monkeypatch)
    assert len(fed) >= 40
    assert sum(map(_parses, fed)) / len(fed) > 0.6
