"""scales_linearly (SPEC §5): quadratic chunkers are reported in a default run; linear ones are
never reported, over ten repeated probes, even with the machine kept busy meanwhile."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine import scaling
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.transport.loading import load
from chunk_contract.transport.messages import Chunks, Timed, TimedFamily

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LINEAR = [
    str(ROOT / "chunk_contract_reference" / f"{name}.py") + ":split"
    for name in ("fixed", "recursive", "markdown", "header", "grapheme")
]


def _verdict(target: str) -> tuple[str, str]:
    """scales_linearly's status and message in a default run (only the examples are fewer)."""
    result = run(target, RunSettings(max_examples=50, seed=1, reproducers=None))
    (item,) = [r for r in result.results if r.id == "scales_linearly"]
    message = item.counterexample.message if item.counterexample else ""
    return item.status, message


#: One size as every message shows it, whether it finished or not (no timing is asserted on).
_SIZE = r"[\d,]+ chars: (\d+\.\d{3} s|did not finish)"
#: A whole violation message: the family, what was found, every size measured, the config.
MESSAGE = re.compile(
    rf"^(?P<family>[^:]+): [\d,]+ chars (took \d+\.\d{{3}} s|did not finish within [^,]+), "
    rf"while .*; measured \(CPU time\): {_SIZE}(, {_SIZE})*; "
    r"config max_size=\d+, overlap=\d+: time grows faster than the input$"
)


def _families(messages: list[str]) -> set[str]:
    """The families the messages report; every message must have the uniform format."""
    found = [MESSAGE.match(m) for m in messages]
    assert all(found), messages
    return {m.group("family") for m in found if m}


def _probe(name: str, families: tuple[str, ...] | None = None) -> list[str]:
    """scales_linearly's messages for a chunker of scaling_chunkers.py, probed in a worker."""
    from chunk_contract.transport.base import ForkTransport  # the plugin's worker, as in a run

    plugin = load(f"{HERE / 'scaling_chunkers.py'}:{name}")
    with ForkTransport(plugin, timeout=2.0, memory_mb=1024) as worker:
        return [v.message for v in scaling.probe(worker, timeout=2.0, families=families)]


@pytest.mark.parametrize("name", ["backscan_to_start", "rfind_to_start"])
def test_quadratic_on_one_long_unbroken_run_is_reported(name: str) -> None:
    status, message = _verdict(f"{HERE / 'scaling_chunkers.py'}:{name}")
    assert status == "violated", message
    assert _families([message]) <= set(scaling.PATHOLOGICAL)


def test_every_superlinear_family_is_reported_by_a_run() -> None:
    """Quadratic on tables and on JSON blocks: both are among the counterexample's messages."""
    target = f"{HERE / 'scaling_chunkers.py'}:rescans_tables_and_json"
    result = run(target, RunSettings(max_examples=20, seed=1, reproducers=None))
    (item,) = [r for r in result.results if r.id == "scales_linearly"]
    assert item.status == "violated" and item.counterexample is not None
    reported = _families(item.counterexample.messages)
    assert {"tables", "JSON blocks"} <= reported, item.counterexample.messages
    assert not reported & {"paragraphs", *scaling.PATHOLOGICAL}


@pytest.mark.parametrize(
    ("name", "shape", "unaffected"),
    [
        ("rescans_paragraphs", "paragraphs", ()),
        ("heading_path_from_start", "markdown sections", ("paragraphs",)),
    ],
)
def test_quadratic_only_on_a_realistic_shape_is_reported(
    name: str, shape: str, unaffected: tuple[str, ...]
) -> None:
    """Linear on the four pathological families, quadratic on one shape the generators make."""
    families = (*scaling.PATHOLOGICAL, *unaffected, shape)
    assert _families(_probe(name, families)) == {shape}


def test_quadratic_on_crlf_text_only_is_named_by_chunk_contract_run(tmp_path: Path) -> None:
    """A defect of tests/defects that counts each chunk's lines from the document's start on
    CRLF text only: ``chunk-contract run`` reports ``scales_linearly`` naming that family and no
    other (it is linear on every other shape)."""
    name = "crlf_lines_from_start"
    target = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:{name}"
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", target, "--only", "scales_linearly",
         "--seed", "1", "--max-examples", "20", "--json", str(report)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (item,) = [i for i in json.loads(report.read_text("utf-8"))["invariants"]
               if i["id"] == "scales_linearly"]
    assert item["status"] == "violated", item
    assert _families(item["counterexample"]["messages"]) == {"CRLF text"}


def test_too_slow_at_the_old_first_size_is_reported() -> None:
    """Over the 2 s timeout at 25,000 newlines: the smaller sizes show the growth."""
    assert _families(_probe("slow_on_newlines", ("one long line", "newlines only"))) == {
        "newlines only"
    }


