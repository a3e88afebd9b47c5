"""The built-in bug patterns: the bugs of the seed pull requests and their relatives.

Each experiment first checks the counterexample's shape (cheap, no call), then changes the input
the way the pattern predicts should make the violation go away, and calls the plugin again. The
order is most specific first, since the first confirmed pattern is the diagnosis.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import regex

from chunk_contract.diagnosis.base import Probe, pattern
from chunk_contract.generation.families import FAMILIES
from chunk_contract.spec.invariants.markdown import _fenced_ranges
from chunk_contract.spec.model import Chunk, Config

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ASCII = re.compile("[^\x00-\x7f]")
_FENCE_LIKE = re.compile(r"^[ \t]*(`{2,}|~{2,}).*$", re.MULTILINE)
#: A character above U+FFFF replaced by one in the BMP: one codepoint, as in the original.
_BMP_STAND_IN = "\u2605"


def _size(probe: Probe, text: str) -> int | None:
    """``text``'s size in the plugin's unit; None for tokens (not measured here)."""
    if probe.unit == "chars":
        return len(text)
    if probe.unit == "bytes":
        return len(text.encode("utf-8", "surrogatepass"))
    return None


def _unit(probe: Probe) -> str:
    return {"chars": "characters", "bytes": "bytes"}.get(probe.unit, probe.unit)


# ----------------------------------------------------------------------------- cap and overlap


@pattern(
    "overlap_on_top",
    invariants=("cap_respected",),
    cause="the overlap is added on top of a chunk that already fills the cap, so chunks reach "
    "max_size + overlap",
    fix="take the overlap out of the budget: a chunk holds at most max_size units, overlap "
    "included (cut max_size - overlap new units after the repeated ones)",
)
def overlap_on_top(probe: Probe) -> str | None:
    cfg = probe.config
    full = cfg.max_size + cfg.overlap
    hit = next((c for c in probe.suspects if cfg.overlap and _size(probe, c.text) == full
                and _repeats_predecessor(probe, c)), None)
    if hit is None or probe.fails(config=Config(cfg.max_size, 0)):
        return None
    return (f"chunk[{hit.index}] is exactly max_size + overlap = {cfg.max_size} + {cfg.overlap}"
            f" {_unit(probe)} long, and with overlap 0 every chunk fits the cap")


def _repeats_predecessor(probe: Probe, hit: Chunk) -> bool:
    """Whether ``hit`` may begin with the units the overlap repeated: it follows another chunk,
    and its first ``overlap`` units, if they hold text, end an earlier chunk. A first chunk, or
    one that starts with new text, has no overlap on top of it, whatever its length. (Units
    that are only whitespace tell nothing: the earlier chunk may have been stripped.)"""
    head = _prefix(probe, hit.text, probe.config.overlap).strip()
    earlier = [c for c in probe.chunks if c.index < hit.index]
    return bool(earlier) and (not head or any(c.text.rstrip().endswith(head) for c in earlier))


def _prefix(probe: Probe, text: str, units: int) -> str:
    """The longest start of ``text`` that is at most ``units`` long in the plugin's unit."""
    end = 0
    while end < len(text) and (_size(probe, text[:end + 1]) or 0) <= units:
        end += 1
    return text[:end]


@pattern(
    "grapheme_cluster_kept_whole",
    invariants=("cap_respected",),
    cause="the chunker keeps every extended grapheme cluster whole (an emoji with a modifier or "
    "ZWJ sequence, a flag, a letter with combining marks), and one cluster alone is longer than "
    "max_size",
    fix="if keeping clusters whole is by design, declare promises = ['grapheme_integrity']: a "
    "cluster is then indivisible and may exceed the cap; otherwise cut between its code points "
    "when a cluster does not fit",
)
def grapheme_cluster_kept_whole(probe: Probe) -> str | None:
    cap, doc = probe.config.max_size, probe.document
    hit = next((c for c in probe.suspects if _one_cluster(c.text.strip())
                and (_size(probe, c.text.strip()) or 0) > cap), None)
    if hit is None or not isinstance(doc, str) or probe.fails(_CLUSTER.sub(_base, doc)):
        return None
    # The control: the same code points' sizes, each its own cluster. A chunker that keeps
    # clusters whole cuts them now; one that miscounts the unit (characters for bytes) does not.
    if probe.fails(_CLUSTER.sub(_apart, doc)):
        return None
    return (f"chunk[{hit.index}] is one grapheme cluster of {_size(probe, hit.text.strip())} "
            f"{_unit(probe)}; with each cluster cut down to its first code point every chunk "
            "fits the cap, and so it does with the cluster's code points made clusters of "
            "their own (same sizes)")


