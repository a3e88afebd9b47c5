"""``python -m contract.campaign_driver TARGET``: a HypoFuzz campaign for one chunker.

Writes a property test for TARGET (contract.campaign) into a campaign folder, runs HypoFuzz
(``hypothesis fuzz``) on it for ``--seconds`` on ``-n`` processes, then lists every violation it
found as a chunk-contract reproducer and exits 1 if there is one. Run the same command on many
machines with one ``--database redis://...`` and they fuzz together: each machine's corpus and
findings are every machine's. ``nox -s campaign -- TARGET [flags]`` installs HypoFuzz and runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from contract import errors
from contract.engine import reproducers
from contract.engine.database import ENV_VAR, open_database
from contract.engine.loading import load
from contract.errors import UsageError

#: Hypothesis's command line (HypoFuzz adds ``fuzz`` to it), from this interpreter.
_CLI = "from hypothesis.extra.cli import main; main()"
CONFTEST = '''"""Written by contract.campaign_driver: the campaign's shared example database."""
from contract.campaign import use_database

use_database({database!r})
'''
TEST = '''"""Written by contract.campaign_driver: the property test HypoFuzz fuzzes."""
from contract.campaign import property_test

test_campaign = property_test({target!r}, reproducers_dir={reproducers!r})
'''


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        import hypofuzz  # noqa: F401
    except ImportError:
        print("campaign: HypoFuzz is not installed (pip install 'chunk-contract[campaign]', "
              "or run nox -s campaign)", file=sys.stderr)
        return 2
    try:
        target = _absolute(args.target)
        load(target)
        database = args.database or os.environ.get(ENV_VAR) or str(args.folder / "examples")
        open_database(database)
    except UsageError as exc:  # the one root of user-facing errors (contract.errors)
        print(f"campaign: error: {errors.one_line(str(exc))}", file=sys.stderr)
        return 2
    found = _prepare(args.folder, target, database)
    print(f"campaign: fuzzing {args.target} for {args.seconds:g} s on {args.jobs} process(es); "
          f"database {database}", file=sys.stderr)
    status = _fuzz(args.folder, args.jobs, args.seconds)
    if status is not None and status != 0:
        print(f"campaign: HypoFuzz stopped early with exit status {status}", file=sys.stderr)
        return max(_report(found), 2)
    return _report(found)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m contract.campaign_driver")
    parser.add_argument("target", help="file.py:attr, module:attr or a registered plugin name")
    parser.add_argument("--seconds", type=float, default=600.0, help="how long (default 600)")
    parser.add_argument("-n", "--jobs", default=str(os.cpu_count() or 1),
                        help="fuzzing processes (default: one per CPU)")
    parser.add_argument("--database", default=None,
                        help=f"a folder or redis:// URL shared by every machine of the campaign "
                             f"(default ${ENV_VAR}, else FOLDER/examples)")
    parser.add_argument("--folder", type=Path, default=Path("build/campaign"),
                        help="where the campaign's test, database and reproducers go")
    return parser


def _absolute(target: str) -> str:
    """File targets become absolute, so the written test finds them from anywhere."""
    path, sep, attr = target.rpartition(":")
    if sep and path.endswith(".py") and Path(path).is_file():
        return f"{Path(path).resolve()}:{attr}"
    return target


def _prepare(folder: Path, target: str, database: str) -> Path:
    """Write the conftest and the test; return the (emptied) reproducer folder."""
    found = folder / "reproducers"
    shutil.rmtree(found, ignore_errors=True)
    found.mkdir(parents=True)
    (folder / "conftest.py").write_text(CONFTEST.format(database=database), encoding="utf-8")
    (folder / "test_campaign.py").write_text(
        TEST.format(target=target, reproducers=str(found.resolve())), encoding="utf-8"
    )
    return found


def _fuzz(folder: Path, jobs: str, seconds: float) -> int | None:
    """Run HypoFuzz until ``seconds`` have passed (it never stops by itself).

    Returns HypoFuzz's exit status if it stopped by itself before that, else None.
    """
    command = [sys.executable, "-c", _CLI, "fuzz", "--no-dashboard", "-n", jobs, "--"]
    command += [str(folder), "-p", "no:cacheprovider"]
    log = folder / "hypofuzz.log"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command, start_new_session=True, stdout=out, stderr=subprocess.STDOUT
        )
        print(f"campaign: HypoFuzz's output goes to {log}", file=sys.stderr)
        return _until(process, time.monotonic() + seconds)


def _until(process: subprocess.Popen[bytes], deadline: float) -> int | None:
    """Wait for ``process`` until ``deadline``, then stop its whole process group."""
    try:
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        return process.poll()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _report(found: Path) -> int:
    saved = sorted(found.glob("*.json"))
    if not saved:
        print("campaign: no violation found", file=sys.stderr)
        return 0
    print(f"campaign: {len(saved)} violation(s) found:", file=sys.stderr)
    for path in saved:
        item = reproducers.load(path)
        print(f"  {item.invariant}: {item.message.splitlines()[0][:160]}", file=sys.stderr)
        print(f"    document = {item.document!r:.120}  config = {item.config}", file=sys.stderr)
        print(f"    chunk-contract replay {path}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
