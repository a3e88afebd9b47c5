"""Core benchmarks: isolation cost, check cost, placement scaling, parallel speed-up.

    python bench/bench_core.py            # prints a table and rewrites bench/RESULTS-core.md

Every figure is a ratio measured in one run on the same machine, so a noisy shared machine
moves both sides together. Targets (issue 9): isolation < 2x per example; checks cheaper than
chunking on 10 MB; placement linear (10 MB / 1 MB about 10); -n 2 at least 1.6x -n 1.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunk_contract.engine import session as execution
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config
from chunk_contract.spec.registry import registry
from chunk_contract.transport.base import InProcessTransport
from chunk_contract.transport.loading import load

HERE = Path(__file__).resolve().parent
FIXED = str(HERE.parent / "chunk_contract_reference" / "fixed.py") + ":split"
TRIVIAL = str(HERE / "trivial.py") + ":split"


def realistic(size: int) -> str:
    """Prose, code, JSON blocks and markdown, repeated deterministically up to ``size`` chars."""
    block = (
        "# Section\n\nThe quick brown fox jumps over the lazy dog. Über naïve café — 数据 🚀.\n\n"
        "```python\ndef f(x):\n    return x * 2  # comment\n```\n\n"
        '{"id": 1, "name": "alpha", "tags": ["a", "b"]}\n'
        '{"id": 1, "name": "alpha", "tags": ["a", "b"]}\n'
        "- item one\n- item two\r\n\n"
    )
    return (block * (size // len(block) + 1))[:size]


class InlineTransport(InProcessTransport):
    """The transport's interface, calling the plugin in-process: the baseline for isolation cost."""

    def __init__(self, plugin: Any, **_: Any) -> None:
        super().__init__(plugin)


def examples_per_second(isolated: bool, examples: int = 400) -> float:
    settings = RunSettings(
        max_examples=examples, seed=1, reproducers=None, skip=("scales_linearly",)
    )
    original = execution.ForkTransport
    if not isolated:
        execution.ForkTransport = InlineTransport  # type: ignore[assignment,misc]
    try:
        started = time.perf_counter()
        result = run(TRIVIAL, settings)
        return result.examples / (time.perf_counter() - started)
    finally:
        execution.ForkTransport = original  # type: ignore[misc]


def check_cost(size: int, repeats: int = 3) -> tuple[float, float]:
    """(chunking seconds, checking seconds) for the fixed chunker on ``size`` characters.

    Checking is everything the contract does with the output: normalising the records,
    building the chunks and the document's geometry, and every per-example invariant. Best of
    ``repeats``, each on a fresh Document (nothing cached from the previous round).
    """
    plugin = load(FIXED)
    text, config = realistic(size), Config(1000, 100)
    session = Session(plugin, timeout=60, memory_mb=None, selected=list(registry()))
    from chunk_contract.spec.model import chunks_from_records, normalise_chunks

    chunking = checking = float("inf")
    for _ in range(repeats):
        document = "".join(text)  # a new str object: no cached hash or encoding
        started = time.perf_counter()
        records = plugin.split(document, max_size=config.max_size, overlap=config.overlap)
        chunking = min(chunking, time.perf_counter() - started)
        started = time.perf_counter()
        chunks = chunks_from_records(normalise_chunks(records))
        case = session.case(document, config, chunks)
        for rule in session.rules:
            if not rule.engine and not rule.needs:
                list(rule.check(case))
        checking = min(checking, time.perf_counter() - started)
    session.close()
    return chunking, checking


def placement_seconds(size: int) -> float:
    """Checking bare-string chunks (placed by the contract) with overlap on repeated blocks."""
    plugin = load(FIXED)
    document, config = realistic(size), Config(1000, 100)
    texts = [c["text"] for c in plugin.split(document, max_size=1000, overlap=100)]
    session = Session(plugin, timeout=60, memory_mb=None, selected=list(registry()))
    from chunk_contract.spec.model import Chunk

    chunks = [Chunk(index=i, text=t, bare=True) for i, t in enumerate(texts)]
    started = time.perf_counter()
    case = session.case(document, config, chunks)
    for rule_id in ("span_fidelity", "no_lost_text", "ordered", "overlap_bounded"):
        found = list(registry()[rule_id].check(case))
        assert not found, found
    session.close()
    return time.perf_counter() - started


def parallel_rates(examples: int = 1000, repeats: int = 2) -> tuple[float, float, bool]:
    """(examples/s with -n 1, with -n 2, same verdicts): ``chunk-contract run`` as users run it
    (a new process, every invariant, the timing probe and the fresh-interpreter rerun), best of
    ``repeats``. A subprocess, so the benchmark's own large heap is not forked along."""
    import json
    import subprocess
    import tempfile

    rates, verdicts = [0.0, 0.0], []
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        for _ in range(repeats):
            for k, jobs in enumerate((1, 2)):
                command = [sys.executable, "-m", "chunk_contract", "run", TRIVIAL, "-q", "-n",
                           str(jobs), "--max-examples", str(examples), "--seed", "3",
                           "--reproducers", folder, "--json", str(report)]
                started = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True, cwd=HERE.parent)
                seconds = time.perf_counter() - started
                data = json.loads(report.read_text())
                rates[k] = max(rates[k], data["examples"] / seconds)
                verdicts.append({i["id"]: i["status"] for i in data["invariants"]})
    return rates[0], rates[1], all(v == verdicts[0] for v in verdicts)


def main() -> None:
    import os

    load_before = os.getloadavg()[0]
    rows: list[tuple[str, str, str]] = []
    isolated, inline = examples_per_second(True), examples_per_second(False)
    rows.append(
        (
            "isolation cost (in-process ex/s ÷ worker ex/s)",
            f"{inline / isolated:.2f}x",
            f"{isolated:.0f} vs {inline:.0f} examples/s",
        )
    )
    for size in (1_000_000, 10_000_000):
        chunking, checking = check_cost(size)
        rows.append(
            (
                f"checks ÷ chunking, {size // 1_000_000} MB",
                f"{checking / chunking:.2f}",
                f"check {checking:.2f} s, chunk {chunking:.2f} s",
            )
        )
    small, large = placement_seconds(1_000_000), placement_seconds(10_000_000)
    rows.append(
        (
            "placement 10 MB ÷ 1 MB (linear: about 10)",
            f"{large / small:.1f}",
            f"{small:.2f} s, {large:.2f} s",
        )
    )
    one, two, same = parallel_rates()
    rows.append(
        (
            "-n 2 ÷ -n 1 examples/s (1000 examples)",
            f"{two / one:.2f}x",
            f"{one:.0f} vs {two:.0f} examples/s; verdicts {'equal' if same else 'DIFFER'}",
        )
    )
    width = max(len(r[0]) for r in rows)
    table = "\n".join(f"| {a:<{width}} | {b:>8} | {c} |" for a, b, c in rows)
    header = (
        f"| {'measure':<{width}} | {'ratio':>8} | figures |\n|{'-' * (width + 2)}|{'-' * 10}|---|"
    )
    print(header + "\n" + table)
    (HERE / "RESULTS-core.md").write_text(
        f"## Core (bench/bench_core.py)\n\n{_machine(load_before)}\n\n{header}\n{table}\n",
        encoding="utf-8",
    )


def _machine(load_before: float) -> str:
    import os
    import platform

    return (
        f"`python bench/bench_core.py` on {time.strftime('%Y-%m-%d')}: Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after."
    )


if __name__ == "__main__":
    main()
