"""A property test of the command line itself: whatever it is given, it answers like a tool.

Generated flag values (numbers with nan/inf/huge/negative, junk strings), pyproject.toml
tables, files (binary, empty, deeply nested, huge numbers, wrong types) and reproducer contents
go through ``chunk_contract.cli.main.main`` in-process. Every answer must be exit 0, 1 or 2, never a
traceback (an exception escaping ``main`` fails the test), and an exit 2 is exactly one line.
``run`` stops after planning (every check of the front door happens before a run starts), so
an accepted budget never starts a long run; a few cases run for real, or in a subprocess.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunk_contract.cli import check as checking
from chunk_contract.cli import run as project
from chunk_contract.cli.main import main

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
SLICES = f"{HERE / 'plugins.py'}:slices"
#: A hang guard only: a call of the front door takes well under a second.
BOUND_SECONDS = 120.0

FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, -1, 1, 63, 64, 3600, 3601, 10**7, 10**7 + 1, 2**64, 2**64 + 1]),
)
JUNK = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["nan", "inf", "-inf", "1e999", "0x10", "1_000", "", " ", "٣", "9" * 5000]),
)
FLAG_VALUES = st.one_of(NUMBERS.map(str), JUNK)
RUN_FLAGS = [
    "--timeout",
    "--memory-mb",
    "--max-examples",
    "--seed",
    "--jobs",
    "--only",
    "--skip",
    "--profile",
    "--json",
    "--junit",
    "--reproducers",
]


@contextmanager
def in_scratch_folder() -> Iterator[Path]:
    """A fresh current folder (junk paths land there), restored afterwards."""
    before = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            yield Path(scratch)
        finally:
            os.chdir(before)


def answer(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run ``main(argv)``; check the manners every answer must have; return (code, stderr)."""
    started = time.monotonic()
    code = main(argv)
    err = capsys.readouterr().err
    assert time.monotonic() - started < BOUND_SECONDS
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("chunk-contract: error: "), err
    return code, err


@pytest.fixture
def plan_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run`` resolves and checks everything, then stops before exploring."""

    def planned(args: Any) -> int:
        jobs = project.plan(args)
        project._report_paths(args)
        return 0 if jobs else 1

    monkeypatch.setattr(project, "run_command", planned)
    monkeypatch.delenv("CHUNK_CONTRACT_PROFILE", raising=False)
    monkeypatch.delenv("CHUNK_CONTRACT_DATABASE", raising=False)


@FAST
@given(flags=st.lists(st.tuples(st.sampled_from(RUN_FLAGS), FLAG_VALUES), max_size=3))
def test_run_flags(
    flags: list[tuple[str, str]], plan_only: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with in_scratch_folder():
        answer(["run", SLICES, *(part for pair in flags for part in pair)], capsys)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            ("nan" if math.isnan(value) else "inf" if value > 0 else "-inf")
            if not (math.isfinite(value))
            else repr(value)
        )
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


TOML_VALUES = st.recursive(
    st.one_of(st.booleans(), NUMBERS, st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3),
)
TABLE_KEYS = [
    "max-examples",
    "timeout",
    "memory-mb",
    "seed",
    "explore-seconds",
    "shrink-seconds",
    "max-length",
    "profile",
    "corpus",
    "only",
    "skip",
    "reproducers",
    "database",
    "targets",
    "typo-key",
]


@FAST
@given(table=st.dictionaries(st.sampled_from(TABLE_KEYS), TOML_VALUES, max_size=3))
def test_pyproject_tables(
    table: dict[str, Any], plan_only: None, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [f'targets = ["{SLICES}"]'] if "targets" not in table else []
    lines += [f"{key} = {_toml(value)}" for key, value in table.items()]
    with in_scratch_folder() as folder:
        (folder / "pyproject.toml").write_text("[tool.chunk-contract]\n" + "\n".join(lines) + "\n")
        (folder / ".git").mkdir()  # the search for a pyproject.toml stops here
        answer(["run", "-q"], capsys)


FILES = st.one_of(
    st.binary(max_size=64),
    st.integers(min_value=1, max_value=3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=3000).map(lambda n: b'{"a":' * n),
    st.sampled_from([b"", b"null", b"1" * 5000, b"1e999", b'"x"', b"[]", b"{}", b"\xff\xfe"]),
)


@FAST
@given(content=FILES)
def test_replay_of_any_file_is_one_line(content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    with in_scratch_folder() as folder:
        (folder / "r.json").write_bytes(content)
        code, _ = answer(["replay", "r.json", "--trust-target"], capsys)
    assert code == 2


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=8)),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
VALID = {
    "format": "chunk-contract-reproducer",
    "version": 1,
    "target": SLICES,
    "invariant": "no_lost_text",
    "kind": "text",
    "document": "ab cd",
    "config": {"max_size": 3, "overlap": 0},
    "message": "old",
    "chunks": None,
    "limits": {"timeout": 2.0, "memory_mb": 1024},
    "seed": None,
    "base": None,
}


@FAST
@given(changes=st.dictionaries(st.sampled_from(sorted(VALID)), JSON, max_size=3))
def test_crafted_reproducers(
    changes: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any field replaced by any JSON value: read as a reproducer, or refused in one line."""
    seen: list[Any] = []
    monkeypatch.setattr(checking, "replay", lambda saved, **limits: seen.append(limits) or 0)
    with in_scratch_folder() as folder:
        (folder / "r.json").write_text(json.dumps({**VALID, **changes}))
        code, _ = answer(["replay", "r.json", "--trust-target"], capsys)
    assert code == 2 or len(seen) == 1


