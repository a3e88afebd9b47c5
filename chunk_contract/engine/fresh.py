"""The run's ``deterministic`` verdict across interpreters, from the host's side.

The worker is forked, so its reruns share the host's hash seed. After exploring, the run's most
telling clean inputs (:class:`chunk_contract.engine.crossrun.Samples`) are chunked again in
``crossrun.INTERPRETERS`` fresh interpreters, each with a hash seed of its own, until one
answers differently from the worker, or fails. An input (a text, or a workbook description)
that comes back different is narrowed down
(:func:`chunk_contract.engine.crossrun.smaller`: each round in one interpreter with the
same seed, against the worker's chunks of the same candidates), and the finding names that seed
and one whose interpreter chunks the input otherwise, which ``replay`` runs both of: a finding
that depends on the hash seed replays the same every time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from chunk_contract import exactjson
from chunk_contract.engine import crossrun, freshchild
from chunk_contract.engine.session import Observation, PluginFailure
from chunk_contract.spec.model import Config, Violation
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.targets import load_timeout

if TYPE_CHECKING:
    from chunk_contract.engine.session import Session
    from chunk_contract.transport.targets import Plugin

__all__ = ["NARROW_SECONDS", "PAIR_TRIES", "Found", "judge", "rerun"]

#: New hash seeds tried for one whose interpreter chunks a finding's input otherwise than the
#: interpreter that found it (each is one more interpreter, on a failing run only).
PAIR_TRIES = 6
#: Wall seconds for narrowing a finding down and finding that second seed: a chunker that is
#: slow or hangs on the candidates ends the search, never the run.
NARROW_SECONDS = 20.0


@dataclass(frozen=True)
class Found:
    """A ``deterministic`` finding of a fresh interpreter: the observation that carries it, and
    the sample that showed it."""

    seen: Observation
    #: The sample the finding came from.
    origin: Observation

    @property
    def reduced(self) -> bool:
        """``seen`` was narrowed down from ``origin``."""
        return self.seen.document != self.origin.document


def judge(plugin: Plugin, session: Session, samples: list[Observation]) -> Found | None:
    """The finding of the first fresh interpreter that fails (on the first sample it was sent:
    the same input did not come back the same) or chunks a sample differently (on the smallest
    input found that still differs); None if every interpreter agrees, or the target cannot be
    loaded by name in a new interpreter (an API object: no verdict). Every other interpreter
    is sent the samples in reverse order: output that depends on what the plugin chunked
    before shows where another input comes first."""
    seeds = crossrun.hash_seeds() if samples else []
    for k, hash_seed in enumerate(seeds):
        order = samples if k % 2 == 0 else samples[::-1]  # another input comes first
        done = _rerun(plugin, session, [(s.document, s.config) for s in order], hash_seed)
        if not done.loadable:
            return None
        if done.failure:
            failure = f"{crossrun.interpreter(hash_seed)} {done.failure}"
            return Found(_finding(order[0], failure), order[0])
        differing = [(s, a) for s, a in zip(order, done.answers)
                     if crossrun.difference(s.records or [], a)]
        if differing:
            sample, answer = min(differing, key=lambda found: _size(found[0].document))
            narrowing = _Narrowing(plugin, session, hash_seed, seeds[:k],
                                   time.monotonic() + NARROW_SECONDS)
            return narrowing.found(sample, answer)
    return None


def _rerun(plugin: Plugin, session: Session, cases: list[tuple[Any, Config]],
           hash_seed: int, *, within: float | None = None) -> crossrun.Rerun:
    """The fresh interpreter's answers; ``within``: wall seconds it gets in all (default: its
    start-up allowance and the session's timeout for each case)."""
    timeout, startup = (session.timeout, None) if within is None else (0.0, within)
    return rerun(
        plugin.spec or plugin.target, cases, timeout=timeout, startup=startup,
        memory_mb=session.memory_mb, hash_seed=hash_seed,
        required=plugin.spec is not None,  # the worker loaded this very name
        cwd=plugin.cwd,
    )


