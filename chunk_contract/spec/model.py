"""The data model shared by every part of the contract.

Plain frozen dataclasses and pure helpers only: this module imports nothing heavy, so the
invariants (which import only this module) stay cheap to load and easy to test.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

KINDS = ("text", "workbook")
UNITS = ("chars", "bytes", "tokens")
NEWLINES = ("preserve", "lf")
#: How exactly ``count_tokens`` counts (README, "Token units"): ``exact`` is additive over
#: the concatenation of adjacent pieces of a chunk, ``approximate`` may be off by a little.
TOKEN_COUNTING = ("exact", "approximate")
#: The documents a text plugin may declare it is meant for (the ``documents`` extension of
#: SPEC §3); chunk_contract.generation.strategies.kinds has a generator for each.
DOCUMENT_KINDS = ("text", "markdown", "code:python", "code:javascript", "html", "latex")

#: Chunk keys of SPEC §4, in report order.
CHUNK_FIELDS = (
    "text",
    "start",
    "end",
    "start_byte",
    "end_byte",
    "line_start",
    "line_end",
    "section",
    "id",
    "parent",
    "sheet",
    "range",
    "token_count",
)
_INT_FIELDS = frozenset(
    ("start", "end", "start_byte", "end_byte", "line_start", "line_end", "token_count")
)
_STR_FIELDS = frozenset(("text", "id", "parent", "sheet", "range"))
_FIELD_SET = frozenset(CHUNK_FIELDS)
_OFFSET_FIELDS = frozenset(("start", "end", "start_byte", "end_byte"))


class ChunkTypeError(TypeError):
    """The plugin returned something that is not an iterable of chunks."""


@dataclass(frozen=True)
class Config:
    """One chunking configuration: the cap and the allowed overlap, in the plugin's unit."""

    max_size: int
    overlap: int = 0

    @property
    def is_valid(self) -> bool:
        """``max_size >= 1`` and ``0 <= overlap < max_size`` (SPEC §2)."""
        return self.max_size >= 1 and 0 <= self.overlap < self.max_size

    def as_dict(self) -> dict[str, int]:
        return {"max_size": self.max_size, "overlap": self.overlap}

    def describe(self) -> str:
        return f"max_size={self.max_size}, overlap={self.overlap}"


@dataclass(frozen=True)
class Declarations:
    """What a plugin declares about itself (SPEC §3), validated."""

    kind: str = "text"
    unit: str = "chars"
    newlines: str = "preserve"
    promises: frozenset[str] = frozenset()
    has_count_tokens: bool = False
    #: What documents the plugin is meant for: the generators weight that kind heavily.
    documents: str = "text"
    #: ``"exact"`` (count_tokens is additive, the default) or ``"approximate"``.
    token_counting: str = "exact"
    #: The ``max_size`` values the plugin supports, inclusive (None: unbounded above).
    max_size_range: tuple[int, int | None] = (1, None)
    #: The ``overlap`` values the plugin supports, inclusive (None: unbounded above).
    overlap_range: tuple[int, int | None] = (0, None)

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("kind", self.kind, KINDS),
            ("unit", self.unit, UNITS),
            ("newlines", self.newlines, NEWLINES),
            ("token_counting", self.token_counting, TOKEN_COUNTING),
        ):
            if value not in allowed:
                raise ValueError(f"{name} = {value!r}; expected one of {', '.join(allowed)}")
        if self.unit == "tokens" and not self.has_count_tokens:
            raise ValueError('unit = "tokens" needs a count_tokens(str) -> int callable')
        _check_documents(self.kind, self.documents)
        object.__setattr__(self, "max_size_range", checked_range(
            "max_size_range", self.max_size_range, floor=1))
        object.__setattr__(self, "overlap_range", checked_range(
            "overlap_range", self.overlap_range, floor=0))
        _check_ranges_meet(self.max_size_range, self.overlap_range)

    def supports(self, config: Config) -> bool:
        """Whether ``config`` lies inside the declared ``max_size_range`` and ``overlap_range``."""
        return _inside(config.max_size, self.max_size_range) and _inside(
            config.overlap, self.overlap_range
        )

    @property
    def ranged(self) -> bool:
        """Whether the plugin declared a range narrower than SPEC §2's valid configs."""
        return self.max_size_range != (1, None) or self.overlap_range != (0, None)


