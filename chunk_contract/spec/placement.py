"""Sound placement of chunks that carry no offsets (SPEC §4).

A chunk given as a bare string (or a record without offsets) is placed in the document by the
contract itself. An invariant may be reported only when *no* placement in document order keeps
it, so each invariant searches for its own best placement:

* Constraints that only bound the next start from below (strictly increasing starts and ends,
  bounded overlap) and per-chunk filters (line citations, heading and grapheme boundaries)
  are satisfied by the *earliest* placement whenever any placement satisfies them:
  moving a chunk earlier never tightens the constraints on the chunks after it. So
  :func:`place_in_order` is greedy, and linear in the document for verbatim chunks.
* Coverage (``no_lost_text``) is also bounded from above (the next chunk must start before the
  next non-whitespace character not yet covered), so the greedy choice can be wrong.
  :func:`uncovered_offset` first tries one linear greedy pass (each chunk at its last start
  that leaves no gap, :func:`furthest_placement`); when that fails it keeps the frontier of
  every gap-free placement instead, with a cap on how many it tracks. When the cap cuts the
  search the answer is "inconclusive", never a violation.

Pure functions over ``str``: no plugin code runs here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chunk_contract.spec.model import first_non_space

Span = tuple[int, int]
#: ``lower(index, previous_span) -> the smallest start allowed for chunk ``index``.
Lower = Callable[[int, Span | None], int]
#: ``accept(index, start, previous_span)``: True to take it, False to try the next
#: occurrence, None to give up on this chunk.
Accept = Callable[[int, int, Span | None], bool | None]

#: Most reachable placements tracked per chunk by :func:`uncovered_offset`.
MAX_STATES = 512
#: Most placements (states and occurrences) :func:`uncovered_offset` looks at in all, so that a
#: pathological document (one character repeated) cannot make the check itself slow.
WORK_BUDGET = 1_000_000


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
    document: str,
    text: str,
    index: int,
    pin: int | None,
    low: int,
    previous: Span | None,
    accept: Accept | None,
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
    """Result of the coverage search: when no placement in order covers all the text, ``offset``
    is a character the best placement found leaves out; ``conclusive`` is False when the search
    was cut short (then ``offset`` is None: a cut search never reports)."""

    offset: int | None
    conclusive: bool = True


def uncovered_offset(
    document: str, texts: Sequence[str], fixed: Sequence[int | None] | None = None
) -> Coverage:
    """Search the placements in document order for one that leaves no non-whitespace uncovered.

    Returns ``Coverage(None)`` when such a placement exists (or when the texts cannot be placed
    in order at all: that is ``ordered``'s or ``span_fidelity``'s finding, not this one's), else
    the first non-whitespace offset that the best placement found leaves uncovered.
    """
    if furthest_placement(document, texts, fixed) is not None:
        return Coverage(None)  # the usual case, found in one linear pass
    if _text_size(texts) < _text_size([document]):
        # Fewer non-whitespace characters in all the chunks than in the document: no placement
        # covers it, so any placement in order shows what is lost.
        placed = place_in_order(document, texts, fixed)
        return Coverage(first_gap(document, placed.spans) if placed.ok else None)
    length = len(document)
    # The gap-free placements of the chunks so far, as (start of the last chunk, end covered),
    # keeping only the Pareto frontier: starts and ends both strictly increasing (a state with
    # a later start and no further end is never better for the chunks that follow).
    states: list[Span] = [(-1, 0)]
    best_end, capped, work = 0, False, 0
    for i, text in enumerate(texts):
        if not text:
            continue
        pin = fixed[i] if fixed is not None else None
        work += len(states)
        states, cut, looked = _advance(document, text, pin, states)
        capped, work = capped or cut, work + looked
        if work > WORK_BUDGET:
            return Coverage(None, conclusive=False)
        if not states:
            # No gap-free placement reaches past chunk i: every placement in order loses text,
            # unless there is no placement in order at all (ordered's / span_fidelity's finding).
            if capped:
                return Coverage(None, conclusive=False)
            placed = place_in_order(document, texts, fixed)
            if not placed.ok:
                return Coverage(None)
            gap = first_non_space(document, best_end)
            return Coverage(gap if gap != -1 else first_gap(document, placed.spans))
        best_end = max(best_end, states[-1][1])
    if _next_text(document, states[-1][1]) == length:
        return Coverage(None)
    if capped:
        return Coverage(None, conclusive=False)
    gap = first_non_space(document, best_end)
    return Coverage(gap if gap != -1 else None)


def furthest_placement(
    document: str, texts: Sequence[str], fixed: Sequence[int | None] | None = None
) -> list[Span | None] | None:
    """A gap-free placement that puts each chunk at its last start before the first character
    not yet covered, or None when that greedy choice leaves text out (or cannot go on)."""
    spans: list[Span | None] = []
    previous, covered = -1, 0
    for i, text in enumerate(texts):
        if not text:
            spans.append(None)
            continue
        reach = _next_text(document, covered)
        pin = fixed[i] if fixed is not None else None
        if pin is not None:
            start = pin if previous < pin <= reach and document.startswith(text, pin) else -1
        else:
            start = document.rfind(text, previous + 1, reach + len(text))
        if start == -1:
            return None
        previous, covered = start, max(covered, start + len(text))
        spans.append((start, start + len(text)))
    return spans if _next_text(document, covered) == len(document) else None


def first_gap(document: str, spans: Sequence[Span | None]) -> int | None:
    """The first non-whitespace offset that ``spans`` leave uncovered, if any."""
    covered = 0
    for start, end in sorted(s for s in spans if s is not None):
        if start > covered:
            gap = first_non_space(document, covered, start)
            if gap != -1:
                return gap
        covered = max(covered, end)
    gap = first_non_space(document, covered)
    return gap if gap != -1 else None


def _text_size(texts: Sequence[str]) -> int:
    """How many non-whitespace characters ``texts`` hold in all."""
    return sum(len(text) - sum(map(len, _SPACE_RUNS.findall(text))) for text in texts)


_SPACE_RUNS = re.compile(r"\s+")


def _next_text(document: str, offset: int) -> int:
    found = first_non_space(document, offset)
    return len(document) if found == -1 else found


def _advance(
    document: str, text: str, pin: int | None, states: list[Span]
) -> tuple[list[Span], bool, int]:
    """The frontier of gap-free placements of ``text`` after those in ``states``.

    A start ``q`` follows the state with the furthest end among those that start before ``q``
    (on the frontier: the last one before ``q``); it is gap-free when no non-whitespace lies
    between that end and ``q``. One sweep over states and occurrences, both in order. Returns
    the new frontier, whether it was cut, and how many occurrences were looked at.
    """
    low, high = states[0][0] + 1, _next_text(document, states[-1][1])
    candidates, capped = _occurrences(document, text, low, high, pin)
    out: list[Span] = []
    k, end, reach = 0, -1, -1
    for q in candidates:
        if k < len(states) and states[k][0] < q:
            while k < len(states) and states[k][0] < q:
                k += 1
            end = states[k - 1][1]
            reach = _next_text(document, end)
        if k == 0 or q > reach:
            continue
        covered = max(end, q + len(text))
        if not out or covered > out[-1][1]:
            out.append((q, covered))
    if len(out) > MAX_STATES:
        # Keep the extremes: the earliest starts and the furthest ends (the search is cut, so
        # a failure to cover is then inconclusive, never a violation).
        out, capped = out[: MAX_STATES // 2] + out[-(MAX_STATES // 2) :], True
    return out, capped, len(candidates)


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
