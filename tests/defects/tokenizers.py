"""Token plugins for the ``count_tokens_additive`` health check (chunk_contract.engine.health).

The defective ones keep every invariant but count tokens in a way that is not additive where
their own chunks meet, so the contract's count of a shared overlap is not the splitter's:
the health check must warn about them. The correct ones must get no warning.
"""

from __future__ import annotations

from typing import Any


def _check(max_size: int, overlap: int) -> None:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"need max_size >= 1 and 0 <= overlap < max_size: {max_size}/{overlap}")


def _words(text: str) -> int:
    """A whitespace tokenizer: not additive across a cut inside a word."""
    return len(text.split())


def _windows(document: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character windows of ``size`` sharing ``overlap`` characters, without blank ones."""
    spans, start = [], 0
    while start < len(document):
        end = min(len(document), start + size)
        if document[start:end].strip():
            spans.append((start, end))
        if end == len(document):
            break
        start = end - overlap
    return spans


def char_windows_word_tokens(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Cuts character windows (inside words) but counts tokens as words: its shared overlaps
    are word pieces, which the word count counts as whole words."""
    _check(max_size, overlap)
    return [{"text": document[s:e], "start": s, "end": e}
            for s, e in _windows(document, max_size, overlap)]


char_windows_word_tokens.unit = "tokens"  # type: ignore[attr-defined]
char_windows_word_tokens.count_tokens = _words  # type: ignore[attr-defined]


def bare_char_windows_word_tokens(document: str, *, max_size: int, overlap: int) -> list[str]:
    """The same as bare strings (no offsets): the contract finds the overlaps itself."""
    _check(max_size, overlap)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


bare_char_windows_word_tokens.unit = "tokens"  # type: ignore[attr-defined]
bare_char_windows_word_tokens.count_tokens = _words  # type: ignore[attr-defined]


def approximate_word_tokens(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """The defect above, declared: ``token_counting = "approximate"`` (a note, not a warning)."""
    return char_windows_word_tokens(document, max_size=max_size, overlap=overlap)


approximate_word_tokens.unit = "tokens"  # type: ignore[attr-defined]
approximate_word_tokens.count_tokens = _words  # type: ignore[attr-defined]
approximate_word_tokens.token_counting = "approximate"  # type: ignore[attr-defined]


def char_tokens(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Correct: one token per codepoint (additive everywhere), character windows."""
    return char_windows_word_tokens(document, max_size=max_size, overlap=overlap)


char_tokens.unit = "tokens"  # type: ignore[attr-defined]
char_tokens.count_tokens = len  # type: ignore[attr-defined]
