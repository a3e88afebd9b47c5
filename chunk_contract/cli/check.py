"""``check`` (the invariants on the user's own files) and ``replay`` (one saved counterexample)."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunk_contract import _files
from chunk_contract.engine import crossrun, fresh, scaling
from chunk_contract.engine.events import Finished, Listener
from chunk_contract.engine.results import Counterexample, RunResult, RunSettings
from chunk_contract.engine.runner import verdicts
from chunk_contract.engine.session import Observation, Session
from chunk_contract.errors import UsageError
from chunk_contract.reporting.text import render
from chunk_contract.spec.model import Config, Violation
from chunk_contract.spec.registry import registry
from chunk_contract.store import reproducers
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.loading import load
from chunk_contract.transport.outofprocess import load_out_of_process
from chunk_contract.transport.targets import Plugin, TargetError

REPRODUCERS = Path(".chunk-contract/reproducers")


def read_document(
    plugin: Plugin, path: str, *, timeout: float = 2.0, memory_mb: int | None = 1024
) -> Any:
    """The document in ``path``: UTF-8 text, or a workbook description for ``.xlsx`` files.

    A workbook is checked for zip bombs, then parsed in a worker under ``memory_mb`` and a
    multiple of ``timeout`` (chunk_contract.containment.xlsx).
    """
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file")
    if plugin.kind == "workbook":
        if file.suffix.lower() not in (".xlsx", ".xlsm"):
            raise UsageError(f"{path}: workbook plugins read .xlsx files")
        # lazy: only for workbook files
        from chunk_contract.containment.xlsx import WorkbookFileError, read_workbook

        try:
            return read_workbook(path, timeout=timeout, memory_mb=memory_mb)
        except WorkbookFileError as exc:
            raise UsageError(str(exc)) from None
    try:
        return file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def check_files(
    plugin: Plugin,
    files: Sequence[str],
    config: Config,
    *,
    timeout: float,
    memory_mb: int | None,
    on_event: Listener | None = None,
) -> int:
    """Check every invariant on each file with ``config``; report like ``run`` does (the text
    report on stdout; ``on_event`` gets the ``Finished`` event, for the report files)."""
    documents = {
        path: read_document(plugin, path, timeout=timeout, memory_mb=memory_mb)
        for path in files
    }
    started = time.monotonic()
    first: dict[str, tuple[str, Observation]] = {}
    exercised: set[str] = set()
    with Session(
        plugin, timeout=timeout, memory_mb=memory_mb, selected=list(registry())
    ) as session:
        active = tuple(r.id for r in session.rules)
        clean: list[tuple[str, Observation]] = []
        for path, document in documents.items():
            seen = session.observe(document, config)
            exercised |= seen.exercised
            if not config.is_valid:  # refused, or output that keeps every rule: both count
                exercised.add("config_validation")
            print(f"{'ok  ' if not seen.violations else 'FAIL'} {path}", file=sys.stderr)
            for violation in seen.violations:
                first.setdefault(violation.invariant, (path, seen))
            if not seen.violations and seen.chunks and config.is_valid:
                clean.append((path, seen))
        judged = "deterministic" in active and "deterministic" not in first
        narrowed = {"deterministic"} if judged and _fresh_interpreters(
            plugin, session, clean, first) else set()
    result = _result(plugin, len(documents), active, exercised, first, timeout, memory_mb,
                     narrowed=narrowed)
    result.elapsed = time.monotonic() - started
    if not config.is_valid:
        _degenerate(result, config)
    print(_without_seed(render(result)))
    if on_event is not None:
        on_event(Finished(result))
    return 0 if result.passed else 1


def _fresh_interpreters(plugin: Plugin, session: Session, clean: list[tuple[str, Observation]],
                        first: dict[str, tuple[str, Observation]]) -> bool:
    """``deterministic`` across interpreters (chunk_contract.engine.fresh) on the files whose
    chunks were clean, as ``run`` judges it on its inputs: a finding goes into ``first`` under
    the file it came from. Whether its input was narrowed down from the file."""
    found = fresh.judge(plugin, session, [seen for _, seen in clean])
    if found is None:
        return False
    path = next(p for p, seen in clean if seen is found.origin)
    first["deterministic"] = (path, found.seen)
    return found.reduced


def _degenerate(result: RunResult, config: Config) -> None:
    """Say why the other rules were not exercised: a degenerate config is config_validation's."""
    reason = f"the config ({config.describe()}) is degenerate: checked as config_validation"
    for item in result.results:
        if item.status == "skipped" and item.reason == "never exercised":
            item.reason = reason


_SEED = re.compile(r" · seed -?\d+| \(repeat with --seed -?\d+\)")


def _without_seed(text: str) -> str:
    """The report without its seed: ``check`` generates nothing, and has no ``--seed``."""
    return _SEED.sub("", text)


