"""One cause, one verdict: which violations follow from untrustworthy offsets (or a cut
character).

Wrong offsets make placement fail, so the rules judged on where chunks lie (coverage, order,
overlap, citations, headings) fail with them although the chunker may keep them. A violation
*follows from* ``span_fidelity`` when, with every chunk's offsets set aside (each chunk placed
by its text alone, as SPEC §4 places bare strings), its rule holds: the offsets are the cause,
and ``span_fidelity`` is the verdict. A rule that still fails without the offsets is a verdict
of its own.

Offsets can also hold their chunk's text at the wrong copy of it (a ``find`` that starts too
early locks onto an earlier repeat): ``span_fidelity`` holds, the chunks go back over covered
ground (``ordered``), and the text the chunk was really cut from lies in no chunk by the
offsets. The rules that hold with the chunks placed by their texts follow from ``ordered``.

Likewise, a bare chunk that holds half of a character cut in two is text the document does not
hold (``span_fidelity``) only because of the cut: with the lone surrogates taken out it is the
document's text, so its ``span_fidelity`` follows from ``codepoint_integrity``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from chunk_contract.spec.model import Case, Chunk, Violation

__all__ = ["CUT", "OFFSETS", "ORDER", "attribute", "offsets_untrusted", "without_offsets"]

#: The rule that names the cause: a chunk's text is not where its offsets say.
OFFSETS = "span_fidelity"

Check = Callable[[Case], Iterable[Violation]]


def offsets_untrusted(case: Case) -> bool:
    """Some chunk reports offsets that do not hold its text (codepoint or byte offsets).

    Chunks that report no offsets among chunks that do (span_fidelity's "all or none") leave
    the reported ones trustworthy: the others are placed by their text anyway."""
    if case.workbook is not None or case.all_exact:
        return False
    rows = zip(case.chunks, case.char_exact, case.byte_exact)
    for chunk, chars, bytes_ in rows:
        if (chunk.start is not None or chunk.end is not None) and not chars:
            return True
        if (chunk.start_byte is not None or chunk.end_byte is not None) and not bytes_:
            return True
    return False


def without_offsets(case: Case) -> Case:
    """The same call with every chunk's offsets set aside: each is placed by its text."""
    chunks: Sequence[Chunk] = [
        dataclasses.replace(c, bare=False, start=None, end=None, start_byte=None, end_byte=None)
        for c in case.chunks
    ]
    return dataclasses.replace(case, chunks=chunks)


def attribute(
    case: Case, violations: list[Violation], checks: Mapping[str, Check]
) -> list[Violation]:
    """``violations`` with ``follows_from`` set on those another violation causes.

    ``checks`` maps rule ids to the checks that may be judged again on the text alone (rules
    that need more observations, such as a rerun, are left out by the caller).
    """
    if not violations:
        return violations
    caused = (
        _from_offsets(case, violations, checks)
        or _from_cut_characters(case, violations, checks)
        or _from_misplaced(case, violations, checks)
    )
    return [
        dataclasses.replace(v, follows_from=caused[1]) if caused and v.invariant in caused[0]
        else v
        for v in violations
    ]


def _from_offsets(
    case: Case, violations: list[Violation], checks: Mapping[str, Check]
) -> tuple[set[str], str] | None:
    """The rules that hold once untrusted offsets are set aside."""
    if not offsets_untrusted(case):
        return None
    textual = without_offsets(case)
    rules = {
        rule
        for rule in {v.invariant for v in violations} - {OFFSETS}
        if rule in checks and not any(True for _ in checks[rule](textual))
    }
    return (rules, OFFSETS) if rules else None


#: The rule that names offsets that hold their chunk's text, but at another copy of it.
ORDER = "ordered"


def _from_misplaced(
    case: Case, violations: list[Violation], checks: Mapping[str, Check]
) -> tuple[set[str], str] | None:
    """Offsets that hold each chunk's text, at an earlier copy of it (a ``find`` from too
    early): the chunks go back over covered ground (``ordered``), and the text they were cut
    from lies in no chunk by the offsets although some chunk holds it. When the chunks placed
    by their texts alone are in order, the rules that hold then follow from ``ordered``."""
    found = {v.invariant for v in violations}
    if ORDER not in checks or not any(chunk.has_offsets for chunk in case.chunks):
        return None
    if ORDER not in found and not any(True for _ in checks[ORDER](case)):
        return None  # judged alone (a shrink of no_lost_text): is the order broken too?
    textual = without_offsets(case)
    if any(True for _ in checks[ORDER](textual)):
        return None  # out of order by their texts too: a verdict of its own, no misplacement
    rules = {
        rule
        for rule in found - {ORDER, OFFSETS}
        if rule in checks and not any(True for _ in checks[rule](textual))
    }
    return (rules, ORDER) if rules else None


#: The rule that names a character cut in two (a lone surrogate where the document has none).
CUT = "codepoint_integrity"
_SURROGATES = re.compile("[\ud800-\udfff]")


def _from_cut_characters(
    case: Case, violations: list[Violation], checks: Mapping[str, Check]
) -> tuple[set[str], str] | None:
    """span_fidelity of chunks without offsets whose only foreign text is the halves of a cut
    character: with the lone surrogates taken out, every such chunk is the document's text."""
    found = {v.invariant for v in violations}
    if OFFSETS not in found or CUT not in checks or _SURROGATES.search(case.document.text):
        return None
    if CUT not in found and not any(True for _ in checks[CUT](case)):
        return None  # judged alone (a shrink of span_fidelity): is the cut there too?
    if any(chunk.has_offsets for chunk in case.chunks):
        return None  # placed by offsets: judged by _from_offsets
    text = case.document.text
    for chunk in case.chunks:
        if chunk.has_offsets or chunk.text in text:
            continue
        whole = _SURROGATES.sub("", chunk.text)
        if whole == chunk.text or whole not in text:
            return None
    return {OFFSETS}, CUT
