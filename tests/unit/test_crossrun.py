"""deterministic across interpreters: hash()-based output differs under another hash seed."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from chunk_contract import exactjson
from chunk_contract.engine import crossrun, fresh, runner
from chunk_contract.engine.crossrun import (
    SAMPLE_CELLS,
    SAMPLE_CHARS,
    SAMPLE_CHUNKS,
    SAMPLES,
    SHRINK_ROUNDS,
    Rerun,
    Samples,
    candidates,
    first_difference,
    hash_seeds,
    named,
    named_seeds,
    rerun,
    smaller,
)
from chunk_contract.engine.session import Observation
from chunk_contract.spec.model import Config, chunks_from_records

ROOT = Path(__file__).resolve().parents[2]
CASES = [("alpha beta gamma delta", Config(6, 0))]


def fresh_chunks(
    target: str,
    cases: Sequence[tuple[str, Config]],
    *,
    timeout: float,
    hash_seed: int | None = None,
) -> tuple[int, list[list[dict[str, Any]] | None]] | None:
    """``(hash_seed, records per case)`` (None for a case that raised), or None on no answer."""
    done = rerun(target, cases, timeout=timeout, hash_seed=hash_seed)
    if done.failure or not done.loadable:
        return None
    return done.hash_seed, [a if isinstance(a, list) else None for a in done.answers]


def test_hash_based_ids_differ_between_interpreters() -> None:
    target = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:hash_ids"
    first = fresh_chunks(target, CASES, timeout=5, hash_seed=1)
    second = fresh_chunks(target, CASES, timeout=5, hash_seed=2)
    assert first is not None and second is not None
    difference = first_difference(first[1][0], second[1][0])
    assert difference is not None and ".id was" in difference


def test_deterministic_chunker_is_the_same_in_every_interpreter() -> None:
    target = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
    first = fresh_chunks(target, CASES, timeout=5, hash_seed=1)
    second = fresh_chunks(target, CASES, timeout=5, hash_seed=2)
    assert first is not None and second is not None
    assert first_difference(first[1][0], second[1][0]) is None


def test_unloadable_target_gives_no_verdict() -> None:
    assert fresh_chunks("no/such/file.py:split", CASES, timeout=5) is None


def test_separated_surrogates_reach_the_fresh_interpreter_apart() -> None:
    """Plain JSON would merge '\\ud83d\\ude80' into U+1F680 on the way (SPEC 1.1 §7)."""
    target = f"{ROOT / 'tests' / 'hostile' / 'plugins.py'}:reduce_exit"  # windows, bare strings
    document = "document\ud83d\ude80\ud83d"
    answer = fresh_chunks(target, [(document, Config(100, 0))], timeout=5, hash_seed=1)
    assert answer is not None and answer[1][0] is not None
    assert "".join(chunk["text"] for chunk in answer[1][0]) == document


# ----------------------------------------------------------------------------- the samples


def _seen(document: Any, texts: Sequence[str], config: Config | None = None) -> Observation:
    chunks = chunks_from_records([{"text": t} for t in texts])
    return Observation(document, config or Config(10, 0), [], chunks=chunks)


def test_samples_keep_the_inputs_with_the_most_chunk_lengths() -> None:
    samples = Samples()
    for k in range(SAMPLES):
        samples.offer(_seen(f"even {k}", ["ab", "cd"]))  # one chunk length
    samples.offer(_seen("varied", ["a", "bcd", "ef"]))  # three
    chosen = samples.chosen
    assert len(chosen) == SAMPLES and chosen[0].document == "varied"
    assert f"even {SAMPLES - 1}" not in [s.document for s in chosen]  # the latest of a tie goes


def test_samples_start_each_order_with_shapes_unlike_the_first_input() -> None:
    """A chunker whose mode the first document chose answers otherwise only where a document
    unlike that one comes first: the list sent starts and ends with such shapes, and holds one
    of each shape before the better-ranked rest."""
    samples = Samples()
    samples.called("plain prose first")
    for k in range(SAMPLES):
        samples.offer(_seen(f"prose {k}", ["a", "bb", "ccc"]))  # ranked first
    samples.offer(_seen("# Title\n\nprose", ["a", "bb"]))
    samples.offer(_seen("- item\n- item", ["a", "bb"]))
    chosen = [seen.document for seen in samples.chosen]
    assert len(chosen) == SAMPLES and {chosen[0], chosen[-1]} == {"# Title\n\nprose",
                                                                  "- item\n- item"}
    assert chosen[1] == "prose 0"


def test_every_other_interpreter_gets_the_samples_in_reverse_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = _FakeReruns(set())
    orders: list[list[str]] = []

    def recording(target: str, cases: Any, **kwargs: Any) -> Rerun:
        orders.append([document for document, _ in cases])
        return fake(target, cases, **kwargs)

    monkeypatch.setattr(crossrun, "rerun", recording)
    runner._fresh_interpreter(PLUGIN, _session(), _explored("one", "two", "three"))  # type: ignore[arg-type]
    assert len(orders) == 2 and orders[1] == orders[0][::-1]


@pytest.mark.slow
@pytest.mark.parametrize("run_seed", [1, 3])
def test_a_mode_the_first_document_chose_is_caught_in_fresh_interpreters(
    run_seed: int, tmp_path: Path
) -> None:
    """Seeds where samples sent in one order, ranked by chunk lengths alone, missed it."""
    target = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:first_document_mode"
    result = runner.run(target, runner.RunSettings(seed=run_seed, reproducers=tmp_path))
    violated = {r.id: r for r in result.results if r.status == "violated"}
    assert set(violated) == {"deterministic"}, list(violated)
    found = violated["deterministic"].counterexample
    assert found is not None and "a fresh interpreter (PYTHONHASHSEED=" in found.message


def test_samples_keep_an_input_once() -> None:
    samples = Samples()
    for _ in range(3):
        samples.offer(_seen("same", ["a", "bb"]))
    samples.offer(_seen("same", ["a", "bb"], Config(5, 1)))  # another config: another input
    assert len(samples.chosen) == 2


def test_samples_leave_out_what_the_reruns_cannot_use_or_would_pay_for() -> None:
    samples = Samples()
    samples.offer(_seen("no chunks", []))
    samples.offer(_seen("x" * (SAMPLE_CHARS + 1), ["x"]))
    samples.offer(_seen("many", ["m"] * (SAMPLE_CHUNKS + 1)))
    samples.offer(Observation(object(), Config(10, 0), [], chunks=_seen("", ["w"]).chunks))
    assert samples.chosen == []


def test_hash_seeds_differ() -> None:
    for _ in range(20):
        seeds = hash_seeds(3)
        assert len(set(seeds)) == 3 and all(0 < s < 2**31 for s in seeds)


class _FakeReruns:
    """crossrun.rerun's stand-in: answers each sample's own records, except under ``differs``."""

    def __init__(self, differs: set[int]) -> None:
        self.differs, self.seeds = differs, []

    def __call__(self, target: str, cases: Any, *, hash_seed: int, **_: Any) -> Rerun:
        self.seeds.append(hash_seed)
        answers = [[{"text": document}] for document, _config in cases]
        if len(self.seeds) in self.differs:
            answers[-1] = [{"text": "something else"}]
        return Rerun(hash_seed, answers)


def _explored(*documents: str) -> runner._Explored:
    explored = runner._Explored()
    for document in documents:
        explored.samples.offer(_seen(document, [document]))
    return explored


def _session() -> SimpleNamespace:
    """A worker that gives each document back as its one chunk."""
    return SimpleNamespace(timeout=1, memory_mb=None,
                           call=lambda document, config: chunks_from_records([{"text": document}]))


PLUGIN = SimpleNamespace(spec="target.py:split", target="target.py:split", cwd=None)


@pytest.mark.parametrize("differs", [{1}, {2}])
def test_a_difference_under_any_of_the_interpreters_is_a_finding(
    differs: set[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _FakeReruns(differs)
    monkeypatch.setattr(crossrun, "rerun", fake)
    explored = _explored("one", "two")
    runner._fresh_interpreter(PLUGIN, _session(), explored)  # type: ignore[arg-type]
    finding = explored.first["deterministic"].violations[0].message
    found_by = fake.seeds[min(differs) - 1]
    assert finding.startswith(f"a fresh interpreter ({named(found_by)})")
    assert "something else" in finding
    # replay gets a second seed that chunks it otherwise: the one that agreed, if one did
    first, other = named_seeds(finding)
    assert first == found_by and other != found_by and other in fake.seeds
    assert differs == {1} or other == fake.seeds[0]


def test_narrowing_down_stops_at_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunker slow on the candidates ends the search, not the run: the finding stays on the
    sample that showed it, with the one seed that found it."""
    fake = _FakeReruns({1})
    monkeypatch.setattr(crossrun, "rerun", fake)
    monkeypatch.setattr(fresh, "NARROW_SECONDS", 0.0)
    explored = _explored("one", "two")
    runner._fresh_interpreter(PLUGIN, _session(), explored)  # type: ignore[arg-type]
    seen = explored.first["deterministic"]
    assert len(fake.seeds) == 1 and "deterministic" not in explored.reduced
    assert named_seeds(seen.violations[0].message) == fake.seeds


