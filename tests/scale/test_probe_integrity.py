"""scales_linearly's probe: verdicts that load cannot fake, times the plugin cannot rewrite, and
nothing it computes thrown away (a probe call that breaks a rule is that rule's finding)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine import scaling
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Violation
from chunk_contract.spec.registry import registry
from chunk_contract.transport.base import ForkTransport
from chunk_contract.transport.loading import load
from chunk_contract.transport.messages import Chunks, Timed, TimedFamily, Unchecked
from tests.scale.test_scaling import _measured, _Modelled

HERE = Path(__file__).resolve().parent
BIG = (1_600_000, 3_200_000, 6_400_000)
MID = (100_000, 200_000, 400_000, 800_000)


# --------------------------------------------------------------------- the decision function


def test_the_fit_is_the_exponent_of_a_power_law() -> None:
    sizes = (1_000, 2_000, 4_000, 8_000)
    assert scaling.exponent(sizes, tuple(n * 1e-6 for n in sizes)) == pytest.approx(1.0)
    assert scaling.exponent(sizes, tuple((n * 1e-3) ** 2 for n in sizes)) == pytest.approx(2.0)


@pytest.mark.parametrize("seconds", [
    (0.013, 0.05, 0.167),  # a linear Rust chunker crossing the memory hierarchy, quiet machine
    (0.018, 0.06, 0.146),  # a linear JS chunker on a machine at load 6 of 2 cores
    (0.0001, 0.0004, 0.009),  # timer noise at a millisecond
])
def test_growth_at_tiny_times_is_not_judged(seconds: tuple[float, ...]) -> None:
    """x8 and more for x4, but under FLOOR: caches and the scheduler decide such ratios."""
    timing = scaling.Timing("f", BIG, seconds, 2.0)
    assert seconds[-1] / seconds[0] > 8  # what a ratio over one pair of sizes would report
    assert not timing.grew and not timing.superlinear


def test_quadratic_at_measurable_times_is_superlinear() -> None:
    timing = scaling.Timing("f", MID[:3], (0.02, 0.08, 0.32), 2.0)
    assert timing.grew and timing.superlinear
    assert timing.exponent == pytest.approx(2.0)


def test_one_noisy_size_among_linear_ones_is_linear() -> None:
    """One size slowed by a neighbour (0.9 s where 0.4 s was due): the fit stays linear."""
    timing = scaling.Timing("f", MID, (0.1, 0.2, 0.9, 0.8), 2.0)
    assert not timing.superlinear and timing.settled
    last_pair = scaling.Timing("f", MID, (0.1, 0.2, 0.4, 1.2), 2.0)  # x3 on the last doubling
    assert not last_pair.superlinear


def test_a_linear_trend_is_settled_early_and_a_flat_one_is_not() -> None:
    assert scaling.Timing("f", MID[:3], (0.006, 0.012, 0.024), 2.0).settled
    flat = scaling.Timing("f", MID[:3], (0.02, 0.021, 0.023), 2.0)  # a fixed cost hides growth
    assert not flat.settled


def test_the_violation_reports_sizes_times_runs_and_the_exponent() -> None:
    timing = scaling.Timing("f", MID[:3], (0.02, 0.08, 0.32), 2.0, repeats=(1, 2, 3))
    text = timing.describe()
    assert "fitted exponent 2.00 over 3 sizes" in text and "least of 1/2/3 runs" in text
    assert "400,000 chars: 0.320 s" in text


# --------------------------------------------------------------------- the modelled probe


def test_a_linear_chunker_stops_growing_once_settled() -> None:
    model = _Modelled(lambda n: n * 2e-7)  # 0.02 s at 100,000 characters
    timing = _measured(model)
    assert not timing.superlinear and timing.settled
    assert max(size for size, _ in model.calls) <= 200_000  # not the 6.4M cap


def test_a_chunker_with_a_fixed_cost_per_call_stops_where_it_reaches_100_ms() -> None:
    """50 ms a call plus a fast linear part: settled once flat at 0.1 s, as the probe always
    stopped there, not grown on to FLOOR."""
    model = _Modelled(lambda n: 0.05 + n * 1.2e-7)
    timing = _measured(model)
    assert not timing.superlinear and timing.settled
    assert max(size for size, _ in model.calls) <= 800_000


def test_a_step_in_the_memory_hierarchy_is_not_reported() -> None:
    """Linear, x6 on one doubling (a cache left behind), linear again: the next doubling
    shows it, so it is not reported."""
    def cpu(n: int) -> float:
        return n * 1e-7 * (6 if n > 1_000_000 else 1)

    timing = _measured(_Modelled(cpu))
    assert not timing.superlinear, timing.describe()


def test_a_quadratic_chunker_is_confirmed_with_repeats() -> None:
    """Even behind a fixed cost that flattens the smaller sizes (10 ms on first calls)."""
    model = _Modelled(lambda n: (n / 100_000) ** 2 * 0.05, noise=0.01)
    timing = _measured(model)
    assert timing.superlinear, timing.describe()
    assert max(timing.repeats) == scaling.REPEATS


# --------------------------------------------------------------------- plugins that fake


def _probe(target: str, families: tuple[str, ...], *, checked: bool,
           timeout: float = 2.0) -> scaling.Probed:
    plugin = load(target)
    if not checked:
        with ForkTransport(plugin, timeout=timeout, memory_mb=1024) as worker:
            return scaling.survey(worker, timeout=timeout, families=families)
    with Session(plugin, timeout=timeout, memory_mb=1024, selected=list(registry())) as session:
        return scaling.survey(session.transport, timeout=timeout, families=families,
                              check=session.verdict)


def test_a_plugin_that_rewrites_its_clock_is_timed_from_outside() -> None:
    """The worker's process_time runs 10 µs a character, linear; the host reads /proc."""
    found = _probe(f"{HERE / 'fake_clock.py'}:split", ("one long line",), checked=False)
    assert [v.message.split(":")[0] for v in found.violations] == ["one long line"]


