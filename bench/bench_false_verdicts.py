"""False ``scales_linearly`` verdicts on correct chunkers, and missed quadratic defects, while
the machine is kept busy.

    python bench/bench_false_verdicts.py [--seeds N] [--first-seed S] [--python-only]
                                         [--only TEXT ...] [--no-load] [--hogs N]

Every correct chunker the project has (the Python reference chunkers, the correct twins of
tests/defects, the JS reference chunker when node is installed, the Rust one when rustc is)
gets the scaling probe of a run, once per seed (the probe does not depend on the seed: each
seed is one more repetition), and so does every ``scales_linearly`` defect of tests/defects,
while ``--hogs`` CPU hogs (default: one per core) and one memory-bandwidth hog run. Each hog
is a child process of this script, stopped and reaped at the end whatever happens (a
SIGTERM included); a hog whose parent is gone stops by itself.

A correct chunker must be linear: any family reported is a false verdict. A defect must be
caught on every seed: a defect of ``SHAPES`` (tests/defects/chunkers.py) must be reported on
exactly its families (one it is linear on is a false verdict, one missing a miss), any other
on at least one. Every probe's row, with the 1-minute load average when it ended, goes to
bench/RESULTS-false-verdicts.md as soon as it is done, under a heading naming the command, so
a run stopped early still records exactly what ran. Exit status 1 on a false verdict or a miss.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunk_contract.engine import scaling
from chunk_contract.engine.session import Session
from chunk_contract.spec.registry import registry
from chunk_contract.transport.loading import load

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "RESULTS-false-verdicts.md"
PYTHON = ("fixed", "recursive", "markdown", "header", "grapheme")
#: Hogs stop by themselves after this long, even if this script is killed.
HOG_SECONDS = 3 * 3600.0


@dataclass(frozen=True)
class Target:
    """One chunker to probe: its name in the table, what ``load`` takes, and what it must get.

    ``shapes`` is None for a correct chunker (no family may be reported); for a defect, the
    families it must be reported on exactly, or empty: at least one family, any."""

    label: str
    spec: str
    shapes: frozenset[str] | None = None

    @property
    def defect(self) -> bool:
        return self.shapes is not None


@dataclass(frozen=True)
class Verdict:
    """What one probe found, judged: ``false`` a family or rule that should not be there,
    ``missed`` a defect not reported (on one of its families)."""

    families: frozenset[str]
    broken: tuple[str, ...]
    false: bool
    missed: bool

    @property
    def text(self) -> str:
        found = ", ".join(sorted(self.families)) + "".join(f" [{r}]" for r in self.broken)
        if self.false and self.missed:
            return f"FALSE VERDICT and MISS: {found or 'nothing'}"
        if self.false:
            return f"FALSE VERDICT: {found}"
        if self.missed:
            return f"MISSED (found: {found or 'nothing'})"
        return f"caught: {found}" if self.families else "linear"


def family_of(message: str) -> str:
    """The scaling family a ``scales_linearly`` message names (its text up to the first colon)."""
    return next((f for f in scaling.FAMILIES if message.startswith(f"{f}:")),
                message.split(":", 1)[0])


def judge(target: Target, messages: list[str], broken: list[str]) -> Verdict:
    """A probe's violations (``messages``) and broken rules judged against what ``target``
    must get: a rule broken in the probe is a false verdict for every chunker here."""
    families = frozenset(family_of(m) for m in messages)
    if target.shapes is None:
        return Verdict(families, tuple(broken), bool(families or broken), False)
    wanted = target.shapes or families
    missed = not families or not wanted <= families
    return Verdict(families, tuple(broken), bool(families - wanted or broken), missed)


def _cpu_hog(stop: multiprocessing.synchronize.Event, parent: int) -> None:
    ends = time.monotonic() + HOG_SECONDS
    while not stop.is_set() and time.monotonic() < ends and os.getppid() == parent:
        sum(range(10_000))


def _memory_hog(stop: multiprocessing.synchronize.Event, parent: int) -> None:
    """Streams through 64 MB again and again: the caches and the memory bus stay busy."""
    block = bytearray(64 * 2**20)
    ends = time.monotonic() + HOG_SECONDS
    while not stop.is_set() and time.monotonic() < ends and os.getppid() == parent:
        block[:] = bytes(len(block))  # a full write pass
        block.count(1)  # a full read pass


@contextmanager
def busy(hogs: int) -> Iterator[None]:
    """``hogs`` CPU hogs and one memory hog for the duration of the block, reaped after it."""
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    targets = [_cpu_hog] * hogs + ([_memory_hog] if hogs else [])
    started = [context.Process(target=t, args=(stop, os.getpid()), daemon=True)
               for t in targets]
    for process in started:
        process.start()
    try:
        yield
    finally:
        stop.set()
        for process in started:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM ends the bench like Ctrl-C: the hogs are stopped and reaped on the way out."""
    raise SystemExit(128 + signum)


def python_targets() -> list[Target]:
    """The Python reference chunkers."""
    return [Target(f"chunk_contract_reference/{n}.py:split",
                   f"{ROOT / 'chunk_contract_reference' / n}.py:split") for n in PYTHON]


def correct_twins() -> list[Target]:
    """The correct chunkers of tests/defects (tests/defects/correct.py: CORRECT)."""
    sys.path.insert(0, str(ROOT))
    from tests.defects.correct import CORRECT

    path = ROOT / "tests" / "defects" / "correct.py"
    return [Target(f"tests/defects/correct.py:{n}", f"{path}:{n}") for n in CORRECT]


