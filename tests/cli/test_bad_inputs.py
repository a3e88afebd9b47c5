"""The bad-input battery of issues 14/15/18: every bad input is exit 2 and one line, found up front.

Each row is an input that once gave a traceback, a hang, a silent pass or a wrong verdict, with
the outcome promised now. Rows run ``chunk_contract.cli.main.main`` in-process unless reading the
input could block (a FIFO): those run in a subprocess with a timeout, so a regression fails instead
of hanging the suite.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from chunk_contract import _files
from chunk_contract.cli.main import main
from chunk_contract.store import database, reproducers

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
PLUGINS = f"{HERE / 'plugins.py'}"
FIXED = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
TINY = ["--max-examples", "1", "--no-corpus", "-q", "--skip", "scales_linearly,deterministic"]


@pytest.fixture(autouse=True)
def _in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHUNK_CONTRACT_PROFILE", raising=False)
    monkeypatch.delenv("CHUNK_CONTRACT_DATABASE", raising=False)


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``argv``; assert exit 2 with exactly one ``chunk-contract: error:`` line; return it."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("chunk-contract: error: ") and err.count("chunk-contract:") == 1
    assert "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------------- flags


@pytest.mark.parametrize(
    "flags, says",
    [
        (["--timeout", "inf"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "1e9"], "at most 3600"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "0"], "--timeout"),
        (["--memory-mb", "1"], "from 64"),
        (["--memory-mb", str(10**12)], "--memory-mb"),
        (["--max-examples", "0"], "positive integer"),
        (["--max-examples", str(10**8)], "at most 10000000"),
        (["--max-examples", "9" * 5000], "expected a number"),
        (["--seed", "1e3"], "expected a number"),
        (["--seed", str(2**70)], "--seed"),
        (["--only", "no_such_rule"], "unknown invariant id(s) no_such_rule"),
    ],
)
def test_bad_run_flags(flags: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert says in usage_error(["run", FIXED, *flags], capsys)


@pytest.mark.parametrize("flags", [["--max-size", str(10**12)], ["--max-size", "x"]])
def test_bad_check_flags(
    flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "doc.txt").write_text("hello")
    assert "--max-size" in usage_error(["check", FIXED, "doc.txt", *flags], capsys)


def test_check_has_no_seed_and_names_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "doc.txt").write_text("hello")
    assert "--seed" in usage_error(
        ["check", FIXED, "doc.txt", "--max-size", "3", "--seed", "1"], capsys
    )
    assert "is a directory" in usage_error(
        ["check", FIXED, str(tmp_path), "--max-size", "3"], capsys
    )


# ----------------------------------------------------------------------------- the table


@pytest.mark.parametrize(
    "line, says",
    [
        ("timeout = nan", "timeout must be a positive number"),
        ("timeout = inf", "timeout must be a positive number"),
        ("timeout = 1e9", "at most 3600"),
        ("max-examples = 1e3", "max-examples must be a positive integer"),
        ("max-examples = 100000000", "at most 10000000"),
        ("memory-mb = 1", "memory-mb must be an integer from 64"),
        ("shrink-seconds = -inf", "shrink-seconds"),
        ("seed = true", "seed must be an integer"),
        ("max-exmaples = 3", "unknown key 'max-exmaples'"),
    ],
)
def test_bad_table_values(
    line: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.chunk-contract]\ntargets = ["{FIXED}"]\n{line}\n'
    )
    assert says in usage_error(["run", "-q"], capsys)


# ----------------------------------------------------------------------------- databases


def test_redis_url_error_hides_the_password(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("redis")
    line = usage_error(["run", FIXED, "--database", "redis://me:hunter2@localhost:99999/0"], capsys)
    assert "redis://me:***@localhost:99999/0" in line and "hunter2" not in line


def test_unknown_database_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    assert "unknown URL scheme" in usage_error(["run", FIXED, "--database", "ftp://x"], capsys)


# ----------------------------------------------------------------------------- report paths


# Special files are made in tmp_path, never /dev/null itself: a regression (or the code before
# this check), run as root, would rename a regular file over the machine's /dev/null.


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _socket(tmp_path: Path) -> Path:
    import socket

    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays
    return path


def _link_to_fifo(tmp_path: Path) -> Path:
    link = tmp_path / "link.json"
    link.symlink_to(_fifo(tmp_path))
    return link


@pytest.mark.parametrize(
    "flag, where, says",
    [
        ("--reproducers", _fifo, "is not a folder"),
        ("--reproducers", lambda tmp: tmp / "file", "is not a folder"),
        ("--json", lambda tmp: tmp, "is a directory"),
        ("--junit", lambda tmp: tmp, "is a directory"),
        ("--sarif", _socket, "not a regular file"),
        ("--markdown", _fifo, "not a regular file"),
        ("--json", _fifo, "not a regular file"),
        ("--json", _link_to_fifo, "not a regular file"),
        ("--json", lambda tmp: tmp / "file" / "under-a-file.json", "Not a directory"),
    ],
)
def test_bad_report_paths_are_refused_before_the_run(
    flag: str,
    where: Callable[[Path], Path],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "file").write_text("")
    path = where(tmp_path)
    before = path.lstat().st_mode if path.exists() else None
    assert says in usage_error(["run", FIXED, *TINY, flag, str(path)], capsys)
    if before is not None:
        assert path.lstat().st_mode == before  # never replaced by a regular file


@pytest.mark.skipif(
    os.geteuid() == 0, reason="platform: running as root, which may write into a read-only folder"
)
def test_read_only_report_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert "permission denied" in usage_error(
        ["run", FIXED, "--json", str(folder / "r.json")], capsys
    )


def test_matrix_json_folder_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert "not a folder" in usage_error(["matrix", FIXED, "--json", "file"], capsys)


def test_a_symlinked_report_is_written_through(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    _files.write_json(link, {"ok": 1})
    assert link.is_symlink() and json.loads(target.read_text()) == {"ok": 1}


def test_reports_respect_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        _files.write_json(tmp_path / "r.json", {"ok": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o640


# ----------------------------------------------------------------------------- replaying files


def _at_most_1_gib() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))


def _replay_in_subprocess(path: Path) -> subprocess.CompletedProcess[str]:
    """``replay path`` in a child with a timeout and 1 GiB of memory: a regression fails, it
    neither hangs the suite nor reads /dev/zero into the machine's memory."""
    return subprocess.run(
        [sys.executable, "-m", "chunk_contract", "replay", str(path), "--trust-target"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_at_most_1_gib,
    )


@pytest.mark.parametrize("special", [_fifo, lambda tmp: Path("/dev/zero")])
def test_replay_of_a_fifo_or_device_does_not_block(
    special: Callable[[Path], Path], tmp_path: Path
) -> None:
    done = _replay_in_subprocess(special(tmp_path))
    assert done.returncode == 2 and "not a regular file" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "content, says",
    [
        (lambda tmp: tmp, "is a directory"),
        (lambda tmp: _write(tmp, b"\x89PNG\r\n\x1a\n\x00\xff"), "not UTF-8"),
        (lambda tmp: _write(tmp, b"[" * 100_000), "nested deeper"),
        (lambda tmp: _write(tmp, b""), "cannot read reproducer"),
        (lambda tmp: _write(tmp, b"1" * 5000), "cannot read reproducer"),
        (lambda tmp: tmp / "missing.json", "No such file"),
    ],
)
def test_replay_of_hostile_files(
    content: Callable[[Path], Path], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert says in usage_error(["replay", str(content(tmp_path)), "--trust-target"], capsys)


def _write(folder: Path, data: bytes) -> Path:
    path = folder / "file.json"
    path.write_bytes(data)
    return path


def test_oversized_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reproducers, "MAX_FILE_BYTES", 100)
    path = _write(tmp_path, b" " * 200)
    with pytest.raises(reproducers.ReproducerError, match="larger than"):
        reproducers.load(path)


