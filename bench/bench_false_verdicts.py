"""False ``scales_linearly`` verdicts on correct chunkers while the machine is kept busy.

    python bench/bench_false_verdicts.py [--seeds N] [--python-only] [--only TEXT] [--no-load]
                                         [--hogs N]

Every correct chunker the project has (the Python reference chunkers, the correct twins of
tests/defects, the JS reference chunker when node is installed, the Rust one when rustc is)
gets the scaling probe of a run, once per seed (the probe does not depend on the seed: each
seed is one more repetition), while ``--hogs`` CPU hogs (default: one per core) and one
memory-bandwidth hog run. Each hog is a child process of this script, stopped
and reaped at the end whatever happens. Every verdict must be linear: a reported family is a
false verdict, printed with the load average at the time. Each run's table is appended to
bench/RESULTS-false-verdicts.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contract.engine import scaling
from contract.engine.session import Session
from contract.spec.registry import registry
from contract.transport.loading import load

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "RESULTS-false-verdicts.md"
PYTHON = [f"{ROOT / 'reference_chunkers' / n}.py:split"
          for n in ("fixed", "recursive", "markdown", "header", "grapheme")]
#: Hogs stop by themselves after this long, even if this script is killed.
HOG_SECONDS = 3600.0


def _cpu_hog(stop: multiprocessing.synchronize.Event) -> None:
    ends = time.monotonic() + HOG_SECONDS
    while not stop.is_set() and time.monotonic() < ends:
        sum(range(10_000))


def _memory_hog(stop: multiprocessing.synchronize.Event) -> None:
    """Streams through 64 MB again and again: the caches and the memory bus stay busy."""
    block = bytearray(64 * 2**20)
    ends = time.monotonic() + HOG_SECONDS
    while not stop.is_set() and time.monotonic() < ends:
        block[:] = bytes(len(block))  # a full write pass
        block.count(1)  # a full read pass


@contextmanager
def busy(hogs: int) -> Iterator[None]:
    """``hogs`` CPU hogs and one memory hog for the duration of the block."""
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    targets = [_cpu_hog] * hogs + ([_memory_hog] if hogs else [])
    started = [context.Process(target=t, args=(stop,), daemon=True) for t in targets]
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


def correct_twins() -> list[str]:
    """The correct chunkers of tests/defects (tests/defects/correct.py: CORRECT)."""
    sys.path.insert(0, str(ROOT))
    from tests.defects.correct import CORRECT

    return [f"{ROOT / 'tests' / 'defects' / 'correct.py'}:{name}" for name in CORRECT]


def out_of_process(folder: Path) -> list[str]:
    """The JS reference chunker (node) and the Rust one (rustc), where the tools are here."""
    found = []
    node = shutil.which("node")
    if node:
        found.append(f"exec:{node} {ROOT / 'reference_chunkers' / 'js' / 'chunker.mjs'}")
    rustc = shutil.which("rustc")
    if rustc:
        binary = folder / "chunker"
        done = subprocess.run([rustc, "-O", "-o", str(binary),
                               str(ROOT / "reference_chunkers" / "rust" / "chunker.rs")],
                              capture_output=True, timeout=300)
        if done.returncode == 0:
            found.append(f"exec:{binary}")
    return found


def probe(target: str) -> tuple[list[str], float]:
    """The families the probe reports for ``target`` (a run's probe), and its wall seconds."""
    plugin = load(target, timeout=30.0)
    started = time.monotonic()
    with Session(plugin, timeout=2.0, memory_mb=1024, selected=list(registry())) as session:
        found = scaling.survey(session.transport, timeout=2.0, check=session.verdict)
    messages = [v.message for v in found.violations]
    messages += [f"[{rule}] {b.violations[0].message.splitlines()[0]}"
                 for rule, b in found.broken.items()]
    return messages, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--python-only", action="store_true")
    parser.add_argument("--only", default="", help="only the targets containing TEXT")
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    hogs = 0 if args.no_load else args.hogs
    with tempfile.TemporaryDirectory() as folder:
        others = [] if args.python_only else correct_twins() + out_of_process(Path(folder))
        targets = [t for t in PYTHON + others if args.only in t]
        rows, false = [], 0
        with busy(hogs):
            for seed in range(1, args.seeds + 1):
                for target in targets:
                    messages, seconds = probe(target)
                    load_now = os.getloadavg()[0]
                    false += bool(messages)
                    rows.append((seed, target, seconds, load_now, messages))
                    verdict = "FALSE VERDICT" if messages else "linear"
                    print(f"seed {seed} {_short(target)}: {verdict} ({seconds:.1f} s, "
                          f"load {load_now:.1f})", flush=True)
                    for message in messages:
                        print(f"    {message[:300]}")
    _write(rows, hogs, false)
    return 1 if false else 0


def _short(target: str) -> str:
    return target.replace(str(ROOT) + "/", "")


def _write(rows: list[tuple[int, str, float, float, list[str]]], hogs: int, false: int) -> None:
    old = RESULTS.read_text() if RESULTS.exists() else "# False scales_linearly verdicts\n"
    lines = [
        old.rstrip("\n"),
        "",
        f"## `python bench/bench_false_verdicts.py {' '.join(sys.argv[1:])}`",
        "",
        f"{os.cpu_count()} cores, {hogs} CPU hog(s) and {1 if hogs else 0} memory hog: "
        f"{len(rows)} probes, {false} false verdict(s).",
        "",
        "| seed | chunker | probe wall s | load (1 min) | verdict |",
        "|---:|---|---:|---:|---|",
    ]
    for seed, target, seconds, load_now, messages in rows:
        verdict = "; ".join(m[:160] for m in messages) if messages else "linear"
        lines.append(f"| {seed} | `{_short(target)}` | {seconds:.1f} | {load_now:.1f} | "
                     f"{verdict} |")
    RESULTS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
