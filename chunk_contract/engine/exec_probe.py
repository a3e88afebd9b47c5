"""Check an out-of-process chunker (SPEC §8) with the contract's own strategies and invariants.

    python -m chunk_contract.engine.exec_probe [--examples N] [--seed N ...] [--fail-fast]
                                               [--shrink] [--json PATH] -- COMMAND [ARGS...]

It starts ``COMMAND`` as an :class:`~chunk_contract.transport.exec_child.ExecChild` (the persistent
§8 child), puts it behind a :class:`~chunk_contract.engine.session.Session` checking every
applicable invariant, and feeds it the seed corpus (:mod:`chunk_contract.generation.corpus`), then
generated ``(document, config)`` cases from :func:`chunk_contract.generation.strategies.cases`
(documents made valid Unicode, as §8 says). Exit status: 0 when no invariant is violated, 1 when one
is, 2 when the command cannot be started or hand shake.

This is the bridge until ``exec:`` targets are wired into the runner; then
``chunk-contract run "exec:COMMAND ARGS..."`` does the same, with the runner's shrinking and
reports. The mutation command for JavaScript chunkers
(:mod:`chunk_contract.integrations.mutation.js`) and the LangChain.js findings run use it.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path

from hypothesis import HealthCheck, find, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from chunk_contract import _files
from chunk_contract.engine.session import Session
from chunk_contract.errors import UsageError, one_line
from chunk_contract.generation import strategies
from chunk_contract.generation.corpus import corpus_for
from chunk_contract.spec.model import Config
from chunk_contract.spec.registry import registry
from chunk_contract.transport.kinds import exec_target
from chunk_contract.transport.outofprocess import OutOfProcessTransport
from chunk_contract.transport.targets import Plugin, TargetError

_SURROGATE = re.compile("[\ud800-\udfff]")
#: Characters of a violation message kept in a :class:`Found`.
MESSAGE_CHARS = 600


@dataclass(frozen=True)
class Found:
    """One violation seen: the invariant, the case that showed it, and the message."""

    invariant: str
    document: str
    max_size: int
    overlap: int
    message: str

    def describe(self) -> str:
        """One line: id, config and document (ASCII-escaped), then the message."""
        return (
            f"{self.invariant}: max_size={self.max_size}, overlap={self.overlap}, "
            f"document={self.document!a}\n    {self.message}"
        )


def valid_unicode(document: str) -> str:
    """The document without lone surrogates: what goes out of process is valid Unicode (§8)."""
    return _SURROGATE.sub("", document)


def case_strategy(*, max_length: int = 600) -> st.SearchStrategy[tuple[str, Config]]:
    """The runner's ``(document, config)`` cases, with documents that JSON can carry."""
    docs = strategies.any_documents(max_length=max_length).map(valid_unicode)
    return strategies.cases(max_length=max_length, documents=docs)


@contextmanager
def exec_session(
    target: str, *, timeout: float = 5.0, memory_mb: int = 1024, cwd: str | None = None
) -> Iterator[Session]:
    """A Session checking every applicable invariant, its calls going to ``target``'s child.

    ``target`` is ``exec:COMMAND ARGS...``; the child is started (and hand shakes) here, so a
    command that cannot start raises :class:`~chunk_contract.transport.targets.TargetError`.
    """
    transport = OutOfProcessTransport(target, timeout=timeout, memory_mb=memory_mb, cwd=cwd)
    try:
        declared = transport.start()
        plugin = Plugin(target, None, declared.declarations, spec=target)
        session = Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=list(registry()),
                          transport=transport)
        yield session
    finally:
        transport.close()


def _found(invariant: str, case: tuple[str, Config], message: str) -> Found:
    document, config = case
    return Found(invariant, document, config.max_size, config.overlap, message[:MESSAGE_CHARS])


class _Stop(Exception):
    """Raised inside the generated test to end a fail-fast run at the first violation."""