# ----------------------------------------------------------------------------- crafted reproducers


def reproducer(**changes: object) -> dict[str, object]:
    """A valid reproducer of the correct ``slices`` plugin, with ``changes``."""
    body: dict[str, object] = {
        "format": "chunk-contract-reproducer",
        "version": 1,
        "target": f"{PLUGINS}:slices",
        "invariant": "no_lost_text",
        "kind": "text",
        "document": "ab cd",
        "config": {"max_size": 3, "overlap": 0},
        "message": "old",
        "limits": {"timeout": 2.0, "memory_mb": 1024},
    }
    body.update(changes)
    return body


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"invariant": "no_such_rule"}, "invariant must be one of"),
        ({"document": 5}, "a text document must be a string"),
        ({"kind": "pdf"}, "kind must be one of"),
        ({"config": {"max_size": "3", "overlap": 0}}, "config.max_size must be an integer"),
        ({"config": {"max_size": 3}}, "config must be"),
        ({"config": {"max_size": 0, "overlap": 0}}, "belongs to config_validation"),
        ({"config": {"max_size": 10**30, "overlap": 0}}, "config.max_size"),
        ({"target": ""}, "target must be a non-empty string"),
        ({"target": None}, "target must be"),
        ({"limits": {"timeout": float("nan")}}, "limits.timeout"),
        ({"limits": {"timeout": 1e999}}, "limits.timeout"),
        ({"limits": {"timeout": -1}}, "limits.timeout"),
        ({"limits": {"memory_mb": 1}}, "limits.memory_mb"),
        ({"limits": {"memory_mb": True}}, "limits.memory_mb"),
        ({"limits": "fast"}, "limits must hold"),
        ({"seed": "x"}, "seed must be"),
        ({"chunks": "x"}, "chunks must be"),
        ({"kind": "workbook", "document": {"sheets": {"S": {"not a ref": 1}}}}, "cell reference"),
        ({"kind": "workbook", "document": "text"}, "workbook document"),
    ],
)
def test_crafted_reproducers_are_usage_errors(
    changes: dict[str, object], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(reproducer(**changes)))
    assert says in usage_error(["replay", str(path), "--trust-target"], capsys)


