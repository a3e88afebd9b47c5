"""Health checks: what a run notices about the plugin's declarations, beside the invariants.

A health check never fails a run and never becomes a violation: it is a warning that says what
happened, why it matters and how to fix it, shown in every report (text, JSON). Each check is
one function of the plugin's own output; the runner calls :func:`run_health_checks` once, after
exploring.

``count_tokens_additive``: for ``unit = "tokens"`` plugins the contract measures more than whole
chunks: ``overlap_bounded`` (and ``tiles_parent``) count the text two neighbours share on its
own. So it assumes ``count_tokens(a + b) == count_tokens(a) + count_tokens(b)`` for adjacent
pieces of the plugin's own chunks (README, "Token units"). The check probes exactly that, cut
only where the plugin's own neighbouring chunks meet: a chunk against its shared overlap and the
rest of it, the next chunk likewise, and the two joined. (A cut inside a word is never probed:
the contract never counts one, and a whitespace tokenizer is additive at its chunks' edges.) A
plugin that declares ``token_counting = "approximate"`` gets a note with the measured slack
instead of a warning.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from chunk_contract.spec.model import Declarations, escape

__all__ = [
    "ADDITIVITY",
    "MAX_PROBES",
    "Finding",
    "additivity_finding",
    "count_tokens_additive",
    "probes",
    "run_health_checks",
]

ADDITIVITY = "count_tokens_additive"
#: At most this many probes (each 2-3 count_tokens calls, cached) per run.
MAX_PROBES = 48
#: Disjoint neighbours further apart than this are not joined into a probe.
MAX_GAP = 200
#: A probe: the whole text and the adjacent pieces it is made of.
Probe = tuple[str, tuple[str, ...]]
Counter = Callable[[str], int]


@dataclass(frozen=True)
class Finding:
    """One health-check result: ``severity`` is ``warning`` or ``note``."""

    check: str
    severity: str
    what: str
    why: str
    fix: str

    def lines(self) -> list[str]:
        """The finding as report lines: what, why, how to fix."""
        return [
            f"{self.severity.upper()} ({self.check}): {self.what}",
            f"    why it matters: {self.why}",
            f"    how to fix: {self.fix}",
        ]

    def as_dict(self) -> dict[str, str]:
        return {
            "check": self.check,
            "severity": self.severity,
            "what": self.what,
            "why": self.why,
            "fix": self.fix,
        }


def probes(records: Sequence[dict[str, Any]], document: str | None) -> Iterator[Probe]:
    """The concatenations the contract relies on, at the places where the plugin's own
    neighbouring chunks meet: a chunk against the overlap it shares with the next and the rest
    of it, the next chunk likewise, and the two joined (with the text between them)."""
    chunks = [(r["text"], _span(r, document)) for r in records if _is_text(r)]
    for (a, sa), (b, sb) in itertools.pairwise(chunks):
        if document is not None and sa is not None and sb is not None:
            yield from _offset_probes(document, sa, sb)
        elif document is not None:
            yield from _text_probes(a, b, document)


def _is_text(record: dict[str, Any]) -> bool:
    return isinstance(record.get("text"), str) and bool(record["text"])


def _span(record: dict[str, Any], document: str | None) -> tuple[int, int] | None:
    """The record's codepoint span when it reports one that holds its text, else None."""
    start, end = record.get("start"), record.get("end")
    if document is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    ok = 0 <= start < end <= len(document) and document[start:end] == record["text"]
    return (start, end) if ok else None


def _offset_probes(document: str, a: tuple[int, int], b: tuple[int, int]) -> Iterator[Probe]:
    (s1, e1), (s2, e2) = a, b
    if s1 < s2 < e1 < e2:  # they overlap: the shared text is counted on its own
        shared = document[s2:e1]
        yield document[s1:e1], (document[s1:s2], shared)
        yield document[s2:e2], (shared, document[e1:e2])
        yield document[s1:e2], (document[s1:e1], document[e1:e2])
    elif e1 <= s2 and s2 - e1 <= MAX_GAP:  # disjoint neighbours: joined with what is between
        pieces = (document[s1:e1], document[e1:s2], document[s2:e2])
        yield document[s1:e2], tuple(p for p in pieces if p)


