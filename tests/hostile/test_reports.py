"""Reports as attack surface: a plugin cannot forge, break or inject into what the host prints
and writes, and a file that cannot be written costs one line, never the verdict.

The hostile plugins (``report_plugins.py``) are known-defective chunkers, so every honest run
of them ends in exit 1 with a report saying so. Runs of them are real command lines in fresh
interpreters, bounded in time; runs of a correct reference chunker are in this process.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from chunk_contract import _files
from chunk_contract.cli.main import main
from chunk_contract.errors import one_line, printable, redact
from chunk_contract.reporting import sarif
from tests.unit.helpers import running

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PLUGINS = HERE / "report_plugins.py"
FIXED = f"{ROOT / 'chunk_contract_reference' / 'fixed.py'}:split"
SMALL = ["--max-examples", "4", "--timeout", "2", "--seed", "1", "--no-corpus",
         "--skip", "scales_linearly,deterministic"]
#: Seconds any one command line may take before the test fails (they take a few seconds).
RUN_LIMIT = 180
#: Terminal control the plugin's text must never carry to the reader.
RAW = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


def _command(tmp_path: Path, name: str, *args: str, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "chunk_contract", "run", f"{PLUGINS}:{name}", *SMALL, *args]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(argv, cwd=tmp_path, env=environ, capture_output=True, text=True,
                          timeout=RUN_LIMIT, check=False, errors="surrogateescape")


def _kill(pidfile: Path) -> None:
    with contextlib.suppress(OSError):
        for line in pidfile.read_text().split():
            with contextlib.suppress(OSError):
                os.kill(int(line), 9)


def _pids(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []


# ----------------------------------------------------------------------- forging the verdict


def test_a_daemon_left_behind_cannot_rewrite_the_json_report(tmp_path: Path) -> None:
    report, pidfile = tmp_path / "report.json", tmp_path / "pids"
    env = {"HOSTILE_REPORT": str(report), "HOSTILE_PIDFILE": str(pidfile)}
    try:
        done = _command(tmp_path, "rewrites_its_report", "--json", str(report), "-q", env=env)
        assert done.returncode == 1, done.stderr
        assert _pids(pidfile), "the daemon never started"
        assert not [p for p in _pids(pidfile) if running(p)], "the daemon outlived the run"
        time.sleep(0.2)  # were it alive, it would have rewritten the report by now
        data = json.loads(report.read_text())
        assert data["passed"] is False and "forged" not in data
    finally:
        _kill(pidfile)


def test_a_file_changed_after_it_was_written_is_written_again(tmp_path: Path) -> None:
    _files.forget()
    path = _files.write_json(tmp_path / "r.json", {"passed": False})
    path.write_text('{"passed": true}')
    notes = _files.recheck()
    assert json.loads(path.read_text()) == {"passed": False}
    assert len(notes) == 1 and "changed after it was written" in notes[0]
    assert _files.recheck() == []  # the journal is emptied: nothing twice


def test_an_untouched_file_is_not_written_again(tmp_path: Path) -> None:
    _files.forget()
    path = _files.write_json(tmp_path / "r.json", {"passed": False})
    before = path.stat().st_ino
    assert _files.recheck() == [] and path.stat().st_ino == before


# ----------------------------------------------------------------------- breaking the writes


def test_a_report_path_made_a_folder_costs_that_file_and_one_line(tmp_path: Path) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "r.xml"
    done = _command(tmp_path, "makes_its_report_a_folder", "--json", str(report),
                    "--junit", str(junit), "-q", env={"HOSTILE_REPORT": str(report)})
    assert done.returncode == 1, done.stderr  # the verdict stands: a defective chunker
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if "report.json" in line]
    assert len(lines) == 1 and lines[0].startswith("chunk-contract: error:"), done.stderr
    assert ET.parse(junit).getroot().tag == "testsuites"  # the other report is whole


def test_a_reproducer_folder_made_a_file_costs_the_reproducer_not_the_verdict(
    tmp_path: Path,
) -> None:
    report, repro = tmp_path / "report.json", tmp_path / "repro"
    done = _command(tmp_path, "makes_its_reproducers_a_file", "--json", str(report),
                    "--reproducers", str(repro), "-q", env={"HOSTILE_REPRO": str(repro)})
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "repro" in done.stderr
    data = json.loads(report.read_text())
    assert data["passed"] is False
    assert all(i["counterexample"]["reproducer"] is None
               for i in data["invariants"] if i["status"] == "violated")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_a_write_error_costs_that_file_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    code: int,
) -> None:
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if ".r.json." in os.readlink(f"/proc/self/fd/{fd}"):  # the JSON report's temp file
            raise OSError(code, os.strerror(code))
        real_fsync(fd)

    monkeypatch.setattr(_files.os, "fsync", fsync)
    json_path, junit = tmp_path / "r.json", tmp_path / "r.xml"
    exit_code = main(["run", FIXED, *SMALL, "-q", "--json", str(json_path),
                      "--junit", str(junit)])
    err = capsys.readouterr().err
    assert exit_code == 0, err  # a correct chunker: it passed, whatever the disk did
    lines = [line for line in err.splitlines() if "r.json" in line]
    assert len(lines) == 1 and os.strerror(code) in lines[0], err
    assert not json_path.exists() and not list(tmp_path.glob(".r.json.*"))  # nothing half
    assert ET.parse(junit).getroot().tag == "testsuites"


# ----------------------------------------------------------------------- symlinks and modes


def test_a_symlinked_json_is_not_followed_out_of_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, out = tmp_path / "private", tmp_path / "out"
    private.mkdir()
    out.mkdir()
    secret = private / "secret"
    secret.write_text("secret\n")
    secret.chmod(0o600)
    link = out / "r.json"
    link.symlink_to(secret)
    assert main(["run", FIXED, *SMALL, "-q", "--json", str(link)]) == 0, capsys.readouterr()
    assert secret.read_text() == "secret\n" and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert not link.is_symlink() and json.loads(link.read_text())["passed"] is True
    assert stat.S_IMODE(link.stat().st_mode) == 0o600  # what was private stays private


def test_a_symlink_within_its_folder_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "sub" / "real.json"
    real.parent.mkdir()
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    _files.write_json(link, {"ok": 1})
    assert link.is_symlink() and json.loads(real.read_text()) == {"ok": 1}


def test_the_mode_of_a_replaced_report_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    report.write_text("{}")
    report.chmod(0o600)
    assert main(["run", FIXED, *SMALL, "-q", "--json", str(report)]) == 0, capsys.readouterr()
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert json.loads(report.read_text())["passed"] is True


# ----------------------------------------------------------------------- injecting into output


def test_escapes_and_lone_surrogates_reach_no_terminal_and_every_report_parses(
    tmp_path: Path,
) -> None:
    paths = {name: tmp_path / f"r.{name}" for name in ("json", "junit", "sarif", "markdown",
                                                        "html")}
    flags = [arg for name, path in paths.items() for arg in (f"--{name}", str(path))]
    done = _command(tmp_path, "raises_escapes", *flags)
    assert done.returncode == 1, done.stderr
    shown = done.stdout + done.stderr
    assert not [c for c in RAW if c in shown], [c for c in RAW if c in shown]
    assert "\\x1b[2J" in done.stdout and "Traceback" not in shown
    assert max(map(len, shown.splitlines())) < 20_000  # a 100,000-character message is cut
    assert json.loads(paths["json"].read_text())["passed"] is False
    assert json.loads(paths["sarif"].read_text())["runs"]
    suites = ET.parse(paths["junit"]).getroot()
    assert not [c for c in RAW if c in ET.tostring(suites, encoding="unicode")]
    assert not [c for c in RAW if c in paths["markdown"].read_text()]
    assert paths["html"].read_text().startswith("<!doctype html>")


def test_a_terminal_that_takes_only_ascii_still_gets_the_report_and_the_files(
    tmp_path: Path,
) -> None:
    report = tmp_path / "r.json"
    done = _command(tmp_path, "raises_escapes", "--json", str(report),
                    env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "FAILED" in done.stdout
    assert json.loads(report.read_text())["passed"] is False


def test_the_journal_is_per_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file an earlier command wrote, changed since, is not this command's to restore."""
    earlier = _files.write_json(tmp_path / "earlier.json", {"a": 1})
    earlier.write_text("changed by the user")
    assert main(["run", FIXED, *SMALL, "-q", "--json", str(tmp_path / "r.json")]) == 0
    assert earlier.read_text() == "changed by the user"
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("text", [
    "\x1b[2J", "\x1b]52;c;cHduZWQ=\x07", "ok\rPASSED", "\x9b31m", "\ud800", "\u202egnp.exe",
    "\x00\x7f\ufffe",
])
def test_printable_escapes_what_a_terminal_or_xml_would_obey(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()
    assert not [c for c in (*RAW, "\x00", "\ud800", "\ufffe") if c in shown]
    shown.encode("utf-8")  # no lone surrogate left
    ET.fromstring(f"<a>{shown}</a>")  # XML takes it


def test_printable_keeps_lines_only_when_asked_and_cuts() -> None:
    assert printable("a\nb\tc") == "a\\nb\\tc"
    assert printable("a\nb\tc", lines=True) == "a\nb\tc"
    assert len(printable("x" * 10**6, limit=100)) < 200


# ----------------------------------------------------------------------- linear time


@pytest.mark.parametrize("text", [
    "a" * 10**6, "a://" * 250_000, "a" * 10**6 + "://" + "b" * 10**6, "@" * 10**6,
    "x://" + "u:" * 500_000, "a" * 100_000 + ":/",
], ids=["letters", "schemes", "scheme-then-host", "ats", "colons", "almost"])
def test_redaction_takes_linear_time(text: str) -> None:
    started = time.monotonic()
    redact(text)
    one_line(text)
    assert time.monotonic() - started < 2.0


def test_redaction_still_masks_every_secret() -> None:
    assert redact("redis://user:p@ss@host/0 and http://tok@h") == (
        "redis://user:***@host/0 and http://***@h"
    )
    assert redact("1abc://u:p@h") == "1abc://u:***@h"
    assert redact("no url here") == "no url here"


def test_a_target_of_100000_letters_is_one_fast_usage_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    started = time.monotonic()
    assert main(["run", "a" * 100_000, "--max-examples", "1"]) == 2
    err = capsys.readouterr().err
    assert time.monotonic() - started < 20.0
    assert len(err.strip().splitlines()) == 1 and len(err) < 5000


# ----------------------------------------------------------------------- claimed locations


@pytest.mark.parametrize("claim", [
    ("/etc/passwd", 1), ("{base}/../outside.py", 3), ("{base}/chunker.py", 10**12),
    ("{base}/chunker.py", 0), ("{base}/chunker.py\x1b[2J", 2), ("{base}/missing.py", 2),
    ("{base}/chunker.py", True), ["{base}/chunker.py"], "not a location",
])
def test_sarif_believes_no_location_a_plugin_claims_outside_the_project(
    tmp_path: Path, claim: Any
) -> None:
    base = tmp_path / "project"
    base.mkdir()
    (base / "chunker.py").write_text("def split(): ...\n")
    (tmp_path / "outside.py").write_text("x = 1\n")
    if isinstance(claim, tuple | list):
        claim = [claim[0].format(base=base), *claim[1:]]
    plugin = SimpleNamespace(location=claim, split=None)
    where = sarif._location("exec:./chunk", plugin, base.resolve())["physicalLocation"]
    assert where["artifactLocation"]["uri"] in ("chunk", "pyproject.toml")
    assert where["region"]["startLine"] == 1


def test_sarif_uses_a_location_inside_the_project(tmp_path: Path) -> None:
    (tmp_path / "chunker.py").write_text("\n" * 20)
    plugin = SimpleNamespace(location=(str(tmp_path / "chunker.py"), 12), split=None)
    where = sarif._location("exec:./chunk", plugin, tmp_path.resolve())["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "chunker.py"
    assert where["region"]["startLine"] == 12


@pytest.mark.parametrize("field", ["chunk_contract", "unit", "promises", "kind"])
def test_a_handshake_value_of_a_million_letters_is_a_short_error_fast(field: str) -> None:
    from chunk_contract.transport import wire

    line = json.dumps({"chunk_contract": 1, field: "\x1b" + "a" * 10**6}).encode()
    started = time.monotonic()
    with pytest.raises(wire.HandshakeError) as caught:
        wire.parse_handshake(line)
    message = one_line(f"exec:x: {caught.value}")
    assert time.monotonic() - started < 2.0
    assert len(message) < 1000 and "\x1b" not in message
