"""chunk_contract.engine.resultcodec: a run result crosses from a ``-n`` process as JSON, and
nothing but the result's own dataclasses can come out of it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from chunk_contract import exactjson
from chunk_contract.containment import framing
from chunk_contract.diagnosis.base import Diagnosis
from chunk_contract.engine import parallel, resultcodec
from chunk_contract.engine.events import Progress, RunPhase
from chunk_contract.engine.health import Finding
from chunk_contract.engine.results import (
    Counterexample,
    InvariantResult,
    PhaseTime,
    RunResult,
    RunSettings,
)
from chunk_contract.generation.strategies.coverage import Coverage
from chunk_contract.spec.model import Config


def _result() -> RunResult:
    example = Counterexample(
        "no_lost_text", "x\udbff\udc00y", Config(3, 1), ["lost 'y'"],
        [{"text": "x", "start": 0, "end": 1, "meta": {"$str": 1, 2: (3,)}}], shrunk=True,
        offending=[0], diagnosis=Diagnosis("drops_tail", "cause", "fix", "evidence"),
    )
    results = [InvariantResult("no_lost_text", "violated", 4, example),
               InvariantResult("ordered", "skipped", 0, reason="why")]
    settings = RunSettings(only=("no_lost_text",), reproducers=Path("/tmp/r"), timeout=1.5)
    return RunResult(
        "t.py:split", "text", 7, 4, results, 1.25, settings, examples_asked=5,
        stopped_early="budget", coverage=Coverage(3, 4, {"ending": (1, 2)}, ("a:b:c",)),
        health=[Finding("check", "warning", "what", "why", "fix")],
        phases={"exploration": PhaseTime(1.5, 0.75, 0.25)}, total_time=PhaseTime(2.0, 1.0, 0.5),
    )


def _through_json(tree: Any) -> Any:
    return exactjson.loads(exactjson.dumps(tree))


def test_a_result_survives_the_round_trip_exactly() -> None:
    result = _result()
    assert resultcodec.decode_result(_through_json(resultcodec.encode(result))) == result


@pytest.mark.parametrize(
    "tree",
    [
        ["c", "Popen", {"args": ["l", ["sh"]]}],  # a class a result never holds
        ["c", "RunResult", {"target": "t"}],  # missing fields
        ["c", "Config", {"max_size": 3, "overlap": 0, "run": "os.system"}],  # an extra field
        ["x", []],  # an unknown tag
        {"__reduce__": ["os._exit", [0]]},
        ["c", "Config", {"max_size": 3, "overlap": 0}],  # not a RunResult at the top
        ["l", [["l", [0]]] * 2],  # a list where a result belongs
    ],
)
def test_anything_but_a_run_result_is_refused(tree: Any) -> None:
    with pytest.raises(ValueError):
        resultcodec.decode_result(_through_json(tree))


@pytest.mark.parametrize("fields", [
    {"wall": "1; rm -rf /", "cpu": 0.0, "plugin_cpu": 0.0},
    {"wall": 1.0, "cpu": 0.0, "plugin_cpu": ["l", [0.5]]},
    {"wall": 1.0, "cpu": 0.0, "plugin_cpu": True},
])
def test_a_phase_time_that_is_no_number_is_refused(fields: dict[str, Any]) -> None:
    tree = ["c", "PhaseTime", fields]
    with pytest.raises(TypeError):
        resultcodec.decode(_through_json(tree))


def test_deep_nesting_is_refused_not_a_crash() -> None:
    tree: Any = 0
    for _ in range(resultcodec.MAX_DEPTH + 5):
        tree = ["l", [tree]]
    with pytest.raises(ValueError, match="nested too deeply"):
        resultcodec.decode(tree)


def test_a_pool_process_that_sends_garbage_is_its_failure() -> None:
    """A malformed frame, a pickle, or a frame of another shape: the member failed, and
    nothing was unpickled or run."""
    exit_zero = b"\x80\x04\x95\x13" + bytes(4) + b"\x8c\x02os\x8c\x05_exit\x93K\x00\x85R."
    garbage = (
        exit_zero, framing.HEADER.pack(framing.MAGIC, 1, 4) + b"[1]x",
        _frame(["result", ["c", "Popen", {}]]), _frame(["progress", "x"]),
        # progress or a plan for another process, a negative plan, a phase the host does not show
        _frame(["progress", 1, 3, []]), _frame(["planned", 1, 300, "exploring"]),
        _frame(["planned", 0, -1, "exploring"]), _frame(["planned", 0, 9, "\x1b[2Jgreen"]),
        _frame(["planned", 0, 9, ["exploring"]]), _frame(["planned", True, 9, "exploring"]),
    )
    for data in garbage:
        read, write = os.pipe()
        os.write(write, data)
        os.close(write)
        member = parallel._Member(0, os.getpid(), read)
        try:
            parallel._receive(member)
        finally:
            os.close(read)
        assert not member.open and member.result is None
        assert member.failure.startswith("a -n process sent a malformed message"), member.failure


def test_a_pool_process_progress_and_result_are_read() -> None:
    read, write = os.pipe()
    os.write(write, _frame(["progress", 0, 3, ["ordered"]]))
    os.write(write, _frame(["result", resultcodec.encode(_result())]))
    os.close(write)
    member = parallel._Member(0, os.getpid(), read)
    try:
        assert parallel._receive(member) == ["progress", 0, 3, ["ordered"]]
        assert parallel._receive(member) is None and member.result == _result()
        assert parallel._receive(member) is None and not member.open and not member.failure
    finally:
        os.close(read)


def test_a_parallel_runs_total_is_shown_once_the_first_process_planned_it() -> None:
    """The first process plays the seed corpus and the covering schedule besides its share:
    until it says how many examples that makes, nothing is shown, so the total on the
    progress line does not grow under examples already counted."""
    shown: list[Any] = []
    tally = parallel._Tally({0: 100, 1: 100})
    tally.note(["planned", 1, 100, "exploring"], shown.append)
    tally.note(["progress", 1, 10, []], shown.append)
    assert shown == []
    tally.note(["planned", 0, 281, "seed corpus"], shown.append)
    tally.note(["progress", 0, 20, ["ordered"]], shown.append)
    tally.note(["planned", 0, 281, "exploring"], shown.append)
    assert shown == [
        RunPhase("seed corpus", 381), Progress(10, 381, ()),
        Progress(30, 381, ("ordered",)),
        RunPhase("exploring", 381), Progress(30, 381, ("ordered",)),
    ]


def _frame(message: Any) -> bytes:
    payload = json.dumps(exactjson.encode(message)).encode()
    return framing.HEADER.pack(framing.MAGIC, 1, len(payload)) + payload
