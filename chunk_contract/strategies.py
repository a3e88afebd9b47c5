"""Hypothesis strategies for your own tests: the documents and configs chunk-contract draws.

A stable, documented front door over the contract's generators. Use it when you want a
property of your own (a citation format, a metadata field, a downstream index) checked on the
same adversarial inputs the contract uses::

    from hypothesis import given
    from chunk_contract import strategies

    @given(strategies.cases(kind="markdown"))
    def test_every_chunk_keeps_its_section(case):
        document, config = case
        chunks = my_split(document, max_size=config.max_size, overlap=config.overlap)
        ...

Every function takes keyword arguments only and checks them when called: a wrong value raises
:class:`StrategyArgumentError` (a ``ValueError`` and Hypothesis's ``InvalidArgument``). What a
strategy draws may change between releases (new bug shapes are added); the names, arguments
and the kind of value drawn do not. docs/how-to/strategies.md has a worked example.
"""

from __future__ import annotations

from hypothesis import strategies as st

from chunk_contract.generation.strategies import any_documents, headed_documents, markdown_documents
from chunk_contract.generation.strategies import cases as _cases
from chunk_contract.generation.strategies import configs as _configs
from chunk_contract.generation.strategies import documents as _plain
from chunk_contract.generation.strategies._common import (
    StrategyArgumentError,
    check_bool,
    check_int,
)
from chunk_contract.generation.strategies.configs import Bounds, fit
from chunk_contract.generation.strategies.kinds import kind_documents
from chunk_contract.spec.model import DOCUMENT_KINDS, UNITS, Config, Declarations

__all__ = ["DOCUMENT_KINDS_OFFERED", "StrategyArgumentError", "cases", "configs", "documents"]

#: What ``documents(kind=...)`` offers: ``"text"`` is the contract's default adversarial
#: mixture (plain text, markdown and headed documents), ``"plain"`` and ``"headed"`` its parts,
#: ``"code"`` Python or JavaScript, and the kinds a plugin may declare as ``documents``.
DOCUMENT_KINDS_OFFERED = ("plain", "headed", "code", *DOCUMENT_KINDS)

#: The largest ``max_size`` drawn by default, per unit (a token is several characters).
_DEFAULT_CAP = {"chars": 4096, "bytes": 4096, "tokens": 1024}


def documents(*, kind: str = "text", max_size: int = 2000) -> st.SearchStrategy[str]:
    """Documents of ``kind`` of at most ``max_size`` codepoints.

    ``kind``: ``"text"`` (default: the adversarial mixture every run draws from), ``"plain"``
    (adversarial plain text: odd line breaks, lone surrogates, repeated blocks, long runs),
    ``"headed"`` (a long title / author / date header), ``"markdown"``, ``"code"`` (Python or
    JavaScript that parses), ``"code:python"``, ``"code:javascript"``, ``"html"`` or
    ``"latex"``.
    """
    size = check_int("documents", "max_size", max_size, min_value=1)
    return _drawn(kind, size).map(lambda document: document[:size])  # a promise, whatever kind


def _drawn(kind: str, size: int) -> st.SearchStrategy[str]:
    """The generator of ``kind`` (some, as CRLF code, may run a few characters past ``size``)."""
    if kind == "plain":
        return _plain(max_length=size)
    if kind == "headed":
        return headed_documents(max_length=size)
    if kind == "markdown":
        return markdown_documents(max_length=size)
    if kind == "code":
        return st.one_of(kind_documents("code:python", max_length=size),
                         kind_documents("code:javascript", max_length=size))
    if kind == "text":
        return any_documents(max_length=size)
    if kind not in DOCUMENT_KINDS:
        raise StrategyArgumentError(
            f"documents(kind={kind!r}): expected one of "
            f"{', '.join(map(repr, DOCUMENT_KINDS_OFFERED))}"
        )
    return kind_documents(kind, max_length=size)


def configs(
    *,
    unit: str = "chars",
    max_size_range: Bounds = (1, None),
    overlap_range: Bounds = (0, None),
    degenerate: bool = False,
    max_cap: int | None = None,
) -> st.SearchStrategy[Config]:
    """Chunking configs (``config.max_size``, ``config.overlap``) as a run draws them.

    Small caps (1-8) come as often as medium and large ones, and overlaps of 0, 1 and
    ``max_size - 1`` often. ``unit`` (``"chars"``, ``"bytes"`` or ``"tokens"``) sets the default
    ``max_cap``, the largest ``max_size`` drawn (4096, or 1024 for tokens). The declared ranges
    (inclusive; ``None``: unbounded) keep every valid config inside what your chunker
    supports, as ``max_size_range`` / ``overlap_range`` on a plugin do. ``degenerate=True``
    mixes in about one config in six that SPEC §2 calls degenerate (``max_size <= 0``,
    negative overlap, ``overlap >= max_size``), which a chunker must refuse with ValueError.
    """
    in_range = _ranges("configs", unit, max_size_range, overlap_range)
    check_bool("configs", "degenerate", degenerate)
    cap = _cap("configs", unit, max_cap)
    return _configs(degenerate=degenerate, max_cap=cap).map(in_range)


def cases(
    *,
    kind: str = "text",
    max_size: int = 2000,
    unit: str = "chars",
    max_size_range: Bounds = (1, None),
    overlap_range: Bounds = (0, None),
    degenerate: bool = False,
) -> st.SearchStrategy[tuple[str, Config]]:
    """``(document, config)`` pairs: a document of ``kind`` (see :func:`documents`) of at most
    ``max_size`` codepoints, and a config that usually makes the chunker cut it (the cap is
    often below the document's length). The other arguments are those of :func:`configs`."""
    drawn = documents(kind=kind, max_size=max_size)
    in_range = _ranges("cases", unit, max_size_range, overlap_range)
    check_bool("cases", "degenerate", degenerate)
    cap = _cap("cases", unit, None)
    pairs = _cases(kind="text", max_length=max_size, degenerate=degenerate, max_cap=cap,
                   documents=drawn)
    return pairs.map(lambda case: (case[0], in_range(case[1])))


def _ranges(name: str, unit: str, sizes: Bounds, overlaps: Bounds) -> _Fit:
    if unit not in UNITS:
        raise StrategyArgumentError(f"{name}(unit={unit!r}): expected one of "
                                    f"{', '.join(map(repr, UNITS))}")
    try:
        declared = Declarations(max_size_range=sizes, overlap_range=overlaps)
    except ValueError as exc:
        raise StrategyArgumentError(f"{name}(): {exc}") from None
    return _Fit(declared.max_size_range, declared.overlap_range)


def _cap(name: str, unit: str, max_cap: int | None) -> int:
    if max_cap is None:
        max_cap = _DEFAULT_CAP[unit]
    return check_int(name, "max_cap", max_cap, min_value=1)


class _Fit:
    """A valid config moved into the declared ranges (degenerate ones kept)."""

    def __init__(self, sizes: tuple[int, int | None], overlaps: tuple[int, int | None]) -> None:
        self.sizes, self.overlaps = sizes, overlaps

    def __call__(self, config: Config) -> Config:
        return fit(config, max_size_range=self.sizes, overlap_range=self.overlaps)