def _result(
    plugin: Plugin,
    count: int,
    active: tuple[str, ...],
    exercised: set[str],
    first: dict[str, tuple[str, Observation]],
    timeout: float,
    memory_mb: int | None,
    *,
    narrowed: set[str],
) -> RunResult:
    findings = {}
    for rule_id, (path, seen) in first.items():
        found = _counterexample(plugin, rule_id, seen, timeout, memory_mb)
        found.shrunk = rule_id in narrowed  # a file is checked whole, not shrunk
        found.messages = [f"in {path}: {m}" for m in found.messages]
        findings[rule_id] = found
    results = verdicts(plugin, list(registry()), active, count, exercised, findings,
                       not_here=_NOT_HERE)
    return RunResult(
        plugin.target,
        plugin.kind,
        0,
        count,
        results,
        settings=RunSettings(timeout=timeout, memory_mb=memory_mb),
        documents=plugin.declarations.documents,
    )


#: Rules ``check`` cannot judge on the user's files, and why.
_NOT_HERE = {"scales_linearly": "measured by `run` on generated documents"}


def _counterexample(
    plugin: Plugin, rule_id: str, seen: Observation, timeout: float, memory_mb: int | None
) -> Counterexample:
    found = seen.of(rule_id)
    example = Counterexample(
        rule_id,
        seen.document,
        seen.config,
        [v.message for v in found],
        seen.records,
        offending=sorted({i for v in found for i in v.chunks}),
    )
    example.reproducer = _saved(example.to_reproducer(plugin, timeout=timeout, memory_mb=memory_mb))
    return example


def _saved(reproducer: reproducers.Reproducer) -> str | None:
    """The reproducer's path once saved; None, and one line, when it cannot be written."""
    try:
        return str(reproducers.save(reproducer, REPRODUCERS))
    except _files.WriteError as exc:
        _files.report_error(exc)
        return None


def _load_saved(saved: reproducers.Reproducer) -> Plugin:
    """The plugin of ``saved``; an ``exec:`` command runs in the folder the run ran it in
    (``base``), so that ``replay`` works from any folder."""
    if is_out_of_process(saved.target) and saved.base is not None:
        plugin: Plugin = load_out_of_process(saved.target, cwd=saved.base)
        return plugin
    return load(saved.target)


def chosen_target(
    saved: reproducers.Reproducer, *, target: str | None, trust: bool, source: str
) -> reproducers.Reproducer:
    """``saved`` with the target ``replay`` will run: the one named with ``--target``, or the
    recorded one with ``--trust-target``. A reproducer is data (an issue attachment, a CI
    artifact, a shared database entry) and its target is code: it never runs unnamed."""
    if target is not None and target != saved.target:
        return replace(saved, target=target, base=None)
    if target is None and not trust:
        raise UsageError(
            f"{source}: this reproducer would run the target {saved.target!r}, which was not "
            f"named on the command line; replay it on your own chunker with --target TARGET, "
            f"or pass --trust-target to run the recorded one if you trust the file"
        )
    return replace(saved, target=reproducers.resolved_target(saved))


def replay(saved: reproducers.Reproducer, *, timeout: float | None, memory_mb: int | None) -> int:
    """Re-run one counterexample: exit 1 if it still violates its invariant, else 0."""
    print(f"replaying {saved.invariant} on {saved.target} with {saved.config.describe()}")
    if saved.invariant == "scales_linearly":
        with _session(saved, timeout=timeout, memory_mb=memory_mb) as session:
            return _replay_scaling(session, saved, session.timeout)
    still, others = _replayed(saved, timeout=timeout, memory_mb=memory_mb)
    print(
        "    document = "
        + (ascii(saved.document) if isinstance(saved.document, str) else str(saved.document))
    )
    for violation in still + others:
        print(f"    [{violation.invariant}] {violation.message.splitlines()[0]}")
    if still:
        print(f"STILL FAILS: {saved.invariant}")
        return 1
    print(
        f"FIXED: {saved.invariant} holds on this input"
        + (
            f" (other violations: {', '.join(sorted({v.invariant for v in others}))})"
            if others
            else ""
        )
    )
    return 1 if others else 0


def _session(
    saved: reproducers.Reproducer, *, timeout: float | None, memory_mb: int | None
) -> Session:
    plugin = _load_saved(saved)
    if plugin.kind != saved.kind:
        raise TargetError(
            f"{saved.target}: is a {plugin.kind} plugin; the reproducer is {saved.kind}"
        )
    return Session(plugin, timeout=timeout or saved.timeout,
                   memory_mb=memory_mb or saved.memory_mb, selected=list(registry()))


