"""scales_linearly (SPEC §5): quadratic chunkers are reported in a default run; linear ones are
never reported, over ten repeated probes, even with the machine kept busy meanwhile."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract import scaling
from contract.plugins import load
from contract.runner import RunSettings, run

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LINEAR = [
    str(ROOT / "reference_chunkers" / f"{name}.py") + ":split"
    for name in ("fixed", "recursive", "markdown", "header", "grapheme")
]


def _verdict(target: str) -> tuple[str, str]:
    """scales_linearly's status and message in a default run (only the examples are fewer)."""
    result = run(target, RunSettings(max_examples=50, seed=1, reproducers=None))
    (item,) = [r for r in result.results if r.id == "scales_linearly"]
    message = item.counterexample.message if item.counterexample else ""
    return item.status, message


@pytest.mark.parametrize("name", ["backscan_to_start", "rfind_to_start"])
def test_quadratic_on_one_long_unbroken_run_is_reported(name: str) -> None:
    status, message = _verdict(f"{HERE / 'scaling_chunkers.py'}:{name}")
    assert status == "violated", message
    assert "chars" in message and "s of CPU time" in message  # sizes and times are shown


def _burn(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        sum(range(10_000))


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """One process spinning on a core for the whole test: the shared CI machine's noise."""
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    burner = context.Process(target=_burn, args=(stop,), daemon=True)
    burner.start()
    try:
        yield
    finally:
        stop.set()
        burner.join(timeout=5)
        if burner.is_alive():
            burner.kill()


def test_linear_chunkers_never_reported_over_ten_probes(busy_machine: None) -> None:
    """Two probes of each reference chunker (ten in all), while another process burns a core."""
    from contract.engine.transport import ForkTransport  # the plugin's worker, as in a run

    reported = []
    started = time.monotonic()
    for target in LINEAR * 2:
        plugin = load(target)
        with ForkTransport(plugin, timeout=2.0, memory_mb=1024) as transport:
            found = scaling.probe(transport, timeout=2.0)
        reported += [f"{target}: {v.message}" for v in found]
    assert not reported, "\n".join(reported)
    assert time.monotonic() - started < 300  # bounded: a few seconds a probe


def test_superlinear_needs_both_ratio_and_floor() -> None:
    linear = scaling.Timing("f", (25_000, 50_000, 100_000), (0.05, 0.1, 0.2), 2.0)
    quadratic = scaling.Timing("f", (25_000, 50_000, 100_000), (0.05, 0.2, 0.8), 2.0)
    tiny = scaling.Timing("f", (25_000, 50_000, 100_000), (0.0001, 0.0004, 0.009), 2.0)
    timed_out = scaling.Timing("f", (25_000, 50_000, 100_000), (0.05, 0.3, None), 2.0)
    assert not linear.superlinear and quadratic.superlinear
    assert not tiny.superlinear  # 90x, but 9 ms: timer noise, not growth
    assert timed_out.superlinear
