"""Length-framed JSON: exact strings, and a host side that never hangs or over-reads."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import pytest

from chunk_contract.containment import framing
from chunk_contract.containment.framing import FrameClosed, FrameError, FrameTimeout


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe whose read end is non-blocking, as the host's are."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


@pytest.mark.parametrize(
    "value",
    [
        ["ok", {"text": "a\ud800\udc00b", "start": 0}],
        {"$str": ["not an encoded string"], "$dict": 1},
        ["x" * 1000, 10**40, -1.5, None, True, []],
        "\U0001f600 plain astral",
    ],
)
def test_values_round_trip_exactly(value: object) -> None:
    assert framing.decode(framing.encode(value)) == value


@pytest.mark.parametrize(
    "data", [b"", b"[1,", b"\x80\x03cos\nsystem\n", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000]
)
def test_anything_but_json_is_a_frame_error(data: bytes) -> None:
    with pytest.raises(FrameError, match="not valid JSON"):
        framing.decode(data)


def test_objects_that_are_not_plain_data_do_not_encode() -> None:
    with pytest.raises(TypeError):
        framing.encode([object()])


def test_a_frame_round_trips_through_a_pipe(pipe: tuple[int, int]) -> None:
    read, write = pipe
    framing.write_frame(write, 7, framing.encode(["ok", 1]))
    assert framing.receive_frame(read, 7, deadline=time.monotonic() + 5, limit=100) == ["ok", 1]


def test_a_bad_header_is_a_frame_error(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, b"garbage that is no header")
    with pytest.raises(FrameError, match="frame header"):
        framing.receive_frame(read, 1, deadline=time.monotonic() + 5, limit=100)


def test_an_answer_to_another_request_is_a_frame_error(pipe: tuple[int, int]) -> None:
    read, write = pipe
    framing.write_frame(write, 3, b"[]")
    with pytest.raises(FrameError, match="answered request 3, expected 4"):
        framing.receive_frame(read, 4, deadline=time.monotonic() + 5, limit=100)


def test_an_oversized_frame_is_refused_unread(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, framing.HEADER.pack(framing.MAGIC, 1, 2**60))
    with pytest.raises(FrameError, match="over the limit") as caught:
        framing.receive_frame(read, 1, deadline=time.monotonic() + 5, limit=2**20)
    assert caught.value.size == 2**60


def test_a_truncated_frame_is_frame_closed(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, framing.HEADER.pack(framing.MAGIC, 1, 100) + b"x" * 10)
    os.close(write)
    with pytest.raises(FrameClosed, match="after 10 of 100 bytes"):
        framing.receive_frame(read, 1, deadline=time.monotonic() + 5, limit=1000)


def test_a_stalled_frame_times_out(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, framing.HEADER.pack(framing.MAGIC, 1, 100)[:5])
    with pytest.raises(FrameTimeout):
        framing.receive_frame(read, 1, deadline=time.monotonic() + 0.1, limit=1000)


def test_a_reader_that_stops_reading_times_the_sender_out(pipe: tuple[int, int]) -> None:
    _read, write = pipe
    os.set_blocking(write, False)
    with pytest.raises(FrameTimeout):
        framing.send_frame(write, 1, b"x" * 2**22, deadline=time.monotonic() + 0.1)
