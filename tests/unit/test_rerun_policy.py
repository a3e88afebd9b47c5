"""Which inputs are called twice for ``deterministic``: the corpus and the generated ones, not
the covering schedule's cases (played in bulk; the other inputs judge that rule)."""

from __future__ import annotations

from pathlib import Path

from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config
from chunk_contract.transport.base import InProcessTransport
from chunk_contract.transport.loading import load

ROOT = Path(__file__).resolve().parents[2]
COUNTER = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:counter_ids"


def _session() -> Session:
    plugin = load(COUNTER)
    return Session(plugin, timeout=5, memory_mb=None, selected=["deterministic", "ordered"],
                   transport=InProcessTransport(plugin))


def test_rerun_false_leaves_deterministic_out_and_calls_once() -> None:
    with _session() as session:
        twice = session.observe("abc def ghi", Config(4, 0))
        once = session.observe("abc def ghi", Config(4, 0), rerun=False)
    assert [v.invariant for v in twice.violations] == ["deterministic"]
    assert once.violations == [] and "deterministic" not in once.exercised


def test_the_schedule_is_played_once_per_case_and_deterministic_still_caught() -> None:
    outcome = run(COUNTER, RunSettings(max_examples=20, seed=1, measure=False,
                                       only=("deterministic",), reproducers=None))
    verdicts = {r.id: r.status for r in outcome.results}
    assert verdicts["deterministic"] == "violated"
    assert outcome.coverage is not None and outcome.coverage.complete



def test_every_schedule_case_is_observed_without_a_rerun() -> None:
    from chunk_contract.engine import runner
    from chunk_contract.generation.strategies.schedule import schedule_for

    with _session() as session:
        asked: list[bool] = []
        observe = session.observe

        def spy(document: str, config: Config, **options: bool) -> object:
            asked.append(options.get("rerun", True))
            return observe(document, config, **options)

        session.observe = spy  # type: ignore[method-assign]
        found = runner._Explored()
        plan = schedule_for("text")
        runner._play(session, plan, plan.items(), float("inf"), found, lambda event: None, 0)
    assert len(asked) == len(list(plan.items())) > 100 and not any(asked)
