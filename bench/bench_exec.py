"""The out-of-process protocol's cost (SPEC §8): per call, and examples per second.

    python bench/bench_exec.py [--calls N] [--examples N] [--repeats N]  # rewrites RESULTS-exec.md

Measures, on small documents (70 characters):

- a trivial ``exec:`` plugin (node, echoing the document as one chunk) called through
  ExecChild, against a trivial Python split called in process (goal: the protocol costs at
  most 1 ms per call);
- examples per second of the JavaScript reference chunker checked against every invariant
  through ExecChild, Hypothesis generating the cases (goal: at least 100/s), after an untimed
  warm-up that pays the process's one-time costs (see WARM_UP).

Short on purpose (a few seconds): the machine is shared. Every rate is given per wall-clock
second AND per CPU second (this process and the child together), with the load average before
and after, since the wall-clock numbers move with the load and the CPU ones do not. The goals
are met when the CPU figure meets them and the wall figure does on an idle machine (load
average under the number of CPUs).

bench/RESULTS-exec.md is rewritten down to its ``NOTES`` marker; the notes after it (the
profile of the exec path and what was changed) are kept.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, settings

from chunk_contract.containment import procs
from chunk_contract.engine.exec_probe import exec_session
from chunk_contract.engine.session import Session
from chunk_contract.generation import strategies
from chunk_contract.spec.model import Config, normalise_chunks
from chunk_contract.spec.registry import registry
from chunk_contract.transport.exec_child import ExecChild
from chunk_contract.transport.loading import load

HERE = Path(__file__).resolve().parent
JS_CHUNKER = HERE.parent / "chunk_contract_reference" / "js" / "chunker.mjs"
DOCUMENT = "The quick brown fox jumps over the lazy dog. Über naïve café — 数据 🚀 ok"
ECHO = """import { createInterface } from "node:readline";
process.stdout.write('{"chunk_contract": 1}\\n');
createInterface({ input: process.stdin }).on("line", (line) => {
  const call = JSON.parse(line);
  process.stdout.write(JSON.stringify({ id: call.id, chunks: [call.document] }) + "\\n");
});
"""
_SURROGATE = re.compile("[\ud800-\udfff]")


def trivial(document: str, *, max_size: int, overlap: int) -> list[str]:
    """The in-process baseline: one chunk, the document."""
    return [document]


def per_call_exec(node: str, calls: int) -> tuple[float, float]:
    """Seconds per call of the echo plugin through ExecChild (start-up excluded): wall clock,
    and CPU (this process plus the child's tree)."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "echo.mjs"
        script.write_text(ECHO)
        with ExecChild(f"exec:{node} {script}") as child:
            child.start()
            child.call(("split", DOCUMENT, 100, 0))  # warm the JIT once
            child_cpu = _child_cpu(child)
            host_cpu, started = time.process_time(), time.perf_counter()
            for _ in range(calls):
                outcome = child.call(("split", DOCUMENT, 100, 0))
                assert outcome.ok, outcome
            wall = (time.perf_counter() - started) / calls
            spent = time.process_time() - host_cpu + _child_cpu(child) - child_cpu
            return wall, spent / calls


def _child_cpu(child: ExecChild) -> float:
    """CPU seconds of the child's tree: its cgroup (µs) where it has one, else /proc (ticks of
    10 ms, fine over thousands of calls)."""
    if child.cgroup_path is not None:
        seconds = procs.Cgroup(child.cgroup_path).cpu_seconds()
        if seconds is not None:
            return seconds
    assert child.pid is not None
    return procs.session_cpu_seconds(child.pid)


def per_call_in_process(calls: int) -> float:
    """Seconds per call of the same trivial split in this process (records normalised too)."""
    started = time.perf_counter()
    for _ in range(calls):
        normalise_chunks(trivial(DOCUMENT, max_size=100, overlap=0))
    return (time.perf_counter() - started) / calls


#: Examples checked, untimed, before either timed arm: the host's one-time costs (the first
#: imports of Hypothesis's internals and the checks, the strategies' compilation, regex caches)
#: are paid once by a run, and here they were paid by whichever arm ran first (the JS arm: 89
#: per wall second cold, 120-127 warm, on an idle machine). Each arm still starts its own
#: child or worker, as a run does.
WARM_UP = 50


def examples_per_second(node: str, examples: int) -> tuple[float, float]:
    """Examples/s of the JS reference chunker checked through its exec: transport (wall, CPU;
    the child's start-up included, as in a run)."""
    cpu, started = _cpu(), time.perf_counter()
    with exec_session(f"exec:{node} {JS_CHUNKER}") as session:
        _probe(session, examples)
    return _rates(examples, started, cpu)


def python_examples_per_second(examples: int) -> tuple[float, float]:
    """The same loop for the Python recursive reference chunker in its forked worker."""
    plugin = load(str(HERE.parent / "chunk_contract_reference" / "recursive.py") + ":split")
    cpu, started = _cpu(), time.perf_counter()
    with Session(plugin, timeout=5.0, memory_mb=1024, selected=list(registry())) as session:
        _probe(session, examples)
    return _rates(examples, started, cpu)


def _probe(session: Session, examples: int) -> None:
    """Check ``examples`` generated cases through ``session``; any violation fails the bench."""
    docs = strategies.any_documents(max_length=2000).map(lambda d: _SURROGATE.sub("", d))

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategies.cases(documents=docs))
    def probe(case: tuple[str, Config]) -> None:
        violations = session.observe(*case).violations
        assert not violations, violations

    probe()