def test_a_deterministic_chunker_meets_every_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _FakeReruns(set())
    monkeypatch.setattr(crossrun, "rerun", fake)
    explored = _explored("one", "two")
    runner._fresh_interpreter(PLUGIN, _session(), explored)  # type: ignore[arg-type]
    assert "deterministic" not in explored.first
    assert len(set(fake.seeds)) == len(fake.seeds) == crossrun.INTERPRETERS >= 2


# ----------------------------------------------------------------------------- narrowing down


def test_candidates_are_shorter_distinct_and_shortest_first() -> None:
    document = "abcdefghijklmnopqrstuvwxyz0123456789"
    found = candidates(document)
    assert found == sorted(found, key=len) and len(found) == len(set(found))
    assert all(len(c) < len(document) and c.strip() for c in found)
    assert "abcdefghijklmnopqr" in found and "stuvwxyz0123456789" in found  # the halves
    assert "abcdefghi" + "stuvwxyz0123456789" in found  # a quarter left out


def test_smaller_narrows_down_to_what_still_differs() -> None:
    document = "lorem ipsum dolor " * 20 + "[set]" + " sit amet" * 30
    calls: list[list[str]] = []

    def differs(batch: list[str]) -> int | None:
        calls.append(batch)
        return next((k for k, d in enumerate(batch) if "[set]" in d), None)

    assert smaller(document, differs) == "[set]"
    assert len(calls) <= SHRINK_ROUNDS


