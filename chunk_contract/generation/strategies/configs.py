"""Chunking configurations: valid ones across the size range, and the degenerate ones of SPEC §2.

Small caps come first (and shrink towards 1): a cap of 1-8 forces a chunker through its
fallback paths on almost any document. Overlap is 0, 1, ``max_size - 1`` (the forward-progress
killer) or anything in between. Degenerate configs (``max_size <= 0``, negative overlap,
``overlap >= max_size``, seed 002's ``1 / 999``) are one draw in six when asked for (fewer in
practice: Hypothesis does not draw the switch uniformly).
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from chunk_contract.spec.model import Config

from ._common import check_bool, check_int

__all__ = [
    "configs", "degenerate_configs", "fit", "max_sizes", "out_of_range", "overlaps",
    "valid_configs",
]

Bounds = tuple[int, int | None]

#: One draw in ``DEGENERATE_ONE_IN`` is degenerate when degenerate configs are allowed.
DEGENERATE_ONE_IN = 6


def max_sizes(max_cap: int = 4096) -> st.SearchStrategy[int]:
    """A valid ``max_size``: small (1-8), medium (9-80) or large (81-``max_cap``), equally often."""
    ranges = [st.integers(1, min(8, max_cap))]
    if max_cap >= 9:
        ranges.append(st.integers(9, min(80, max_cap)))
    if max_cap >= 81:
        ranges.append(st.integers(81, max_cap))
    return st.one_of(ranges)


@functools.lru_cache(maxsize=8192)
def overlaps(max_size: int) -> st.SearchStrategy[int]:
    """A valid overlap for ``max_size``: 0, 1, ``max_size - 1`` or anything in ``[0, max_size)``.

    One strategy per ``max_size`` (cached): drawn once per example, a new one each time was
    validated (and its ``one_of`` flattened) anew every draw.
    """
    if max_size <= 1:
        return st.just(0)
    return st.one_of(st.just(0), st.just(1), st.just(max_size - 1), st.integers(0, max_size - 1))


def valid_configs(max_cap: int = 4096) -> st.SearchStrategy[Config]:
    """Configs with ``max_size >= 1`` and ``0 <= overlap < max_size``."""
    return max_sizes(max_cap).flatmap(_configs_with)


@functools.lru_cache(maxsize=8192)
def _configs_with(max_size: int) -> st.SearchStrategy[Config]:
    return overlaps(max_size).map(lambda o: Config(max_size=max_size, overlap=o))


def degenerate_configs(max_cap: int = 4096) -> st.SearchStrategy[Config]:
    """Configs a plugin must reject (or survive): SPEC §2's "degenerate" ones."""
    sizes = max_sizes(max_cap)
    return st.one_of(
        st.builds(Config, st.integers(-3, 0), st.integers(0, 3)),  # max_size <= 0
        st.just(Config(max_size=1, overlap=999)),  # seed 002
        sizes.map(lambda m: Config(max_size=m, overlap=m)),  # overlap == max_size
        st.builds(Config, sizes, st.integers(-1000, -1)),  # negative overlap
        sizes.flatmap(  # overlap > max_size
            lambda m: st.integers(m + 1, m + 1000).map(lambda o: Config(max_size=m, overlap=o))
        ),
        st.builds(Config, st.integers(-(2**31), -1), st.integers(-(2**31), 2**31)),
    )


def maybe_degenerate(valid: st.SearchStrategy[Config], max_cap: int) -> st.SearchStrategy[Config]:
    """``valid``, except about one draw in ``DEGENERATE_ONE_IN`` is a degenerate config.

    The degenerate pick is the *last* value of the switch, so shrinking moves away from it unless
    the failure needs it.
    """
    degenerate = degenerate_configs(max_cap)

    @st.composite
    def build(draw: st.DrawFn) -> Config:
        if draw(st.integers(0, DEGENERATE_ONE_IN - 1)) == DEGENERATE_ONE_IN - 1:
            return draw(degenerate)
        return draw(valid)

    return build()


def configs(*, degenerate: bool = True, max_cap: int = 4096) -> st.SearchStrategy[Config]:
    """Chunking configs; with ``degenerate=True`` about 10% are degenerate (SPEC §2).

    ``max_cap`` bounds ``max_size`` for the valid configs.
    """
    check_bool("configs", "degenerate", degenerate)
    check_int("configs", "max_cap", max_cap, min_value=1)
    valid = valid_configs(max_cap)
    return maybe_degenerate(valid, max_cap) if degenerate else valid


def fit(
    config: Config,
    *,
    max_size_range: Bounds = (1, None),
    overlap_range: Bounds = (0, None),
) -> Config:
    """A valid ``config`` moved into the declared ranges (the nearest values inside them).

    Degenerate configs are returned as they are: they test the refusal SPEC §2 asks for. A map,
    so Hypothesis still shrinks through it (towards the smallest supported config).
    """
    if not config.is_valid:
        return config
    size = _clamp(config.max_size, max_size_range)
    size = max(size, overlap_range[0] + 1)  # the ranges meet (Declarations checks it)
    high = size - 1 if overlap_range[1] is None else min(size - 1, overlap_range[1])
    overlap = min(max(config.overlap, overlap_range[0]), high)
    return Config(max_size=size, overlap=overlap)


def _clamp(value: int, bounds: Bounds) -> int:
    low, high = bounds
    value = max(value, low)
    return value if high is None else min(value, high)


def out_of_range(
    *, max_size_range: Bounds = (1, None), overlap_range: Bounds = (0, None)
) -> list[Config]:
    """A few valid configs (SPEC §2) just outside the declared ranges, which the plugin must
    refuse: one below and one above each bounded end, the other value inside its range."""
    inside = fit(Config(max(max_size_range[0], 64), 0), max_size_range=max_size_range,
                 overlap_range=overlap_range)
    low, high = max_size_range
    found = [Config(size, 0) for size in (low - 1, low // 2, 1) if size < low]
    if high is not None:
        found.append(Config(high + 1, min(inside.overlap, high)))
    olow, ohigh = overlap_range
    if olow > 0:
        found.append(Config(inside.max_size, olow - 1))
    if ohigh is not None and ohigh + 1 < inside.max_size:
        found.append(Config(inside.max_size, ohigh + 1))
    return [c for c in dict.fromkeys(found) if c.is_valid]