def _inside(value: int, bounds: tuple[int, int | None]) -> bool:
    low, high = bounds
    return low <= value and (high is None or value <= high)


def checked_range(name: str, value: object, *, floor: int) -> tuple[int, int | None]:
    """A declared ``(low, high)`` range (a list is accepted: JSON has no tuples), else ValueError
    saying what a valid declaration looks like."""
    fix = f"declare {name} = (LOW, HIGH) with integers {floor} <= LOW <= HIGH, or HIGH = None"
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{name} = {value!r} is not a pair; {fix}")
    low, high = value
    if not _is_int(low) or not (high is None or _is_int(high)):
        raise ValueError(f"{name} = {value!r} holds a non-integer bound; {fix}")
    if low < floor:
        raise ValueError(f"{name} = {value!r} starts below {floor}; {fix}")
    if high is not None and high < low:
        raise ValueError(f"{name} = {value!r} has its low bound above its high bound; {fix}")
    return (low, high)


def _is_int(value: object) -> bool:
    return type(value) is int


def _check_ranges_meet(sizes: tuple[int, int | None], overlaps: tuple[int, int | None]) -> None:
    """Some valid config (``overlap < max_size``) must lie inside both declared ranges."""
    if sizes[1] is not None and overlaps[0] >= sizes[1]:
        raise ValueError(
            f"overlap_range = {overlaps!r} and max_size_range = {sizes!r} leave no valid "
            f"config (overlap must be below max_size): lower the overlap range's low bound "
            f"or raise the max_size range's high bound"
        )


def _check_documents(kind: str, documents: object) -> None:
    """A ``documents`` the contract can generate, and only on a text plugin."""
    if documents not in DOCUMENT_KINDS:
        raise ValueError(
            f"documents = {documents!r} is not a kind of document chunk-contract can "
            f"generate; declare one of {', '.join(map(repr, DOCUMENT_KINDS))} (or leave it "
            f"out for plain text)"
        )
    if kind == "workbook" and documents != "text":
        raise ValueError(
            f"documents = {documents!r} applies to text plugins only; a kind = \"workbook\" "
            f"plugin gets workbooks: drop the documents declaration"
        )


@dataclass(frozen=True)
class Chunk:
    """One chunk as a plugin reported it, in SPEC §4's fields (``None``: not reported)."""

    index: int
    text: str
    start: int | None = None
    end: int | None = None
    start_byte: int | None = None
    end_byte: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    section: tuple[str, ...] | None = None
    id: str | None = None
    parent: str | None = None
    sheet: str | None = None
    range: str | None = None
    token_count: int | None = None
    bare: bool = False

    @classmethod
    def from_record(cls, index: int, record: Mapping[str, Any]) -> Chunk:
        """Build a chunk from a normalised record (see :func:`normalise_chunks`)."""
        if not record.keys() <= _RECORD_KEYS or "text" not in record:
            return cls(index=index, **record)  # let the dataclass name what is wrong
        # A frozen dataclass's __init__ sets each field through object.__setattr__; writing
        # the instance dict at once is several times faster (one chunk per reported chunk).
        chunk = cls.__new__(cls)
        fields = chunk.__dict__
        fields.update(_CHUNK_DEFAULTS)
        fields.update(record)
        fields["index"] = index
        if fields["section"] is not None:
            fields["section"] = tuple(fields["section"])
        return chunk

    def as_record(self) -> dict[str, Any]:
        """The reported fields, for reports and reproducers."""
        fields = self.__dict__  # every field is there (see from_record); no getattr per field
        out = {name: fields[name] for name in CHUNK_FIELDS if fields[name] is not None}
        if "section" in out:
            out["section"] = list(out["section"])
        return out

    @property
    def utf8(self) -> bytes:
        """The text as UTF-8, lone surrogates kept (``surrogatepass``, as :attr:`Document.data`).

        Encoded once; cached by hand (``functools.cached_property`` takes a lock per first
        access on Python 3.11, a cost paid once per chunk on every example).
        """
        fields = self.__dict__
        data = fields.get("_utf8")
        if data is None:
            data = fields["_utf8"] = self.text.encode("utf-8", "surrogatepass")
        return data

    @property
    def has_offsets(self) -> bool:
        """Whether the chunk reports any codepoint or byte offset (else it must be placed)."""
        return any(
            value is not None for value in (self.start, self.end, self.start_byte, self.end_byte)
        )

    def comparable(self) -> tuple[Any, ...]:
        """What ``deterministic`` compares: texts, offsets, lines and ids."""
        return tuple(getattr(self, name) for name in CHUNK_FIELDS)


