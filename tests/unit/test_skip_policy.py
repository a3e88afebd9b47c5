"""The CI policy of tests/conftest.py: under CHUNK_CONTRACT_NO_SKIP=1 a skip fails the run,
unless its reason starts with "platform:"; and the slow tests are marked in one place."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import is_slow

ROOT = Path(__file__).resolve().parents[2]

TESTS = '''
import pytest

def test_runs():
    pass

def test_needs_a_library():
    pytest.skip("somelib is not installed")

@pytest.mark.skipif(True, reason="platform: Linux only")
def test_platform_bound():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_expected_failure():
    assert False
'''
MODULE_SKIP = 'import pytest\nnosuch = pytest.importorskip("no_such_module_xyz")\n'


def _pytest(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (folder / "conftest.py").write_text(
        "from tests.conftest import pytest_make_collect_report, pytest_runtest_makereport\n"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CHUNK_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfs", str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=120, check=False,
        env={**base, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **env},
    )


def test_skips_pass_by_default_and_fail_under_the_policy(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(TESTS)
    relaxed = _pytest(tmp_path)
    assert relaxed.returncode == 0, relaxed.stdout
    assert "1 passed, 2 skipped, 1 xfailed" in relaxed.stdout
    strict = _pytest(tmp_path, CHUNK_CONTRACT_NO_SKIP="1")
    assert strict.returncode == 1, strict.stdout
    assert "1 failed, 1 passed, 1 skipped, 1 xfailed" in strict.stdout
    assert "FAILED test_sample.py::test_needs_a_library" in strict.stdout
    assert "somelib is not installed" in strict.stdout


def test_a_module_skipped_at_import_fails_under_the_policy(tmp_path: Path) -> None:
    (tmp_path / "test_module.py").write_text(MODULE_SKIP)
    (tmp_path / "test_other.py").write_text("def test_ok():\n    pass\n")
    relaxed = _pytest(tmp_path)
    assert relaxed.returncode == 0 and "1 passed, 1 skipped" in relaxed.stdout
    strict = _pytest(tmp_path, CHUNK_CONTRACT_NO_SKIP="1")
    assert strict.returncode != 0 and "no_such_module_xyz" in strict.stdout


def test_the_heavy_folders_are_slow_and_the_core_is_not() -> None:
    assert is_slow("adapters/test_adapters.py", "test_x[semchunk]")
    assert is_slow("scale/test_scaling.py", "test_y")
    assert not is_slow("unit/test_model.py", "test_z")
    assert not is_slow("cli/test_cli.py", "test_bad_target_is_a_usage_error[a]")
    assert is_slow("unit/test_strategies.py", "test_any_documents_covers_feature[BOM at start]")
    assert is_slow("defects/test_defects.py", "test_memory_growth_is_reported_as_memory")
    assert not is_slow("defects/test_defects.py", "test_witness[stale_cache]")
    # (which defects' whole runs are slow is tests/defects/test_defects.py's own FAST_RUNS)


def test_the_suite_judges_no_generated_input_by_wall_clock_time() -> None:
    """tests/conftest.py's Hypothesis profile: no deadline and no too_slow health check, so a
    busy machine cannot fail a property test (the runner's own settings are separate)."""
    from hypothesis import HealthCheck, settings

    from tests.conftest import SUITE_PROFILE

    assert settings.get_profile(SUITE_PROFILE).deadline is None
    assert HealthCheck.too_slow in settings.get_profile(SUITE_PROFILE).suppress_health_check
    assert settings().deadline is None
