"""The seed corpus: valid probes, replayed first by every run (and by one process of -n)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from chunk_contract.engine.parallel import run_parallel
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.generation.corpus import CORPUS, WORKBOOK_CORPUS, corpus_for
from chunk_contract.spec.model import Config
from chunk_contract.spec.workbook import build

ROOT = Path(__file__).resolve().parents[2]
UTF16 = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:utf16_code_units"
SPREADSHEET = f"{ROOT / 'chunk_contract_reference' / 'spreadsheet.py'}:split"


@pytest.mark.parametrize(("why", "document", "config"), CORPUS, ids=[c[0][:40] for c in CORPUS])
def test_probes_are_valid_small_documents(why: str, document: str, config: object) -> None:
    assert why and isinstance(document, str) and len(document) <= 200
    document.encode("utf-8", "surrogatepass")
    assert config.is_valid or why.startswith("degenerate:")  # type: ignore[attr-defined]


def test_degenerate_probes_come_last_and_cover_every_family() -> None:
    valid = [c.is_valid for _, _, c in CORPUS]
    assert valid == sorted(valid, reverse=True)  # valid probes first
    broken = [c for _, _, c in CORPUS if not c.is_valid]
    assert any(c.overlap == c.max_size for c in broken)
    assert any(c.max_size <= 0 for c in broken) and any(c.overlap < 0 for c in broken)
    assert any(c.overlap > c.max_size > 0 for c in broken)


def test_probes_are_distinct_and_text_only() -> None:
    assert len({(d, c) for _, d, c in CORPUS}) == len(CORPUS)
    assert corpus_for("text") == [(d, c) for _, d, c in CORPUS]
    assert corpus_for("workbook") == [(d, c) for _, d, c in WORKBOOK_CORPUS]


@pytest.mark.parametrize(
    ("why", "description", "config"), WORKBOOK_CORPUS, ids=[c[0][:40] for c in WORKBOOK_CORPUS]
)
def test_workbook_probes_build(why: str, description: dict, config: Config) -> None:
    book = build(description)
    assert [ws.title for ws in book.worksheets] == list(description["sheets"])
    assert config.is_valid or why.startswith("degenerate:")


def test_a_workbook_run_replays_its_corpus() -> None:
    result = run(SPREADSHEET, _settings(max_examples=1, corpus=True))
    assert result.passed and result.examples == len(WORKBOOK_CORPUS) + 1


def _settings(**changes: object) -> RunSettings:
    # The covering schedule (tests/unit/test_schedule.py) is off: these runs count the corpus.
    values: dict[str, object] = dict(
        max_examples=1, seed=1, reproducers=None, skip=("scales_linearly",), measure=False,
        schedule=False,
    )
    values.update(changes)
    return RunSettings(**values)  # type: ignore[arg-type]


def test_a_run_replays_the_corpus_before_generating() -> None:
    # One generated example (the empty document) cannot meet a UTF-16 bug; the corpus does.
    without = run(UTF16, _settings(corpus=False))
    assert without.passed and without.examples == 1
    found = run(UTF16, _settings())
    violated = {r.id: r for r in found.violated}
    assert "codepoint_integrity" in violated and found.examples == len(CORPUS) + 1
    counterexample = violated["codepoint_integrity"].counterexample
    assert counterexample is not None and "\U0001f680" in counterexample.document


def test_a_parallel_run_replays_the_corpus_once() -> None:
    result = run_parallel(UTF16, _settings(max_examples=2), 2)
    assert result.examples == len(CORPUS) + 2
    assert "codepoint_integrity" in {r.id for r in result.violated}


@pytest.mark.parametrize(
    ("twin", "rule"),
    [("OverClaim", "tight_range"), ("GapSplitter", "tiles_parent"),
     ("OverlapSplitter", "tiles_parent")],
)
def test_the_workbook_corpus_alone_catches_seed_001s_bugs(twin: str, rule: str) -> None:
    target = f"{ROOT / 'tests' / 'sheets' / 'twins.py'}:{twin}"
    assert run(target, _settings(max_examples=1, corpus=False)).passed  # control: one sheet
    found = run(target, _settings(max_examples=1, only=(rule,)))
    assert [r.id for r in found.violated] == [rule]


def test_a_saved_failure_that_is_also_a_probe_is_called_once() -> None:
    from hypothesis import strategies as st

    from chunk_contract.engine.runner import _explore
    from chunk_contract.engine.session import Observation

    calls: list[tuple[str, Config]] = []

    class Recorder:
        def observe(self, document: str, config: Config) -> Observation:
            calls.append((document, config))
            return Observation(document, config)

    probe = corpus_for("text")[1]
    found = _explore(Recorder(), st.just(probe), _settings(), 1, lambda event: None,  # type: ignore[arg-type]
                     [probe, *corpus_for("text")])
    assert calls.count(probe) == 2  # once replayed, once generated (Hypothesis's own draw)
    assert found.examples == len(CORPUS) + 1


def _fingerprints() -> dict[str, Callable[[str], tuple[object, ...]]]:
    """Partial fingerprints a memoising chunker might key its cache on."""
    return {
        "prefix and length": lambda d: (d[:16], len(d)),
        "suffix and length": lambda d: (d[-16:], len(d)),
        "both ends and length": lambda d: (d[:8], d[-8:], len(d)),
    }


@pytest.mark.parametrize("name", sorted(_fingerprints()))
def test_near_twins_collide_under_every_partial_fingerprint(name: str) -> None:
    """Some probe follows an earlier one with the same config and fingerprint, yet another text:
    a cache under that fingerprint hands it stale chunks (span_fidelity)."""
    key = _fingerprints()[name]
    seen: dict[tuple[object, ...], str] = {}
    collisions = []
    for _, document, config in CORPUS:
        k = (*key(document), config)
        if k in seen and seen[k] != document:
            collisions.append(document)
        seen.setdefault(k, document)
    assert collisions, f"no two probes share the {name} fingerprint with different texts"


def test_the_corpus_alone_catches_a_cache_under_a_partial_fingerprint() -> None:
    stale = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:stale_cache"
    assert run(stale, _settings(corpus=False, only=("span_fidelity",))).passed  # control
    found = run(stale, _settings(only=("span_fidelity",)))
    assert [r.id for r in found.violated] == ["span_fidelity"]


# ----------------------------------------------------------------------------- input classes


def test_each_unicode_whitespace_class_is_a_whole_document_and_a_paragraph() -> None:
    from chunk_contract.generation.corpus import UNICODE_WHITESPACE

    for _, chars in UNICODE_WHITESPACE:
        assert chars.isspace()
        whole = [(d, c) for _, d, c in CORPUS if d and set(d) <= set(chars)]
        assert any(len(d) > c.max_size for d, c in whole), chars
        assert any(len(d.encode()) < c.max_size for d, c in whole), chars
        assert any(f"\n{(chars * 4)[:4]}\n" in d for _, d, _ in CORPUS), chars  # a paragraph


def _cuts_inside(data: bytes, width: int, cap: int, *,
                 continuation: Callable[[bytes], bool]) -> int:
    return sum(continuation(data[k * width : (k + 1) * width])
               for k in range(cap, len(data) // width, cap))


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 6])
def test_astral_characters_sit_at_a_cut_for_every_cap_and_unit(cap: int) -> None:
    """Windows of ``cap`` UTF-16 code units, or of ``cap`` UTF-8 bytes, from the start of a
    corpus word cut a character in two: a chunker counting in either meets it every run."""
    from chunk_contract.generation.corpus import ASTRAL_WORD

    probes = {(d, c.max_size) for _, d, c in CORPUS}
    assert (ASTRAL_WORD, cap) in probes
    units = ASTRAL_WORD.encode("utf-16-le")
    low_half = lambda u: 0xDC00 <= int.from_bytes(u, "little") <= 0xDFFF  # noqa: E731
    assert _cuts_inside(units, 2, cap, continuation=low_half)
    assert _cuts_inside(ASTRAL_WORD.encode(), 1, cap, continuation=lambda b: b[0] & 0xC0 == 0x80)
