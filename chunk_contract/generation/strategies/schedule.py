"""Coverage by construction: a deterministic covering schedule played before the random search.

A 200-example draw meets a rare document shape on some seeds only: a heading on the last line
without a newline, a fence written with lone-CR line endings under a cap larger than the line.
With a fixed seed per target (the ``ci`` profile) a bug missed on that seed is missed forever.
The schedule removes the luck for the shapes the generators know: every run, whatever its seed,
first plays a fixed list of ``(document, Config)`` cases built so that every pair of

* **position**: a feature x where it sits (``start``: offset 0 and first line; ``middle``;
  ``end``: the last line, no newline after it; ``end_nl``: the last line, then a newline;
  ``alone``: the whole document);
* **regime**: a feature x a config regime (a tiny cap, caps around a line, a paragraph, a
  section, larger than the document, overlap 0 and ``max_size - 1``, each degenerate family
  of SPEC §2);
* **ending**: a line-ending-sensitive feature x a line ending (LF, CRLF, lone CR, mixed);
* **adjacent**: a feature x every other feature next to it (unordered);

and two cheap triples: feature x position (start, middle, end) x cap class (below a line or
not), and a line-ending feature after a neighbour x ending x cap class (below a line, a line,
two neighbouring blocks), holds in at least one case. Positions, adjacency and line endings
count only in cases with a valid config: a degenerate config exercises the config check, not
the document.

The construction is greedy (the all-pairs method): each new case takes the regime, line ending
and trailing newline with the most pairs still uncovered, then strings features together,
each time the one that covers most new pairs next to the last. Cases are made of small fixed
pieces joined by blank lines or single newlines, so a finding shrinks with
:func:`chunk_contract.engine.minimize.minimize` like a corpus finding. Nothing depends on a seed or
on Hypothesis: two runs play the same cases in the same order.
"""

from __future__ import annotations

import collections
import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from chunk_contract.spec.model import Config

from .coverage import Coverage, Pair, Schedule, Scheduled, coverage_of
from .text import CLUSTER_UNITS
from .workbook_schedule import workbook_schedule

__all__ = [
    "ENDINGS",
    "FEATURES",
    "POSITIONS",
    "REGIMES",
    "Case",
    "Coverage",
    "Feature",
    "Schedule",
    "Scheduled",
    "build_schedule",
    "coverage_of",
    "required_pairs",
    "schedule_for",
    "text_schedule",
]

#: A covered combination: ``(factor, feature, value)``.


@dataclass(frozen=True)
class Feature:
    """A document feature: a small fixed piece, written with ``"\\n"`` line breaks."""

    name: str
    text: str
    #: Its meaning depends on the line ending (a heading, a fence, a blank-line paragraph...).
    eol: bool = False


def _f(name: str, text: str, eol: bool = False) -> Feature:
    return Feature(name, text, eol)


_LONG_TITLE = "A heading far longer than any small cap, with words enough to wrap twice"

