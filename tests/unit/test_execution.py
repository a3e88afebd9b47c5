"""One observation: engine verdicts and the metamorphic twins built by the session."""

from __future__ import annotations

from typing import Any

from contract.engine.session import Session
from contract.spec.model import Config
from contract.spec.registry import registry
from contract.transport.targets import from_object


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