def scaling_defects() -> list[Target]:
    """The ``scales_linearly`` defects of tests/defects, each with the families it must get."""
    sys.path.insert(0, str(ROOT))
    from tests.defects.chunkers import DEFECTS, SHAPES

    path = ROOT / "tests" / "defects" / "chunkers.py"
    return [Target(f"tests/defects/chunkers.py:{n} (defect)", f"{path}:{n}",
                   frozenset(SHAPES.get(n, ())))
            for n, rule in DEFECTS.items() if rule == "scales_linearly"]


def out_of_process(folder: Path) -> list[Target]:
    """The JS reference chunker (node) and the Rust one (rustc), where the tools are here."""
    found = []
    node = shutil.which("node")
    if node:
        script = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
        found.append(Target("exec: node chunk_contract_reference/js/chunker.mjs",
                            f"exec:{node} {script}"))
    rustc = shutil.which("rustc")
    if rustc:
        binary = folder / "chunker"
        source = ROOT / "chunk_contract_reference" / "rust" / "chunker.rs"
        done = subprocess.run([rustc, "-O", "-o", str(binary), str(source)],
                              capture_output=True, timeout=300)
        if done.returncode == 0:
            found.append(Target("exec: chunk_contract_reference/rust/chunker.rs (rustc -O)",
                                f"exec:{binary}"))
    return found


def probe(target: Target) -> tuple[list[str], list[str], float]:
    """The ``scales_linearly`` messages and the broken rules of a run's probe of ``target``,
    and the probe's wall seconds."""
    plugin = load(target.spec, timeout=30.0)
    started = time.monotonic()
    with Session(plugin, timeout=2.0, memory_mb=1024, selected=list(registry())) as session:
        found = scaling.survey(session.transport, timeout=2.0, check=session.verdict)
    broken = [f"{rule}: {b.violations[0].message.splitlines()[0]}"
              for rule, b in found.broken.items()]
    return [v.message for v in found.violations], broken, time.monotonic() - started


@dataclass
class Row:
    """One probe: its seed, target, wall seconds, load when it ended, and what it found."""

    seed: int
    target: Target
    seconds: float
    load: float
    verdict: Verdict
    messages: list[str]

    @property
    def cell(self) -> str:
        """The verdict as the table shows it; a false verdict with its messages' start."""
        if not self.verdict.false:
            return self.verdict.text
        shapes = self.target.shapes or frozenset()
        wrong = [m for m in self.messages if family_of(m) not in shapes]
        return f"{self.verdict.text}: " + "; ".join(m[:200] for m in wrong)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=1,
                        help="number the seeds from here (a seed is one more repetition: a "
                             "run cut short goes on with the seeds it did not reach)")
    parser.add_argument("--python-only", action="store_true")
    parser.add_argument("--only", action="append", default=[],
                        help="only the targets whose label contains TEXT (repeatable: any)")
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    hogs = 0 if args.no_load else args.hogs
    with tempfile.TemporaryDirectory() as folder:
        everything = python_targets() if args.python_only else (
            python_targets() + out_of_process(Path(folder)) + correct_twins()
            + scaling_defects())
        targets = [t for t in everything if not args.only or any(o in t.label for o in args.only)]
        report = Report(hogs, args.seeds, len(targets))
        with busy(hogs):
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                for target in targets:
                    report.add(_probed(seed, target))
    return 1 if report.failures else 0


def _probed(seed: int, target: Target) -> Row:
    """One probe, judged and printed (with every message in full: the sizes and CPU times)."""
    messages, broken, seconds = probe(target)
    verdict = judge(target, messages, broken)
    row = Row(seed, target, seconds, os.getloadavg()[0], verdict, messages + broken)
    print(f"seed {seed} {target.label}: {row.verdict.text} ({seconds:.1f} s, "
          f"load {row.load:.1f})", flush=True)
    for message in row.messages:
        print(f"    {message}", flush=True)
    return row


class Report:
    """The run's section of RESULTS, rewritten after every probe."""

    def __init__(self, hogs: int, seeds: int, targets: int) -> None:
        self.old = (RESULTS.read_text() if RESULTS.exists()
                    else "# False scales_linearly verdicts under load\n")
        self.hogs, self.seeds, self.planned = hogs, seeds, seeds * targets
        self.rows: list[Row] = []
        self.started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        self.commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip()

    @property
    def failures(self) -> int:
        return sum(r.verdict.false or r.verdict.missed for r in self.rows)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        RESULTS.write_text("\n".join([self.old.rstrip("\n"), "", *self.section()]) + "\n")

    def summary(self) -> str:
        rows = self.rows
        false = sum(r.verdict.false for r in rows)
        missed = sum(r.verdict.missed for r in rows)
        defects = sum(r.target.defect for r in rows)
        loads = [r.load for r in rows]
        done = "" if len(rows) == self.planned else f" (stopped: {len(rows)} of {self.planned})"
        return (
            f"{self.seeds} seed(s), {os.cpu_count()} cores, {self.hogs} CPU hog(s) and "
            f"{1 if self.hogs else 0} memory hog: {len(rows)} probes{done} "
            f"({len(rows) - defects} of correct chunkers, {defects} of defects), "
            f"**{false} false verdict(s), {missed} miss(es)**; load (1 min) "
            f"{min(loads):.1f} to {max(loads):.1f}."
        )

    def section(self) -> list[str]:
        lines = [
            f"## `python bench/bench_false_verdicts.py {' '.join(sys.argv[1:])}`",
            "",
            f"Started {self.started}, commit {self.commit}. " + self.summary(),
            "",
            "| seed | chunker | probe wall s | load (1 min) | verdict |",
            "|---:|---|---:|---:|---|",
        ]
        for row in self.rows:
            lines.append(f"| {row.seed} | `{row.target.label}` | {row.seconds:.1f} | "
                         f"{row.load:.1f} | {row.cell} |")
        return lines


if __name__ == "__main__":
    raise SystemExit(main())