_CHUNK_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Chunk) if f.name != "index"}
_RECORD_KEYS = frozenset(_CHUNK_DEFAULTS)
#: The order of a reply's columns: the same records are the same bytes, whatever order the
#: plugin wrote their keys in.
_WIRE_ORDER = (*CHUNK_FIELDS, "bare")


@dataclass(frozen=True)
class Violation:
    """One broken rule: which invariant, what was observed against what was allowed."""

    invariant: str
    message: str
    chunks: tuple[int, ...] = ()
    #: The rule whose violation causes this one (see :mod:`chunk_contract.spec.causes`): judged
    #: without the chunks' offsets, this rule holds. None: this is a verdict of its own.
    follows_from: str | None = None

    def __str__(self) -> str:
        return f"{self.invariant}: {self.message}"


# --------------------------------------------------------------------------- normalisation


def normalise_chunks(result: Any) -> list[dict[str, Any]]:
    """Turn a plugin's return value into plain chunk records, or raise :class:`ChunkTypeError`.

    Runs inside the worker, so iterating a lazy generator happens under the time limit. The
    records hold only exact ``str``, ``int``, ``list`` and ``bool`` values: a ``str`` or ``int``
    subclass becomes a plain copy through the base type's own method (``str.__str__``,
    ``int.__index__``), so none of the plugin's overridden methods (``__str__``, ``__len__``,
    ``__eq__``, ``__reduce__``...) travels with it. Offsets and counts must fit in 64 bits.
    """
    if isinstance(result, (str, bytes, Mapping)) or result is None:
        raise ChunkTypeError(f"returned {_type_name(result)}, expected an iterable of chunks")
    try:
        items = iter(result)
    except TypeError:
        raise ChunkTypeError(
            f"returned {_type_name(result)}, expected an iterable of chunks"
        ) from None
    return [_normalise_one(i, item) for i, item in enumerate(items)]


def _normalise_one(index: int, item: Any) -> dict[str, Any]:
    kind = type(item)
    if issubclass(kind, str):
        return {"text": item if kind is str else str.__str__(item), "bare": True}
    if issubclass(kind, dict):  # the common case: only the keys it has (unknown ones ignored)
        pairs: Iterable[tuple[Any, Any]] = dict.items(item)
    elif isinstance(item, Mapping):
        pairs = [(k, item.get(k)) for k in CHUNK_FIELDS]
    else:
        pairs = [(k, getattr(item, k, None)) for k in CHUNK_FIELDS]
    record: dict[str, Any] = {}
    for key, value in pairs:  # one pass: exact int / str (the common case) kept as they are
        name = _FIELD_BY_NAME.get(key) if type(key) is str else _field_name(key)
        if value is None or name is None:
            continue
        kind = type(value)
        if (kind is int and name in _INT_FIELDS and -_INT_BOUND <= value < _INT_BOUND) or (
            kind is str and name in _STR_FIELDS
        ):
            record[name] = value
        else:
            record[name] = _coerce_field(index, name, value)
    if "text" not in record:
        raise ChunkTypeError(f"chunk[{index}] ({_type_name(item)}) has no text")
    record["bare"] = record.keys().isdisjoint(_OFFSET_FIELDS)
    return record


#: Offsets and counts a chunk may report: anything outside is a wrong value, not data.
_INT_BOUND = 2**63
_FIELD_BY_NAME = {name: name for name in CHUNK_FIELDS}


def _field_name(key: Any) -> str | None:
    """The chunk field `key` names, as this module's own plain str; None for any other key."""
    if type(key) is not str:
        if not issubclass(type(key), str):
            return None
        key = str.__str__(key)
    return _FIELD_BY_NAME.get(key)


