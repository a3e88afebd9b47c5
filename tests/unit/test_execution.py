"""One observation: engine verdicts and the metamorphic twins built by the session."""

from __future__ import annotations

from typing import Any

from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config
from chunk_contract.spec.registry import registry
from chunk_contract.transport.targets import from_object


def _lines(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Correct for newline_invariance: normalise CRLF once, then one chunk per line."""
    text = document.replace("\r\n", "\n")
    return [line for line in text.split("\n") if line.strip()]


_lines.newlines = "lf"  # type: ignore[attr-defined]
_lines.promises = ("newline_invariance",)  # type: ignore[attr-defined]


def _crlf_blind(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Defective: splits on LF only, so a CRLF document keeps "\\r" at every line end."""
    return [line for line in document.split("\n") if line.strip()]


_crlf_blind.promises = ("newline_invariance",)  # type: ignore[attr-defined]


def observe(function: Any, document: str) -> list[str]:
    plugin = from_object(function, name=function.__name__)
    with Session(plugin, timeout=2.0, memory_mb=None, selected=list(registry())) as session:
        seen = session.observe(document, Config(10, 0), only="newline_invariance")
    return [v.message for v in seen.violations]


def test_lone_cr_before_crlf_is_not_a_newline_invariance_violation() -> None:
    # "\r\r\n" has no LF twin: replacing CRLF leaves a new CRLF behind. Never report it.
    assert observe(_lines, "three\r\r\nee") == []


def test_correct_chunker_keeps_newline_invariance() -> None:
    assert observe(_lines, "alpha\r\nbeta\n\ngamma") == []


def test_crlf_blind_chunker_breaks_newline_invariance() -> None:
    found = observe(_crlf_blind, "alpha\nbeta")
    assert len(found) == 1
    assert "chunks differently from its LF version" in found[0]


def _calls(function: Any, document: str) -> list[str]:
    """The documents the session sends for one newline_invariance observation."""
    plugin = from_object(function, name=function.__name__)
    sent: list[str] = []
    with Session(plugin, timeout=2.0, memory_mb=None, selected=["newline_invariance"]) as session:
        call = session.transport.call

        def counted(request: Any, **kwargs: Any) -> Any:
            sent.append(request.document)
            return call(request, **kwargs)

        session.transport.call = counted  # type: ignore[method-assign]
        session.observe(document, Config(10, 0), only="newline_invariance", rerun=False)
    return sent


def test_a_twin_that_is_the_document_itself_is_not_chunked_again() -> None:
    """An LF document is its own LF twin, a CRLF one its own CRLF twin: one more call, not two;
    a document of both kinds of line end needs both twins."""
    assert _calls(_lines, "alpha\nbeta") == ["alpha\nbeta", "alpha\r\nbeta"]
    assert _calls(_lines, "alpha\r\nbeta") == ["alpha\r\nbeta", "alpha\nbeta"]
    assert _calls(_lines, "a\r\nb\nc") == ["a\r\nb\nc", "a\r\nb\r\nc", "a\nb\nc"]


def test_the_blind_chunker_is_caught_on_a_crlf_document_too() -> None:
    """Its CRLF twin is the document's own call: the LF twin still shows the difference."""
    found = observe(_crlf_blind, "alpha\r\nbeta")
    assert len(found) == 1 and "chunks differently" in found[0]