#: The features of chunk_contract.generation.strategies (text.py, markdown.py, the corpus), one
#: piece each.
FEATURES: tuple[Feature, ...] = (
    _f("prose", "Plain prose. Dr. Smith paid $3.50 at 3.14 p.m., e.g. early."),
    _f("paragraphs", "First paragraph here.\n\nSecond paragraph.", eol=True),
    _f("repeated_blocks", '{"a": 1}\n' * 3 + '{"a": 1}', eol=True),
    _f("repeated_words", "ab ab ab ab ab ab ab ab"),
    _f("json_block", '{\n  "id": 1,\n  "name": "widget"\n}', eol=True),
    _f("long_run", "a" * 120),
    _f("early_space", "x" * 10 + " " + "a" * 60),
    _f("url", "https://example.com/a/b?c=d&e=f%20g"),
    _f("cjk", "\u4e2d\u6587\u6587\u672c\u6ca1\u6709\u7a7a\u683c\u6570\u636e\u5e93\u68c0\u7d22"),
    _f("thai", "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22\u0e44\u0e21\u0e48\u0e21\u0e35"),
    _f("astral", "\U0001f680 \U0001d400\U0001d401\U0001d402 \U00020000"),
    _f("combining", "e\u0301 n\u0303 a\u0308\u0323 o\u0302\u0303\u0304\u0305"),
    _f("zwj", "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f3f3\ufe0f\u200d\U0001f308"),
    _f("flags", "\U0001f1ef\U0001f1f5\U0001f1e9\U0001f1ea \U0001f1fa\U0001f1f8\U0001f1ef"),
    _f("cluster_run", "".join(CLUSTER_UNITS)),
    _f("hangul_nfd", "\u1112\u1161\u11ab\u1100\u1173\u11af \ud55c\uad6d\uc5b4"),
    _f("rtl", "\u05e9\u05dc\u05d5\u05dd \u202eevil\u202c \u0645\u0631\u062d\u0628\u0627"),
    _f("unicode_spaces", "a\u00a0b\u3000c\u200bd\u2009e"),
    _f("lone_surrogates", "ab\ud800cd\udfff"),
    _f("odd_breaks", "one\x0btwo\x0cthree\x85four\u2028five\u2029six"),
    _f("nul", "a\x00b\x1bc\x7fd"),
    _f("bom", "\ufeffBOM text"),
    _f("tabs", "col1\tcol2\t\tcol3"),
    _f("whitespace_only", " \t \n  \n\t", eol=True),
    _f("blank_lines", "\n\n", eol=True),
    _f("heading", "# Title", eol=True),
    _f("heading_closing", "## Part ##", eol=True),
    _f("heading_tab", "###\tTab heading", eol=True),
    _f("heading_empty", "#", eol=True),
    _f("heading_indented", "   #### Indented three", eol=True),
    _f("heading_long", "# " + _LONG_TITLE, eol=True),
    _f("not_heading", "#hashtag\n    # indented code\n####### seven", eol=True),
    _f("setext", "Setext title\n============", eol=True),
    _f("setext_dash", "Setext two\n---", eol=True),
    _f("thematic", "***\n\n___", eol=True),
    _f("fence", "```python\n# not a heading\n```", eol=True),
    _f("fence_tilde", "~~~~ md\n# inside\n```\n~~~~~", eol=True),
    _f("fence_lookalike", "```a`b\n# Heading after a look-alike", eol=True),
    _f("fence_unclosed", "```\n# inside an open fence\ncode", eol=True),
    _f("list", "- item one\n* item two\n1. first\n2) second\n  - nested", eol=True),
    _f("table", "| a | b |\n|---|---|\n| 1 | 2 |", eol=True),
    _f("quote", "> # quoted heading\n> quoted text", eol=True),
    _f("front_matter", "---\ntitle: x\ntags: [a, b]\n---", eol=True),
    _f("header", "A title far longer than the cap\nAn author name\n2024-01-01", eol=True),
)

POSITIONS = ("start", "middle", "end", "end_nl", "alone")
ENDINGS = ("lf", "crlf", "cr", "mixed")
#: Config regimes, valid ones first; each maps (document, blocks) -> Config.
VALID_REGIMES = (
    "tiny1", "tiny3", "line", "line_overlap", "paragraph", "section", "whole", "whole_overlap",
)
DEGENERATE_REGIMES = (
    "size_zero", "size_negative", "overlap_negative", "overlap_equal", "overlap_above",
)
REGIMES = VALID_REGIMES + DEGENERATE_REGIMES
#: The valid regimes by what their cap holds: less than a line, a line or a block, two
#: neighbouring blocks or more (so a construct shares a chunk with what is before it).
CAP_CLASSES: dict[str, str] = {
    "tiny1": "small", "tiny3": "small", "line": "line", "line_overlap": "line",
    "paragraph": "line", "section": "section", "whole": "section", "whole_overlap": "section",
}
#: Positions after another feature: where a line ending joins the feature to its neighbour.
FOLLOWING = ("middle", "end", "end_nl")
#: The positions crossed with a coarser cap class (below a line, or not): the first line,
#: the inside, the last line without a newline after it.
CAPPED_POSITIONS = ("start", "middle", "end")
#: Features per case: a longer case covers more adjacencies, a shorter one shrinks faster.
CASE_FEATURES = 8
#: Features per degenerate case (those count only the regime pair).
DEGENERATE_FEATURES = 16
#: The joiners between features, alternated by case: a blank line, or a single newline.
JOINERS = ("\n\n", "\n")