def test_a_plugin_that_rewrites_the_families_is_caught_by_its_chunks() -> None:
    """Its worker builds 3,125 characters whatever the size: the chunks miss the rest of the
    host's document."""
    found = _probe(f"{HERE / 'fake_families.py'}:split", ("one long line",), checked=True)
    assert "no_lost_text" in found.broken
    assert found.broken["no_lost_text"].size <= 2 * scaling.SIZES[0]


# --------------------------------------------------------------------- nothing thrown away


def _violated(target: str) -> dict[str, str]:
    result = run(target, RunSettings(max_examples=20, seed=1, reproducers=None))
    return {r.id: r.counterexample.document for r in result.violated if r.counterexample}


def test_a_crash_past_2500_characters_is_no_crash_at_the_smallest_failing_size() -> None:
    found = _violated(f"{HERE / 'probe_failures.py'}:crashes_past_2500")
    assert set(found) == {"no_crash"}
    assert len(found["no_crash"]) == 2_501


def test_a_recursion_per_line_is_no_crash() -> None:
    probed = _probe(f"{HERE / 'probe_failures.py'}:recurses_per_line", ("newlines only",),
                    checked=True)
    broken = probed.broken["no_crash"]
    assert "RecursionError" in broken.violations[0].message
    assert 500 < broken.size < scaling.SIZES[0]  # bisected to about the recursion limit


def test_a_hang_on_every_probe_document_is_terminates() -> None:
    probed = _probe(f"{HERE / 'probe_failures.py'}:hangs_past_2500", ("one long line",),
                    checked=True, timeout=0.5)
    assert "terminates" in probed.broken
    assert "no answer within" in probed.broken["terminates"].violations[0].message


# ------------------------------------------------------- what the probe parses and re-times