def test_smaller_keeps_a_document_nothing_smaller_reproduces() -> None:
    assert smaller("stubborn", lambda batch: None) == "stubborn"


def test_named_seeds_read_back_what_a_finding_names() -> None:
    message = (f"a fresh interpreter ({named(17)}) chunked the same input differently: ...; "
               f"one with {named(4)} chunks it otherwise (replay runs both)")
    assert named_seeds(message) == [17, 4]
    assert named_seeds(f"{named(3)} {named(3)}") == [3]
    assert named_seeds("no seed here") == []


def _seeds_that_differ(target: str, case: tuple[str, Config]) -> tuple[int, int]:
    answers = {seed: rerun(target, [case], timeout=5, hash_seed=seed).answers[0]
               for seed in range(1, 9)}
    first = answers[1]
    return 1, next(seed for seed, answer in answers.items() if answer != first)


def test_replay_of_a_set_order_finding_runs_the_seeds_it_names() -> None:
    """A finding that depends on the hash seed replays the same every time: the seeds named in
    its message give two different answers, whatever the replay's own worker gives."""
    from chunk_contract.cli.check import _fresh_interpreter_differs
    from chunk_contract.store.reproducers import Reproducer

    target = f"{ROOT / 'tests' / 'defects' / 'chunkers.py'}:set_order_cuts"
    case = ("a b.\nc d\n\ne f. g", Config(9, 0))
    one, other = _seeds_that_differ(target, case)
    worker = rerun(target, [case], timeout=5, hash_seed=one).answers[0]
    assert isinstance(worker, list)
    saved = Reproducer(target, "deterministic", case[0], case[1],
                       f"{named(other)} differs; one with {named(one)} chunks it otherwise")
    for _ in range(3):
        found = _fresh_interpreter_differs(saved, worker, 5)
        assert found and found[0].invariant == "deterministic", found
    fixed = replace(saved, target=f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split")
    fixed_records = rerun(fixed.target, [case], timeout=5, hash_seed=one).answers[0]
    assert isinstance(fixed_records, list)
    assert _fresh_interpreter_differs(fixed, fixed_records, 5) == []


# ----------------------------------------------------------------------------- workbooks

REFERENCE_BOOK = "chunk_contract_reference.spreadsheet:split"
BOOK = {"sheets": {"Data": {"A1": "name", "B1": "qty", "A2": "fig", "B2": 12},
                   "Notes": {"C3": "see Data"}}}


def test_samples_keep_workbook_descriptions_up_to_their_cell_limit() -> None:
    samples = Samples()
    samples.offer(_seen(BOOK, ["name | qty", "fig | 12", "see Data"]))
    samples.offer(_seen(exactjson.loads(exactjson.dumps(BOOK)), ["a", "bb"]))  # the same book
    big = {"sheets": {"S": {f"A{row}": row for row in range(1, SAMPLE_CELLS + 2)}}}
    samples.offer(_seen(big, ["x", "yy"]))
    samples.offer(_seen({"no sheets": {}}, ["x", "yy"]))
    assert [seen.document for seen in samples.chosen] == [BOOK]


def test_workbook_candidates_are_smaller_books_smallest_first() -> None:
    found = candidates(BOOK)
    shown = [exactjson.dumps(book) for book in found]
    assert shown == sorted(shown, key=len) and len(shown) == len(set(shown))
    assert BOOK not in found and all(any(book["sheets"].values()) for book in found)
    assert {"sheets": {"Notes": {"C3": "see Data"}}} in found  # a sheet alone
    assert {"sheets": {"Data": BOOK["sheets"]["Data"]}} in found  # a sheet left out
    half = {"sheets": {"Data": {"A1": "name", "B1": "qty"}, "Notes": {"C3": "see Data"}}}
    assert half in found  # half of a sheet's cells


def test_smaller_narrows_a_workbook_down_to_the_cells_that_still_differ() -> None:
    book = {"sheets": {"A": {f"A{row}": row for row in range(1, 40)}, "B": {"B2": "set"}}}

    def differs(batch: list[Any]) -> int | None:
        return next((k for k, b in enumerate(batch)
                     if "A7" in b["sheets"].get("A", {}) and "B2" in b["sheets"].get("B", {})),
                    None)

    assert smaller(book, differs) == {"sheets": {"A": {"A7": 7}, "B": {"B2": "set"}}}


def test_a_fresh_interpreter_builds_a_workbook_as_the_worker_does() -> None:
    """The reference's chunks of a workbook agree across interpreters (no false verdict); ids
    from hash() of a sheet's title do not."""
    from chunk_contract.engine.session import Session
    from chunk_contract.transport.loading import load

    case = (BOOK, Config(12, 0))
    with Session(load(REFERENCE_BOOK), timeout=5, memory_mb=None, selected=()) as session:
        worker = [chunk.as_record() for chunk in session.call(*case)]
    done = rerun(REFERENCE_BOOK, [case], timeout=5, hash_seed=1)
    assert not done.failure and crossrun.difference(worker, done.answers[0]) is None
    hashed = rerun(f"{ROOT / 'tests' / 'sheets' / 'twins.py'}:HashIds", [case], timeout=5,
                   hash_seed=1)
    assert ".id was" in (crossrun.difference(worker, hashed.answers[0]) or "")


# ----------------------------------------------------------------------------- exec: targets

CHILDREN = ROOT / "tests" / "outofprocess" / "children.py"


def _child(mode: str) -> str:
    return f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(CHILDREN))} {mode}"