_MIXED = ("\r\n", "\n", "\r")


def with_ending(text: str, ending: str) -> str:
    """``text`` with every ``"\\n"`` written as ``ending`` (``mixed``: CRLF, LF, CR in turn)."""
    if ending == "crlf":
        return text.replace("\n", "\r\n")
    if ending == "cr":
        return text.replace("\n", "\r")
    if ending == "mixed":
        pieces = text.split("\n")
        breaks = itertools.cycle(_MIXED)
        return pieces[0] + "".join(next(breaks) + piece for piece in pieces[1:])
    return text


def _size(text: str) -> int:
    """UTF-8 bytes: at least the codepoints and at least the tokens, so a cap of this size
    holds ``text`` in any unit a plugin may count in."""
    return len(text.encode("utf-8", "surrogatepass"))


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One scheduled case: which features, in which order, under which regime and ending."""

    features: tuple[Feature, ...]
    regime: str
    ending: str = "lf"
    trailing: bool = False
    joiner: str = "\n\n"

    @property
    def valid(self) -> bool:
        return self.regime in VALID_REGIMES

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)

    @property
    def document(self) -> str:
        return _document(self)

    @property
    def config(self) -> Config:
        return _config(self)

    def pairs(self) -> frozenset[Pair]:
        """Every combination this case covers."""
        return frozenset(_pairs(self))


@functools.lru_cache(maxsize=4096)
def _document(case: Case) -> str:
    body = case.joiner.join(f.text for f in case.features)
    return with_ending(body + ("\n" if case.trailing else ""), case.ending)


def _blocks(case: Case) -> list[str]:
    """The features as CRLF writes them (the widest ending), each with a break after it."""
    return [with_ending(f.text + "\n", "crlf") for f in case.features]


def _config(case: Case) -> Config:
    return _REGIME_CONFIGS[case.regime](case)


def _longest_line(case: Case) -> int:
    return max([2, *(_size(line) for line in case.document.splitlines(keepends=True))])


def _paragraph(case: Case) -> int:
    return max([_longest_line(case), *(_size(block) for block in _blocks(case))])


def _section(case: Case) -> int:
    blocks = _blocks(case)
    joiner = with_ending(case.joiner, "crlf")
    joined = [_size(a + joiner + b) for a, b in itertools.pairwise(blocks)]
    return max([_paragraph(case), *joined])


def _whole(case: Case) -> int:
    return _size(case.document) + 1


_REGIME_CONFIGS: dict[str, Callable[[Case], Config]] = {
    "tiny1": lambda c: Config(1, 0),
    "tiny3": lambda c: Config(3, 2),
    "line": lambda c: Config(_longest_line(c), 0),
    "line_overlap": lambda c: Config(_longest_line(c), _longest_line(c) - 1),
    "paragraph": lambda c: Config(_paragraph(c), 0),
    "section": lambda c: Config(_section(c), _section(c) // 4),
    "whole": lambda c: Config(_whole(c), 0),
    "whole_overlap": lambda c: Config(_whole(c), _whole(c) - 1),
    "size_zero": lambda c: Config(0, 0),
    "size_negative": lambda c: Config(-1, 0),
    "overlap_negative": lambda c: Config(8, -1),
    "overlap_equal": lambda c: Config(4, 4),
    "overlap_above": lambda c: Config(1, 999),
}


#: A regime of each cap class, for the fallback cases.
_REGIME_OF = {"small": "tiny1", "line": "line", "large": "line", "section": "section"}


def _position(case: Case, index: int) -> str:
    if len(case.features) == 1:
        return "alone"
    if index == 0:
        return "start"
    if index == len(case.features) - 1:
        return "end_nl" if case.trailing else "end"
    return "middle"


def _cap_class(regime: str) -> str:
    return CAP_CLASSES[regime]


def _coarse(cap: str) -> str:
    """The class crossed with positions: ``small`` (below a line) or ``large``."""
    return cap if cap == "small" else "large"


def _item_pairs(case: Case, index: int) -> Iterable[Pair]:
    """What the feature at ``index`` covers in ``case``."""
    feature = case.features[index]
    name = feature.name
    yield ("regime", name, case.regime)
    if not case.valid:
        return
    position, cap = _position(case, index), _cap_class(case.regime)
    yield ("position", name, position)
    if position in CAPPED_POSITIONS:
        yield ("position_cap", name, f"{position}/{_coarse(cap)}")
    if feature.eol and _written_with(case, index):
        yield ("ending", name, case.ending)
        if position in FOLLOWING:
            yield ("ending_cap", name, f"{case.ending}/{cap}")
    if index > 0:
        yield _adjacent(case.features[index - 1].name, name)


def _written_with(case: Case, index: int) -> bool:
    """Whether the feature at ``index`` is written with the case's line ending: it holds a
    line break or one follows it (and a ``mixed`` document has two breaks or more, so two
    kinds)."""
    feature = case.features[index]
    touches = "\n" in feature.text or index < len(case.features) - 1 or case.trailing
    return touches and (case.ending != "mixed" or _breaks(case) >= 2)


@functools.lru_cache(maxsize=4096)
def _breaks(case: Case) -> int:
    return sum(f.text.count("\n") for f in case.features) + (
        case.joiner.count("\n") * (len(case.features) - 1) + case.trailing
    )


def _adjacent(a: str, b: str) -> Pair:
    return ("adjacent", a, b) if a <= b else ("adjacent", b, a)


def _pairs(case: Case) -> Iterable[Pair]:
    for index in range(len(case.features)):
        yield from _item_pairs(case, index)


# ----------------------------------------------------------------------------- the target


def required_pairs(features: Sequence[Feature] = FEATURES) -> frozenset[Pair]:
    """Every combination a schedule over ``features`` must cover (the factor lists)."""
    names = [f.name for f in features]
    out: set[Pair] = set()
    out |= {("position", n, p) for n in names for p in POSITIONS}
    out |= {("regime", n, r) for n in names for r in REGIMES}
    classes = sorted(set(CAP_CLASSES.values()))
    out |= {("position_cap", n, f"{p}/{c}") for n in names for p in CAPPED_POSITIONS
            for c in ("small", "large")}
    sensitive = [f.name for f in features if f.eol]
    out |= {("ending", n, e) for n in sensitive for e in ENDINGS}
    out |= {("ending_cap", n, f"{e}/{c}") for n in sensitive for e in ENDINGS for c in classes}
    out |= {_adjacent(a, b) for a, b in itertools.combinations(names, 2)}
    return frozenset(out)


# ----------------------------------------------------------------------------- greedy building


def _valid_only(pair: Pair) -> bool:
    """Whether a case with a valid config can cover ``pair``."""
    return pair[0] != "regime" or pair[2] in VALID_REGIMES


@dataclass(frozen=True)
class _Slot:
    """Where a feature picked by the greedy goes: its position, and the case's settings."""

    position: str
    regime: str
    ending: str


