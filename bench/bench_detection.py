"""Detection rate measured the way a user's CI measures it.

For every known-defective chunker of ``tests/defects/chunkers.py`` (``DEFECTS``: name -> the
invariant it breaks) and every seed, one ``chunk-contract run TARGET --seed S`` runs as a
subprocess, with the default budget and profile, in a fresh temporary folder (no reproducers,
no Hypothesis database, no pyproject.toml: a CI checkout). The defect counts as *found* on seed
S when the run exits 1 with the expected invariant among its violations. Reported per defect:
found on N/S seeds, the median wall time of a run, the seeds missed (with why: another verdict,
an exploration stopped early, a run killed), and the diagnoses named.

Every run is appended to a log (``--log``, JSON lines); the table is built from the log, the
last entry of each (defect, seed) winning, so a long measurement can be made in slices:

    python bench/bench_detection.py --estimate                  # how long 20 seeds would take
    python bench/bench_detection.py                             # every defect, 20 seeds, 2 jobs
    python bench/bench_detection.py --seeds 20 --only catastrophic_regex,stale_cache --jobs 2
    python bench/bench_detection.py --table-only                # rebuild RESULTS.md from the log
    python bench/bench_detection.py --construction              # which defects need the seed

``--construction`` plays, in process, only what every run plays whatever its seed (the seed
corpus, then the covering schedule) through the engine's ``Session.observe``, and records for
each defect whether the expected invariant breaks there (``bench/detection-construction.json``).
A defect found there is found on every seed unless a budget cuts the run first; a defect found
only by the random search is the one whose seed count matters.

Runs go under ``nice -n 10``, at most 2 at once (the machine is shared). The table replaces the
``## Detection`` section of bench/RESULTS.md (other sections are kept).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.defects import test_defects  # noqa: E402  (the loader the tests use)

DEFECTS_FILE = ROOT / "tests" / "defects" / "chunkers.py"
RESULTS = ROOT / "bench" / "RESULTS.md"
LOG = ROOT / "bench" / "detection-runs.jsonl"
CONSTRUCTION = ROOT / "bench" / "detection-construction.json"
#: Invariants decided after exploration (the timing probe; the fresh-interpreter rerun of the
#: explored inputs), never by one observation.
RUNNER_LEVEL = {"scales_linearly"}
RUNNER_LEVEL_DEFECTS = {"hash_ids", "set_order_cuts"}
SECTION = "## Detection"
#: A run that has not finished after this long is killed and counted as a miss.
RUN_CAP = 900.0
#: Seconds per run assumed by ``--estimate`` before the log holds any measurement.
PRIOR_SECONDS = 30.0
#: Variables that would change the profile, the database or the budget of a user's default run.
CLEARED_ENV = ("CHUNK_CONTRACT_PROFILE", "CHUNK_CONTRACT_DATABASE", "CHUNK_CONTRACT_NO_SKIP",
               "HYPOTHESIS_PROFILE")


@dataclass
class Outcome:
    """One CI-like run of one defect on one seed."""

    defect: str
    invariant: str
    seed: int
    found: bool
    exit: int | None
    violated: list[str]
    seconds: float
    load: float
    examples: int | None = None
    stopped_early: str | None = None
    diagnoses: dict[str, str | None] = field(default_factory=dict)
    note: str = ""
    commit: str = ""
    started: str = ""


def defects() -> dict[str, str]:
    """Defect name -> expected invariant, from the table the tests themselves use."""
    return dict(test_defects.DEFECTS)


def commit() -> str:
    """The worktree's commit, with ``+dirty`` when tracked files differ from it."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--",
                            "chunk_contract", "tests/defects"], check=False).returncode
    return head + ("+dirty" if dirty else "")


