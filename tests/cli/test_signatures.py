"""A chunker whose signature cannot take ``(document, *, max_size=..., overlap=...)`` is the
user's mistake: exit 2 with one line naming the expected call, before any example runs and
with no reproducer saved. Signatures Python cannot read are let through."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.cli.main import main
from chunk_contract.transport.targets import EXPECTED_CALL, TargetError, check_signature

PLUGINS = '''
import functools

def chunk_size_positional(text, chunk_size):
    return [text]

def only_document(document):
    return [document]

def keyword_named_size(document, *, size, overlap):
    return [document]

class NeedsArgs:
    def split(self, document, chunk_size, chunk_overlap):
        return [document]

def _windows(document, *, max_size, overlap, strip=False):
    return [document[i:i + max_size] for i in range(0, len(document), max_size)
            if document[i:i + max_size].strip()]

adapted = functools.partial(_windows, strip=True)
'''

BAD = ["chunk_size_positional", "only_document", "keyword_named_size", "NeedsArgs"]


@pytest.fixture()
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "sigs.py"
    path.write_text(PLUGINS)
    return path


@pytest.mark.parametrize("name", BAD)
def test_wrong_signature_is_exit_2_naming_the_call(
    name: str, plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", f"{plugins}:{name}", "--max-examples", "5", "--reproducers", "r"])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and EXPECTED_CALL in lines[0] and name in lines[0]
    assert not (plugins.parent / "r").exists()  # nothing ran, nothing saved


def test_partial_with_the_right_keywords_is_accepted(
    plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", f"{plugins}:adapted", "--max-examples", "5", "--no-corpus", "-q",
                 "--skip", "scales_linearly,deterministic", "--reproducers", "r"])
    assert code in (0, 1), capsys.readouterr().err  # judged, not refused
    assert EXPECTED_CALL not in capsys.readouterr().err


def _split(document: str, *, max_size: int, overlap: int) -> list[str]:
    return [document]


class _Callable:
    def __call__(self, document: str, **options: Any) -> list[str]:
        return [document]


@pytest.mark.parametrize("split", [_split, functools.partial(_split, overlap=0), _Callable()])
def test_good_signatures_pass(split: Any) -> None:
    check_signature(split, name="t")


def test_a_readable_builtin_signature_is_judged() -> None:
    with pytest.raises(TargetError, match="unexpected keyword argument 'max_size'"):
        check_signature(print, name="t")


def test_unreadable_signature_is_let_through() -> None:
    class Opaque:
        @property
        def __signature__(self) -> Any:
            raise ValueError("no signature")

        def __call__(self, *args: Any, **kwargs: Any) -> list[str]:
            return []

    check_signature(Opaque(), name="t")
