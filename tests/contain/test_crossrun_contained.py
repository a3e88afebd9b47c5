"""The fresh-interpreter rerun is contained: exact documents, memory cap, deadline, reported."""

from __future__ import annotations

import concurrent.futures
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.containment import reaper
from chunk_contract.engine import crossrun, runner
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.engine.session import Observation
from chunk_contract.spec.model import Config, chunks_from_records, normalise_chunks
from chunk_contract.transport.loading import load
from chunk_contract_reference.fixed import split as fixed_split
from tests.contain.plugins import HOST_SEED

HERE = Path(__file__).parent
PLUGINS = HERE / "plugins.py"
CASES = [("alpha beta gamma delta", Config(6, 0))]


@pytest.fixture(autouse=True)
def _host_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOST_SEED, os.environ.get("PYTHONHASHSEED", "none"))


def _target(name: str) -> str:
    return f"{PLUGINS}:{name}"


def test_separated_surrogates_cross_the_pipe_exactly() -> None:
    document = "x\udbff\udc00y " * 3
    cases = [(document, Config(4, 0))]
    done = crossrun.rerun(_target("split"), cases, timeout=5)
    assert not done.failure and done.loadable
    records = done.answers[0]
    assert isinstance(records, list) and "".join(r["text"] for r in records).count("\udbff") == 3
    assert all("\U0010fc00" not in r["text"] for r in records)


def test_separated_surrogates_give_no_false_deterministic() -> None:
    document = "x\udbff\udc00y"
    config = Config(3, 0)
    records = [
        {k: v for k, v in r.items() if k != "bare"}
        for r in normalise_chunks(fixed_split(document, max_size=3, overlap=0))
    ]
    explored = runner._Explored()
    chunks = chunks_from_records(records)
    explored.samples.offer(Observation(document, config, [], records, chunks=chunks))
    limits = SimpleNamespace(timeout=5.0, memory_mb=1024)
    runner._fresh_interpreter(load(_target("split")), limits, explored)  # type: ignore[arg-type]
    assert "deterministic" not in explored.first, explored.first


def test_hang_in_the_fresh_interpreter_is_reported_and_killed() -> None:
    done = crossrun.rerun(_target("hangs_when_fresh"), CASES, timeout=0.2, startup=3)
    assert "did not answer within 3.2 s" in done.failure
    assert reaper.registered() == {}


def test_a_grandchild_holding_the_pipes_neither_hangs_the_rerun_nor_fails_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh interpreter answers and exits, but a ``sleep`` it started in a session of its
    own still holds its stdout and stderr: the rerun must not wait for their end of file."""
    pidfile = tmp_path / "holder"
    monkeypatch.setenv("HOLDER_PIDFILE", str(pidfile))
    pool = concurrent.futures.ThreadPoolExecutor(1)  # a regression must fail, not hang pytest
    try:
        future = pool.submit(
            crossrun.rerun, _target("leaves_a_holder_when_fresh"), CASES, timeout=1, startup=60
        )
        done = future.result(timeout=180)
        assert not done.failure and done.loadable, done.failure
        assert done.answers and done.answers[0]
    finally:
        if pidfile.exists():
            os.kill(int(pidfile.read_text()), 9)
        pool.shutdown(wait=False)
    assert pidfile.exists()  # the holder was started: the test tested something


def test_death_in_the_fresh_interpreter_is_reported_with_its_stderr() -> None:
    done = crossrun.rerun(_target("dies_when_fresh"), CASES, timeout=5)
    assert "died (exit status 7)" in done.failure
    assert "fresh interpreter going down" in done.failure


def test_memory_cap_stops_a_fresh_only_allocation() -> None:
    done = crossrun.rerun(_target("allocates_when_fresh"), CASES, timeout=5, memory_mb=256)
    assert not done.failure
    answer = done.answers[0]
    assert isinstance(answer, dict) and "MemoryError" in answer["error"]
    assert "raised MemoryError" in (crossrun.difference([], answer) or "")


def test_an_api_object_that_cannot_be_loaded_by_name_gives_no_verdict() -> None:
    done = crossrun.rerun("no/such/file.py:split", CASES, timeout=5, required=False)
    assert not done.loadable and "no/such/file.py" in done.failure


def test_a_target_the_worker_loaded_but_the_fresh_interpreter_cannot_is_a_failure() -> None:
    done = crossrun.rerun("no/such/file.py:split", CASES, timeout=5)
    assert done.loadable and "could not load the target the worker loaded" in done.failure


HOSTILE = HERE.parent / "hostile"


@pytest.mark.parametrize(
    ("module", "says"),
    [("fresh_exit.py", "died (exit status 3) before answering"),
     ("fresh_import_error.py", "ImportError: only in a fresh interpreter")],
)
def test_the_exit_status_of_the_fresh_interpreter_is_no_answer(module: str, says: str) -> None:
    """Exit status 3 once meant "cannot load it here: no verdict", and a plugin could choose it."""
    done = crossrun.rerun(f"{HOSTILE / module}:split", CASES, timeout=5)
    assert done.loadable and says in done.failure, done.failure


def test_an_answer_is_the_message_whatever_the_exit_status() -> None:
    answer = b'{"answers": [[]]}'
    assert crossrun._outcome(1, 3, answer, b"", 5.0, 1).answers == [[]]
    silent = crossrun._outcome(1, 0, b"", b"", 5.0, 1)
    assert "exited with status 0 before answering" in silent.failure
    for garbage in (b'[[]]', b'{"answers": [[]], "x": 1}', b'{"unloadable": 3}', b'{"answers": 1}'):
        done = crossrun._outcome(1, 0, garbage, b"", 5.0, 1)
        assert done.loadable and done.failure.startswith("answered"), garbage


def _deterministic(name: str, **extra: object) -> str:
    settings = RunSettings(max_examples=20, seed=3, only=("deterministic",), reproducers=None,
                           corpus=False, **extra)  # type: ignore[arg-type]
    result = run(_target(name), settings)
    item = next(r for r in result.results if r.id == "deterministic")
    assert item.status == "violated", item
    assert item.counterexample is not None
    return item.counterexample.message


@pytest.mark.slow
def test_run_reports_a_hang_only_in_the_fresh_interpreter() -> None:
    message = _deterministic("hangs_when_fresh", timeout=0.25)
    assert "did not answer within" in message and "fresh interpreter" in message


def test_run_reports_a_fresh_only_memory_blowup() -> None:
    message = _deterministic("allocates_when_fresh", memory_mb=256)
    assert "raised MemoryError" in message


def test_the_command_line_catches_a_fresh_only_memory_blowup(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code = cli.main(["run", _target("allocates_when_fresh"), "--only", "deterministic",
                     "--memory-mb", "256", "--max-examples", "20", "--seed", "3", "--no-corpus",
                     "--reproducers", str(tmp_path / "repro"), "--json", str(report), "-q"])
    assert code == 1
    verdicts = {i["id"]: i for i in json.loads(report.read_text())["invariants"]}
    assert "raised MemoryError" in verdicts["deterministic"]["counterexample"]["message"]