def test_a_reproducer_cannot_lift_the_memory_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``memory_mb: null`` once lifted the cap: a 2 GiB plugin was FIXED with exit 0."""
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps(
            reproducer(
                target=f"{PLUGINS}:hog",
                invariant="terminates",
                limits={"timeout": 2, "memory_mb": None},
            )
        )
    )
    assert main(["replay", str(path), "--trust-target"]) == 1
    captured = capsys.readouterr()
    assert "STILL FAILS: terminates" in captured.out and "lowered to 1024 MiB" in captured.err


def test_a_reproducer_cannot_raise_the_timeout() -> None:
    saved = reproducers.parse(json.dumps(reproducer(limits={"timeout": 3000, "memory_mb": 10**6})))
    assert (saved.timeout, saved.memory_mb) == (3000, 10**6)  # kept as written, for databases
    bounded, note = reproducers.bounded(saved)
    assert (bounded.timeout, bounded.memory_mb) == (2.0, 1024) and "lowered" in note


def test_old_reproducers_stay_readable() -> None:
    body = reproducer()
    del body["limits"]
    saved = reproducers.parse(json.dumps(body))
    assert saved.base is None and saved.timeout == 2.0 and saved.memory_mb == 1024


def test_replay_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A relative file target is stored with the folder it resolves from."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "chunker.py").write_text((HERE / "plugins.py").read_text())
    monkeypatch.chdir(project)
    saved = reproducers.Reproducer(
        target="chunker.py:slices",
        invariant="no_lost_text",
        document="ab cd",
        config=reproducers.Config(3, 0),
        message="old",
    )
    path = reproducers.save(saved, project / "repro")
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(path), "--trust-target"]) == 0
    assert "FIXED" in capsys.readouterr().out


# ----------------------------------------------------------------------------- database entries


def test_a_bad_database_entry_is_skipped_with_one_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared = database.open_database(":memory:")
    key = shared.key(f"{PLUGINS}:slices", "text")
    shared.backend.save(
        key, json.dumps(reproducer(config={"max_size": "x", "overlap": 0})).encode()
    )
    shared.backend.save(key, b"not json at all")  # corrupt, under our key: counted
    shared.backend.save(key, json.dumps(reproducer(version=2)).encode())  # another version: quiet
    good = reproducers.parse(json.dumps(reproducer()))
    shared.save(good)
    assert shared.fetch(f"{PLUGINS}:slices", "text") == [good]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "warning" in err[0] and "skipped 2" in err[0]


def test_a_bad_saved_reproducer_does_not_stop_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "repro"
    folder.mkdir()
    body = reproducer(target=FIXED, limits={"timeout": "soon"})
    (folder / "no_lost_text-bad.json").write_text(json.dumps(body))
    assert main(["run", FIXED, *TINY, "--reproducers", str(folder)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("warning") == 1


# ----------------------------------------------------------------------------- check configs


@pytest.mark.parametrize(
    "plugin, flags, code, says",
    [
        ("words_only", ["--max-size", "0"], 1, "config_validation    violated"),
        ("slices", ["--max-size", "0"], 0, "config_validation    passed"),
        ("slices", ["--max-size", "3", "--overlap", "3"], 0, "config_validation    passed"),
        ("slices", ["--max-size", "-5"], 0, "config_validation    passed"),
    ],
)
def test_check_with_a_degenerate_config_is_config_validation(
    plugin: str,
    flags: list[str],
    code: int,
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "doc.txt").write_text("hello world foo\n")
    assert main(["check", f"{PLUGINS}:{plugin}", "doc.txt", *flags]) == code
    out = capsys.readouterr().out
    assert says in out and "0 invariants checked" not in out and "--seed" not in out


# ----------------------------------------------------------------------------- manners


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("chunk-contract ")


def test_every_option_has_help() -> None:
    import argparse

    from chunk_contract.cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            assert action.help, f"{name} {action.dest} has no help"


def test_a_closed_pipe_is_quiet() -> None:
    """``chunk-contract list | head -1``: the reader is gone before the first write."""
    read, write = os.pipe()
    os.close(read)  # closed before the child starts: its first write fails, every time
    try:
        done = subprocess.run(
            [sys.executable, "-m", "chunk_contract", "list"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    finally:
        os.close(write)
    assert done.returncode == 1 and done.stderr == ""


def test_a_closed_pipe_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    class Closed:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["list"]) == 1


def test_a_fetched_entry_is_deleted_by_the_bytes_it_came_from() -> None:
    """Entries of older versions (no ``base``) or with other limits are still deleted."""
    shared = database.open_database(":memory:")
    body = reproducer(limits={"timeout": 10.0, "memory_mb": None})
    del body["message"]
    key = shared.key(f"{PLUGINS}:slices", "text")
    shared.backend.save(key, json.dumps(body).encode())
    shared.delete(shared.fetch(f"{PLUGINS}:slices", "text"))
    assert shared.fetch(f"{PLUGINS}:slices", "text") == []


@pytest.mark.parametrize(
    "text, shown",
    [
        ("redis://me:pa@ss@host:6379/0", "redis://me:***@host:6379/0"),
        ("rediss://:secret@host", "rediss://:***@host"),
        ("redis://secret@host/0", "redis://***@host/0"),
        ("unix://me:secret@/tmp/redis.sock", "unix://me:***@/tmp/redis.sock"),
        ("redis://host:6379/0", "redis://host:6379/0"),
    ],
)
def test_secrets_are_masked(text: str, shown: str) -> None:
    from chunk_contract.errors import one_line, redact

    assert redact(text) == shown and one_line(f"bad\n{text}") == f"bad {shown}"


# ----------------------------------------------------------------------------- the pytest plugin


@pytest.mark.parametrize("flag, value", [
    ("--chunk-contract-max-examples", "-5"),
    ("--chunk-contract-max-examples", "0"),
    ("--chunk-contract-max-examples", str(10**12)),
    ("--chunk-contract-seed", str(2**70)),
])
def test_a_pytest_flag_out_of_bounds_is_one_usage_line(
    tmp_path: Path, flag: str, value: str
) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "chunk_contract.pytest.plugin", "-q", "-p",
         "no:cacheprovider", "--chunk-contract", FIXED, flag, value],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=120, check=False,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error, nothing ran
    assert f"argument {flag}: the value must be" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "passed" not in done.stdout


@pytest.mark.parametrize("value", ["1e308", "1e400", "nan", "-1", "0", "\x1b[2J"])
def test_a_load_timeout_out_of_bounds_is_one_usage_line(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHUNK_CONTRACT_LOAD_TIMEOUT", value)
    line = usage_error(["run", FIXED, *TINY], capsys)
    assert "CHUNK_CONTRACT_LOAD_TIMEOUT" in line and "\x1b" not in line
