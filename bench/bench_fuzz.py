"""Fuzzing throughput: executions per second of chunk-contract fuzz on every reference chunker.

    python bench/bench_fuzz.py [--seconds 30] [TARGET ...]

Each target is fuzzed from its seed corpus (fuzz/corpus/<chunker>/) into a fresh temporary
corpus, with every applicable invariant checked in-process, for ``--seconds``. The table (with
the machine's load, which matters on a small shared machine) replaces the ``## Fuzzing``
section of bench/RESULTS.md; the rest of that file is left alone. Needs atheris
(``pip install 'chunk-contract[fuzz]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
SECTION = "## Fuzzing"

#: The reference chunkers, and a trivial correct plugin as a baseline of the harness's own cost.
TARGETS = [
    "chunk_contract_reference/fixed.py:split",
    "chunk_contract_reference/recursive.py:split",
    "chunk_contract_reference/markdown.py:split",
    "chunk_contract_reference/header.py:split",
    "chunk_contract_reference/header.py:split_duplicate_headers",
    "chunk_contract_reference/grapheme.py:split",
    "tests/cli/plugins.py:slices",
]


def fuzz(target: str, seconds: float, scratch: Path) -> dict:
    """One harness run; its JSON summary."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", target)
    summary = scratch / f"{name}.json"
    seeds = ROOT / "fuzz" / "corpus" / Path(target.partition(":")[0]).stem
    command = [
        sys.executable,
        "-c",
        "from chunk_contract.cli.main import main; raise SystemExit(main())",
        "fuzz",
        target,
        "--seconds",
        str(seconds),
        "--corpus",
        str(scratch / name / "corpus"),
        "--artifacts",
        str(scratch / name / "artifacts"),
        "--reproducers",
        str(scratch / name / "reproducers"),
        "--log",
        str(scratch / f"{name}.log"),
        "--summary-json",
        str(summary),
        "--quiet",
        *(["--seeds", str(seeds)] if seeds.is_dir() else []),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not summary.is_file():
        raise SystemExit(
            f"{target}: the harness failed ({done.returncode}):\n{done.stderr[-2000:]}"
        )
    return json.loads(summary.read_text())


def section(rows: list[tuple[str, dict]], seconds: float, loads: tuple[float, float]) -> str:
    try:
        from importlib.metadata import version

        atheris = version("atheris")
    except Exception:
        atheris = "?"
    lines = [
        SECTION,
        "",
        f"`python bench/bench_fuzz.py --seconds {seconds:g}` on {time.strftime('%Y-%m-%d')}: "
        f"atheris {atheris}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {loads[0]:.1f} before and {loads[1]:.1f} after. Each chunker is fuzzed "
        "in-process from its seed corpus with every applicable invariant checked on every input "
        "(a rerun for `deterministic` included). *exec/s* is libFuzzer's wall-clock figure; "
        "*per CPU-second* divides by the CPU time the fuzzer got, which is the steadier figure "
        "when the machine is shared.",
        "",
        "| target | executions | exec/s | exec per CPU-second | coverage (edges) | corpus | "
        "findings |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for target, s in rows:
        per_cpu = s["execs"] / s["cpu_seconds"] if s["cpu_seconds"] else 0
        found = ", ".join(sorted({f["invariant"] for f in s["findings"] if f["confirmed"]}))
        shaky = sorted({f["kind"] for f in s["findings"] if not f["confirmed"]})
        found = (found or "none") + (f" (unconfirmed: {', '.join(shaky)})" if shaky else "")
        lines.append(
            f"| `{target}` | {s['execs']:,} | {s['exec_per_sec']:,.0f} | {per_cpu:,.0f} "
            f"| {s['coverage']} | {s['corpus']} | {found} |"
        )
    lines += [
        "",
        "`tests/cli/plugins.py:slices` is a few lines of slicing (bare-string windows; the "
        "fuzzer finds that it can emit the same span twice): its row is roughly the harness's "
        "own ceiling on this machine (decoding, the in-process session, the checks). atheris on "
        "a toy target that checks nothing runs at about 5,500 exec/s here (DESIGN-NOTES); the "
        "difference is the oracle: every invariant on every input, with a second call for "
        "`deterministic` (`--skip deterministic` saves that call).",
        "",
    ]
    return "\n".join(lines)


def write_section(text: str) -> None:
    """Replace (or append) the ``## Fuzzing`` section of RESULTS.md, leaving the rest alone."""
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else "# Benchmark results\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    if pattern.search(old):
        new = pattern.sub(lambda _: text + "\n", old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=TARGETS)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    targets = [t for t in args.targets if (ROOT / t.partition(":")[0]).is_file() or ":" not in t]
    before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as scratch:
        for target in targets:
            result = fuzz(target, args.seconds, Path(scratch))
            print(
                f"{target:<55} {result['execs']:>9,} execs {result['exec_per_sec']:>7,.0f}/s "
                f"cov {result['coverage']:>4}  findings {len(result['findings'])}",
                flush=True,
            )
            rows.append((target, result))
    text = section(rows, args.seconds, (before, os.getloadavg()[0]))
    if not args.no_write:
        write_section(text)
        print(f"wrote the {SECTION!r} section of {RESULTS.relative_to(ROOT)}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
