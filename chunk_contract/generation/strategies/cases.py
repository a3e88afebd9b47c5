"""The default document mixture and (document, config) pairs for the runner."""

from __future__ import annotations

import functools
import zlib

from hypothesis import strategies as st

from chunk_contract.spec.model import Config

from ._common import StrategyArgumentError, check_bool, check_int
from .configs import DEGENERATE_ONE_IN, degenerate_configs, overlaps, valid_configs
from .markdown import headed_documents, markdown_documents
from .text import documents

__all__ = ["KINDS", "LARGE_ONE_IN", "LARGE_SIZES", "any_documents", "at_real_sizes", "cases"]

KINDS = ("text", "workbook")


_PICKS = st.integers(0, DEGENERATE_ONE_IN - 1)


@functools.lru_cache(maxsize=8192)
def _caps_below(top: int) -> st.SearchStrategy[int]:
    """A cap in ``[1, top]``, small ones often. One strategy per ``top`` (cached): a new one per
    example was validated anew on every draw."""
    return st.one_of(st.integers(1, min(8, top)), st.integers(1, top))


#: About one generated document in LARGE_ONE_IN reaches the sizes real documents have: a
#: generated document repeated (blank-line separated) to LARGE_SIZES characters. Cheap to draw
#: and to check, and a crash or a wrong offset that only shows past a fixed length (a buffer,
#: a 16-bit counter, a recursion depth) cannot hide behind ``max_length``.
LARGE_ONE_IN = 40
LARGE_SIZES = (10_000, 50_000)
#: A large document's cap is at least its length over this: a few hundred chunks, so that a
#: correct chunker written in a slow language stays far inside the time budget.
_LARGE_CHUNKS = 400


def at_real_sizes(docs: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``docs``, with about one document in :data:`LARGE_ONE_IN` grown to real sizes.

    Which documents grow is decided by the document itself (a checksum), not by a separate
    draw: Hypothesis draws small integers far more often than others, so a "1 in 40" draw could
    come up in no example of a run, while distinct documents spread evenly over a checksum.
    """
    return docs.flatmap(_maybe_large)


def _maybe_large(document: str) -> st.SearchStrategy[str]:
    data = document.encode("utf-8", "surrogatepass")
    if document.strip() and zlib.crc32(data) % LARGE_ONE_IN == 0:
        return st.integers(*LARGE_SIZES).map(functools.partial(_repeated, document))
    return st.just(document)


def _repeated(block: str, size: int) -> str:
    unit = block + "\n\n"
    return (unit * (size // len(unit) + 1))[:size]


def any_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """The default mixture: plain-text, markdown and headed documents, equally often."""
    max_length = check_int("any_documents", "max_length", max_length, min_value=1)
    return st.one_of(
        documents(max_length=max_length),
        markdown_documents(max_length=max_length),
        headed_documents(max_length=max_length),
    )


def cases(
    *,
    kind: str = "text",
    max_length: int = 2000,
    degenerate: bool = True,
    max_cap: int = 4096,
    documents: st.SearchStrategy[str] | None = None,
    real_sizes: bool = False,
) -> st.SearchStrategy[tuple[str, Config]]:
    """``(document, config)`` pairs where the config usually makes the chunker actually chunk.

    The document is drawn first (from ``documents``, default :func:`any_documents`); then, most
    of the time, ``max_size`` is drawn below the document's length (small caps often), otherwise
    from the general :func:`~chunk_contract.generation.strategies.configs` distribution. With
    ``degenerate=True`` about one case in ten carries a degenerate config. With
    ``real_sizes``, a small share of documents is grown past ``max_length`` to the sizes of real
    documents (:func:`at_real_sizes`), cut into a few hundred chunks.
    """
    if kind == "workbook":
        raise NotImplementedError(
            "workbook cases come from chunk_contract.generation.strategies.workbooks"
        )
    if kind not in KINDS:
        raise StrategyArgumentError(
            f"cases(kind={kind!r}): kind must be one of {', '.join(map(repr, KINDS))}"
        )
    max_length = check_int("cases", "max_length", max_length, min_value=1)
    check_bool("cases", "degenerate", degenerate)
    max_cap = check_int("cases", "max_cap", max_cap, min_value=1)
    if documents is None:
        docs = any_documents(max_length=max_length)
    elif isinstance(documents, st.SearchStrategy):
        docs = documents
    else:
        raise StrategyArgumentError(
            f"cases(documents={documents!r}): documents must be a SearchStrategy of str"
        )
    if real_sizes:
        docs = at_real_sizes(docs)
    independent = valid_configs(max_cap)
    broken = degenerate_configs(max_cap)

    @st.composite
    def build(draw: st.DrawFn) -> tuple[str, Config]:
        document = draw(docs)
        n = len(document)
        if n > max_length:  # grown to a real size: a valid cap that makes a few hundred chunks
            max_size = draw(st.integers(min(max_cap, max(32, n // _LARGE_CHUNKS)), max_cap))
            return document, Config(max_size, draw(st.integers(0, max_size // 2)))
        # 0-2: a config independent of the document; 3-8: a cap below the document's length;
        # 9: degenerate (when allowed). The shrinker heads for the independent configs.
        pick = draw(_PICKS)
        if degenerate and pick == DEGENERATE_ONE_IN - 1:
            return document, draw(broken)
        if pick >= 3 and n >= 2:
            max_size = draw(_caps_below(min(n - 1, max_cap)))
            return document, Config(max_size=max_size, overlap=draw(overlaps(max_size)))
        return document, draw(independent)

    return build()
