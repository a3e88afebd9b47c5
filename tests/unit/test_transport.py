"""The transport seam: typed messages, checked replies, the fork and in-process transports."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import (
    ChunkTypeError,
    Config,
    checked_columns,
    chunk_columns,
    chunks_from_records,
    columns_of,
    normalise_chunks,
)
from chunk_contract.transport.base import ForkTransport, InProcessTransport, checked
from chunk_contract.transport.loading import load
from chunk_contract.transport.messages import (
    Chunks,
    Counts,
    CountTokens,
    CpuSplit,
    MalformedReply,
    Raised,
    Seconds,
    Split,
    Timed,
    TimedFamily,
    Unchecked,
    WrongType,
)
from chunk_contract.transport.targets import TargetError

FIXED = "chunk_contract_reference/fixed.py:split"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])


def test_requests_have_their_wire_forms() -> None:
    assert Split("ab", 3, 1).to_wire() == ["split", "ab", 3, 1]
    assert CountTokens(("a", "b")).to_wire() == ["count", ["a", "b"]]
    assert CpuSplit("ab", 3, 0).to_wire() == ["cpu", "ab", 3, 0]
    assert TimedFamily("newlines only", 100, 3, 0).to_wire() == [
        "timed-family", "newlines only", 100, 3, 0]


@pytest.mark.parametrize("transport", ["fork", "in-process"])
def test_a_family_split_is_timed_by_the_host_and_its_chunks_come_back(transport: str) -> None:
    """The worker builds the family's document and splits it; the CPU time is the host's
    reading, and the reply is the split's, for the host to check."""
    plugin = load(FIXED)
    made = (ForkTransport(plugin, timeout=10.0, memory_mb=1024) if transport == "fork"
            else InProcessTransport(plugin))
    try:
        made.start()
        outcome = made.call(TimedFamily("one long line", 50_000, 200, 20), timeout=10.0)
    finally:
        made.close()
    assert outcome.ok and isinstance(outcome.value, Timed), outcome
    reply = outcome.value.reply
    if transport == "fork":  # left unparsed until asked: the probe reads few sizes
        assert isinstance(reply, Unchecked)
        reply = reply.read()
    assert outcome.value.seconds >= 0 and isinstance(reply, Chunks)
    assert sum(len(c.text) for c in reply.chunks) >= 50_000


def test_an_unparsed_family_split_that_is_no_list_of_chunks_is_a_protocol_error() -> None:
    """Bytes that begin like a list of chunks but are not one are caught when read."""
    from chunk_contract.containment.worker import Unread
    from chunk_contract.transport.base import _reader, parsed

    for data in (b'["chunks",{"text":[1]}]]', b'["chunks",{"text":["a"]}', b'["chunks",[x]]]',
                 b'["chunks",[{"text":"a"}]]]'):
        unchecked = Unchecked(_reader(Unread(memoryview(data))))
        outcome = parsed(Outcome("ok", unchecked))
        assert outcome.kind == "error" and outcome.error_type == "ProtocolError", (data, outcome)


def test_split_replies_parse_into_typed_replies() -> None:
    request = Split("ab", 3, 0)
    chunks = request.reply_from_wire(["chunks", {"text": ["ab", "b"], "start": [0, None],
                                                 "end": [2, None], "bare": [False, True],
                                                 "section": [["h"], None]}])
    assert isinstance(chunks, Chunks) and chunks.chunks[0].end == 2
    first, second = chunks.chunks
    assert (first.index, first.section, second.index, second.start) == (0, ("h",), 1, None)
    assert second.bare and not first.bare and second.id is None
    assert request.reply_from_wire(["wrong_type", "returned int"]) == WrongType("returned int")
    raised = request.reply_from_wire(["raised", "ValueError", "no", True, "trace"])
    assert raised == Raised("ValueError", "no", True, "trace")


@pytest.mark.parametrize(
    "reply",
    [
        None,
        [],
        "chunks",
        ["chunks"],
        ["chunks", {"text": "a"}],
        ["chunks", [{"text": "a"}]],  # one object per chunk: not the columns the worker sends
        ["chunks", {"start": [0]}],
        ["chunks", {"text": [1]}],
        ["chunks", {"text": [None]}],
        ["chunks", {"text": ["a"], "start": [True]}],
        ["chunks", {"text": ["a"], "start": [1.0]}],
        ["chunks", {"text": ["a"], "start": [2**63]}],
        ["chunks", {"text": ["a"], "end": [-(2**63) - 1]}],
        ["chunks", {"text": ["a", "b"], "start": [0, 2**63]}],
        ["chunks", {"text": ["a", "b"], "start": [None, "1"]}],
        ["chunks", {"text": ["a"], "start": [0, 1]}],
        ["chunks", {"text": ["a"], "start": 0}],
        ["chunks", {"text": ["a"], "id": [3]}],
        ["chunks", {"text": ["a"], "section": ["h1"]}],
        ["chunks", {"text": ["a"], "section": [[1]]}],
        ["chunks", {"text": ["a", "b", "c"], "section": [["h"], None, ["h", None]]}],
        ["chunks", {"text": ["a", "b"], "section": [[], [["h"]]]}],
        ["chunks", {"text": ["a"], "index": [3]}],
        ["chunks", {"text": ["a"], "bare": [1]}],
        ["chunks", {"text": ["a"], "bare": [None]}],
        ["chunks", {"text": ["a"], "__class__": [None]}],
        ["chunks", ["a"]],
        ["wrong_type", 3],
        ["raised", "ValueError", "no", "yes", "trace"],
        ["raised", "ValueError", "no", True],
        ["os.system", "echo"],
    ],
)
def test_malformed_split_replies_are_rejected(reply: Any) -> None:
    with pytest.raises(MalformedReply):
        Split("ab", 3, 0).reply_from_wire(reply)