class _Unparsed(_Modelled):
    """Replies left unparsed, as a fork worker leaves a family's chunks; notes each parse."""

    def __init__(self, cpu: Callable[[int], float], spike: dict[int, float] | None = None):
        super().__init__(cpu)
        self.parsed: list[int] = []
        self.spike = spike or {}

    def call(self, request: TimedFamily, *, timeout: float) -> Outcome:
        first = all(s != request.size for s, _ in self.calls)
        outcome = super().call(request, timeout=timeout)
        if not outcome.ok:
            return outcome
        seconds = outcome.value.seconds * (self.spike.get(request.size, 1.0) if first else 1.0)
        return Outcome("ok", Timed(seconds, Unchecked(partial(self._read, request.size))))

    def _read(self, size: int) -> Chunks:
        self.parsed.append(size)
        return Chunks([])


def _checker(seen: list[int], bad_from: int | None = None) -> scaling.Checker:
    def check(document: str, config: object, outcome: Outcome) -> list[Violation]:
        assert outcome.ok and isinstance(outcome.value, Chunks)  # parsed before checking
        seen.append(len(document))
        broken = bad_from is not None and len(document) >= bad_from
        return [Violation("no_lost_text", "garbage")] if broken else []

    return check


def test_only_small_sizes_and_the_largest_are_parsed_and_checked() -> None:
    model, seen = _Unparsed(lambda n: n * 5e-8), []
    timing = scaling.measure(model, "newlines only", timeout=2.0, check=_checker(seen))
    largest = timing.sizes[-1]
    assert largest > 4 * scaling.CHECKED and not timing.failed
    expected = [n for n in timing.sizes if n <= scaling.CHECKED] + [largest]
    assert model.parsed == expected and seen == expected


def test_garbage_at_the_largest_size_breaks_a_rule_there() -> None:
    """A plugin that answers large documents fast with wrong chunks is caught by its chunks:
    the size its linear verdict rests on is always checked."""
    model, seen = _Unparsed(lambda n: n * 5e-8), []
    timing = scaling.measure(model, "newlines only", timeout=2.0,
                             check=_checker(seen, bad_from=100_000))
    assert timing.broken is not None and not timing.superlinear
    assert timing.broken.violations[0].invariant == "no_lost_text"
    assert scaling.CHECKED < timing.broken.size <= timing.sizes[-1]


def test_a_rule_the_chunks_break_does_not_hide_growth() -> None:
    """One bug must not hide another: a quadratic chunker whose chunks also break a rule from
    the first size on is still timed, and its growth is reported beside that rule."""
    model, seen = _Unparsed(lambda n: (n / 100_000) ** 2 * 0.05), []
    found = scaling.survey(model, timeout=2.0, check=_checker(seen, bad_from=0),
                           families=("newlines only",))
    assert "no_lost_text" in found.broken
    (violation,) = found.violations
    assert "grows faster than the input" in violation.message
    assert "also break no_lost_text" in violation.message
    assert [n for n in seen if n > scaling.CHECKED] == []  # checked once, then timed only


def test_a_slightly_steep_doubling_is_timed_again_before_growing_on() -> None:
    """Linear, but one size's first call took 1.4 times its time (load): it is timed again
    and the trend settles there, instead of growing the document further."""
    linear = _Unparsed(lambda n: n * 2e-7)
    settled_at = scaling.measure(linear, "newlines only", timeout=2.0).sizes[-1]
    noisy = _Unparsed(lambda n: n * 2e-7, spike={settled_at: 1.4})
    timing = scaling.measure(noisy, "newlines only", timeout=2.0)
    assert timing.settled and timing.sizes[-1] == settled_at
    assert timing.repeats[-1] == 2


def test_a_quadratic_doubling_is_not_timed_again_before_it_is_suspect() -> None:
    model = _Unparsed(lambda n: (n / 25_000) ** 2 * 0.002)
    timing = scaling.measure(model, "newlines only", timeout=2.0)
    assert timing.superlinear
    below_floor = [k for k, t in enumerate(timing.seconds) if t is not None and t < scaling.FLOOR]
    assert all(timing.repeats[k] == 1 for k in below_floor[:-1])