def _rates(examples: int, started: float, cpu: float) -> tuple[float, float]:
    """Examples per wall-clock second and per CPU second (this process and every child it
    reaped: the worker or the exec child, closed by now)."""
    return examples / (time.perf_counter() - started), examples / (_cpu() - cpu)


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each arm")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        sys.exit("node is not installed: nothing to measure")
    load_before = os.getloadavg()[0]
    exec_call, exec_cpu = per_call_exec(node, args.calls)
    local_call = per_call_in_process(args.calls)
    python_examples_per_second(WARM_UP)  # untimed: see WARM_UP
    js, python = [], []
    for _ in range(args.repeats):  # alternating, so a slow minute of the machine hits both
        js.append(examples_per_second(node, args.examples))
        python.append(python_examples_per_second(args.examples))
    (rate, cpu_rate), (python_rate, python_cpu_rate) = _median(js), _median(python)
    load_after = os.getloadavg()[0]
    rows = [
        ("exec: echo plugin, per call (goal <= 1 ms)", f"{exec_call * 1e3:.3f} ms",
         f"{args.calls} calls, 70-char document; CPU per call (host + node) "
         f"{exec_cpu * 1e3:.3f} ms"),
        ("in-process trivial split, per call", f"{local_call * 1e6:.1f} µs",
         f"protocol overhead {(exec_call - local_call) * 1e3:.3f} ms"),
        ("JS reference chunker, examples/s (goal >= 100)",
         f"{rate:.0f} per wall s, {cpu_rate:.0f} per CPU s",
         f"median of {args.repeats} runs of {args.examples} examples (per wall s: "
         f"{_each(js)}), every invariant, no violation, after a {WARM_UP}-example warm-up; "
         "CPU = host + child"),
        ("Python recursive reference (fork worker), examples/s",
         f"{python_rate:.0f} per wall s, {python_cpu_rate:.0f} per CPU s",
         f"same cases (per wall s: {_each(python)}); JS ÷ Python = "
         f"{rate / python_rate:.2f} (wall), {cpu_rate / python_cpu_rate:.2f} (CPU)"),
    ]
    report(rows, load_before, load_after)


def _median(rates: list[tuple[float, float]]) -> tuple[float, float]:
    """The run with the median wall rate (its CPU rate with it)."""
    return sorted(rates)[len(rates) // 2]


def _each(rates: list[tuple[float, float]]) -> str:
    return ", ".join(f"{wall:.0f}" for wall, _ in rates)


#: The line of bench/RESULTS-exec.md after which the hand-written notes begin (kept).
NOTES = "<!-- notes: kept when bench/bench_exec.py rewrites the table above -->"


def _notes(path: Path) -> str:
    """The notes of ``path`` from the NOTES marker on (empty when it has none)."""
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    at = text.find(NOTES)
    return "" if at < 0 else text[at:]


def _idle(load: float) -> str:
    """How to read the wall-clock figures at this load average."""
    cpus = os.cpu_count() or 1
    if load < cpus:
        return "an idle machine (load under the CPU count): the wall figures hold"
    return (f"a busy machine (load {load:.1f} on {cpus} CPUs): the wall figures are this "
            "run's share of the CPUs; the CPU figures are what an idle core does")


def report(rows: list[tuple[str, str, str]], before: float, after: float) -> None:
    """Print the table and rewrite bench/RESULTS-exec.md (its notes kept)."""
    target = HERE / "RESULTS-exec.md"
    lines = [
        "## Out-of-process protocol (bench/bench_exec.py)",
        "",
        f"`python bench/bench_exec.py` on {time.strftime('%Y-%m-%d')}: Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, load average {before:.2f} before "
        f"and {after:.2f} after: {_idle(max(before, after))}.",
        "",
        "| measure | value | figures |",
        "|---|---|---|",
        *(f"| {name} | {value} | {figures} |" for name, value, figures in rows),
        "",
        "Examples/s are wall-clock and fall with the load (8 engineers share 2 cores).",
        "Examples per CPU second (host and child together) is what one idle core would do;",
        "the JS ÷ Python ratios on the same cases are the load-neutral comparison. A ratio",
        "near 1 means the protocol is not what limits a run: the checks and Hypothesis are.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    notes = _notes(target)
    target.write_text(text + ("\n" + notes if notes else ""), encoding="utf-8")


if __name__ == "__main__":
    main()
