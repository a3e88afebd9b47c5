"""Rules the runner decides from how the call went, not from the chunks it returned.

Their checks yield nothing: the runner reports them from the worker's outcome, the config's
validity and the scaling probes. They are registered so ids, listings and reports stay uniform.
"""

from __future__ import annotations

from collections.abc import Iterator

from chunk_contract.spec.model import Case, Violation
from chunk_contract.spec.rules import invariant

_TEXT_AND_SHEETS = ("text", "workbook")


@invariant("terminates", kinds=_TEXT_AND_SHEETS, engine=True)
def terminates(case: Case) -> Iterator[Violation]:
    """The call returns within the time budget, without unbounded memory growth."""
    return iter(())


@invariant("no_crash", kinds=_TEXT_AND_SHEETS, engine=True)
def no_crash(case: Case) -> Iterator[Violation]:
    """On a valid config the call returns an iterable of chunks: no exception, crash, wrong type."""
    return iter(())


@invariant("config_validation", kinds=_TEXT_AND_SHEETS, engine=True)
def config_validation(case: Case) -> Iterator[Violation]:
    """A degenerate config raises ValueError/TypeError, or gives output meeting every invariant."""
    return iter(())


@invariant("scales_linearly", engine=True)
def scales_linearly(case: Case) -> Iterator[Violation]:
    """Doubling a pathological document's size does not much more than double the chunking time."""
    return iter(())
