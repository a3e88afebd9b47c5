"""``chunk_contract.strategies``: the public, keyword-only strategies for users' own tests, and the
worked example of docs/how-to/strategies.md, run as written (and red on a planted bug)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunk_contract import strategies
from chunk_contract.spec.model import Config

HOWTO = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "strategies.md"


def _example() -> str:
    (code,) = re.findall(r"```python\n(.*?)```", HOWTO.read_text(), flags=re.S)
    return code


def _run_example(code: str) -> None:
    namespace: dict[str, Any] = {"__name__": "howto_example"}
    exec(compile(code, str(HOWTO), "exec"), namespace)
    tests = [v for k, v in namespace.items() if k.startswith("test_")]
    assert len(tests) == 2
    for test in tests:
        test()


def test_the_howto_example_runs_green() -> None:
    _run_example(_example())


def test_the_howto_example_is_red_on_a_planted_bug() -> None:
    planted = _example().replace('document.count("\\n", 0, start + at) + 1',
                                 'len(document[:start + at].splitlines()) or 1')
    assert planted != _example()
    # No shrinking: the planted bug fails on the first chunk; a minimal input is not the point.
    planted = planted.replace("deadline=None)", "deadline=None, phases=[Phase.generate])")
    planted = planted.replace("from hypothesis import given, settings",
                              "from hypothesis import Phase, given, settings")
    with pytest.raises(AssertionError):
        _run_example(planted)


@pytest.mark.parametrize("kind", strategies.DOCUMENT_KINDS_OFFERED)
def test_every_offered_kind_draws_strings(kind: str) -> None:
    @settings(max_examples=5, deadline=None)
    @given(strategies.documents(kind=kind, max_size=300))
    def draw(document: str) -> None:
        assert isinstance(document, str) and len(document) <= 300

    draw()


RANGES = st.tuples(st.integers(1, 50), st.one_of(st.none(), st.integers(50, 90)))


@settings(max_examples=20, deadline=None)
@given(st.data(), RANGES, st.sampled_from(["chars", "bytes", "tokens"]))
def test_configs_and_cases_stay_inside_the_declared_ranges(
    data: st.DataObject, sizes: tuple[int, int | None], unit: str
) -> None:
    config = data.draw(strategies.configs(unit=unit, max_size_range=sizes, overlap_range=(0, 3)))
    document, other = data.draw(strategies.cases(max_size=200, max_size_range=sizes,
                                                 overlap_range=(0, 3)))
    for found in (config, other):
        assert isinstance(found, Config) and found.is_valid
        assert sizes[0] <= found.max_size and found.overlap <= 3
        assert sizes[1] is None or found.max_size <= sizes[1]
    assert isinstance(document, str)


def test_degenerate_configs_only_on_request() -> None:
    seen: list[Config] = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(strategies.configs(degenerate=True))
    def draw(config: Config) -> None:
        seen.append(config)

    draw()
    assert any(not c.is_valid for c in seen) and any(c.is_valid for c in seen)


@pytest.mark.parametrize(
    ("build", "says"),
    [
        (lambda: strategies.documents(kind="novel"), "documents(kind='novel')"),
        (lambda: strategies.documents(max_size=0), "max_size"),
        (lambda: strategies.configs(unit="words"), "unit='words'"),
        (lambda: strategies.configs(max_size_range=(9, 3)), "max_size_range"),
        (lambda: strategies.configs(degenerate="yes"), "degenerate"),
        (lambda: strategies.configs(max_cap=0), "max_cap"),
        (lambda: strategies.cases(overlap_range=(5, 1)), "overlap_range"),
    ],
)
def test_bad_arguments_say_what_is_accepted(build: Any, says: str) -> None:
    with pytest.raises(strategies.StrategyArgumentError, match=re.escape(says)):
        build()


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        strategies.documents("markdown")  # type: ignore[misc]
    with pytest.raises(TypeError):
        strategies.configs("chars")  # type: ignore[misc]
