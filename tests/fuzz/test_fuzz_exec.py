"""Fuzzing out-of-process targets: the blind engine (no coverage feedback from another language).

The verdicts are bounded by input counts (``--runs``, seeded mutations), never by time, so they
do not depend on how busy the machine is.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.integrations.fuzzing import inputs
from chunk_contract.integrations.fuzzing.blind import Mutator, run_blind, write_artifact
from chunk_contract.integrations.fuzzing.target import FuzzTarget
from chunk_contract.spec.model import Violation
from chunk_contract.transport.loading import load

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "cli" / "plugins.py"
HANG_JS = ROOT / "tests" / "outofprocess" / "defects" / "hang.mjs"
REFERENCE_JS = ROOT / "chunk_contract_reference" / "js" / "chunker.mjs"
CHUNK_CONTRACT = [sys.executable, "-m", "chunk_contract"]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
SEEDS = [inputs.encode("Hello world. This is a test.\n\nMore text here.", 8, 2)]


def test_the_mutator_is_seeded_and_bounded() -> None:
    first = Mutator(SEEDS, seed=3, max_len=40)
    again = Mutator(SEEDS, seed=3, max_len=40)
    produced = [first.next() for _ in range(200)]
    assert produced == [again.next() for _ in range(200)]
    assert all(len(data) <= 40 for data in produced)
    assert len(set(produced)) > 150  # it does mutate
    assert len({inputs.decode(d).config for d in produced}) > 10  # the header moves too


def test_an_empty_corpus_still_gives_inputs() -> None:
    assert Mutator([], seed=0, max_len=10).next()


def test_the_blind_engine_finds_a_defect_and_writes_one_artifact_per_invariant(
    tmp_path: Path,
) -> None:
    check = FuzzTarget(load(f"{PLUGINS}:words_only"))
    stats = run_blind(check, Mutator(SEEDS, seed=0, max_len=200), seconds=float("inf"),
                      artifacts=tmp_path, runs=300)
    assert stats.execs <= 300
    assert "no_lost_text" in stats.seen
    assert len(stats.artifacts) == len({p.name for p in stats.artifacts})
    assert all(p.name.startswith(("crash-", "timeout-")) for p in stats.artifacts)


def test_the_blind_engine_passes_a_correct_chunker(tmp_path: Path) -> None:
    check = FuzzTarget(load(f"{ROOT}/chunk_contract_reference/fixed.py:split"))
    stats = run_blind(check, Mutator(SEEDS, seed=0, max_len=200), seconds=float("inf"),
                      artifacts=tmp_path, runs=200)
    assert stats.execs == 200 and not stats.seen and not stats.artifacts


def test_a_hang_is_written_as_a_timeout_artifact(tmp_path: Path) -> None:
    hang = write_artifact(tmp_path, b"\x05\x00a", [Violation("terminates", "no reply")])
    crash = write_artifact(tmp_path, b"\x05\x00b", [Violation("no_lost_text", "lost")])
    assert hang.name.startswith("timeout-") and crash.name.startswith("crash-")
    assert hang.read_bytes() == b"\x05\x00a"


def _fuzz_exec(target: Path, tmp_path: Path, *, timeout: str) -> tuple[int, dict[str, object]]:
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [*CHUNK_CONTRACT, "fuzz", f"exec:node {target}", "--runs", "150", "--seconds", "300",
         "--timeout", timeout, "--corpus", str(tmp_path / "corpus"),
         "--artifacts", str(tmp_path / "artifacts"), "--reproducers", str(tmp_path / "repro"),
         "--log", str(tmp_path / "fuzz.log"), "--summary-json", str(summary), "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.returncode, json.loads(summary.read_text())


@needs_node
def test_a_short_fuzz_run_finds_the_js_non_advancing_loop(tmp_path: Path) -> None:
    code, summary = _fuzz_exec(HANG_JS, tmp_path, timeout="1")
    assert code == 1 and summary["engine"] == "blind"
    findings = summary["findings"]
    assert isinstance(findings, list)
    hangs = [f for f in findings if f["invariant"] == "terminates" and f["confirmed"]]
    assert hangs, findings
    assert cli.main(["replay", hangs[0]["reproducer"], "--trust-target"]) == 1


@needs_node
def test_a_short_fuzz_run_passes_the_js_reference_chunker(tmp_path: Path) -> None:
    code, summary = _fuzz_exec(REFERENCE_JS, tmp_path, timeout="10")
    assert code == 0 and summary["findings"] == [], summary["findings"]
    assert summary["execs"] == 150


def _processes_running(needle: str) -> list[int]:
    """Pids of live processes whose command line mentions ``needle``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


@needs_node
def test_sigterm_stops_the_fuzz_run_and_every_child_it_started(tmp_path: Path) -> None:
    import signal
    import time

    hang = tmp_path / "hang_copy.mjs"  # a path no other process has in its command line
    hang.write_text(HANG_JS.read_text())
    artifacts = tmp_path / "artifacts"
    run = subprocess.Popen(
        [*CHUNK_CONTRACT, "fuzz", f"exec:node {hang}", "--seconds", "600", "--timeout", "1",
         "--artifacts", str(artifacts), "--corpus", str(tmp_path / "corpus"), "--quiet",
         "--log", str(tmp_path / "fuzz.log"), "--reproducers", str(tmp_path / "repro")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        waited = time.monotonic() + 300  # a guard against a hang, not a verdict on speed
        while not (artifacts.is_dir() and any(artifacts.iterdir())):
            assert run.poll() is None and time.monotonic() < waited, "no artifact came"
            time.sleep(0.2)
        assert _processes_running(str(hang)), "the fuzzed node child should be running"
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 2 and "stopped every process it started" in err, err
    assert _processes_running(str(hang)) == []