def violations(
    session: Session,
    *,
    examples: int,
    seed: int = 0,
    max_length: int = 600,
    fail_fast: bool = False,
    corpus: bool = True,
) -> dict[str, Found]:
    """Invariant id -> the first violation of it seen over the seed corpus (unless
    ``corpus=False``), then ``examples`` generated cases."""
    found: dict[str, Found] = {}
    for document, config in corpus_for("text") if corpus else []:
        case = (valid_unicode(document), config)
        for violation in session.observe(*case).violations:
            found.setdefault(violation.invariant, _found(violation.invariant, case,
                                                         violation.message))
        if fail_fast and found:
            return found

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(max_length=max_length))
    def probe(case: tuple[str, Config]) -> None:
        for violation in session.observe(*case).violations:
            rule = violation.invariant
            found.setdefault(rule, _found(rule, case, violation.message))
        if fail_fast and found:
            raise _Stop()

    with suppress(_Stop):
        probe()
    return found


def shrink(
    session: Session, invariant: str, *, examples: int, seed: int = 0, max_length: int = 600
) -> Found | None:
    """The simplest case Hypothesis finds that violates ``invariant`` (None if none is found)."""

    def violates(case: tuple[str, Config]) -> bool:
        return any(v.invariant == invariant for v in session.observe(*case).violations)

    try:
        case = find(
            case_strategy(max_length=max_length),
            violates,
            settings=settings(max_examples=examples, deadline=None, database=None,
                              suppress_health_check=list(HealthCheck)),
            random=random.Random(seed),
        )
    except NoSuchExample:
        return None
    seen = [v for v in session.observe(*case).violations if v.invariant == invariant]
    return _found(invariant, case, seen[0].message if seen else "(not seen again)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m chunk_contract.engine.exec_probe",
        description="Check an out-of-process chunker (SPEC §8) against the contract.",
    )
    parser.add_argument("--examples", type=int, default=200, help="cases per seed (200)")
    parser.add_argument("--seed", type=int, action="append", help="a seed (repeatable; 0)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per call (5)")
    parser.add_argument("--max-length", type=int, default=600, help="document length cap")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first violation")
    parser.add_argument("--no-corpus", action="store_true", help="skip the seed corpus")
    parser.add_argument("--shrink", action="store_true", help="shrink each violation found")
    parser.add_argument("--json", type=Path, help="write the violations found here")
    parser.add_argument("command", nargs="+", help="the chunker's command line (after --)")
    return parser


def probe_command(args: argparse.Namespace) -> dict[str, Found]:
    """Run the probe the parsed ``args`` ask for; returns the violations found."""
    target = exec_target(args.command)
    found: dict[str, Found] = {}
    with exec_session(target, timeout=args.timeout) as session:
        for seed in args.seed or [0]:
            for rule, first in violations(session, examples=args.examples, seed=seed,
                                          max_length=args.max_length,
                                          fail_fast=args.fail_fast,
                                          corpus=not args.no_corpus).items():
                found.setdefault(rule, first)
            if args.fail_fast and found:
                break
        if args.shrink:
            for rule in list(found):
                simpler = shrink(session, rule, examples=args.examples * 4,
                                 seed=(args.seed or [0])[0], max_length=args.max_length)
                found[rule] = simpler or found[rule]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; see the module docstring."""
    args = _parser().parse_args(argv)
    try:
        found = probe_command(args)
    except TargetError as exc:
        print(f"exec_probe: {one_line(str(exc))}", file=sys.stderr)
        return 2
    for item in found.values():
        print(item.describe())
    if args.json:
        payload = {rule: asdict(item) for rule, item in found.items()}
        try:
            _files.write_text(args.json, json.dumps(payload, indent=2, ensure_ascii=True) + "\n")
        except UsageError as exc:  # that file only: the verdict below stands
            _files.report_error(exc)
    count = f"{len(found)} invariant(s) violated" if found else "no violation"
    print(f"exec_probe: {count}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
