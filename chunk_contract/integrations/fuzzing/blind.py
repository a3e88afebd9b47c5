"""The blind engine: fuzzing an out-of-process target (``exec:``, ``http(s)://``).

libFuzzer's guidance is the coverage of Python code running in its own process; a chunker in
JavaScript, Rust or behind HTTP has none that it can see. So such targets are fuzzed *without
coverage feedback*: inputs are mutated from the seed corpus with the byte operators libFuzzer
uses (flip, insert, erase, duplicate, splice, dictionary tokens, header bytes), decoded by the
same total decoding (:mod:`chunk_contract.integrations.fuzzing.inputs`) into a document and a
config, degenerate configs included, and checked through the target's own contained transport (a
hang is killed and reported as ``terminates``). Each input that breaks an invariant not yet
seen is written as a libFuzzer-style artifact (``crash-<sha1>`` or ``timeout-<sha1>``) and
converted like any other. The search is seeded (``--seed``): the same seed, target and seeds
give the same inputs.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from chunk_contract.integrations.fuzzing.inputs import PIECES, decode
from chunk_contract.integrations.fuzzing.target import FuzzTarget
from chunk_contract.spec.model import Violation

#: Byte strings the mutator inserts (the dictionary's kind of tokens, always available).
TOKENS: tuple[bytes, ...] = (
    *(piece.encode("utf-8") for piece in PIECES[:24]),
    b". ", b", ", b"# ", b"## ", b"```", b"- ", b"| a | b |", b"\xfe\x00\x08", b"\xff\x00\x40",
)
#: Mutations stacked on one input, at most.
MAX_STACK = 6


@dataclass
class BlindStats:
    """What the blind engine did: inputs run, and the artifacts of new violations."""

    execs: int = 0
    seconds: float = 0.0
    artifacts: list[Path] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


class Mutator:
    """libFuzzer-like byte mutations of corpus inputs, from a seeded random source."""

    def __init__(self, corpus: Sequence[bytes], *, seed: int, max_len: int) -> None:
        """``corpus``: the inputs to start from (an empty one starts from b"")."""
        self.corpus = list(corpus) or [b"\x10\x00"]
        self.random = random.Random(seed)
        self.max_len = max(3, max_len)

    def next(self) -> bytes:
        """A new input: a corpus entry with 1..MAX_STACK mutations, cut to max_len."""
        data = bytearray(self.random.choice(self.corpus))
        for _ in range(self.random.randint(1, MAX_STACK)):
            self._mutate(data)
        return bytes(data[: self.max_len])

    def _mutate(self, data: bytearray) -> None:
        operator = self.random.choice(self._operators())
        operator(data)

    def _operators(self) -> list[Callable[[bytearray], None]]:
        return [self._flip, self._insert_byte, self._insert_token, self._erase,
                self._duplicate, self._splice, self._header]

    def _where(self, data: bytearray) -> int:
        return self.random.randint(min(2, len(data)), len(data))

    def _flip(self, data: bytearray) -> None:
        if data:
            data[self.random.randrange(len(data))] ^= 1 << self.random.randrange(8)

    def _insert_byte(self, data: bytearray) -> None:
        data.insert(self._where(data), self.random.randrange(256))

    def _insert_token(self, data: bytearray) -> None:
        at = self._where(data)
        data[at:at] = self.random.choice(TOKENS)

    def _erase(self, data: bytearray) -> None:
        if len(data) > 2:
            start = self.random.randrange(2, len(data))
            del data[start : start + self.random.randint(1, 16)]

    def _duplicate(self, data: bytearray) -> None:
        if len(data) > 2:
            start = self.random.randrange(2, len(data))
            piece = data[start : start + self.random.randint(1, 64)]
            at = self._where(data)
            data[at:at] = piece * self.random.randint(1, 4)

    def _splice(self, data: bytearray) -> None:
        other = self.random.choice(self.corpus)[2:]
        if other:
            start = self.random.randrange(len(other))
            at = self._where(data)
            data[at:at] = other[start : start + self.random.randint(1, 256)]

    def _header(self, data: bytearray) -> None:
        while len(data) < 2:
            data.append(0)
        data[self.random.randrange(2)] = self.random.randrange(256)


def run_blind(
    check: FuzzTarget,
    mutator: Mutator,
    *,
    seconds: float,
    artifacts: Path,
    on_input: Callable[[BlindStats], None] = lambda stats: None,
    stop_first: bool = False,
    log: IO[str] | None = None,
    runs: int | None = None,
) -> BlindStats:
    """Fuzz ``check`` with ``mutator``'s inputs for ``seconds`` (or ``runs`` inputs, if that
    comes first); the artifacts of new violations.

    An invariant, once seen, is ignored from then on (one artifact each), so a chunker with
    several bugs shows several findings in one run.
    """
    stats = BlindStats()
    started = time.monotonic()
    while time.monotonic() - started < seconds and (runs is None or stats.execs < runs):
        data = mutator.next()
        stats.execs += 1
        fresh = [v for v in check.violations(decode(data)) if v.invariant not in stats.seen]
        if fresh:
            stats.artifacts.append(write_artifact(artifacts, data, fresh))
            stats.seen |= {v.invariant for v in fresh}
            if log is not None:
                ids = ", ".join(sorted({v.invariant for v in fresh}))
                log.write(f"input {stats.execs}: {ids}: {stats.artifacts[-1]}\n")
        on_input(stats)
        if fresh and stop_first:
            break
    stats.seconds = time.monotonic() - started
    return stats


def write_artifact(folder: Path, data: bytes, violations: Sequence[Violation]) -> Path:
    """``timeout-<sha1>`` for a hang, else ``crash-<sha1>``, as libFuzzer names them."""
    kind = "timeout" if any(v.invariant == "terminates" for v in violations) else "crash"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kind}-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    return path