def _text_probes(a: str, b: str, document: str) -> Iterator[Probe]:
    """Bare-string neighbours: their overlap is the longest end of ``a`` that begins ``b``,
    taken only when ``a`` and the rest of ``b`` follow each other in the document."""
    for k in range(min(len(a), len(b)) - 1, 0, -1):
        if a.endswith(b[:k]) and (a + b[k:]) in document:
            shared = b[:k]
            yield a, (a[: len(a) - k], shared)
            yield b, (shared, b[k:])
            yield a + b[k:], (a, b[k:])
            return


def count_tokens_additive(
    count: Counter, cases: Iterable[Probe]
) -> list[tuple[Probe, int, list[int]]]:
    """The probes on which ``count`` is not additive: (probe, count of the whole, counts of
    the pieces). At most :data:`MAX_PROBES` probes are tried."""
    failures = []
    for n, probe in enumerate(cases):
        if n >= MAX_PROBES:
            break
        whole, pieces = probe
        total, parts = count(whole), [count(p) for p in pieces]
        if total != sum(parts):
            failures.append((probe, total, parts))
    return failures


def additivity_finding(
    failures: list[tuple[Probe, int, list[int]]], declarations: Declarations
) -> Finding | None:
    """The warning (or, for ``token_counting = "approximate"``, the note) for ``failures``."""
    if not failures:
        return None
    (whole, pieces), total, parts = failures[0]
    slack = max(abs(t - sum(p)) for _, t, p in failures)
    shown = " + ".join(f"count_tokens({escape(p, 30)}) = {c}" for p, c in zip(pieces, parts))
    what = (
        f"count_tokens is not additive on {len(failures)} concatenation(s) of pieces of "
        f"the plugin's own chunks: count_tokens({escape(whole, 40)}) = {total}, but "
        f"{shown} (sum {sum(parts)}); the largest difference seen is {slack}"
    )
    if declarations.token_counting == "approximate":
        return Finding(
            ADDITIVITY,
            "note",
            what,
            'token_counting = "approximate" is declared, so this is expected',
            f"nothing, as long as a slack of {slack} token(s) is acceptable",
        )
    return Finding(
        ADDITIVITY,
        "warning",
        what,
        "the contract counts the text two neighbouring chunks share on its own "
        "(overlap_bounded, tiles_parent), so a count that depends on what surrounds the text "
        "can report an overlap over the bound that the splitter, counting in context, never "
        "made (a false positive), or miss one that it did",
        "make count_tokens additive over concatenation (count what the splitter counts, e.g. "
        "characters or the tokens of a tokenizer without merges across the cut), or declare "
        'token_counting = "approximate" on the plugin if the counts are only estimates',
    )


#: What the check chunks when the run kept no clean call of its own (a plugin that violates
#: something on every example): prose with a repeated sentence, and mixed lines.
PROBE_DOCUMENTS = (
    "The quick brown fox jumps over the lazy dog. " * 6,
    "Caf\u00e9 \u6570\u636e text\nline two here\n\n# Heading\nmore words follow the heading",
)
PROBE_CONFIGS = ((8, 2), (16, 4))


def run_health_checks(
    declarations: Declarations, count: Counter, calls: Iterable[tuple[Any, list[dict[str, Any]]]]
) -> list[Finding]:
    """Every health check that applies, on ``calls`` (document, chunk records) of the run."""
    if declarations.unit != "tokens":
        return []
    lf = declarations.newlines == "lf"
    cases = (p for document, records in calls for p in probes(records, _text(document, lf)))
    found = additivity_finding(count_tokens_additive(count, cases), declarations)
    return [found] if found else []


def _text(document: Any, lf: bool) -> str | None:
    """The text chunk offsets refer to (``newlines = "lf"``: CRLF written as LF), or None."""
    if not isinstance(document, str):
        return None
    return document.replace("\r\n", "\n") if lf else document