@dataclass(frozen=True)
class _SlotValues:
    """A slot's values as its pairs name them (the capped ones None where the position has
    none): worked out once per pick, not once per feature scored."""

    regime: str
    position: str
    ending: str
    position_cap: str | None
    ending_cap: str | None

    @classmethod
    def of(cls, slot: _Slot) -> _SlotValues:
        cap, position = _cap_class(slot.regime), slot.position
        return cls(
            slot.regime, position, slot.ending,
            f"{position}/{_coarse(cap)}" if position in CAPPED_POSITIONS else None,
            f"{slot.ending}/{cap}" if position in FOLLOWING else None,
        )


class _Builder:
    """The greedy all-pairs construction over a feature list."""

    def __init__(self, features: Sequence[Feature]) -> None:
        self.features = tuple(features)
        self.names = [f.name for f in features]
        self.required = required_pairs(features)
        self.uncovered = set(self.required)
        self.cases: list[Case] = []
        #: feature -> how many of its adjacencies are still uncovered.
        self.open_links = {n: len(self.names) - 1 for n in self.names}
        #: (factor, value) -> how many features still lack that pair.
        self.open_values = collections.Counter((p[0], p[2]) for p in self.required)

    def add(self, case: Case) -> None:
        new = case.pairs() & self.uncovered
        self.cases.append(case)
        self.uncovered -= new
        for factor, a, b in new:
            self.open_values[(factor, b)] -= 1
            if factor == "adjacent":
                self.open_links[a] -= 1
                self.open_links[b] -= 1

    def gain(self, case: Case) -> int:
        return len(case.pairs() & self.uncovered)

    def wanted(self, factor: str, values: Sequence[str], names: Iterable[str]) -> str:
        """The value of ``factor`` with the most uncovered pairs among ``names``; ties rotate
        with the number of cases so far (so no value wins every tie)."""
        pool = list(names)
        counts = [sum((factor, n, v) in self.uncovered for n in pool) for v in values]
        return values[self._rotated_best(counts)]

    def _rotated_best(self, counts: Sequence[int]) -> int:
        top = max(counts)
        turn = len(self.cases) % len(counts)
        order = [*range(turn, len(counts)), *range(turn)]
        return next(i for i in order if counts[i] == top)

    def settings(self) -> tuple[str, str]:
        """The (valid regime, ending) with the most uncovered regime, ending and ending-cap
        pairs over all features, ties rotating."""
        combos = list(itertools.product(VALID_REGIMES, ENDINGS))
        counts = [self._open_for(regime, ending) for regime, ending in combos]
        return combos[self._rotated_best(counts)]

    def _open_for(self, regime: str, ending: str) -> int:
        cap = _cap_class(regime)
        count = self.open_values
        places = sum(count[("position_cap", f"{p}/{_coarse(cap)}")] for p in CAPPED_POSITIONS)
        return (count[("regime", regime)] + count[("ending", ending)]
                + count[("ending_cap", f"{ending}/{cap}")] + places)

    def open_pairs(self) -> list[Pair]:
        """The uncovered pairs a valid-config case can cover (all but degenerate regimes)."""
        return sorted(p for p in self.uncovered if _valid_only(p))

    def alone(self) -> None:
        """One single-feature case per feature: the whole document is that feature."""
        for feature in self.features:
            regime = self.wanted("regime", VALID_REGIMES, [feature.name])
            ending = self.wanted("ending", ENDINGS, [feature.name])
            self.add(Case((feature,), regime, ending, trailing=len(self.cases) % 2 == 1))

    def sequences(self) -> None:
        """Cases of CASE_FEATURES features until every valid-config pair is covered."""
        while any(_valid_only(p) for p in self.uncovered):
            case = self.sequence()
            self.add(case if self.gain(case) else self.fallback())

    def sequence(self) -> Case:
        """A greedy case: the most wanted regime, ending and trailing newline, then features."""
        regime, ending = self.settings()
        trailing = self.wanted("position", ("end", "end_nl"), self.names) == "end_nl"
        joiner = JOINERS[len(self.cases) % len(JOINERS)]
        size = min(CASE_FEATURES, len(self.features))
        last = "end_nl" if trailing else "end"
        chosen: list[Feature] = []
        for step in range(size):
            position = "start" if step == 0 else last if step == size - 1 else "middle"
            chosen.append(self.pick(chosen, _Slot(position, regime, ending)))
        return Case(tuple(chosen), regime, ending, trailing, joiner)

    def pick(self, chosen: list[Feature], slot: _Slot) -> Feature:
        """The feature that covers most new pairs after ``chosen``; ties go to the one with
        most open adjacencies left (so the next step can gain), then to the first."""
        previous = chosen[-1].name if chosen else None
        taken = {f.name for f in chosen}
        best: tuple[int, int] = (-1, -1)
        winner = self.features[0]
        values = _SlotValues.of(slot)
        for feature in self.features:
            if feature.name in taken:
                continue
            score = self.score(feature, previous, values)
            if score > best:
                best, winner = score, feature
        return winner

    def score(self, feature: Feature, previous: str | None,
              slot: _SlotValues) -> tuple[int, int]:
        """(the new pairs ``feature`` covers in ``slot`` after ``previous``, its adjacencies
        still open apart from that one)."""
        name, open_ = feature.name, self.uncovered
        gain = (("regime", name, slot.regime) in open_) + (("position", name, slot.position)
                                                           in open_)
        if slot.position_cap is not None:
            gain += ("position_cap", name, slot.position_cap) in open_
        if feature.eol:
            gain += ("ending", name, slot.ending) in open_
            if slot.ending_cap is not None:
                gain += ("ending_cap", name, slot.ending_cap) in open_
        linked = previous is not None and _adjacent(previous, name) in open_
        return gain + linked, self.open_links[name] - linked

    def fallback(self) -> Case:
        """A small case built around the first open pair (when the greedy case adds none)."""
        factor, name, value = self.open_pairs()[0]
        one = self.features[self.names.index(name)]
        a, _ = self._others(one)
        if factor == "adjacent":
            return Case((one, self.features[self.names.index(value)]), "line")
        if factor == "position":
            return Case(self._shape(one, value), "line", trailing=value == "end_nl")
        if factor == "position_cap":
            position, _, cap = value.partition("/")
            return Case(self._shape(one, position), _REGIME_OF[cap])
        if factor in ("ending", "ending_cap"):
            ending, _, cap = value.partition("/")
            return Case((a, one), _REGIME_OF[cap or "line"], ending, trailing=True)
        return Case((one,), value)

    def _shape(self, one: Feature, position: str) -> tuple[Feature, ...]:
        """Features that put ``one`` at ``position``."""
        a, b = self._others(one)
        shapes = {"start": (one, a), "middle": (a, one, b), "end": (a, one), "end_nl": (a, one)}
        return shapes.get(position, (one,))

    def _others(self, one: Feature) -> tuple[Feature, Feature]:
        first, second = [f for f in self.features if f is not one][:2]
        return first, second

    def degenerate(self) -> None:
        """Every feature under every degenerate regime, DEGENERATE_FEATURES to a case."""
        for regime in DEGENERATE_REGIMES:
            for start in range(0, len(self.features), DEGENERATE_FEATURES):
                chunk = self.features[start : start + DEGENERATE_FEATURES]
                self.add(Case(chunk, regime))


def build_schedule(features: Sequence[Feature] = FEATURES) -> Schedule:
    """The covering schedule over ``features``: alone cases, sequences, degenerate cases."""
    names = [f.name for f in features]
    if len(names) < 3 or len(set(names)) != len(names):
        raise ValueError(
            f"build_schedule needs at least 3 features with distinct names, got {names}"
        )
    builder = _Builder(features)
    builder.alone()
    builder.sequences()
    builder.degenerate()
    return Schedule(tuple(builder.cases), builder.required)


@functools.lru_cache(maxsize=1)
def text_schedule() -> Schedule:
    """The schedule every text run plays (built once per process)."""
    return build_schedule(FEATURES)



def schedule_for(kind: str) -> Schedule:
    """The covering schedule for a plugin of ``kind`` (text or workbook)."""
    if kind == "workbook":
        schedule: Schedule = workbook_schedule()
        return schedule
    return text_schedule()
