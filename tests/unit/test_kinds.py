"""Input kinds: the ``documents`` declaration, its validation, and the generators it selects.

A markdown plugin's run draws mostly markdown, a ``code:python`` run mostly code that parses,
a text plugin's distribution is the default one unchanged, and a kind the contract cannot
generate is a usage error naming the kinds it can.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from chunk_contract.engine.runner import InvariantResult, RunResult, RunSettings, cases_for
from chunk_contract.errors import UsageError
from chunk_contract.generation.strategies import kinds
from chunk_contract.spec.model import DOCUMENT_KINDS, Declarations
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin, TargetError, from_object
from chunk_contract.transport.wire import HandshakeError, parse_handshake

EXAMPLES = 100
MARKDOWN = re.compile(
    r"^ {0,3}(#{1,6}([ \t]|$)|[-*+] |\d+[.)] |```|~~~|\|.*\||>|(=+|-+)[ \t]*$)|\]\(", re.M
)
HTML = re.compile(r"<[a-zA-Z][a-zA-Z0-9]*[\s/>]|<!--")  # an element's tag, or a comment
LATEX = re.compile(r"\\(section|subsection|begin|chapter|paragraph|subsubsection)\b")


def _plugin(documents: str) -> Plugin:
    return Plugin("t", None, Declarations(documents=documents))


def _draw(strategy: st.SearchStrategy[Any], n: int = EXAMPLES) -> list[Any]:
    """``n`` examples of ``strategy``, the same on every run (derandomized)."""
    out: list[Any] = []

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out


def _documents_of_run(documents: str) -> list[str]:
    cases = _draw(cases_for(_plugin(documents), RunSettings()))
    return [document for document, _config in cases]


def _share(documents: list[str], pattern: re.Pattern[str]) -> float:
    return sum(bool(pattern.search(d)) for d in documents) / len(documents)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


# --------------------------------------------------------------------------- the generators


def test_a_markdown_run_is_mostly_markdown() -> None:
    docs = _documents_of_run("markdown")
    assert _share(docs, MARKDOWN) > 0.6


def test_a_python_run_mostly_parses_as_python() -> None:
    docs = _documents_of_run("code:python")
    assert sum(map(_parses, docs)) / len(docs) > 0.6


def test_an_html_run_is_mostly_html_and_a_latex_run_mostly_latex() -> None:
    assert _share(_documents_of_run("html"), HTML) > 0.6
    assert _share(_documents_of_run("latex"), LATEX) > 0.6


def test_a_javascript_run_is_mostly_javascript() -> None:
    declared = re.compile(r"\b(function|const|let|class)\b.*[{;=]")
    assert _share(_documents_of_run("code:javascript"), declared) > 0.6


def test_a_kind_run_keeps_the_adversarial_documents() -> None:
    """The adversarial mixture still plays: some documents are not of the declared kind."""
    docs = _documents_of_run("code:python")
    assert any(not _parses(d) for d in docs)
    assert any(any(ord(c) > 0xFFFF or c in "\r\u2028" for c in d) for d in docs)


def test_the_python_generator_alone_always_parses() -> None:
    docs = _draw(kinds.kind_documents("code:python", max_length=2000))
    assert all(map(_parses, docs))
    assert any("@" in d and "class " in d for d in docs)  # decorators and classes occur


@pytest.mark.parametrize("kind", [k for k in DOCUMENT_KINDS if k != "text"])
@pytest.mark.parametrize("max_length", [1, 60])
def test_each_kind_respects_max_length(kind: str, max_length: int) -> None:
    docs = _draw(kinds.kind_documents(kind, max_length=max_length), n=15)
    assert all(isinstance(d, str) and len(d) <= max_length for d in docs)


def test_a_text_plugin_draws_the_default_distribution_unchanged() -> None:
    from chunk_contract.generation import strategies

    default = strategies.cases(kind="text", max_length=RunSettings().max_length, degenerate=True,
                               real_sizes=True)
    assert _draw(cases_for(_plugin("text"), RunSettings())) == _draw(default)


def test_every_declarable_kind_has_a_generator() -> None:
    assert set(kinds.GENERATORS) | {"text"} == set(DOCUMENT_KINDS)


# --------------------------------------------------------------------------- the declaration


class _Declares:
    def __init__(self, documents: Any, kind: str = "text") -> None:
        self.documents = documents
        self.kind = kind

    def split(self, document: str, *, max_size: int, overlap: int) -> list[str]:
        return [document]


def test_a_declared_kind_is_read() -> None:
    assert from_object(_Declares("markdown"), name="p").declarations.documents == "markdown"
    assert from_object(_Declares("text"), name="p").declarations.documents == "text"


@pytest.mark.parametrize("documents", ["yaml", "code:cobol", "Markdown", "", None, 3])
def test_an_unknown_kind_is_a_usage_error_naming_the_known_ones(documents: Any) -> None:
    with pytest.raises(TargetError) as raised:
        from_object(_Declares(documents), name="p")
    assert isinstance(raised.value, UsageError)
    message = str(raised.value)
    assert repr(documents) in message
    assert all(repr(kind) in message for kind in DOCUMENT_KINDS)


def test_an_unknown_kind_is_refused_at_load_in_the_worker(tmp_path: Any) -> None:
    path = tmp_path / "plugin.py"
    path.write_text("def split(d, *, max_size, overlap):\n    return [d]\n\n"
                    "split.documents = 'code:cobol'\n")
    with pytest.raises(TargetError, match=r"code:cobol.*'markdown'"):
        load(f"{path}:split")


def test_a_workbook_plugin_may_not_declare_documents() -> None:
    with pytest.raises(TargetError, match="text plugins only"):
        from_object(_Declares("markdown", kind="workbook"), name="p")
    assert from_object(_Declares("text", kind="workbook"), name="p").declarations.kind == (
        "workbook"
    )


def test_the_handshake_carries_documents() -> None:
    line = b'{"chunk_contract": 1, "documents": "html"}'
    assert parse_handshake(line).declarations().documents == "html"
    assert parse_handshake(b'{"chunk_contract": 1}').declarations().documents == "text"
    with pytest.raises(HandshakeError, match="'latex'"):
        parse_handshake(b'{"chunk_contract": 1, "documents": "rst"}')
    with pytest.raises(HandshakeError, match="text plugins only"):
        parse_handshake(b'{"chunk_contract": 1, "kind": "workbook", "documents": "html"}')


def test_the_reports_name_the_declared_kind() -> None:
    from chunk_contract.reporting.json_report import report_json
    from chunk_contract.reporting.text import render

    rows = [InvariantResult("non_empty", "passed", 1)]
    result = RunResult("t", "text", 1, 0, rows, documents="code:python")
    assert render(result).splitlines()[0].startswith("chunk-contract · t (text, documents code:")
    assert report_json(result)["documents"] == "code:python"
    plain = RunResult("t", "text", 1, 0, rows)
    assert "(text)" in render(plain).splitlines()[0]
    assert report_json(plain)["documents"] == "text"


def test_an_unknown_kind_exits_2_with_one_line(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from chunk_contract.cli.main import main

    path = tmp_path / "plugin.py"
    path.write_text("def split(d, *, max_size, overlap):\n    return [d]\n\n"
                    "split.documents = 'yaml'\n")
    assert main(["run", f"{path}:split", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "documents = 'yaml'" in err[0] and "'code:python'" in err[0]
