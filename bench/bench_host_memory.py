"""The host's peak memory whatever the plugin returns (issue: bounds on everything).

Runs ``chunk-contract run`` in a child interpreter on plugins that return huge replies and
records the host's peak resident memory (``VmHWM`` of the host alone; the workers are other
processes) next to the size of what the plugin tried to send:

* ``huge_reply`` (tests/hostile/plugins.py): 400 chunks of 1 MiB each, 400 MB of reply, over the
  reply limit: it is never read (the worker is killed, ``no_crash`` reported);
* ``fixed`` (chunk_contract_reference/fixed.py): a correct chunker, the baseline.

The documented bound: the host stays under 300 MiB (the test
tests/hostile/test_hostile.py::test_a_400_mb_reply_is_no_crash_and_the_host_stays_small asserts
the same). Results go to bench/RESULTS-memory.md with the machine's load.

    python bench/bench_host_memory.py [--no-write]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The host's own peak, measured as the test measures it (``VmHWM``; ``ru_maxrss`` survives
#: ``exec`` and starts at the RSS of whatever process forked the host).
from tests.hostile.test_hostile import PEAK_WRAPPER  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS-memory.md"
BOUND_MIB = 300
CASES = [
    ("huge_reply: 400 x 1 MiB chunks (400 MB)",
     f"{ROOT / 'tests' / 'hostile' / 'plugins.py'}:huge_reply",
     ["--memory-mb", "3000", "--timeout", "20", "--max-examples", "5", "--no-schedule"]),
    ("fixed (correct, baseline)", f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split",
     ["--max-examples", "50"]),
]


def peak(target: str, flags: list[str]) -> tuple[int, float]:
    """(exit code, the host's peak RSS in MiB) of one run."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-c", PEAK_WRAPPER, "run", target, "-q", "--seed", "1",
             "--reproducers", str(Path(folder) / "r"), *flags],
            cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
            text=True, timeout=600, check=False)
    line = next(x for x in done.stderr.splitlines() if x.startswith("HOST-PEAK-KIB="))
    return done.returncode, int(line.split("=", 1)[1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    rows = []
    worst = 0.0
    for label, target, flags in CASES:
        code, mib = peak(target, flags)
        worst = max(worst, mib)
        rows.append(f"| {label} | {code} | {mib:.0f} MiB |")
    text = "\n".join([
        "# Host peak memory (bench/bench_host_memory.py)", "",
        f"Documented bound: {BOUND_MIB} MiB for the host, whatever the plugin returns. "
        f"Worst measured: **{worst:.0f} MiB**. Load average at the start: "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.", "",
        "| plugin | exit | host peak RSS |", "|---|---|---|", *rows, ""])
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0 if worst < BOUND_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
