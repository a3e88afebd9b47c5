"""The pre-commit profile (``--profile quick``): what it still catches, and what it says it left.

It plays the seed corpus and the whole covering schedule, then 25 generated examples, and runs
no scaling probe: ``scales_linearly`` is reported as not measured, never as passed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.config import profiles
from chunk_contract.engine.runner import run
from tests.defects.chunkers import DEFECTS
from tests.defects.test_defects import FAST_RUNS, SEED, defect_target

ROOT = Path(__file__).resolve().parents[2]
RECURSIVE = str(ROOT / "chunk_contract_reference" / "recursive.py") + ":split"
QUICK = profiles.PROFILES["quick"]
#: Fast defects the quick profile is checked against in the fast suite (the rest: slow).
FAST_QUICK = {"line_end_exclusive", "hash_ids", "degenerate_crash", "tail_window_appended"}


def _quick(folder: Path | None = None, **explicit: object):  # type: ignore[no-untyped-def]
    """The quick profile's settings; a run saves (and replays) its failures in ``folder``
    (a test's own: the profile's default is the current folder's .chunk-contract)."""
    return profiles.build(QUICK, seed=SEED, reproducers=folder, **explicit)


def test_the_quick_profile_runs_no_scaling_probe_and_says_so() -> None:
    assert not _quick().probe
    assert "no scaling probe" in QUICK.describe()
    assert profiles.build(profiles.PROFILES["ci"]).probe


def test_a_quick_run_plays_the_corpus_and_schedule_and_leaves_scaling_unchecked(
    tmp_path: Path,
) -> None:
    result = run(RECURSIVE, _quick(tmp_path))
    assert result.passed
    assert result.coverage is not None and result.coverage.covered == result.coverage.total
    assert result.examples_asked > QUICK.max_examples  # the corpus and the schedule, replayed
    verdict = next(r for r in result.results if r.id == "scales_linearly")
    assert verdict.status == "skipped"
    assert "not measured" in verdict.reason and "quick" in verdict.reason
    assert "scaling probe" not in result.phases


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[] if n in FAST_QUICK else [pytest.mark.slow]) for n in sorted(FAST_RUNS)
])
def test_the_quick_profile_catches_the_defect(name: str, tmp_path: Path) -> None:
    result = run(defect_target(name), _quick(tmp_path))
    assert DEFECTS[name] in {r.id for r in result.violated}, name


def test_the_cli_quick_run_fails_on_a_defect(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "chunk_contract", "run", defect_target("hash_ids"),
               "--profile", "quick", "--seed", str(SEED), "-q",
               "--reproducers", str(tmp_path)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert DEFECTS["hash_ids"] in done.stdout