@pytest.mark.parametrize("reply", [None, [1], [1, "2"], [1, True], {"0": 1}])
def test_malformed_token_counts_are_rejected(reply: Any) -> None:
    with pytest.raises(MalformedReply):
        CountTokens(("a", "b")).reply_from_wire(reply)
    assert CountTokens(("a", "b")).reply_from_wire([1, 2]) == Counts((1, 2))


@pytest.mark.parametrize("reply", ["0.1", -1.0, [0.1], True])
def test_malformed_seconds_are_rejected(reply: Any) -> None:
    with pytest.raises(MalformedReply):
        CpuSplit("a", 1, 0).reply_from_wire(reply)
    assert CpuSplit("a", 1, 0).reply_from_wire(None) == Seconds(None)


def test_checked_turns_a_malformed_reply_into_a_protocol_error() -> None:
    outcome = checked(Split("a", 1, 0), Outcome("ok", ["chunks", {"text": [5]}]))
    assert (outcome.kind, outcome.error_type) == ("error", "ProtocolError")
    assert "not a valid reply" in outcome.message
    assert checked(Split("a", 1, 0), Outcome("timeout")).kind == "timeout"


def test_fork_and_in_process_transports_give_the_same_replies() -> None:
    plugin = load(FIXED)
    assert plugin.split is None  # loaded in a worker: no plugin code here
    inline = InProcessTransport(plugin)
    with ForkTransport(plugin, timeout=5, memory_mb=1024) as forked:
        assert forked.start().declarations == inline.start().declarations == plugin.declarations
        for request in (Split("héllo wörld " * 5, 7, 2), Split("x", 0, 0)):
            a, b = forked.call(request), inline.call(request)
            assert a.ok and b.ok and a.value == b.value
        assert forked.restarts == 1
    assert inline.restarts == 0


def test_fork_transport_start_says_why_loading_failed(tmp_path: Any) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('not today')\n")
    plugin = load(FIXED)
    transport = ForkTransport(
        type(plugin)(f"{broken}:split", None, plugin.declarations, spec=f"{broken}:split"),
        timeout=5, memory_mb=1024,
    )
    with transport, pytest.raises(TargetError, match="not today"):
        transport.start()


class _Lying:
    """A transport whose worker answers every split with chunks that are not data."""

    restarts = 1

    def start(self) -> Any:
        raise AssertionError("not used")

    def call(self, request: Any, *, timeout: float | None = None) -> Outcome:
        return checked(request, Outcome("ok", ["chunks", {"text": ["a"], "start": ["0"]}]))

    def close(self) -> None:
        pass


def test_a_session_reports_a_malformed_reply_as_no_crash() -> None:
    plugin = load(FIXED)
    session = Session(plugin, timeout=2, memory_mb=None, selected=["no_crash"],
                      transport=_Lying())
    seen = session.observe("abc", Config(3, 0))
    assert [v.invariant for v in seen.violations] == ["no_crash"]
    assert "not a valid reply" in seen.violations[0].message


_CHUNK_VALUES = st.fixed_dictionaries(
    {"text": st.text(max_size=5)},
    optional={
        "start": st.integers(-(2**63), 2**63 - 1),
        "end": st.integers(0, 50),
        "start_byte": st.integers(0, 50),
        "line_start": st.integers(1, 9),
        "section": st.lists(st.text(max_size=3), max_size=2),
        "id": st.text(max_size=3),
        "parent": st.text(max_size=3),
        "token_count": st.integers(0, 9),
    },
)


@given(st.lists(st.one_of(st.text(max_size=5), _CHUNK_VALUES), max_size=6))
def test_columns_carry_exactly_the_chunks_records_carry(chunks: list[Any]) -> None:
    """The worker's columns, checked on the host, are the very chunks of its records: every
    field, its absence (None), ``bare`` and the index."""
    records = normalise_chunks(chunks)
    assert checked_columns(columns_of(records)) == chunks_from_records(records)


class _Str(str):
    pass


class _Index:
    """An integer-like value (numpy's int64 is one)."""

    def __index__(self) -> int:
        return 3


_ODD_VALUES = st.sampled_from([None, True, 1.5, _Str("s"), _Index(), "x", 7, -(2**63), 2**63,
                               ["h"], [1], ("t",), b"b"])
_ODD_CHUNKS = st.one_of(
    st.text(max_size=3),
    st.builds(_Str, st.text(max_size=3)),
    _CHUNK_VALUES,
    st.dictionaries(st.sampled_from(["text", "start", "end", "section", "id", "bare", "index",
                                     "token_count", "other"]), _ODD_VALUES, max_size=4),
    st.fixed_dictionaries({"text": st.text(max_size=3), 1: st.just(2)}),
)


@given(st.lists(_ODD_CHUNKS, max_size=5))
def test_the_columns_built_directly_are_those_of_the_records(chunks: list[Any]) -> None:
    """chunk_columns takes a shortcut for plain lists and plain dicts: the same columns as
    normalising record by record, the same refusal otherwise."""
    try:
        expected = columns_of(normalise_chunks(chunks))
    except ChunkTypeError as exc:
        with pytest.raises(ChunkTypeError, match=re.escape(str(exc))):
            chunk_columns(chunks)
        return
    assert chunk_columns(chunks) == expected
    assert list(chunk_columns(chunks)) == list(expected)  # the same order: the same bytes
