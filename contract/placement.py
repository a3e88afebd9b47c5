"""Sound placement of chunks that carry no offsets (SPEC §4).

A chunk given as a bare string (or a record without offsets) is placed in the document by the
contract itself. An invariant may be reported only when *no* placement in document order keeps
it, so each invariant searches for its own best placement:

* Constraints that only bound the next start from below (strictly increasing starts, ends that
  never decrease, bounded overlap) and per-chunk filters (line citations, heading and grapheme
  boundaries) are satisfied by the *earliest* placement whenever any placement satisfies them:
  moving a chunk earlier never tightens the constraints on the chunks after it. So
  :func:`place_in_order` is greedy, and linear in the document for verbatim chunks.
* Coverage (``no_lost_text``) is also bounded from above (the next chunk must start before the
  next non-whitespace character not yet covered), so the greedy choice can be wrong.
  :func:`uncovered_offset` keeps every reachable placement instead, with a cap on how many it
  tracks; when the cap cuts the search the answer is "inconclusive", never a violation.

Pure functions over ``str``: no plugin code runs here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from contract.model import first_non_space

Span = tuple[int, int]
#: ``lower(index, previous_span) -> the smallest start allowed for chunk ``index``.
Lower = Callable[[int, Span | None], int]
#: ``accept(index, start, previous_span)``: True to take it, False to try the next
#: occurrence, None to give up on this chunk.
Accept = Callable[[int, int, Span | None], bool | None]

#: Most reachable placements tracked per chunk by :func:`uncovered_offset`.
MAX_STATES = 512


@dataclass(frozen=True)
class Placement:
    """Spans for the chunks placed, and the index of the first chunk that could not be placed."""

    spans: list[Span | None]
    failed: int | None = None

    @property
    def ok(self) -> bool:
        return self.failed is None


def after_previous(index: int, previous: Span | None) -> int:
    """Document order: each start strictly after the previous one."""
    return 0 if previous is None else previous[0] + 1


def place_in_order(
    document: str,
    texts: Sequence[str],
    fixed: Sequence[int | None] | None = None,
    *,
    lower: Lower = after_previous,
    accept: Accept | None = None,
) -> Placement:
    """Place every text at its earliest occurrence allowed by ``lower`` and ``accept``.

    ``fixed[i]`` pins chunk ``i`` to a start (a chunk that reports its own offsets). Empty
    texts are left unplaced (``None``) and impose nothing.
    """
    spans: list[Span | None] = []
    previous: Span | None = None
    for i, text in enumerate(texts):
        if not text:
            spans.append(None)
            continue
        pin = fixed[i] if fixed is not None else None
        start = _place_one(document, text, i, pin, lower(i, previous), previous, accept)
        if start is None:
            return Placement(spans + [None] * (len(texts) - i), failed=i)
        previous = (start, start + len(text))
        spans.append(previous)
    return Placement(spans)


def _place_one(
    document: str, text: str, index: int, pin: int | None, low: int,
    previous: Span | None, accept: Accept | None,
) -> int | None:
    if pin is not None:
        fits = pin >= low and document.startswith(text, pin)
        return pin if fits and (accept is None or accept(index, pin, previous)) else None
    start = document.find(text, max(low, 0))
    while start != -1:
        verdict = True if accept is None else accept(index, start, previous)
        if verdict:
            return start
        if verdict is None:
            return None
        start = document.find(text, start + 1)
    return None


@dataclass(frozen=True)
class Coverage:
    """Result of the coverage search: ``offset`` of a character no placement covers, if any."""

    offset: int | None
    conclusive: bool = True


def uncovered_offset(
    document: str, texts: Sequence[str], fixed: Sequence[int | None] | None = None
) -> Coverage:
    """Search the placements in document order for one that leaves no non-whitespace uncovered.

    Returns ``Coverage(None)`` when such a placement exists (or when the texts cannot be placed
    in order at all: that is ``ordered``'s or ``span_fidelity``'s finding, not this one's), else
    the first non-whitespace offset that the best placement leaves uncovered.
    """
    length = len(document)
    # state: start of the last placed chunk -> the furthest end covered so far.
    states: dict[int, int] = {-1: 0}
    best_end, capped = 0, False
    for i, text in enumerate(texts):
        if not text:
            continue
        pin = fixed[i] if fixed is not None else None
        states, cut = _advance(document, text, pin, states)
        capped = capped or cut
        if not states:
            # Unplaceable even without the coverage rule: not this invariant's finding.
            return Coverage(None) if not capped else Coverage(None, conclusive=False)
        best_end = max(best_end, max(states.values()))
    if any(_next_text(document, end) == length for end in states.values()):
        return Coverage(None)
    gap = first_non_space(document, best_end)
    if capped:
        return Coverage(None, conclusive=False)
    return Coverage(gap if gap != -1 else None)


def _next_text(document: str, offset: int) -> int:
    found = first_non_space(document, offset)
    return len(document) if found == -1 else found


def _advance(
    document: str, text: str, pin: int | None, states: dict[int, int]
) -> tuple[dict[int, int], bool]:
    """All placements of ``text`` reachable from ``states`` without an uncovered gap."""
    reach = {p: _next_text(document, end) for p, end in states.items()}
    low, high = min(states) + 1, max(reach.values())
    candidates, capped = _occurrences(document, text, low, high, pin)
    out: dict[int, int] = {}
    for q in candidates:
        ends = [end for p, end in states.items() if p < q <= reach[p]]
        if ends:
            out[q] = max(max(ends), q + len(text))
    if len(out) > MAX_STATES:
        # Keep the extremes: the earliest starts and the furthest reaches.
        keep = sorted(out)[: MAX_STATES // 2] + sorted(out, key=out.__getitem__)[-MAX_STATES // 2:]
        out, capped = {q: out[q] for q in keep}, True
    return out, capped


def _occurrences(
    document: str, text: str, low: int, high: int, pin: int | None
) -> tuple[list[int], bool]:
    if pin is not None:
        ok = low <= pin <= high and document.startswith(text, pin)
        return ([pin] if ok else []), False
    found: list[int] = []
    start = document.find(text, max(low, 0), high + len(text))
    while start != -1 and len(found) < 4 * MAX_STATES:
        found.append(start)
        start = document.find(text, start + 1, high + len(text))
    return found, start != -1
