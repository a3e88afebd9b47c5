"""Test-wide setup.

- The repository root is importable, so ``chunk_contract`` and the shared test helpers
  (``tests.unit.helpers``) load the same way under ``pytest`` and ``python -m pytest``.
- The heavy tests are marked ``slow`` here, in one place: ``nox -s tests`` runs the rest (the
  tests a contributor needs, a few minutes on 2 cores) and ``nox -s slow`` runs these, with
  every extra installed. A test file can also mark its own tests with ``@pytest.mark.slow``.
- Hypothesis judges no test input by wall-clock time (:data:`SUITE_PROFILE`), and what a
  test's strategies draw does not depend on which modules its process has loaded (an xdist
  worker loads whatever its earlier tests needed; see chunk_contract.generation.stability).
- With ``CHUNK_CONTRACT_NO_SKIP=1`` (set by .ci/run) a skipped test fails instead, unless its
  reason starts with ``platform:`` (a test that cannot run on this operating system). So CI
  never passes by skipping what it did not install.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from chunk_contract.generation.stability import stabilize_generation  # noqa: E402  (the root first)

#: Hypothesis's own wall-clock verdicts on the tests' generated inputs (the per-example
#: ``deadline``, the ``too_slow`` health check) turn a busy machine into failures: on the shared
#: 2 cores at load 15, ``test_max_length_is_respected`` failed with "Input generation is slow".
#: Every ``@given`` test of the suite inherits this profile (the runner sets its own settings).
SUITE_PROFILE = "chunk-contract-suite"
settings.register_profile(SUITE_PROFILE, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(SUITE_PROFILE)
stabilize_generation()

#: Folders (relative to tests/) whose every test is slow: they need the extras (peers, fuzz,
#: mutation, redis) or run whole campaigns, fuzzers, scaling probes and parallel runs.
SLOW_FOLDERS = ("adapters", "fuzz", "mutation", "scale")

#: Single slow tests elsewhere: ``file::name`` (every parametrization) or ``file::name[id]``.
#: (tests/defects/test_defects.py marks its own: which defects' whole runs are fast.)
#: Each took 10 s or more in ``pytest --durations`` on 2 loaded cores, or shares a module
#: fixture that does (the fixture runs in whichever test needs it first). The fast session
#: keeps a cheaper test of the same behaviour: the other defective chunkers, twins, strategy
#: checks and CLI runs.
SLOW_TESTS: frozenset[str] = frozenset({
    # every workbook twin run once (a module fixture: about 200 s loaded)
    "sheets/test_sheets.py::test_over_claim_is_reported_as_seed_001_would_want",
    "sheets/test_sheets.py::test_json_report_describes_the_workbook",
    "sheets/test_sheets.py::test_replay_rebuilds_the_workbook_and_still_fails",
    "sheets/test_workbook_strategies.py::test_shrinks_the_over_claim_trap_to_two_cells",
    "sheets/test_workbook_strategies.py::"
    "test_cases_split_blocks_into_row_groups_of_several_rows_near_the_cap",
    "sheets/test_workbook_strategies.py::test_no_degenerate_configs_when_not_asked",
    "sheets/test_workbook_strategies.py::"
    "test_descriptions_are_json_and_build_into_the_workbook_they_describe",
    # statistics over 1000 generated documents (a module fixture), and other large samples
    "unit/test_strategies.py::test_any_documents_covers_feature",
    "unit/test_strategies.py::test_mixture_is_mostly_nontrivial",
    "unit/test_strategies.py::test_replacement_character_is_rare",
    "unit/test_strategies.py::test_lone_surrogates_come_up_but_rarely",
    "unit/test_strategies.py::test_surrogate_documents_are_found",
    "unit/test_strategies.py::test_markdown_fence_variants",
    "unit/test_strategies.py::test_markdown_heading_forms",
    # long runs: a defect found late, memory growth to the cap, a hang, pytest under xdist
    "defects/test_defects.py::test_memory_growth_is_reported_as_memory",
    "reference/test_twins.py::test_the_contract_catches_the_twin[recursive_backwards_step]",
    "cli/test_cli.py::test_hang_is_reported_and_the_run_finishes",
    "gate/test_pytest_plugin.py::test_xdist_workers_share_a_random_seed",
    "gate/test_pytest_plugin.py::test_xdist_runs_each_target_once_with_the_serial_verdicts",
    # 10 s or more since this round's containment, schedule and scaling work (2 cores)
    "defects/test_defects.py::test_correct_passes[MarkdownSections-20250101]",
    "hostile/test_hostile.py::test_an_exception_whose_str_hangs_is_terminates",
    "hostile/test_hostile.py::test_grandchildren_die_with_the_worker",
    "hostile/test_hostile.py::test_a_thread_started_at_import_does_not_keep_the_host_alive",
    "sheets/test_workbook_strategies.py::test_cases_include_degenerate_configs",
    "reference/test_chunk_contract_reference.py::test_keeps_the_contract[markdown.py:split]",
    # header.py's second entry point (header.py:split stays in the fast suite)
    "reference/test_chunk_contract_reference.py::"
    "test_keeps_the_contract[header.py:split_duplicate_headers]",
})

#: The variable that turns skips into failures, and the reason prefix it lets through.
NO_SKIP_ENV = "CHUNK_CONTRACT_NO_SKIP"
PLATFORM_PREFIX = "platform:"


def is_slow(relative: str, name: str) -> bool:
    """Whether the test ``name`` of ``relative`` (a path under tests/, with /) is slow."""
    folder = relative.split("/", 1)[0]
    ids = {f"{relative}::{name}", f"{relative}::{name.split('[', 1)[0]}"}
    return folder in SLOW_FOLDERS or not ids.isdisjoint(SLOW_TESTS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_FOLDERS` and :data:`SLOW_TESTS` as ``slow``."""
    here = Path(__file__).resolve().parent
    for item in items:
        try:
            relative = item.path.resolve().relative_to(here).as_posix()
        except ValueError:
            continue
        if is_slow(relative, item.name):
            item.add_marker(pytest.mark.slow)


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason of a skipped report (``pytest.skip``, ``skipif``, ``importorskip``)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def forbidden_skip(report: pytest.TestReport | pytest.CollectReport) -> str | None:
    """Why this skip must fail the run under ``CHUNK_CONTRACT_NO_SKIP=1`` (None: allowed)."""
    if os.environ.get(NO_SKIP_ENV) != "1" or not report.skipped or hasattr(report, "wasxfail"):
        return None
    reason = skip_reason(report)
    if reason.startswith(PLATFORM_PREFIX):
        return None
    return (
        f"skipped under {NO_SKIP_ENV}=1: {reason} (install what the test needs, or start the "
        f"reason with {PLATFORM_PREFIX!r} if this platform cannot run it)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Turn a forbidden skip into a failure (see :func:`forbidden_skip`)."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    why = forbidden_skip(report)
    if why is not None:
        report.outcome = "failed"
        report.longrepr = why


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """The same for a whole module skipped at import (a module-level ``importorskip``)."""
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()  # type: ignore[attr-defined]
    why = forbidden_skip(report)
    if why is not None:
        report.outcome = "failed"
        report.longrepr = why
