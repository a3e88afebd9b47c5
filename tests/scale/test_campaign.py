"""Property tests for long campaigns (chunk_contract.integrations.campaign.hypofuzz) and the
HypoFuzz driver."""

from __future__ import annotations

import json
import unittest
from pathlib import Path

import pytest
from hypothesis import Phase, settings
from hypothesis.internal.reflection import function_digest

from chunk_contract.integrations.campaign import driver as campaign_driver
from chunk_contract.integrations.campaign import hypofuzz as campaign

ROOT = Path(__file__).resolve().parents[2]
FIXED = str(ROOT / "chunk_contract_reference" / "fixed.py") + ":split"
BLANK = str(ROOT / "tests" / "defects" / "chunkers.py") + ":keeps_blank_paragraphs"


@pytest.fixture(autouse=True)
def _restore_profile() -> object:
    """use_database loads a profile: put the previous one back after each test."""
    before = settings.default
    yield
    settings.register_profile("chunk-contract-test-restore", before)
    settings.load_profile("chunk-contract-test-restore")
    campaign._SHARED.clear()


def test_a_correct_chunker_passes(tmp_path: Path) -> None:
    quick = settings(max_examples=60, database=None)
    test = campaign.property_test(FIXED, reproducers_dir=tmp_path, hypothesis_settings=quick)
    test()
    assert list(tmp_path.iterdir()) == []


def test_a_defect_fails_with_its_invariant_and_a_shrunk_reproducer(tmp_path: Path) -> None:
    budget = settings(max_examples=200, database=None)
    test = campaign.property_test(BLANK, reproducers_dir=tmp_path, hypothesis_settings=budget)
    with pytest.raises(AssertionError, match="non_empty"):
        test()
    (saved,) = tmp_path.glob("non_empty-*.json")  # superseded, larger inputs were removed
    data = json.loads(saved.read_text())
    assert data["invariant"] == "non_empty" and data["document"] == ""


def test_each_target_has_its_own_database_key() -> None:
    one = campaign.property_test(FIXED, reproducers_dir=None)
    two = campaign.property_test(BLANK, reproducers_dir=None)
    inner = [t.hypothesis.inner_test for t in (one, two)]  # type: ignore[attr-defined]
    assert len({function_digest(f) for f in inner}) == 2


def test_the_shared_database_replays_a_failure_in_a_later_run(tmp_path: Path) -> None:
    campaign.use_database(str(tmp_path / "db"))
    # Generated, not the seed corpus's explicit examples (which catch this defect too, but
    # Hypothesis saves no explicit example to its database: the replay would then run nothing).
    generate = settings(max_examples=200, phases=[Phase.generate, Phase.shrink])
    found = campaign.property_test(BLANK, reproducers_dir=None, hypothesis_settings=generate)
    with pytest.raises(AssertionError):
        found()

    def replay_only() -> None:
        """A new test object, as in a later process: it only replays the database."""
        phases = settings(phases=[Phase.reuse])
        campaign.property_test(BLANK, reproducers_dir=None, hypothesis_settings=phases)()

    with pytest.raises(AssertionError, match="non_empty"):
        replay_only()
    campaign.use_database(str(tmp_path / "empty-db"))  # control: nothing to replay, no failure
    with pytest.raises(unittest.SkipTest, match=r"no (examples|test cases)"):
        replay_only()


def test_findings_also_go_to_the_shared_contract_database(tmp_path: Path) -> None:
    from chunk_contract.store.database import open_database

    campaign.use_database(str(tmp_path / "db"))
    with pytest.raises(AssertionError):
        campaign.property_test(
            BLANK, reproducers_dir=None, hypothesis_settings=settings(max_examples=200)
        )()
    saved = open_database(str(tmp_path / "db")).fetch(BLANK, "text")
    assert [r.invariant for r in saved] == ["non_empty"]  # only the smallest is kept


def test_bad_arguments_fail_at_once() -> None:
    with pytest.raises(ValueError, match="unknown invariant"):
        campaign.property_test(FIXED, only=["nope"])
    with pytest.raises(ValueError, match="positive"):
        campaign.property_test(FIXED, timeout=0)


def test_driver_writes_the_campaign_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = campaign_driver._prepare(tmp_path, FIXED, str(tmp_path / "examples"))
    assert "use_database" in (tmp_path / "conftest.py").read_text()
    assert repr(FIXED) in (tmp_path / "test_campaign.py").read_text()
    assert campaign_driver._report(found) == 0
    (found / "non_empty-1.json").write_text(
        json.dumps({
            "format": "chunk-contract-reproducer", "version": 1, "target": BLANK,
            "invariant": "non_empty", "document": "", "config": {"max_size": 1, "overlap": 0},
            "message": "chunk[0] is empty",
        })
    )
    assert campaign_driver._report(found) == 1
    assert "chunk-contract replay" in capsys.readouterr().err


def test_driver_needs_hypofuzz_or_says_how_to_get_it(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import hypofuzz  # noqa: F401
    except ImportError:
        assert campaign_driver.main([FIXED, "--seconds", "1"]) == 2
        assert "chunk-contract[campaign]" in capsys.readouterr().err
    else:
        assert campaign_driver.main(["no/such/file.py:split", "--seconds", "1"]) == 2