def _coerce_field(index: int, name: str, value: Any) -> Any:
    if name in _INT_FIELDS:
        return _coerce_int(index, name, value)
    if name in _STR_FIELDS:
        if not issubclass(type(value), str):
            raise ChunkTypeError(f"chunk[{index}].{name} is {_shown(value)}, expected a str")
        return str.__str__(value)
    return _coerce_section(index, value)


def _coerce_int(index: int, name: str, value: Any) -> int:
    """An exact int from an int or integer-like value (numpy's int64); not a float or bool."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise ChunkTypeError(f"chunk[{index}].{name} is {_shown(value)}, expected an int")
    number = int.__index__(operator.index(value))
    if not -_INT_BOUND <= number < _INT_BOUND:
        raise ChunkTypeError(
            f"chunk[{index}].{name} is {_shown(number)}, out of range (at most 2**63 - 1 in size)"
        )
    return number


def _coerce_section(index: int, value: Any) -> list[str]:
    """A heading path: any iterable of str (read once), never a str, bytes or mapping."""
    parts: list[Any] | None = None
    if not isinstance(value, (str, bytes, Mapping)):
        try:
            parts = list(value)
        except TypeError:
            parts = None
    if parts is None or not all(issubclass(type(s), str) for s in parts):
        # The message is built only here: repr() of a big section on every chunk is quadratic.
        raise ChunkTypeError(f"chunk[{index}].section is {_shown(value)}, expected a list of str")
    return [str.__str__(s) for s in parts]


def _shown(value: Any) -> str:
    """A short, plain repr of a plugin's value for a message (big ints by their size)."""
    if type(value) is int and not -(10**40) < value < 10**40:
        return f"an int of {value.bit_length()} bits"
    shown = plain_text(repr(value))
    return shown if len(shown) <= 80 else shown[:77] + "..."


def plain_text(text: Any, limit: int = 10_000) -> str:
    """An exact ``str`` copy of a plugin's `text` (a subclass's own methods never run), cut to
    `limit` characters; ``"<not a string>"`` for anything else."""
    if type(text) is not str:
        text = str.__str__(text) if issubclass(type(text), str) else "<not a string>"
    return text if str.__len__(text) <= limit else text[:limit] + "…"


def _type_name(value: Any) -> str:
    return type(value).__name__


# --------------------------------------------------------------------------- document geometry

_CHECKPOINT = 4096