def _replayed(
    saved: reproducers.Reproducer, *, timeout: float | None, memory_mb: int | None
) -> tuple[list[Violation], list[Violation]]:
    """The violations of ``saved.invariant`` on its input now, and the others seen."""
    with _session(saved, timeout=timeout, memory_mb=memory_mb) as session:
        if saved.invariant == "scales_linearly":
            found = scaling.probe(session.transport, timeout=session.timeout,
                                  check=session.verdict)
            return found, []
        seen = session.observe(saved.document, saved.config, timeout=session.timeout)
        limit = session.timeout
    still = seen.of(saved.invariant)
    if saved.invariant == "deterministic" and not still and seen.records:
        still = _fresh_interpreter_differs(saved, seen.records, limit)
    return still, [v for v in seen.violations if v.invariant != saved.invariant]


def prune(
    folder: Path, *, target: str | None, trust: bool, timeout: float | None,
    memory_mb: int | None,
) -> int:
    """Replay every reproducer in ``folder``; delete those that no longer fail, keep the rest.

    Each runs on ``target`` when given (only the reproducers saved for that very target), or
    on its recorded target with ``trust``. Exit 1 while any kept reproducer still fails."""
    if target is None and not trust:
        raise UsageError(
            f"{folder}: pruning replays the targets the reproducers record, which were not "
            f"named on the command line; give --target TARGET (prunes that target's "
            f"reproducers) or --trust-target if you trust every file in the folder"
        )
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such folder of reproducers")
    tally = {"deleted": 0, "kept": 0, "skipped": 0}
    for path in sorted(folder.glob("*.json")):
        tally[_prune_one(path, target=target, timeout=timeout, memory_mb=memory_mb)] += 1
    print(f"pruned {folder}: deleted {tally['deleted']} that no longer fail, kept "
          f"{tally['kept']} that still fail"
          + (f", left {tally['skipped']} other file(s) alone" if tally["skipped"] else ""))
    return 1 if tally["kept"] else 0


def _prune_one(
    path: Path, *, target: str | None, timeout: float | None, memory_mb: int | None
) -> str:
    """``deleted``, ``kept`` (still fails) or ``skipped`` (not a reproducer, another target's,
    or one whose target cannot be loaded: left for a person to look at)."""
    try:
        saved, _ = reproducers.bounded(reproducers.load(path))
    except UsageError:
        return "skipped"
    if target is not None and target != saved.target:
        return "skipped"
    saved = replace(saved, target=reproducers.resolved_target(saved))
    try:
        still, _ = _replayed(saved, timeout=timeout, memory_mb=memory_mb)
    except UsageError as exc:
        print(f"  kept {path.name}: cannot replay it ({exc})")
        return "skipped"
    if still:
        print(f"  kept {path.name}: {saved.invariant} still fails")
        return "kept"
    path.unlink(missing_ok=True)
    print(f"  deleted {path.name}: {saved.invariant} holds now")
    return "deleted"


def _replay_scaling(session: Session, saved: reproducers.Reproducer, limit: float) -> int:
    print("    timing doubling documents")
    found = scaling.probe(session.transport, timeout=limit, check=session.verdict)
    for violation in found:
        print(f"    {violation.message}")
    print("STILL FAILS: scales_linearly" if found else "FIXED: scales_linearly holds")
    return 1 if found else 0


def _fresh_interpreter_differs(
    saved: reproducers.Reproducer, records: list[dict[str, Any]], limit: float
) -> list[Violation]:
    """``deterministic`` across interpreters (see chunk_contract.engine.crossrun) for one saved
    input: fresh interpreters with the hash seeds its message names (random ones where it names
    none), each compared with the worker and with the first; the first that fails or differs."""
    seeds = crossrun.named_seeds(saved.message)
    seeds += crossrun.hash_seeds(crossrun.INTERPRETERS - len(seeds))
    answers: list[crossrun.Answer] = []
    for seed in seeds:
        done = fresh.rerun(saved.target, [(saved.document, saved.config)], timeout=limit,
                           memory_mb=saved.memory_mb, hash_seed=seed, cwd=saved.base)
        where = crossrun.interpreter(seed)
        if not done.loadable:
            return []
        if done.failure:
            return [Violation("deterministic", f"{where} {done.failure}")]
        difference = crossrun.difference(records, done.answers[0])
        if difference is None and answers and answers[0] != done.answers[0]:
            first = f"the one with {crossrun.named(seeds[0])}"
            difference = f"{crossrun.difference(_listed(answers[0]), done.answers[0])} ({first})"
        if difference is not None:
            return [Violation("deterministic", f"{where} chunked it differently: {difference}")]
        answers.append(done.answers[0])
    return []


def _listed(answer: crossrun.Answer) -> list[dict[str, Any]]:
    """A fresh interpreter's answer as chunk records (none when it raised)."""
    return answer if isinstance(answer, list) else []
