"""bench/bench_false_verdicts.py's judgement: a family reported on a correct chunker is a false
verdict, a quadratic defect not reported (on its family) is a miss; its hogs are reaped."""

from __future__ import annotations

import importlib.util
import multiprocessing
import sys
from pathlib import Path
from types import ModuleType

import pytest

from chunk_contract.engine import scaling

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    path = ROOT / "bench" / "bench_false_verdicts.py"
    spec = importlib.util.spec_from_file_location("_bench_false_verdicts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()
CORRECT = bench.Target("correct", "x.py:split")
CRLF_ONLY = bench.Target("defect", "x.py:d", frozenset({"CRLF text"}))
ANY = bench.Target("defect", "x.py:q", frozenset())


def _message(family: str) -> str:
    """A violation message as the probe writes it, for ``family``."""
    timing = scaling.Timing(family, (25_000, 50_000, 100_000), (0.05, 0.2, 0.8), 2.0)
    return f"{timing.describe()}; config max_size=200, overlap=20: time grows faster"


def test_the_family_is_read_from_the_probes_own_message() -> None:
    assert bench.family_of(_message("CRLF text")) == "CRLF text"
    assert bench.family_of(_message("one long line")) == "one long line"


def test_a_correct_chunker_passes_only_with_nothing_reported() -> None:
    assert bench.judge(CORRECT, [], []).text == "linear"
    reported = bench.judge(CORRECT, [_message("paragraphs")], [])
    assert reported.false and not reported.missed
    assert reported.text == "FALSE VERDICT: paragraphs"
    assert bench.judge(CORRECT, [], ["no_crash: boom"]).false


def test_a_one_shape_defect_must_be_reported_on_that_shape_alone() -> None:
    caught = bench.judge(CRLF_ONLY, [_message("CRLF text")], [])
    assert not caught.false and not caught.missed and caught.text == "caught: CRLF text"
    extra = bench.judge(CRLF_ONLY, [_message("CRLF text"), _message("paragraphs")], [])
    assert extra.false and not extra.missed
    assert bench.judge(CRLF_ONLY, [], []).missed
    elsewhere = bench.judge(CRLF_ONLY, [_message("paragraphs")], [])
    assert elsewhere.false and elsewhere.missed


def test_any_family_catches_a_defect_quadratic_everywhere() -> None:
    assert bench.judge(ANY, [], []).missed
    caught = bench.judge(ANY, [_message("tables"), _message("lists")], [])
    assert not caught.false and not caught.missed


def test_the_summary_counts_false_verdicts_and_misses() -> None:
    report = bench.Report(2, 10, 3)
    for target, messages in ((CORRECT, [_message("tables")]), (CRLF_ONLY, []), (ANY, [])):
        verdict = bench.judge(target, messages, [])
        report.rows.append(bench.Row(1, target, 1.0, 4.0, verdict, messages))
    summary = report.summary()
    assert "3 probes (stopped: 3 of 30)" in summary
    assert "**1 false verdict(s), 2 miss(es)**" in summary
    assert report.failures == 3


def test_the_hogs_are_reaped_even_when_the_block_fails() -> None:
    before = set(multiprocessing.active_children())
    hogs = set()
    with pytest.raises(RuntimeError), bench.busy(1):
        hogs = set(multiprocessing.active_children()) - before
        assert len(hogs) == 2  # a CPU hog and a memory hog
        raise RuntimeError
    assert not any(hog.is_alive() for hog in hogs)
    assert all(hog.exitcode is not None for hog in hogs)  # reaped


def test_a_hog_whose_parent_is_gone_stops() -> None:
    stop = multiprocessing.get_context("fork").Event()
    bench._cpu_hog(stop, parent=-1)  # not its parent: returns at once
    bench._memory_hog(stop, parent=-1)