class Document:
    """A text document as the invariants see it, with cheap line and byte geometry.

    ``text`` is the document the offsets refer to: the plugin's input, or that input with
    ``"\\r\\n"`` turned into ``"\\n"`` when the plugin declares ``newlines = "lf"``.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._data: bytes | None = None
        self._checkpoints: list[int] | None = None
        #: Derived data that invariants compute once per document (grapheme boundaries...).
        self.cache: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.text)

    @property
    def data(self) -> bytes:
        """The document as UTF-8 (lone surrogates escaped so encoding never fails)."""
        if self._data is None:
            self._data = self.text.encode("utf-8", "surrogatepass")
        return self._data

    @property
    def newlines(self) -> list[int]:
        """Offsets of every ``"\\n"``: the only character that ends a line."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return self._newlines

    def lines_of(self, offsets: Sequence[int]) -> list[int]:
        """``line_of`` for many offsets at once: one pass over the text, no newline table.

        Counting ``"\n"`` between consecutive sorted offsets costs one C-speed scan of the
        text in all, where building the table costs a Python object per line. Offsets made
        of a few sorted runs (chunk starts, then chunk ends) sort in linear time.
        """
        if self._newlines is not None:
            return [self.line_of(offset) for offset in offsets]
        order = sorted(range(len(offsets)), key=offsets.__getitem__)
        ordered = [offsets[i] for i in order]
        starts = itertools.chain((0,), ordered)
        counts = map(self.text.count, itertools.repeat("\n"), starts, ordered)
        lines = itertools.accumulate(counts, initial=1)
        next(lines)
        out = [0] * len(offsets)
        for i, line in zip(order, lines):
            out[i] = line
        return out

    def line_of(self, offset: int) -> int:
        """The 1-based line holding the character at ``offset``."""
        return bisect.bisect_left(self.newlines, offset) + 1

    def line_bounds(self, line: int) -> tuple[int, int]:
        """Offsets ``[first, past_last)`` of 1-based ``line``, its ``"\\n"`` included."""
        nl = self.newlines
        first = 0 if line <= 1 else nl[line - 2] + 1
        last = nl[line - 1] + 1 if line - 1 < len(nl) else len(self.text)
        return first, last

    @property
    def line_count(self) -> int:
        return len(self.newlines) + 1

    def is_byte_boundary(self, offset: int) -> bool:
        """Whether UTF-8 byte ``offset`` falls between two characters."""
        data = self.data
        return 0 <= offset <= len(data) and (offset == len(data) or data[offset] & 0xC0 != 0x80)

    def byte_to_char(self, offset: int) -> int:
        """The codepoint offset of UTF-8 byte ``offset`` (which must be a boundary)."""
        if len(self.data) == len(self.text):
            return offset
        checkpoints = self._byte_checkpoints()
        k = bisect.bisect_right(checkpoints, offset) - 1
        tail = self.data[checkpoints[k] : offset].decode("utf-8", "surrogatepass")
        return k * _CHECKPOINT + len(tail)

    def char_to_byte(self, offset: int) -> int:
        """The UTF-8 byte offset of codepoint ``offset``."""
        if len(self.data) == len(self.text):
            return offset
        checkpoints = self._byte_checkpoints()
        k = min(offset // _CHECKPOINT, len(checkpoints) - 1)
        head = self.text[k * _CHECKPOINT : offset]
        return checkpoints[k] + _utf8_size(head)

    def _byte_checkpoints(self) -> list[int]:
        if self._checkpoints is None:
            out, pos, text = [], 0, self.text
            for k in range(0, len(text) + 1, _CHECKPOINT):
                out.append(pos)
                pos += _utf8_size(text[k : k + _CHECKPOINT])
            self._checkpoints = out
        return self._checkpoints


def first_non_space(text: str, start: int = 0, end: int | None = None) -> int:
    """Offset of the first non-whitespace character in ``text[start:end]``, or -1."""
    m = _NON_SPACE.search(text, start, len(text) if end is None else end)
    return m.start() if m else -1


_NON_SPACE = re.compile(r"\S")


def is_blank(text: str) -> bool:
    """True for the empty string and strings of only ``str.isspace()`` characters."""
    return not text or text.isspace()


# --------------------------------------------------------------------------- the case


Measure = Callable[[str], int]


@dataclass
class Case:
    """Everything an invariant looks at: one call's input, output and the plugin's declarations.

    ``offset_spans`` gives each chunk's codepoint span ``(start, end)`` from its own offsets
    (``None`` without them; sound placement of SPEC §4 is :mod:`chunk_contract.spec.placement`).
    ``raw_document`` is the document as given when ``document`` had to be made valid text;
    ``rerun`` (the same call again, for ``deterministic``) and ``twins`` (the chunks of the CRLF
    and LF versions, for ``newline_invariance``) are filled by the session for the metamorphic
    invariants; ``workbook`` holds a workbook's non-empty cells per sheet.
    """

    document: Document
    config: Config
    chunks: Sequence[Chunk]
    declarations: Declarations = field(default_factory=Declarations)
    measure: Measure = len
    raw_document: str | None = None
    rerun: Sequence[Chunk] | None = None
    twins: tuple[Sequence[Chunk], Sequence[Chunk]] | None = None
    workbook: Any = None

    @property
    def unit(self) -> str:
        return self.declarations.unit

    @property
    def promises(self) -> frozenset[str]:
        return self.declarations.promises

    def size(self, text: str) -> int:
        """The size of ``text`` in the plugin's unit."""
        return self.measure(text)

    def measured_texts(self) -> Iterator[str]:
        """The texts the size rules measure in the plugin's unit: every chunk's text, and what
        consecutive siblings share by their offsets (so a token counter can be asked for all of
        them at once)."""
        yield from (chunk.text for chunk in self.chunks)
        text, spans = self.document.text, self.offset_spans
        for group in self.siblings():
            for a, b in itertools.pairwise(group):
                sa, sb = spans[a.index], spans[b.index]
                if sa is not None and sb is not None and min(sa[1], sb[1]) > max(sa[0], sb[0]):
                    yield text[max(sa[0], sb[0]) : min(sa[1], sb[1])]

    def chunk_size(self, chunk: Chunk) -> int:
        """The size of ``chunk``'s text in the plugin's unit (its UTF-8 encoded once)."""
        if self.unit == "bytes":
            return len(chunk.utf8)
        return self.measure(chunk.text)

    def siblings(self) -> Iterator[list[Chunk]]:
        """Groups of chunks sharing a parent (top-level chunks form one group), in output order."""
        if self._flat:
            yield list(self.chunks)
            return
        groups: dict[str | None, list[Chunk]] = {}
        for chunk in self.chunks:
            groups.setdefault(chunk.parent, []).append(chunk)
        yield from groups.values()

    @functools.cached_property
    def _flat(self) -> bool:
        """No chunk names a parent: one group of siblings, every chunk a leaf."""
        return set(map(_PARENT, self.chunks)) <= {None}

    @functools.cached_property
    def offset_spans(self) -> list[tuple[int, int] | None]:
        """Each chunk's codepoint span from its own offsets (codepoint, else valid byte ones)."""
        return [(start, end) if start is not None and end is not None else self._span_of(c)
                for c, start, end in zip(self.chunks, self._starts, self._ends)]

    @functools.cached_property
    def char_exact(self) -> list[bool]:
        """Per chunk: it reports ``start``/``end`` and the document holds its text exactly there
        (compared in place; shared by the invariants that trust a faithful slice)."""
        text = self.document.text
        # _holds_at's test, written out: no function call per chunk
        return [start is not None and end is not None and start >= 0
                and end - start == len(part) and text.startswith(part, start)
                for part, start, end in zip(map(_TEXT, self.chunks), self._starts, self._ends)]

    @functools.cached_property
    def _starts(self) -> list[int | None]:
        return list(map(_START, self.chunks))

    @functools.cached_property
    def _ends(self) -> list[int | None]:
        return list(map(_END, self.chunks))

    @functools.cached_property
    def all_exact(self) -> bool:
        """Every chunk reports codepoint offsets that hold its text, and byte offsets that hold
        it too unless no chunk reports any: the faithful common case, settled by C loops."""
        if not all(self.char_exact):
            return False
        return all(self.byte_exact) or set(map(_BYTE_SPAN, self.chunks)) <= {(None, None)}

    @functools.cached_property
    def byte_exact(self) -> list[bool]:
        """Per chunk: it reports byte offsets, the document's UTF-8 holds its text exactly there
        (so both offsets fall between characters) and, if it reports codepoint offsets too, both
        spans are the same place (not two copies of a repeated text)."""
        chunks = self.chunks
        if all(c.start_byte is None for c in chunks):
            return [False] * len(chunks)
        at = self.start_bytes
        ascii_text = self.document.text.isascii()  # (then a char-exact text's bytes are its chars)
        data = None
        out = []
        for chunk, start_byte in zip(chunks, at):
            if start_byte is not None:  # char-exact: its bytes are known without the document's
                size = len(chunk.text) if ascii_text else len(chunk.utf8)
                out.append(chunk.start_byte == start_byte and chunk.end_byte == start_byte + size)
                continue
            if data is None:
                data = self.document.data
            out.append(_holds_at(data, chunk.utf8, chunk.start_byte, chunk.end_byte))
        return out

    @functools.cached_property
    def start_bytes(self) -> list[int | None]:
        """The UTF-8 offset of each char-exact chunk's start (None for the others).

        One sweep in start order: each start is reached from the previous chunk's start or end,
        whichever is nearer, by encoding only the text in between (or the overlap back from
        the end), so the whole costs at most one encoding of the document.
        """
        out: list[int | None] = [None] * len(self.chunks)
        exact = [c for c, ok in zip(self.chunks, self.char_exact) if ok]
        if self.document.text.isascii():
            for chunk in exact:
                out[chunk.index] = chunk.start
            return out
        text, char_at, byte_at, end_char, end_byte = self.document.text, 0, 0, 0, 0
        for chunk in sorted(exact, key=_START_END):
            start = cast(int, chunk.start)
            if start - char_at <= abs(start - end_char):
                byte_at += _utf8_size(text[char_at:start])
            elif start >= end_char:
                byte_at = end_byte + _utf8_size(text[end_char:start])
            else:
                byte_at = end_byte - _utf8_size(text[start:end_char])
            char_at, end_char, end_byte = start, cast(int, chunk.end), byte_at + len(chunk.utf8)
            out[chunk.index] = byte_at
        return out

    @property
    def all_spanned(self) -> bool:
        """Whether every chunk reports offsets, so no placement is needed."""
        return all(span is not None for span in self.offset_spans)

    def _span_of(self, chunk: Chunk) -> tuple[int, int] | None:
        if chunk.start is not None and chunk.end is not None:
            return chunk.start, chunk.end
        sb, eb = chunk.start_byte, chunk.end_byte
        if sb is None or eb is None:
            return None
        doc = self.document
        if not (doc.is_byte_boundary(sb) and doc.is_byte_boundary(eb)):
            return None
        return doc.byte_to_char(sb), doc.byte_to_char(eb)

    def leaves(self) -> list[Chunk]:
        """Chunks that no chunk names as its parent."""
        if self._flat:
            return list(self.chunks)
        parents = {c.parent for c in self.chunks if c.parent is not None}
        return [c for c in self.chunks if c.id is None or c.id not in parents]


_START_END = operator.attrgetter("start", "end")
_START, _END = operator.attrgetter("start"), operator.attrgetter("end")
_BYTE_SPAN = operator.attrgetter("start_byte", "end_byte")
_TEXT, _PARENT = operator.attrgetter("text"), operator.attrgetter("parent")


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _holds_at(whole: Any, part: Any, start: int | None, end: int | None) -> bool:
    """Whether ``whole[start:end] == part``, compared in place (no slice is copied)."""
    return (
        start is not None
        and end is not None
        and start >= 0
        and end - start == len(part)
        and whole.startswith(part, start)
    )


def describe_chunk(chunk: Chunk, span: tuple[int, int] | None = None) -> str:
    """``chunk[3] [120:161)``: the index and, when known, the codepoint span."""
    if span is None and chunk.start is not None and chunk.end is not None:
        span = (chunk.start, chunk.end)
    return f"chunk[{chunk.index}]" + (f" [{span[0]}:{span[1]})" if span else "")


def escape(text: str, limit: int = 80) -> str:
    """``ascii()`` of ``text``, cut in the middle past ``limit`` characters."""
    if len(text) > limit:
        half = limit // 2
        return f"{text[:half]!a}...({len(text) - limit} more)...{text[-half:]!a}"
    return ascii(text)


def chunks_from_records(records: Iterable[Mapping[str, Any]]) -> list[Chunk]:
    return [Chunk.from_record(i, r) for i, r in enumerate(records)]


class MalformedRecords(ValueError):
    """Chunk records from the worker that are not what :func:`normalise_chunks` writes."""


def columns_of(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Records as the wire carries them from the worker: one list per field that any record
    has, None where a record lacks it. Half the bytes of one object per chunk, and the host
    checks a column's types at once instead of each record's fields one by one."""
    present = set().union(*records) if records else {"text"}
    return {name: [record.get(name) for record in records]
            for name in _WIRE_ORDER if name in present}


def chunk_columns(result: Any) -> dict[str, list[Any]]:
    """``columns_of(normalise_chunks(result))``, built column by column when the plugin returned
    a list of plain dicts whose known fields hold plain values (the common case, a fraction of
    the cost per chunk); anything else goes through :func:`normalise_chunks`, which copies,
    coerces or refuses it value by value.

    (Bare strings are normalised one by one on purpose: the scaling probe times the worker's
    whole call, and a list of strings answered at C speed would grow its documents to sizes
    whose thousands of bare chunks cost the host seconds to place and check.)"""
    if type(result) is list:
        kinds = set(map(type, result))
        if kinds == {dict}:
            columns = _plain_dict_columns(result)
            if columns is not None:
                return columns
    return columns_of(normalise_chunks(result))


def _plain_dict_columns(chunks: list[dict[Any, Any]]) -> dict[str, list[Any]] | None:
    """The columns of plain dict chunks, or None when a key or value is not plain (then
    normalise_chunks decides)."""
    keys = set().union(*chunks)
    if any(type(key) is not str for key in keys):
        return None
    columns = {name: _column(chunks, name) for name in CHUNK_FIELDS if name in keys}
    if "text" not in columns or not all(_plain_column(n, c) for n, c in columns.items()):
        return None
    columns = {n: c for n, c in columns.items() if c.count(None) < len(c)}
    if "section" in columns:
        columns["section"] = [None if v is None else list(v) for v in columns["section"]]
    offsets = [columns[n] for n in _WIRE_ORDER if n in _OFFSET_FIELDS and n in columns]
    if not offsets:
        columns["bare"] = [True] * len(chunks)
    elif not any(None in column for column in offsets):
        columns["bare"] = [False] * len(chunks)  # every chunk has offsets (the common case)
    else:
        columns["bare"] = [row.count(None) == len(offsets) for row in zip(*offsets)]
    return columns


def _column(chunks: list[dict[str, Any]], name: str) -> list[Any]:
    """Every chunk's ``name`` (None where a chunk lacks it), in a C loop when all have it."""
    try:
        return list(map(operator.itemgetter(name), chunks))
    except KeyError:
        return [chunk.get(name) for chunk in chunks]


def checked_columns(columns: Any) -> list[Chunk]:
    """Chunks from the columns of :func:`columns_of` that crossed the worker boundary.

    The host trusts nothing from the worker: every column a list of one value per chunk, of a
    known field, each value of the field's plain type (or None, but a text), offsets and counts
    in the 64-bit range; anything else raises :class:`MalformedRecords` (the caller reports it
    as ``no_crash``) naming the first record at fault.
    """
    if type(columns) is not dict or type(columns.get("text")) is not list:
        raise MalformedRecords(f"the chunk columns are a {type(columns).__name__} with no text")
    count = len(columns["text"])
    for name, column in columns.items():
        if name not in _RECORD_KEYS or type(column) is not list or len(column) != count:
            raise MalformedRecords(f"the chunk column {_shown(name)} is not {count} values")
        if not _plain_column(name, column):
            index = next(i for i, v in enumerate(column) if not _plain_value(name, v))
            raise MalformedRecords(f"record {index} has {name!r} = {_shown(column[index])}")
    return _chunks_of(columns)


def _plain_column(name: str, column: list[Any]) -> bool:
    """Whether every value of ``column`` is plain for field ``name`` (C loops, no call per
    value, for the common fields)."""
    kinds = set(map(type, column))
    if name == "text":
        return kinds <= {str}
    if name == "bare":
        return kinds <= {bool}
    if name in _STR_FIELDS:
        return kinds <= {str, type(None)}
    if name in _INT_FIELDS and kinds <= {int, type(None)}:
        ints = [v for v in column if v is not None] if type(None) in kinds else column
        return not ints or (min(ints) >= -_INT_BOUND and max(ints) < _INT_BOUND)
    if name == "section" and kinds <= {list, type(None)}:  # every part of every path a str
        return set(map(type, itertools.chain.from_iterable(filter(None, column)))) <= {str}
    return all(_plain_value(name, value) for value in column)


def _plain_value(name: str, value: Any) -> bool:
    if value is None:
        return name not in ("text", "bare")
    return _plain_field(name, value)


def _chunks_of(columns: dict[str, list[Any]]) -> list[Chunk]:
    """The chunks of checked columns, each instance dict written at once (see from_record)."""
    names = tuple(columns)
    chunks = []
    new = Chunk.__new__
    for index, values in enumerate(zip(*columns.values())):
        chunk = new(Chunk)
        fields = chunk.__dict__
        fields.update(_CHUNK_DEFAULTS)
        fields.update(zip(names, values))  # None is every optional field's default
        fields["index"] = index
        chunks.append(chunk)
    if "section" in columns:
        for chunk in chunks:
            if chunk.section is not None:
                chunk.__dict__["section"] = tuple(chunk.section)
    return chunks


def _plain_field(name: Any, value: Any) -> bool:
    kind = type(value)
    if name in _INT_FIELDS:
        return kind is int and -_INT_BOUND <= value < _INT_BOUND
    if name in _STR_FIELDS:
        return kind is str
    if name == "section":
        return kind is list and all(type(part) is str for part in value)
    return name == "bare" and kind is bool
def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` with ``word`` in the right number: ``1 example``, ``2 examples``, ``0 cells``.

    ``many`` is the plural when it is not ``word + "s"`` (``plural(n, "entry", "entries")``).
    """
    return f"{count} {word if count == 1 else (many or word + 's')}"