def test_a_size_that_never_finishes_after_fast_ones_is_reported() -> None:
    (message,) = _probe("explodes_on_newlines", ("one character repeated", "newlines only"))
    assert _families([message]) == {"newlines only"}
    assert "25,000 chars did not finish within the 2 s timeout, while" in message
    assert "a linear chunker of this kind would take at most" in message


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
    from chunk_contract.transport.base import ForkTransport  # the plugin's worker, as in a run

    reported = []
    started = _children_cpu()
    for target in LINEAR * 2:
        plugin = load(target)
        with ForkTransport(plugin, timeout=2.0, memory_mb=1024) as transport:
            found = scaling.probe(transport, timeout=2.0)
        reported += [f"{target}: {v.message}" for v in found]
    assert not reported, "\n".join(reported)
    # Bounded: a few seconds a probe, in the workers' CPU time (the wall clock of a busy
    # machine is no measure of the probe's cost).
    assert _children_cpu() - started < 150


def _children_cpu() -> float:
    """CPU seconds of the reaped child processes (the closed workers) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


SIZES = (25_000, 50_000, 100_000)


def test_superlinear_needs_both_ratio_and_floor() -> None:
    linear = scaling.Timing("f", SIZES, (0.05, 0.1, 0.2), 2.0)
    quadratic = scaling.Timing("f", SIZES, (0.05, 0.2, 0.8), 2.0)
    tiny = scaling.Timing("f", SIZES, (0.0001, 0.0004, 0.009), 2.0)
    assert not linear.superlinear and quadratic.superlinear
    assert not tiny.superlinear  # 90x, but 9 ms: timer noise, not growth


def test_one_doubling_cannot_tell() -> None:
    """Quadratic is x4 per doubling, what linear with its slack may take: x4 input is needed."""
    assert not scaling.Timing("f", SIZES[:2], (0.05, 0.21), 2.0).superlinear
    assert scaling.Timing("f", SIZES, (0.05, 0.21, 0.85), 2.0).superlinear


def test_a_timeout_counts_only_when_linear_growth_would_have_finished_with_room() -> None:
    slow = (0.05, 0.3, None)  # linear growth allows 0.4 s at 100k: 2 s is only 5x that
    assert not scaling.Timing("f", SIZES, slow, 2.0).superlinear
    waited = scaling.Timing("f", SIZES, slow, 2.0, waited=3.2)  # waited 8x the allowance
    assert waited.superlinear
    assert waited.describe().startswith(
        "f: 100,000 chars did not finish within 3.2 s (the 2 s timeout extended), while "
        "25,000 chars took 0.050 s and a linear chunker of this kind would take at most 0.4 s"
    )
    fast = scaling.Timing("f", SIZES, (0.001, 0.002, None), 2.0)  # 0.008 s allowed, 2 s waited
    assert fast.superlinear and "within the 2 s timeout" in fast.describe()
    capped = scaling.Timing("f", SIZES, (0.3, 0.6, None), 2.0, waited=8.0)  # 2.4 s x 8 > 8 s
    assert not capped.superlinear


def test_too_slow_at_the_first_size_is_left_to_terminates() -> None:
    assert not scaling.Timing("f", SIZES[:1], (None,), 2.0).superlinear
    assert not scaling.Timing("f", SIZES, (0.05, 0.2, 0.8), 2.0, failed=True).superlinear


def test_messages_have_one_format_whether_a_size_finished_or_not() -> None:
    grown = scaling.Timing("f", SIZES, (0.05, 0.2, 0.8), 2.0)
    late = scaling.Timing("f", (*SIZES, 200_000), (0.001, 0.002, 0.004, None), 2.0)
    for timing in (grown, late):
        text = f"{timing.describe()}; config max_size=200, overlap=20: time grows faster than " \
            "the input"
        assert _families([text]) == {"f"}
    assert "200,000 chars: did not finish" in late.describe()


# ------------------------------------------------------------ the probe on a modelled worker


@dataclass
class _Modelled:
    """A stand-in worker whose call at ``size`` takes ``cpu(size)`` CPU seconds plus ``noise``
    on its first call at each size; the wall clock runs ``load`` times slower, and a call whose
    wall time exceeds its timeout times out."""

    cpu: Callable[[int], float]
    load: float = 1.0
    noise: float = 0.0
    fails: bool = False
    calls: list[tuple[int, float]] = field(default_factory=list)

    def call(self, request: TimedFamily, *, timeout: float) -> Outcome:
        size = request.size
        assert isinstance(request, TimedFamily) and isinstance(size, int)
        first = all(s != size for s, _ in self.calls)
        self.calls.append((size, timeout))
        taken = self.cpu(size) + (self.noise if first else 0.0)
        if self.fails:
            return Outcome("error", None, "RuntimeError", "boom")
        if taken * self.load > timeout:
            return Outcome("timeout")
        return Outcome("ok", Timed(taken, Chunks([])))


def _measured(model: _Modelled, timeout: float = 2.0) -> scaling.Timing:
    return scaling.measure(model, "newlines only", timeout=timeout)  # type: ignore[arg-type]


def _linear(per_25k: float) -> Callable[[int], float]:
    return lambda n: per_25k * n / 25_000


def _quadratic(per_25k: float) -> Callable[[int], float]:
    return lambda n: per_25k * (n / 25_000) ** 2


@pytest.mark.parametrize("load", [1.0, 3.0, 6.0, 12.0])
def test_a_slow_linear_chunker_on_a_busy_machine_is_not_reported(load: float) -> None:
    """0.5 s at 25k, 2 s at 100k: sizes time out, are waited for longer, and pass."""
    model = _Modelled(_linear(0.5), load=load)
    assert not _measured(model).superlinear
    assert max(wait for _, wait in model.calls) <= 2.0 * scaling.EXTEND


@pytest.mark.parametrize("load", [1.0, 3.0])
def test_quadratic_over_the_timeout_at_25k_is_reported_on_a_busy_machine(load: float) -> None:
    timing = _measured(_Modelled(_quadratic(3.0), load=load))
    assert timing.superlinear, timing.describe()
    assert timing.sizes[-1] <= 25_000


def test_noise_on_first_calls_is_timed_away_and_only_where_it_matters() -> None:
    model = _Modelled(_linear(0.05), noise=0.3)  # every first call 0.3 s slower
    timing = _measured(model)
    assert not timing.superlinear, timing.describe()
    clean = _Modelled(_linear(0.05))
    _measured(clean)
    largest = max(size for size, _ in clean.calls)
    assert [s for s, _ in clean.calls].count(largest) == 1  # a linear verdict: no re-timing


def test_fast_chunkers_are_grown_to_millions() -> None:
    model = _Modelled(_quadratic(0.00002))  # C-speed: 0.02 ms at 25k, 0.3 s at 3.2M
    timing = _measured(model)
    assert timing.superlinear and timing.sizes[-1] > 1_000_000
    linear = _Modelled(_linear(0.0001))
    assert not _measured(linear).superlinear
    # Grown to millions, and stopped once its trend is settled (at most the 6.4M cap).
    assert 1_000_000 < max(size for size, _ in linear.calls) <= scaling.SIZES[-1] * 2**scaling.EXTRA


def test_a_failing_plugin_is_left_to_no_crash() -> None:
    assert _measured(_Modelled(_quadratic(3.0), fails=True)).failed
    found = scaling.probe(_Modelled(_quadratic(3.0), fails=True), timeout=2.0)  # type: ignore[arg-type]
    assert found == []


def _probed(model: _Modelled, **options: float) -> list[str]:
    found = scaling.probe(model, timeout=2.0, **options)  # type: ignore[arg-type]
    return [v.message for v in found]


def test_every_family_is_reported_and_the_budget_is_cpu_time() -> None:
    everything = _probed(_Modelled(_quadratic(0.5)))
    assert _families(everything) == set(scaling.FAMILIES)
    busy = _probed(_Modelled(_quadratic(0.05), load=5.0))  # slower wall clock, no timeout
    assert _families(busy) == set(scaling.FAMILIES)
    cut = _probed(_Modelled(_quadratic(0.5)), budget=0.5)
    assert 1 <= len(cut) < len(scaling.FAMILIES)


# --------------------------------------------------------------------------- the families


def test_families_are_deterministic_exact_and_cover_the_generators_shapes() -> None:
    for name, build in scaling.FAMILIES.items():
        assert len(build(12_345)) == 12_345 and build(777) == build(777), name
    assert set(scaling.PATHOLOGICAL) < set(scaling.FAMILIES)
    text = {name: scaling.FAMILIES[name](20_000) for name in scaling.FAMILIES}
    assert "\n\n" in text["paragraphs"] and "\n# " in text["markdown sections"]
    assert "```" in text["fenced code"] and "|---" in text["tables"]
    assert '"id":' in text["JSON blocks"] and "\r\n\r\n" in text["CRLF text"]
    assert "\n- " in text["lists"] and "\n|" in text["mixed markdown"]


def test_realistic_blocks_are_not_repeated_but_repeated_blocks_are() -> None:
    """Unique blocks: a chunker that finds a chunk's text from the start would stop early
    on a repeated one and hide its quadratic scan."""
    paragraphs = scaling.FAMILIES["paragraphs"](200_000).split("\n\n")[:-1]
    assert len(set(paragraphs)) == len(paragraphs)
    blocks = scaling.FAMILIES["repeated blocks"](20_000).split("</item>\n")[:-1]
    assert len(set(blocks)) == 1