_CLUSTER = regex.compile(r"\X")


def _one_cluster(text: str) -> bool:
    return len(text) > 1 and len(_CLUSTER.findall(text)) == 1


def _base(match: regex.Match[str]) -> str:
    return match.group(0)[0]


#: A character that is a grapheme cluster of its own, by UTF-8 length.
_STANDALONE = {1: "x", 2: "\u00df", 3: "\u4e2d", 4: "\U0001d400"}


def _apart(match: regex.Match[str]) -> str:
    """The cluster with every code point after its first replaced by a character of the same
    UTF-8 length that is a cluster of its own: the same code points and bytes, no cluster
    (a CRLF, a line end, is kept)."""
    if match.group(0) == "\r\n":
        return "\r\n"
    first, rest = match.group(0)[0], match.group(0)[1:]
    return first + "".join(_STANDALONE[len(ch.encode("utf-8", "surrogatepass"))] for ch in rest)


@pattern(
    "start_does_not_advance",
    invariants=("terminates",),
    cause="the next chunk starts at the last cut point minus the overlap, which can fall at or "
    "before the current start, so the loop never advances",
    fix="clamp the next start forward: start = max(start + 1, cut - overlap), or stop when it "
    "does not move",
)
def start_does_not_advance(probe: Probe) -> str | None:
    cfg = probe.config
    if not cfg.is_valid or cfg.overlap == 0 or probe.records is not None:
        return None
    if not probe.fails() or probe.fails(config=Config(cfg.max_size, 0)):
        return None  # a hang that does not come back (a busy machine) explains nothing
    return (f"the call does not finish with overlap {cfg.overlap} and finishes on the same "
            "document with overlap 0")


#: The header's lines after its first one.
_HEADER_REST = "\nby\n2024\n"


