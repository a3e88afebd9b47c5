"""The HTML report (``--html``): spans drawn where the chunks are, lost text and overlaps marked
without colour alone, long documents folded, workbooks drawn as grids; checked in a browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from chunk_contract.diagnosis import Diagnosis
from chunk_contract.engine.runner import Counterexample, InvariantResult, RunResult
from chunk_contract.reporting.html import MAX_CELLS, render_html, write_html
from chunk_contract.spec.model import Config


def _result(document: object, chunks: list[dict[str, object]], *, invariant: str = "no_lost_text",
            offending: list[int] | None = None, kind: str = "text") -> RunResult:
    found = Counterexample(invariant, document, Config(4, 1), ["observed vs allowed"], chunks,
                           shrunk=True, reproducer=".chunk-contract/reproducers/x.json",
                           offending=offending or [],
                           diagnosis=Diagnosis("overlap_on_top", "the cause", "the fix", "seen"))
    item = InvariantResult(invariant, "violated", 10, found)
    return RunResult("plugin.py:split", kind, 7, 10, [item])


def _bands(page: str) -> list[tuple[int, int, int]]:
    return [(int(c), int(a), int(b)) for c, a, b in
            re.findall(r'data-chunk="(\d+)" data-from="(\d+)" data-to="(\d+)"', page)]


def test_bands_sit_where_the_chunks_are() -> None:
    page = render_html([_result("abcd\nefgh", [{"text": "abcd", "start": 0, "end": 4},
                                                {"text": "fgh", "start": 6, "end": 9}])])
    assert _bands(page) == [(0, 0, 4), (1, 1, 4)]  # line 2 starts at 5: [6, 9) is [1, 4)


def test_bare_strings_are_placed_in_document_order() -> None:
    page = render_html([_result("ab ab", [{"text": "ab"}, {"text": "ab"}])])
    assert _bands(page) == [(0, 0, 2), (1, 3, 5)]


def test_lost_characters_and_overlaps_are_marked_not_only_coloured() -> None:
    page = render_html([_result("abcdefg", [{"text": "abcd", "start": 0, "end": 4},
                                             {"text": "cde", "start": 2, "end": 5}])])
    assert page.count('class="ch lost"') == 2  # f and g
    assert page.count("<sup>✗</sup>") == 2
    assert page.count('class="ch hatch"') == 2  # c and d lie in two chunks


def test_offending_chunk_flagged_and_lines_compared() -> None:
    chunks = [{"text": "ab", "start": 0, "end": 2, "line_start": 1, "line_end": 1},
              {"text": "cd", "start": 3, "end": 5, "line_start": 1, "line_end": 1}]
    page = render_html([_result("ab\ncd", chunks, invariant="line_citations", offending=[1])])
    assert "#1 ⚠" in page
    assert '<tr class="mismatch">' in page and "2–2 ≠" in page


def test_config_diagnosis_and_replay_command_shown() -> None:
    page = render_html([_result("abc", [{"text": "abc"}])])
    assert "max_size=4, overlap=1" in page
    assert "Diagnosis (overlap_on_top)" in page
    assert "chunk-contract replay .chunk-contract/reproducers/x.json" in page


def test_long_documents_fold_what_holds_nothing() -> None:
    document = "".join(f"line {n}\n" for n in range(500))
    chunks = [{"text": document[:-1], "start": 0, "end": len(document) - 1}]
    page = render_html([_result(document, chunks, invariant="cap_respected")])
    assert page.count('class="line"') < 10
    assert 'class="fold"' in page and "not drawn" in page


def test_the_drawing_is_bounded() -> None:
    document = "x" * (3 * MAX_CELLS)
    chunks = [{"text": document[k:k + 3], "start": k, "end": k + 3}
              for k in range(0, len(document), 2)]
    page = render_html([_result(document, chunks, invariant="overlap_bounded")])
    assert len(page) < 40 * MAX_CELLS + 200_000


def test_workbook_claims_are_drawn_and_cut_at_a_margin() -> None:
    book = {"sheets": {"Sheet1": {"A1": "a", "C4": 3}}}
    chunks = [{"text": "a | 3", "sheet": "Sheet1", "range": "A1:XFD4"}]
    page = render_html([_result(book, chunks, invariant="tight_range", kind="workbook",
                                offending=[0])])
    assert 'class="claim offending"' in page
    assert "claims A1:XFD4 (reaches 16379 columns to the right the drawing, cut)" in page


def test_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.html"
    write_html(target, [_result("abc", [{"text": "abc"}])])
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


_CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.slow
@pytest.mark.skipif(_CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_renders_in_a_browser_with_spans_on_their_characters(tmp_path: Path) -> None:
    """A real headless browser: no console error, and every band's left and right edges line
    up with the first and last character cell it stands for (the page's own check)."""
    document = "{\"a\": 1}\n{\"a\": 1}\nthird line \U0001f680 e\u0301\r\n\tend"
    chunks = [{"text": document[0:12], "start": 0, "end": 12},
              {"text": document[9:30], "start": 9, "end": 30},
              {"text": document[28:], "start": 28, "end": len(document)}]
    page = tmp_path / "report.html"
    write_html(page, [_result(document, chunks, offending=[1])])
    assert _CHROMIUM is not None
    done = subprocess.run(
        [_CHROMIUM, *_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
         "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert 'data-geometry="ok"' in done.stdout, done.stdout[:300]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console


def test_whitespace_and_controls_are_visible_glyphs() -> None:
    page = render_html([_result("a \t\r\n\x01\ud800", [{"text": "a"}])])
    cells = re.findall(r'title="U\+[0-9A-F]+">([^<]*)<sup>', page)
    assert cells == ["a", "·", "→", "¤", "↵", "¬", "�"]