@settings(FAST, max_examples=8)
@given(
    document=st.text(max_size=30),
    max_size=st.integers(min_value=-3, max_value=6),
    limits=st.fixed_dictionaries({"timeout": NUMBERS, "memory_mb": st.one_of(st.none(), NUMBERS)}),
)
def test_real_replays(
    document: str, max_size: int, limits: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """A few real replays of the correct plugin: they pass, or the file is refused."""
    body = {
        **VALID,
        "document": document,
        "config": {"max_size": max_size, "overlap": 0},
        "invariant": "no_lost_text" if max_size >= 1 else "config_validation",
        "limits": limits,
    }
    with in_scratch_folder() as folder:
        (folder / "r.json").write_text(json.dumps(body))
        code, _ = answer(["replay", "r.json", "--trust-target"], capsys)
    # A valid timeout shorter than a call takes is a real `terminates` verdict (exit 1), however
    # fast the machine: only such a timeout may give 1 on this correct plugin.
    timeout = limits["timeout"]
    tiny = isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout < 5
    assert code in (0, 2) or (code == 1 and tiny)


@settings(FAST, max_examples=8)
@given(content=st.binary(max_size=40), max_size=FLAG_VALUES)
def test_check_of_any_file(
    content: bytes, max_size: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check`` of the correct plugin on any bytes with any --max-size: never a crash."""
    with in_scratch_folder() as folder:
        (folder / "doc.txt").write_bytes(content)
        code, _ = answer(["check", SLICES, "doc.txt", "--max-size", max_size], capsys)
    assert code in (0, 2)


def _at_most_1_gib() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))


@pytest.mark.parametrize(
    "argv",
    [
        ["run", SLICES, "--timeout", "nan"],
        ["run", SLICES, "--memory-mb", "1"],
        ["replay", "/dev/zero"],
        ["check", SLICES, "/", "--max-size", "3"],
        ["run", SLICES, "--database", "redis://u:secret@localhost:99999/0"],
    ],
)
def test_console_script(argv: list[str]) -> None:
    """The same manners from the console script, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", *argv],
        capture_output=True,
        text=True,
        timeout=BOUND_SECONDS,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_at_most_1_gib,  # a regression reading /dev/zero fails, the machine stays
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "secret" not in done.stderr