def test_a_fresh_child_of_an_exec_target_gets_a_hash_seed_of_its_own() -> None:
    """A Python child hashes the same in every call of one process; new children with other
    hash seeds tell. A correct child answers the same in every one of them."""
    answers = {mode: [fresh.rerun(_child(mode), CASES, timeout=5, memory_mb=None,
                                  hash_seed=seed).answers[0] for seed in (1, 2)]
               for mode in ("hash_ids", "ok")}
    assert ".id was" in (first_difference(*answers["hash_ids"]) or "")  # type: ignore[arg-type]
    assert first_difference(*answers["ok"]) is None  # type: ignore[arg-type]


def test_a_fresh_child_that_dies_is_a_failure_not_a_pass() -> None:
    done = fresh.rerun(_child("exit"), CASES, timeout=5, memory_mb=None, hash_seed=1)
    assert done.loadable and done.failure.startswith("died before answering"), done


def test_a_kind_whose_factory_takes_no_environment_gives_no_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A registered kind whose factory has no ``env=`` cannot be started with another hash
    seed: no verdict, never a failure of the plugin."""
    from chunk_contract.transport import kinds, outofprocess

    def factory(target: str, *, cwd: Any, timeout: float, memory_mb: Any,
                start_timeout: float) -> Any:
        raise AssertionError("started without its environment")

    monkeypatch.setattr(outofprocess, "kind_of", lambda target: kinds.TargetKind("x:", factory))
    monkeypatch.setattr(fresh, "is_out_of_process", lambda target: True)
    done = fresh.rerun("x:chunker", CASES, timeout=5, memory_mb=None, hash_seed=1)
    assert not done.loadable and not done.failure and not done.answers


def test_a_service_has_no_fresh_process_to_start() -> None:
    done = fresh.rerun("http://127.0.0.1:9/split", CASES, timeout=5, memory_mb=None,
                       hash_seed=1)
    assert not done.loadable and not done.failure and not done.answers


def test_a_fresh_interpreter_gets_the_load_time_the_worker_got(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin slow to import, given more load time with $CHUNK_CONTRACT_LOAD_TIMEOUT, gets
    that time in the fresh interpreters too, on top of their own start: never a false verdict."""
    given: list[float] = []

    def fake(target: str, cases: Any, *, startup: float, **_: Any) -> Rerun:
        given.append(startup)
        return Rerun(1, [[] for _ in cases])

    monkeypatch.setattr(crossrun, "rerun", fake)
    monkeypatch.setenv("CHUNK_CONTRACT_LOAD_TIMEOUT", "60")
    fresh.rerun("target.py:split", CASES, timeout=2, memory_mb=None, hash_seed=1)
    assert given == [60 + crossrun.STARTUP_SECONDS]
