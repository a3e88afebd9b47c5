"""Later scaling families start where the plugin's fastest settled family becomes measurable:
the sizes skipped are never fitted, and a late start never changes which rule a finding names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine import scaling
from chunk_contract.spec.model import Config, Violation
from chunk_contract.transport.messages import Chunks, Timed, TimedFamily

LINEAR = 1e-7  # CPU seconds a character: 2.5 ms at 25,000 characters


@dataclass
class _ByFamily:
    """A stand-in worker whose call on ``family`` at ``size`` takes ``cpu[family](size)`` CPU
    seconds (``default`` for the others); a call over its timeout times out."""

    cpu: dict[str, Callable[[int], float]]
    default: Callable[[int], float] = lambda n: LINEAR * n
    calls: list[tuple[str, int]] = field(default_factory=list)

    def call(self, request: TimedFamily, *, timeout: float) -> Outcome:
        assert isinstance(request, TimedFamily)
        self.calls.append((request.family, request.size))
        taken = self.cpu.get(request.family, self.default)(request.size)
        if taken > timeout:
            return Outcome("timeout")
        return Outcome("ok", Timed(taken, Chunks([])))

    def first_size(self, family: str) -> int:
        return min(size for name, size in self.calls if name == family)


def _never_broken(document: str, config: Config, outcome: Outcome) -> list[Violation]:
    return []


def _survey(model: _ByFamily, families: tuple[str, ...]) -> scaling.Probed:
    return scaling.survey(model, timeout=2.0, families=families,  # type: ignore[arg-type]
                          check=_never_broken)


def test_no_rate_starts_at_the_first_size_and_a_late_start_is_capped() -> None:
    assert scaling.start_size(None) == scaling.SIZES[0]
    assert scaling.start_size(1e-12) == scaling.SIZES[-1]
    assert scaling.start_size(1.0) == scaling.SIZES[0]


def test_a_slower_rate_never_starts_later() -> None:
    starts = [scaling.start_size(rate) for rate in (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)]
    assert starts == sorted(starts, reverse=True)
    for k, size in enumerate(starts, start=-2):  # the first size that rate makes measurable
        rate = LINEAR * 10 ** k
        assert size == scaling.SIZES[0] or size // 2 * rate < scaling.MEASURABLE
        assert size == scaling.SIZES[-1] or size * rate >= scaling.MEASURABLE


def test_later_families_skip_the_sizes_never_fitted() -> None:
    model = _ByFamily({})
    families = ("one character repeated", "newlines only", "paragraphs")
    found = _survey(model, families)
    assert not found.violations and not found.broken
    assert model.first_size(families[0]) == scaling.SIZES[0]
    late = scaling.start_size(LINEAR)
    assert late > scaling.SIZES[0]
    assert [model.first_size(f) for f in families[1:]] == [late, late]
    # the late start is the first size the fit can use: measurable, its half not
    assert late * LINEAR >= scaling.MEASURABLE > late // 2 * LINEAR
    sizes = [size for name, size in model.calls if name == "paragraphs"]
    assert len(sizes) == 3  # three fitted sizes, nothing timed that the fit does not use


def test_a_family_quadratic_past_the_late_start_is_still_reported_by_growth() -> None:
    """At the late start the quadratic family times out; measured again from the first size,
    it finishes small sizes and is reported as growth, never as a hang."""
    quadratic = {"newlines only": lambda n: 3.0 * (n / 25_000) ** 2}
    model = _ByFamily(quadratic)
    found = _survey(model, ("one character repeated", "newlines only"))
    assert "terminates" not in found.broken
    assert [v.message.split(":")[0] for v in found.violations] == ["newlines only"]
    assert model.first_size("newlines only") == scaling.SIZES[0]


def test_a_family_slower_than_the_fastest_is_measured_from_its_own_start() -> None:
    """Eight times slower than the fastest family, its late start takes eight times MEASURABLE:
    one call there, then three fitted sizes from the size its own time says takes MARGIN times
    MEASURABLE, so its largest size is a quarter of what growing on would reach."""
    slower = {"paragraphs": lambda n: 8 * LINEAR * n}
    model = _ByFamily(slower)
    found = _survey(model, ("one character repeated", "paragraphs"))
    assert not found.violations
    sizes = [size for name, size in model.calls if name == "paragraphs"]
    late = scaling.start_size(LINEAR)
    own = scaling.start_size(8 * LINEAR / scaling.MARGIN)
    assert own == late // 4
    assert sizes == [late, own, own * 2, own * 4]


def test_a_family_about_as_fast_as_predicted_is_not_measured_again() -> None:
    """Under EARLIER times MEASURABLE at the late start (a cold first call): grown on from
    there, no extra call."""
    model = _ByFamily({"paragraphs": lambda n: 3 * LINEAR * n})
    _survey(model, ("one character repeated", "paragraphs"))
    sizes = [size for name, size in model.calls if name == "paragraphs"]
    late = scaling.start_size(LINEAR)
    assert sizes == [late, late * 2, late * 4]


def test_a_family_far_slower_at_the_late_start_is_measured_from_the_first_size() -> None:
    """Quadratic, it finishes the late start but far over what the rate predicted: it is not
    grown from there (four times the time per doubling, each re-timed to confirm) but measured
    from the first size, as without a late start, and reported all the same."""
    quadratic = {"paragraphs": lambda n: 0.05 * (n / 25_000) ** 2}
    model = _ByFamily(quadratic)
    found = _survey(model, ("one character repeated", "paragraphs"))
    assert [v.message.split(":")[0] for v in found.violations] == ["paragraphs"]
    sizes = [size for name, size in model.calls if name == "paragraphs"]
    late = scaling.start_size(LINEAR)
    assert sizes[0] == late and sizes[1] == scaling.SIZES[0]  # one call, then from the start
    alone = _ByFamily(quadratic)
    _survey(alone, ("paragraphs",))
    again = [size for name, size in alone.calls if name == "paragraphs"]
    assert sizes[1:] == again  # measured exactly as a first family would be


def test_each_kind_of_family_starts_from_the_fastest_of_its_own_kind() -> None:
    """Realistic families twice as slow as the pathological one: the first realistic family
    starts where the pathological rate says (no realistic family measured yet), the next from
    the first realistic one's rate, a size earlier; a pathological family measured after them
    starts from the pathological rate again."""
    realistic = lambda n: 2 * LINEAR * n  # noqa: E731
    model = _ByFamily({"paragraphs": realistic, "lists": realistic})
    found = _survey(model, ("one character repeated", "paragraphs", "lists", "unbroken CJK"))
    assert not found.violations and not found.broken
    fastest, slower = scaling.start_size(LINEAR), scaling.start_size(2 * LINEAR)
    assert slower == fastest // 2
    assert model.first_size("paragraphs") == fastest
    assert model.first_size("lists") == slower
    assert model.first_size("unbroken CJK") == fastest
    sizes = [size for name, size in model.calls if name == "lists"]
    assert sizes == [slower, slower * 2, slower * 4]  # three fitted sizes, the first measurable