def _headed(first_line: str, cap: int) -> str:
    """A three-line header starting with ``first_line``, then a body of short words well over
    the cap."""
    return first_line + _HEADER_REST + "body text " * (3 * cap // 10 + 3)


def _title(cap: int) -> str:
    """A first line of distinct five-letter words at least ``cap`` long: no word repeats, so a
    chunker that misplaces repeated text (offsets found with ``str.find``) is not caught by it."""
    return " ".join(_word(k) for k in range(cap // 6 + 1))


def _word(k: int) -> str:
    """The ``k``-th of 26**4 distinct words: "T" and four letters."""
    letters = "".join(chr(ord("a") + (k // 26 ** i) % 26) for i in range(4))
    return "T" + letters


@pattern(
    "header_longer_than_cap",
    invariants=("cap_respected", "non_empty", "ordered", "no_lost_text", "span_fidelity",
                "overlap_bounded", "terminates", "no_crash"),
    cause="the budget left for the body is max_size minus the header's length, which is zero or "
    "negative when the header alone reaches the cap (a negative slice step or window)",
    fix="check the header against the cap up front: cut an oversize header into windows of its "
    "own, and never compute a step of max_size - len(header) <= 0",
)
def header_longer_than_cap(probe: Probe) -> str | None:
    if not isinstance(probe.document, str) or probe.unit not in ("chars", "bytes"):
        return None
    cap = max(probe.config.max_size, 24)
    config = Config(cap, probe.config.overlap if probe.config.overlap < cap // 2 else 0)
    title = _title(cap)
    short, long = _headed("Title", cap), _headed(title, cap)
    if probe.fails(short, config) or not probe.fails(long, config):
        return None
    # The control: the long header under a cap it fits twice over. If the rule still breaks,
    # the header's length against the cap is not the cause (the first line itself is).
    roomy = Config(2 * len(title + _HEADER_REST) + cap, config.overlap)
    if probe.fails(long, roomy):
        return None
    return (f"with {config.describe()}, a document whose three header lines stay under the cap "
            "passes, and the same document with a first line of short words that brings the "
            "header to the cap breaks the rule; with a cap the long header fits, it passes again")


# ----------------------------------------------------------------------------- find() and strip()


def _occurrences(document: str, text: str) -> list[int]:
    """Every start of ``text`` in ``document``, overlapping ones included."""
    out, at = [], document.find(text)
    while at != -1 and text:
        out.append(at)
        at = document.find(text, at + 1)
    return out


#: Punctuation with no markdown meaning, rotated among itself like letters and digits.
_PUNCTUATION = "!$%&'(),./:;?@[]^{|}"


def _rotate(char: str, k: int) -> str:
    for low, size in ((ord("a"), 26), (ord("A"), 26), (ord("0"), 10)):
        if low <= ord(char) < low + size:
            return chr(low + (ord(char) - low + k) % size)
    at = _PUNCTUATION.find(char)
    return char if at < 0 else _PUNCTUATION[(at + k) % len(_PUNCTUATION)]


def _shifted(document: str, text: str) -> str:
    """The control for :func:`_uniquified`: every copy of ``text`` changed the same way, so the
    document changes as much but the copies stay identical."""
    starts = _occurrences(document, text)
    inside = [False] * len(document)
    for at in starts:
        for i in range(at, at + len(text)):
            inside[i] = True
    return "".join(_rotate(ch, 1) if inside[i] else ch for i, ch in enumerate(document))


def _uniquified(document: str, text: str) -> str | None:
    """The document with every copy of ``text`` but the first made different (ASCII letters and
    digits rotated, copy by copy: same lengths, same word and line structure), or None when the
    copies cannot be told apart that way."""
    starts = _occurrences(document, text)
    owner = [0] * len(document)
    for k, at in enumerate(starts):
        for i in range(at, at + len(text)):
            owner[i] = owner[i] or k
    changed = "".join(_rotate(ch, owner[i]) for i, ch in enumerate(document))
    return changed if len(_occurrences(changed, text)) == 1 else None


def _repeated(probe: Probe) -> Iterator[Chunk]:
    """Suspect chunks that report the place the rule judges and whose text occurs more than
    once."""
    doc = probe.document
    for chunk in probe.suspects:
        placed = _placed(chunk, probe.invariant)
        if placed and chunk.text.strip() and len(_occurrences(doc, chunk.text)) > 1:
            yield chunk


def _placed(chunk: Chunk, rule: str) -> bool:
    """Whether the chunk itself reports the place ``rule`` judges: its lines for
    line_citations, its offsets for the others. A chunk without offsets is placed by the
    contract (SPEC §4), so no find() of the chunker's can have misplaced it."""
    if rule == "line_citations":
        return chunk.line_start is not None
    return (chunk.start, chunk.start_byte) != (None, None)


@pattern(
    "offsets_from_find",
    invariants=("span_fidelity", "line_citations", "ordered", "no_lost_text", "overlap_bounded",
                "tiles_parent"),
    cause="the chunk's place is recovered with str.find (or bytes.find) on its text, which locks "
    "onto an earlier copy of a repeated block",
    fix="carry the offsets through from where the chunk was cut (chunks as slices of the "
    "document); if you must search, search from the previous chunk's end, never its start",
)
def offsets_from_find(probe: Probe) -> str | None:
    if not isinstance(probe.document, str):
        return None
    for chunk in _repeated(probe):
        variant = _uniquified(probe.document, chunk.text)
        if variant is None or probe.fails(variant):
            continue
        if probe.fails(_shifted(probe.document, chunk.text)):
            copies = len(_occurrences(probe.document, chunk.text))
            return (f"chunk[{chunk.index}]'s text occurs {copies} times in the document; the "
                    "violation disappears when the other copies are made different, and stays "
                    "when every copy is changed alike")
    return None


def _leading_blank_lines(document: str) -> int:
    """How many whole blank lines the document starts with."""
    body = len(document) - len(document.lstrip())
    return document.count("\n", 0, body) if body < len(document) else 0


@pattern(
    "lines_after_strip",
    invariants=("line_citations",),
    cause="line numbers are counted on a stripped or re-joined copy of the document, so every "
    "line is shifted by the leading blank lines that the copy lost",
    fix="count lines on the document itself (document.count('\\n', 0, start) + 1), never on "
    "text.strip() or '\\n'.join(text.splitlines())",
)
def lines_after_strip(probe: Probe) -> str | None:
    doc = probe.document
    blank = _leading_blank_lines(doc) if isinstance(doc, str) else 0
    if not blank:
        return None
    first = _lines(probe.chunks)
    moved = probe.rechunk("\n" + doc)
    if not first or moved is None or _lines(moved) != first:
        return None
    body = len(doc) - len(doc.lstrip())
    if probe.fails(doc[doc.rfind("\n", 0, body) + 1:]):
        return None
    return (f"the document starts with {blank} blank line(s); one more blank line in front "
            "leaves every reported line number unchanged, and without them the lines are right")


def _lines(chunks: list[Chunk]) -> list[tuple[int | None, int | None]]:
    return [(c.line_start, c.line_end) for c in chunks if c.line_start is not None]


# ----------------------------------------------------------------------------- encodings


def _bmp_only(document: str) -> str:
    return _ASTRAL.sub(_BMP_STAND_IN, document)


def _ascii_only(document: str) -> str:
    return _NON_ASCII.sub(lambda m: " " if m.group().isspace() else "x", document)


_DRIFT = ("span_fidelity", "line_citations", "no_lost_text", "ordered", "overlap_bounded",
          "codepoint_integrity", "cap_respected", "tiles_parent")


@pattern(
    "astral_split_into_surrogates",
    invariants=("codepoint_integrity",),
    cause="the text is cut in UTF-16 code units, between the two halves of a character above "
    "U+FFFF, leaving a lone surrogate at the end of one chunk and the start of the next",
    fix="cut on code point boundaries: never between a high and a low surrogate (in JavaScript, "
    "step back one unit when the cut falls after a high surrogate)",
)
def astral_split_into_surrogates(probe: Probe) -> str | None:
    doc = probe.document
    if not isinstance(doc, str) or not _ASTRAL.search(doc) or _SURROGATE.search(doc):
        return None
    hit = next((c for c in probe.suspects if _cut_pair(c.text)), None)
    if hit is None or probe.fails(_bmp_only(doc)):
        return None
    return (f"chunk[{hit.index}] holds half of a character above U+FFFF; with those characters "
            "replaced by one in the BMP the violation disappears")


def _cut_pair(text: str) -> bool:
    return bool(text) and ("\udc00" <= text[0] <= "\udfff" or "\ud800" <= text[-1] <= "\udbff")


@dataclass(frozen=True)
class _CodeUnits:
    """Offsets counted in an encoding's code units instead of code points."""

    codec: str
    #: bytes per code unit: 2 for UTF-16, 1 for UTF-8
    width: int
    #: what the units count apart from code points, in the document
    counted_apart: re.Pattern[str]
    #: the copy of the document on which units and code points agree
    neutral: Callable[[str], str]
    where: str
    copy: str


def _unit_offsets(probe: Probe, units: _CodeUnits) -> str | None:
    """A suspect's [start:end) is its text's place in ``units``, and the neutral copy passes."""
    doc = probe.document
    if not isinstance(doc, str) or not units.counted_apart.search(doc):
        return None
    data = doc.encode(units.codec, "surrogatepass")
    hit = next((c for c in probe.suspects if _units_hold(data, doc, c, units)), None)
    if hit is None or probe.fails(units.neutral(doc)):
        return None
    return (f"chunk[{hit.index}]'s [{hit.start}:{hit.end}) is where its text lies in "
            f"{units.where}; {units.copy} the violation disappears")


def _units_hold(data: bytes, document: str, chunk: Chunk, units: _CodeUnits) -> bool:
    """The chunk's offsets are wrong as code points but right as code units of ``data``."""
    s, e = chunk.start, chunk.end
    if s is None or e is None or document[s:e] == chunk.text:
        return False
    w = units.width
    return data[w * s:w * e] == chunk.text.encode(units.codec, "surrogatepass")


_UTF16 = _CodeUnits("utf-16-le", 2, _ASTRAL, _bmp_only, "UTF-16 code units",
                    "with the characters above U+FFFF replaced by BMP ones")
_UTF8 = _CodeUnits("utf-8", 1, _NON_ASCII, _ascii_only, "UTF-8 bytes",
                   "on an ASCII-only copy of the document")


@pattern(
    "utf16_offsets",
    invariants=_DRIFT,
    cause="start/end are UTF-16 code unit indices (JavaScript, Java, C# string positions), "
    "which drift by one for every character above U+FFFF before the chunk",
    fix="convert UTF-16 indices to code points before reporting them, or declare "
    "offsets = \"utf16\"",
)
def utf16_offsets(probe: Probe) -> str | None:
    return _unit_offsets(probe, _UTF16)


@pattern(
    "utf8_offsets_as_indices",
    invariants=_DRIFT,
    cause="start/end are UTF-8 byte offsets used as string (code point) indices, which drift "
    "by the extra bytes of every non-ASCII character before the chunk",
    fix="report byte offsets as start_byte/end_byte, and code point offsets as start/end "
    "(len(data[:i].decode('utf-8')))",
)
def utf8_offsets_as_indices(probe: Probe) -> str | None:
    return _unit_offsets(probe, _UTF8)


@pattern(
    "codepoints_as_byte_offsets",
    invariants=("span_fidelity", "codepoint_integrity", "tiles_parent", "overlap_bounded"),
    cause="start_byte/end_byte repeat the code point offsets, which differ from UTF-8 byte "
    "offsets as soon as a non-ASCII character comes before or inside the chunk",
    fix="compute byte offsets from the encoded prefix: len(document[:start].encode('utf-8'))",
)
def codepoints_as_byte_offsets(probe: Probe) -> str | None:
    doc = probe.document
    if not isinstance(doc, str) or doc.isascii():
        return None
    hit = next((c for c in probe.suspects
                if c.start is not None and (c.start_byte, c.end_byte) == (c.start, c.end)
                and not doc[:c.end].isascii()), None)
    if hit is None or probe.fails(_ascii_only(doc)):
        return None
    return (f"chunk[{hit.index}] reports start_byte/end_byte equal to its code point offsets "
            f"[{hit.start}:{hit.end}); on an ASCII-only copy the violation disappears")


# ----------------------------------------------------------------------------- line endings


@pattern(
    "crlf_separator",
    invariants=("newline_invariance",),
    cause="the splitter looks for '\\n\\n' (blank-line) separators, which '\\r\\n\\r\\n' does "
    "not contain, so a Windows file is cut as one paragraph",
    fix="normalise '\\r\\n' to '\\n' before splitting (and map offsets back), or split on "
    "'\\r?\\n\\r?\\n'",
)
def crlf_separator(probe: Probe) -> str | None:
    doc = probe.document
    lf = doc.replace("\r\n", "\n") if isinstance(doc, str) else ""
    if "\n\n" not in lf:
        return None
    crlf = lf.replace("\n", "\r\n")
    plain, windows = probe.rechunk(lf), probe.rechunk(crlf.replace("\r\n\r\n", "\r\n\n"))
    if plain is None or windows is None or _texts(windows) != _texts(plain):
        return None
    return ("with each blank line written '\\r\\n\\n' (so that '\\n\\n' is present) the CRLF "
            "document is chunked exactly like its LF twin")


@pattern(
    "crlf_counted",
    invariants=("newline_invariance",),
    cause="'\\r\\n' is not normalised before measuring, so each '\\r' counts toward the cap "
    "and moves the cuts of a Windows file",
    fix="normalise '\\r\\n' to '\\n' before cutting (and map offsets back), or measure "
    "without the '\\r'",
)
def crlf_counted(probe: Probe) -> str | None:
    doc = probe.document
    lf = doc.replace("\r\n", "\n") if isinstance(doc, str) else ""
    extra, cfg = lf.count("\n"), probe.config
    if not extra or probe.unit != "chars" or not cfg.is_valid:
        return None
    plain = probe.rechunk(lf)
    wider = probe.rechunk(lf.replace("\n", "\r\n"), Config(cfg.max_size + extra, cfg.overlap))
    if plain is None or wider is None or _texts(wider) != _texts(plain):
        return None
    return (f"the CRLF twin is cut exactly like the LF document once the cap allows for its "
            f"{extra} extra '\\r' character(s)")


def _texts(chunks: list[Chunk]) -> list[str]:
    return [c.text.replace("\r\n", "\n").replace("\r", "") for c in chunks]


@pattern(
    "crlf_not_normalised",
    invariants=("span_fidelity", "line_citations", "no_lost_text", "cap_respected",
                "heading_boundary", "section_path", "non_empty", "ordered"),
    cause="'\\r\\n' line ends are not handled: the chunker (or its offsets) counts on '\\n' "
    "alone, or declares newlines = \"lf\" without normalising",
    fix="normalise '\\r\\n' to '\\n' once, up front, and compute every offset on that text (or "
    "declare newlines = \"preserve\" and keep the '\\r')",
)
def crlf_not_normalised(probe: Probe) -> str | None:
    doc = probe.document
    if not isinstance(doc, str) or "\r\n" not in doc or probe.fails(doc.replace("\r\n", "\n")):
        return None
    # The control: the same document with each CRLF's "\r" turned into other whitespace keeps
    # every length, offset and line, and holds no CRLF. If the violation stays there, the "\r"
    # is not its cause (a chunker that rejoins lines with a space fails on LF text alike; one
    # that strips whitespace fails on any run of it).
    if any(probe.fails(doc.replace("\r\n", f"{blank}\n")) for blank in _CR_STAND_INS):
        return None
    return (f"the document has {doc.count(chr(13) + chr(10))} '\\r\\n' line end(s); written "
            "with '\\n' instead, the violation disappears, and it also disappears when each "
            "'\\r' becomes a space or a tab (same lengths and lines)")


#: What a CRLF's "\r" becomes in the control: whitespace of the same length, no line end.
#: Both, as a chunker may cut at one of them and not at "\r": a space is a word separator to
#: most splitters, so on the space copy alone the cuts move and the violation may go for that
#: reason, while a tab, like "\r", is whitespace that few of them cut at.
_CR_STAND_INS = (" ", "\t")


# ----------------------------------------------------------------------------- markdown


@pattern(
    "fence_lookalike",
    invariants=("heading_boundary", "section_path"),
    cause="a line that only looks like a code fence (indented four spaces, two backticks, or "
    "backticks in its info string) is taken for one, so the headings after it are treated as "
    "code",
    fix="recognise fences as CommonMark does: 0-3 spaces of indent, three or more backticks or "
    "tildes, no backtick in a backtick fence's info string",
)
def fence_lookalike(probe: Probe) -> str | None:
    doc = probe.document
    if not isinstance(doc, str):
        return None
    bounds = _fenced_ranges(doc)
    openers, closers = set(bounds[::2]), set(bounds[1::2])
    for match in _FENCE_LIKE.finditer(doc):
        if match.start() in openers or match.end() in closers:
            continue  # a real fence: removing it changes what is code
        without = doc[:match.start()] + doc[match.end() + 1:]
        if probe.fails(without):
            continue
        # The control: the line kept, as long as before, but no longer fence-like. If the
        # violation stays there, what the line holds (text before a heading), not its look,
        # is the cause.
        plain = doc[:match.start()] + _unfenced(match.group()) + doc[match.end():]
        if not probe.fails(plain):
            return (f"line {doc.count(chr(10), 0, match.start()) + 1} ({match.group()!a}) is "
                    "not a fence; without it the violation disappears, and so it does with "
                    "its backticks and tildes turned into letters (the line kept)")
    return None


def _unfenced(line: str) -> str:
    """The line with every backtick and tilde turned into a letter: what looked like a fence
    is plain text now, and the line is still there, as long as before. (Removing the whole
    line also removes the text before a heading, which alone can make the rule hold.)"""
    return line.replace("`", "x").replace("~", "x")


# ----------------------------------------------------------------------------- scaling


def _family_of(document: object) -> str | None:
    """The scaling family whose document at this size is ``document`` (None: no family)."""
    if not isinstance(document, str) or not document:
        return None
    return next((name for name, build in FAMILIES.items() if build(len(document)) == document),
                None)


@pattern(
    "superlinear_growth",
    invariants=("scales_linearly",),
    cause="the chunker's time grows faster than its input on one document shape: work that "
    "re-scans the text from the start (or re-slices the rest) for every chunk, line or block",
    fix="carry positions forward instead of searching again: one pass, offsets kept as you cut "
    "(no text.find from 0, no text[pos:] copies, no prefix recounting per chunk)",
)
def superlinear_growth(probe: Probe) -> str | None:
    family = _family_of(probe.document)
    if family is None:
        return None
    timing = probe.session.time_family(family)
    if not timing.superlinear:
        return None  # measured again, the growth did not come back
    return f"{family}, measured again: {_growth(timing)}"


def _growth(timing: object) -> str:
    """How the time grew between the compared sizes, as an exponent of the size."""
    import math

    pair = getattr(timing, "compared", None)
    sizes, seconds = getattr(timing, "sizes", ()), getattr(timing, "seconds", ())
    if pair is None or pair[0] == pair[1] or not seconds[pair[0]]:
        return "a size that a linear chunker finishes did not finish"
    (a, b), (ta, tb) = (sizes[pair[0]], sizes[pair[1]]), (seconds[pair[0]], seconds[pair[1]])
    exponent = math.log(tb / ta) / math.log(b / a) if ta and tb and tb > ta else 1.0
    shape = "quadratically" if exponent >= 1.7 else "faster than linearly"
    return (f"{a:,} -> {b:,} characters took {ta:.3f} -> {tb:.3f} s of CPU time: time grows "
            f"{shape} (about n^{exponent:.1f})")
