"""Declared config ranges (``max_size_range``, ``overlap_range``): validation, fitting the
generated configs inside them, the out-of-range probes, and the handshake keys."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract.generation.corpus import range_probes
from chunk_contract.generation.strategies.configs import fit, out_of_range, valid_configs
from chunk_contract.spec.model import Config, Declarations
from chunk_contract.transport.wire import HandshakeError, parse_handshake


@pytest.mark.parametrize(
    ("sizes", "overlaps", "words"),
    [
        ((40, 12), (0, None), "low bound above its high bound"),
        ((0, None), (0, None), "starts below 1"),
        ((-3, None), (0, None), "starts below 1"),
        ((1, None), (-1, None), "starts below 0"),
        ((1.5, None), (0, None), "non-integer"),
        ((True, None), (0, None), "non-integer"),
        ((1, "9"), (0, None), "non-integer"),
        (12, (0, None), "not a pair"),
        ((1, 2, 3), (0, None), "not a pair"),
        ((1, 4), (4, None), "leave no valid config"),
    ],
)
def test_bad_ranges_are_refused(sizes: object, overlaps: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Declarations(max_size_range=sizes, overlap_range=overlaps)  # type: ignore[arg-type]


def test_lists_are_read_as_pairs_and_support_is_inclusive() -> None:
    decl = Declarations(max_size_range=[12, 40], overlap_range=[0, 4])  # type: ignore[arg-type]
    assert decl.max_size_range == (12, 40) and decl.ranged
    assert decl.supports(Config(12, 0)) and decl.supports(Config(40, 4))
    assert not decl.supports(Config(11, 0)) and not decl.supports(Config(41, 0))
    assert not decl.supports(Config(20, 5))
    assert not Declarations().ranged and Declarations().supports(Config(1, 0))


RANGES = st.tuples(st.integers(1, 60), st.one_of(st.none(), st.integers(0, 60))).filter(
    lambda r: r[1] is None or r[1] >= r[0]
)
OVERLAPS = st.tuples(st.integers(0, 30), st.one_of(st.none(), st.integers(0, 30))).filter(
    lambda r: r[1] is None or r[1] >= r[0]
)


@given(valid_configs(200), RANGES, OVERLAPS)
def test_fit_lands_inside_every_declared_range(
    config: Config, sizes: tuple[int, int | None], overlaps: tuple[int, int | None]
) -> None:
    try:
        decl = Declarations(max_size_range=sizes, overlap_range=overlaps)
    except ValueError:
        return  # ranges that leave no valid config are refused above
    inside = fit(config, max_size_range=sizes, overlap_range=overlaps)
    assert inside.is_valid and decl.supports(inside)
    for probe in out_of_range(max_size_range=sizes, overlap_range=overlaps):
        assert probe.is_valid and not decl.supports(probe)


def test_fit_keeps_degenerate_configs_and_configs_already_inside() -> None:
    assert fit(Config(0, 0), max_size_range=(12, None)) == Config(0, 0)
    assert fit(Config(30, 3), max_size_range=(12, None)) == Config(30, 3)
    assert fit(Config(5, 4), max_size_range=(12, None), overlap_range=(0, 2)) == Config(12, 2)


def test_range_probes_reach_below_and_above() -> None:
    probes = [c for _, c in range_probes("text", max_size_range=(12, 100), overlap_range=(1, 4))]
    assert Config(11, 0) in probes and Config(1, 0) in probes
    assert any(c.max_size == 101 for c in probes)
    assert any(c.overlap == 0 and c.max_size >= 12 for c in probes)
    assert any(c.overlap == 5 for c in probes)
    assert range_probes("text", max_size_range=(1, None), overlap_range=(0, None)) == []


def test_handshake_carries_ranges() -> None:
    found = parse_handshake(b'{"chunk_contract": 1, "max_size_range": [12, null], '
                            b'"overlap_range": [0, 4]}').declarations()
    assert found.max_size_range == (12, None) and found.overlap_range == (0, 4)
    with pytest.raises(HandshakeError, match="max_size_range"):
        parse_handshake(b'{"chunk_contract": 1, "max_size_range": [12, 3]}')
    with pytest.raises(HandshakeError, match="not a pair"):
        parse_handshake(b'{"chunk_contract": 1, "overlap_range": "0-4"}')
