"""Diagnosis rate: how many counterexamples of the defect suite get a diagnosis, and how many a
wrong one.

Every known-defective chunker (tests/defects/chunkers.py and tests/diagnosis/defects.py) is run
through the whole engine (``contract.engine.runner.run``: corpus, generation, shrinking, diagnosis)
on ``--seeds`` seeds with the default budget. Each counterexample counts once: *diagnosed* when a
pattern was confirmed, *wrong* when the pattern is not one that tests/diagnosis/test_diagnosis.py
lists as acceptable for that defect (EXPECTED; for the new defects, their own pattern). The goal
is a wrong count of 0; the rate says how much of the suite the patterns explain.

    python bench/bench_diagnosis.py                    # 2 seeds, every defect
    python bench/bench_diagnosis.py --seeds 1 --only overlap_on_top,lines_from_find
    python bench/bench_diagnosis.py --no-write         # print, leave RESULTS-diagnosis.md alone
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract.engine.runner import RunSettings, run  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS-diagnosis.md"


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _suite() -> dict[str, tuple[str, set[str]]]:
    """Defect name -> (target, the acceptable patterns)."""
    tests = _module(ROOT / "tests" / "diagnosis" / "test_diagnosis.py")
    out = {name: (tests.defects.defect_target(name), tests.EXPECTED.get(name, set()))
           for name in tests.defects.DEFECTS}
    for name, (pattern, *_rest) in tests.ours.PATTERNS.items():
        out[name] = (f"{ROOT / 'tests' / 'diagnosis' / 'defects.py'}:{name}", {pattern})
    return out


def _one(target: str, seed: int) -> list[tuple[str, str | None]]:
    """(invariant, pattern or None) per counterexample of one run."""
    settings = RunSettings(seed=seed, reproducers=None)
    result = run(target, settings)
    return [(r.id, r.counterexample.diagnosis.pattern if r.counterexample.diagnosis else None)
            for r in result.violated if r.counterexample is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per defect (default 2)")
    parser.add_argument("--only", default="", help="comma-separated defect names")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite the results")
    args = parser.parse_args(argv)
    suite = _suite()
    names = [n for n in suite if not args.only or n in args.only.split(",")]
    load, started, rows = os.getloadavg(), time.monotonic(), []
    total = diagnosed = wrong = 0
    for name in names:
        target, allowed = suite[name]
        for seed in range(1, args.seeds + 1):
            for invariant, pattern in _one(target, seed):
                total += 1
                diagnosed += pattern is not None
                bad = pattern is not None and pattern not in allowed
                wrong += bad
                if pattern is not None:
                    rows.append(f"| {name} | {seed} | {invariant} | {pattern} |"
                                f" {'WRONG' if bad else 'ok'} |")
        print(f"{name}: done", file=sys.stderr)
    text = _table(rows, total, diagnosed, wrong, args.seeds, len(names), load,
                  time.monotonic() - started)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 1 if wrong else 0


def _table(rows: list[str], total: int, diagnosed: int, wrong: int, seeds: int, defects: int,
           load: tuple[float, float, float], seconds: float) -> str:
    rate = f"{100 * diagnosed / total:.0f}%" if total else "n/a"
    head = [
        "# Diagnosis rate (bench/bench_diagnosis.py)", "",
        f"{defects} defective chunkers x {seeds} seed(s), default budget: {total} "
        f"counterexamples, **{diagnosed} diagnosed ({rate}), {wrong} wrong**.", "",
        f"Load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"{seconds:.0f} s in all.", "",
        "| defect | seed | invariant | pattern | verdict |", "|---|---|---|---|---|",
    ]
    return "\n".join(head + rows) + "\n"


if __name__ == "__main__":
    sys.exit(main())