def command(name: str, seed: int) -> list[str]:
    """The user's command line (through this worktree's package), niced."""
    return ["nice", "-n", "10", sys.executable, "-m", "chunk_contract", "run",
            f"{DEFECTS_FILE}:{name}", "--seed", str(seed), "-q", "--json", "report.json"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _wait(proc: subprocess.Popen[bytes], cap: float) -> int | None:
    """The exit status, or None after killing the run's whole process group at ``cap``."""
    try:
        return proc.wait(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


def _report(folder: Path) -> dict[str, Any]:
    path = folder / "report.json"
    if not path.exists():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _violations(report: dict[str, Any]) -> dict[str, str | None]:
    """Violated invariant -> the diagnosis pattern of its counterexample (or None)."""
    out: dict[str, str | None] = {}
    for item in report.get("invariants", []):
        if item.get("status") == "violated":
            diagnosis = (item.get("counterexample") or {}).get("diagnosis")
            out[item["id"]] = diagnosis["pattern"] if diagnosis else None
    return out


def run_one(name: str, invariant: str, seed: int, *, cap: float = RUN_CAP) -> Outcome:
    """``chunk-contract run`` on one defect and seed, in a fresh folder, as a CI job would."""
    load, stamp = os.getloadavg()[0], commit()
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    with tempfile.TemporaryDirectory(prefix="bench-detect-") as tmp:
        started = time.monotonic()
        proc = subprocess.Popen(command(name, seed), cwd=tmp, env=_env(), start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        status = _wait(proc, cap)
        seconds = time.monotonic() - started
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        report = _report(Path(tmp))
    seen = _violations(report)
    found = status == 1 and invariant in seen
    return Outcome(name, invariant, seed, found, status, sorted(seen), round(seconds, 2),
                   round(load, 2), report.get("examples"), report.get("stopped_early"), seen,
                   _note(status, report, stderr, cap), stamp, when)


def _note(status: int | None, report: dict[str, Any], stderr: str, cap: float) -> str:
    if status is None:
        return f"killed after {cap:g} s"
    if not report:
        return f"exit {status}, no report: {stderr.strip().splitlines()[-1:] or ''}"
    return f"stopped early: {report['stopped_early']}" if report.get("stopped_early") else ""


def read_log(path: Path) -> dict[tuple[str, int], Outcome]:
    """(defect, seed) -> its last logged outcome."""
    out: dict[tuple[str, int], Outcome] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                outcome = Outcome(**json.loads(line))
                out[(outcome.defect, outcome.seed)] = outcome
    return out


def append_log(path: Path, outcome: Outcome) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(outcome), ensure_ascii=False) + "\n")


def estimate(jobs: list[tuple[str, int]], log: dict[tuple[str, int], Outcome],
             parallel: int) -> float:
    """Wall seconds the jobs should take: each defect's median logged run, else the prior."""
    per: dict[str, list[float]] = {}
    for outcome in log.values():
        per.setdefault(outcome.defect, []).append(outcome.seconds)
    every = [s for times in per.values() for s in times]
    fallback = statistics.median(every) if every else PRIOR_SECONDS
    total = sum(statistics.median(per[n]) if n in per else fallback for n, _ in jobs)
    return total / max(1, parallel)


def measure(jobs: list[tuple[str, int]], table: dict[str, str], *, parallel: int,
            log: Path) -> Iterator[Outcome]:
    """Run every (defect, seed) job, at most ``parallel`` at once, logging each outcome (with
    the commit the worktree was at when that run started)."""
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = [pool.submit(run_one, n, table[n], s) for n, s in jobs]
        for future in futures:
            outcome = future.result()
            append_log(log, outcome)
            yield outcome


# ------------------------------------------------------------------------------ by construction


def by_construction(name: str, invariant: str) -> str:
    """Where the seed-independent inputs first break ``invariant``: ``"case K of N"`` or ``-``."""
    from chunk_contract.engine.session import Session
    from chunk_contract.generation.corpus import corpus_for
    from chunk_contract.generation.strategies.schedule import schedule_for
    from chunk_contract.spec.registry import registry
    from chunk_contract.transport.loading import load

    if invariant in RUNNER_LEVEL or name in RUNNER_LEVEL_DEFECTS:
        return "runner"
    fixed = list(corpus_for("text")) + list(schedule_for("text").items())
    with Session(load(f"{DEFECTS_FILE}:{name}"), timeout=2.0, memory_mb=1024,
                 selected=list(registry())) as session:
        for k, (document, config) in enumerate(fixed, 1):
            if session.observe(document, config).of(invariant):
                return f"case {k} of {len(fixed)}"
    return "-"


def construction(names: list[str], table: dict[str, str], path: Path) -> dict[str, str]:
    """Classify ``names`` and merge them into the file at ``path``."""
    known: dict[str, str] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for name in names:
        known[name] = by_construction(name, table[name])
        print(f"{name:30s} {known[name]}", flush=True)
    path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return known


# ------------------------------------------------------------------------------------- the table


@dataclass
class Row:
    """One defect's outcomes over the seeds measured."""

    name: str
    invariant: str
    outcomes: list[Outcome]

    @property
    def found(self) -> int:
        return sum(o.found for o in self.outcomes)

    def cells(self, fixed: dict[str, str]) -> list[str]:
        seconds = statistics.median(o.seconds for o in self.outcomes)
        missed = [f"{o.seed} ({_why(o)})" for o in self.outcomes if not o.found]
        patterns = sorted({p for o in self.outcomes for p in o.diagnoses.values() if p})
        return [f"`{self.name}`", self.invariant, f"{self.found}/{len(self.outcomes)}",
                f"{seconds:.1f}", fixed.get(self.name, "?"), ", ".join(missed) or "-",
                ", ".join(patterns) or "-"]


def _why(outcome: Outcome) -> str:
    if outcome.note:
        return outcome.note
    return "passed" if outcome.exit == 0 else "got " + (", ".join(outcome.violated) or "nothing")


def rows(log: dict[tuple[str, int], Outcome], table: dict[str, str]) -> list[Row]:
    out = []
    for name, invariant in table.items():
        outcomes = sorted((o for (n, _), o in log.items() if n == name), key=lambda o: o.seed)
        if outcomes:
            out.append(Row(name, invariant, outcomes))
    return out


def render(found_rows: list[Row], argv: Iterable[str], log: Path = LOG) -> str:
    """The ``## Detection`` section: provenance, the table and the summary."""
    outcomes = [o for r in found_rows for o in r.outcomes]
    seeds = sorted({o.seed for o in outcomes})
    loads = [o.load for o in outcomes]
    commits = sorted({o.commit for o in outcomes})
    every = [r for r in found_rows if r.found == len(r.outcomes)]
    head = [
        SECTION, "",
        f"Measured {datetime.date.today().isoformat()} at commit(s) {', '.join(commits)} with "
        f"`python bench/bench_detection.py {' '.join(argv)}` (runs logged in "
        f"`{log.name}`, the table rebuilt from the log). Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs shared with "
        f"other engineers: load average at the start of a run {min(loads):.1f} to "
        f"{max(loads):.1f} (median {statistics.median(loads):.1f}); every run under "
        "`nice -n 10`, at most 2 at once.", "",
        "Each cell is a user's CI job: `chunk-contract run tests/defects/chunkers.py:DEFECT "
        "--seed S --json report.json` as a subprocess, default budget and profile, in a fresh "
        "temporary folder (no reproducers, no Hypothesis database, no pyproject.toml). *found*: "
        "the run exited 1 with the expected invariant among its violations. *s*: the median "
        "wall time of one run (the whole run: corpus, covering schedule, 200 generated "
        "examples, the scaling probe, shrinking, the fresh-interpreter rerun). *diagnoses*: "
        "the patterns the runs named (any invariant). *seed-independent*: where the inputs "
        "every run plays whatever its seed (the seed corpus, then the covering schedule) first "
        "break the expected invariant, in process (`--construction`, "
        f"`{CONSTRUCTION.name}`): a defect found there is found on every seed unless a "
        "budget cuts the run first; *runner*: decided after exploration (the timing probe, "
        "the fresh-interpreter rerun); *-*: only the random search finds it.", "",
        f"Seeds measured: {_ranges(seeds)}; {len(outcomes)} runs.", "",
        "| defect | invariant | found | s | seed-independent | missed on seed (why) "
        "| diagnoses |",
        "|---|---|---|---|---|---|---|",
    ]
    fixed = json.loads(CONSTRUCTION.read_text(encoding="utf-8")) if CONSTRUCTION.exists() else {}
    lines = ["| " + " | ".join(r.cells(fixed)) + " |" for r in found_rows]
    counts = sorted({len(r.outcomes) for r in found_rows})
    early = sum(o.stopped_early is not None for o in outcomes)
    summary = [
        "", f"Runs whose exploration a budget cut short (the 45 s default, on this loaded "
        f"machine): {early}/{len(outcomes)}; each still found its defect unless listed as "
        "missed.", "",
        f"Defects found on every seed measured: {len(every)}/{len(found_rows)}; runs that "
        f"found their defect: {sum(o.found for o in outcomes)}/{len(outcomes)}. Seeds per "
        f"defect: {', '.join(map(str, counts))}.", "",
    ]
    return "\n".join(head + lines + summary)


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    parts: list[str] = []
    for n in numbers:
        if parts and parts[-1].split("-")[-1] == str(n - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ", ".join(parts)


def write_section(text: str, path: Path = RESULTS) -> None:
    """Replace the ``## Detection`` section of ``path`` (or append it), keeping the others."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        tail = "\n" + "".join(lines[end:]) if end < len(lines) else ""
        new = "".join(lines[:start]) + text + tail
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(new if new.endswith("\n") else new + "\n", encoding="utf-8")
    tmp.replace(path)


# --------------------------------------------------------------------------------------- the CLI


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per defect (default 20)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated defect names")
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2),
                        help="runs at once (at most 2: the machine is shared)")
    parser.add_argument("--log", type=Path, default=LOG, help="JSON-lines log of every run")
    parser.add_argument("--skip-logged", action="store_true",
                        help="do not re-run a (defect, seed) already in the log")
    parser.add_argument("--estimate", action="store_true", help="print the estimate and stop")
    parser.add_argument("--construction", action="store_true",
                        help="classify defects by the seed-independent inputs, run none")
    parser.add_argument("--table-only", action="store_true", help="rebuild the table, run none")
    parser.add_argument("--no-write", action="store_true", help="do not touch bench/RESULTS.md")
    return parser


def _jobs(args: argparse.Namespace, table: dict[str, str],
          log: dict[tuple[str, int], Outcome]) -> list[tuple[str, int]]:
    names = [n for n in args.only.split(",") if n] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SystemExit(f"unknown defect(s): {', '.join(unknown)}; known: {', '.join(table)}")
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    # Seed-major order: an interrupted measurement still covers every defect evenly.
    jobs = [(n, s) for s in seeds for n in names]
    return [j for j in jobs if not (args.skip_logged and j in log)]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    table = defects()
    log = read_log(args.log)
    if args.construction:
        construction([n for n in args.only.split(",") if n] or list(table), table, CONSTRUCTION)
        return 0
    if not args.table_only:
        jobs = _jobs(args, table, log)
        print(f"{len(jobs)} runs, about {estimate(jobs, log, args.jobs) / 60:.0f} min "
              f"with {args.jobs} at once (from the logged run times)", flush=True)
        if args.estimate:
            return 0
        for outcome in measure(jobs, table, parallel=args.jobs, log=args.log):
            mark = "found" if outcome.found else f"MISSED ({_why(outcome)})"
            print(f"{outcome.defect:30s} seed {outcome.seed:3d} {outcome.seconds:6.1f} s "
                  f"load {outcome.load:4.1f}  {mark}", flush=True)
    text = render(rows(read_log(args.log), table), argv, args.log)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