def rerun(target: str, cases: list[tuple[Any, Config]], *, timeout: float,
          memory_mb: int | None, hash_seed: int, startup: float | None = None,
          required: bool = True, cwd: str | None = None) -> crossrun.Rerun:
    """``cases`` chunked anew with ``hash_seed``: in a fresh interpreter
    (:func:`chunk_contract.engine.crossrun.rerun`), or for an out-of-process target in a new
    child of its own, run in ``cwd`` (:func:`chunk_contract.engine.freshchild.rerun_child`).
    ``startup``: seconds to start and load the plugin, on top of ``timeout`` per case (default:
    the worker's load allowance, ``$CHUNK_CONTRACT_LOAD_TIMEOUT`` included, plus
    ``crossrun.STARTUP_SECONDS`` for the new process's own start: a plugin slow to import is
    given the time the worker gave it, never a false verdict)."""
    if startup is None:
        startup = load_timeout(timeout) + crossrun.STARTUP_SECONDS
    if is_out_of_process(target):
        return freshchild.rerun_child(target, cases, hash_seed,
                                      deadline=startup + timeout * len(cases), startup=startup,
                                      memory_mb=memory_mb, cwd=cwd)
    return crossrun.rerun(target, cases, timeout=timeout, memory_mb=memory_mb,
                          hash_seed=hash_seed, startup=startup, required=required)


def _size(document: Any) -> int:
    """A document's size, to report the smallest differing one: its length, or its JSON's."""
    return len(document if isinstance(document, str) else exactjson.dumps(document))


def _finding(seen: Observation, message: str) -> Observation:
    return Observation(seen.document, seen.config, [Violation("deterministic", message)],
                       seen.records)


@dataclass
class _Narrowing:
    """A fresh interpreter (``seed``) that chunked an input differently from the worker: its
    finding, on the smallest document found that still differs, beside a seed that chunks it
    otherwise (of the ``agreed`` ones first)."""

    plugin: Plugin
    session: Session
    seed: int
    agreed: list[int]
    deadline: float  # time.monotonic() at which the search stops

    def _left(self) -> float:
        return self.deadline - time.monotonic()

    def found(self, sample: Observation, answer: crossrun.Answer) -> Found:
        config = sample.config
        kept = {crossrun.identity(sample.document): (sample.records or [], answer)}
        document = crossrun.smaller(sample.document, partial(self._differs, config, kept))
        records, answer = kept[crossrun.identity(document)]
        message = (f"{crossrun.interpreter(self.seed)} chunked the same input differently: "
                   f"{crossrun.difference(records, answer)} (hash() or set order in the output, or "
                   f"state kept from earlier calls?)")
        other = self._otherwise((document, config), answer)
        if other is not None:
            message += f"; one with {crossrun.named(other)} chunks it otherwise (replay runs both)"
        seen = Observation(document, config, [], records)
        return Found(_finding(seen, message), sample)

    def _differs(self, config: Config, kept: dict[str, Any], batch: list[Any]) -> int | None:
        """The index of the first document of ``batch`` this interpreter chunks differently from
        the worker (its records and answer kept in ``kept``), or None."""
        worker = _worker_records(self.session, batch, config, self.deadline)
        if self._left() <= 0:
            return None
        done = _rerun(self.plugin, self.session, [(batch[k], config) for k, _ in worker],
                      self.seed, within=self._left())
        for (k, records), answer in zip(worker, done.answers):
            if crossrun.difference(records, answer):
                kept[crossrun.identity(batch[k])] = (records, answer)
                return k
        return None

    def _otherwise(self, case: tuple[Any, Config], answer: crossrun.Answer) -> int | None:
        """A seed whose interpreter answers ``case`` otherwise than ``answer``: of ``agreed``,
        then of PAIR_TRIES new ones; None if none does."""
        for other in [*self.agreed, *crossrun.hash_seeds(PAIR_TRIES)]:
            if self._left() <= 0:
                break
            done = _rerun(self.plugin, self.session, [case], other, within=self._left())
            if done.answers and done.answers[0] != answer:
                return other
        return None


def _worker_records(session: Session, batch: list[Any], config: Config,
                    deadline: float) -> list[tuple[int, list[dict[str, Any]]]]:
    """The worker's chunk records of each document of ``batch`` it chunks, by its index in
    ``batch``, in order, until ``deadline`` (time.monotonic())."""
    out = []
    for k, document in enumerate(batch):
        if time.monotonic() > deadline:
            break
        try:
            out.append((k, [c.as_record() for c in session.call(document, config)]))
        except PluginFailure:
            continue  # another rule's finding: not this search's business
    return out
