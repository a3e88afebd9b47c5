"""``chunk-contract campaign TARGET``: a HypoFuzz campaign for one chunker.

Writes a property test for TARGET (chunk_contract.integrations.campaign.hypofuzz) into a campaign
folder, runs HypoFuzz
(``hypothesis fuzz``) on it for ``--seconds`` on ``-n`` processes, then lists every violation it
found as a chunk-contract reproducer and exits 1 if there is one. Run the same command on many
machines with one ``--database redis://...`` and they fuzz together: each machine's corpus and
findings are every machine's. ``nox -s campaign -- TARGET [flags]`` installs HypoFuzz and runs it;
``python -m chunk_contract.integrations.campaign.driver TARGET`` is the same command.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from chunk_contract.config import plugins
from chunk_contract.containment import reaper
from chunk_contract.errors import UsageError, one_line
from chunk_contract.reporting.progress import ProgressBar
from chunk_contract.store import reproducers
from chunk_contract.store.database import ENV_VAR, open_database
from chunk_contract.transport.loading import load

PROG = "chunk-contract campaign"
HYPOFUZZ_MISSING = ("HypoFuzz is not installed (pip install 'chunk-contract[campaign]', "
                    "or run nox -s campaign)")

#: Hypothesis's command line (HypoFuzz adds ``fuzz`` to it), from this interpreter.
_CLI = "from hypothesis.extra.cli import main; main()"
CONFTEST = '''"""Written by chunk-contract campaign: the campaign's shared example database."""
from chunk_contract.integrations.campaign.hypofuzz import use_database

use_database({database!r})
'''
TEST = '''"""Written by chunk_contract.integrations.campaign.driver: the property test HypoFuzz
fuzzes."""
from chunk_contract.integrations.campaign.hypofuzz import property_test

test_campaign = property_test({target!r}, reproducers_dir={reproducers!r})
'''


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Parse ``argv`` and run the campaign; a usage error is one line and exit 2."""
    try:
        modules, given = plugins.take_flags(sys.argv[1:] if argv is None else argv)
        plugins.load_plugins(modules)
        return _campaign(_parser(prog).parse_args(given))
    except UsageError as exc:
        print(f"{prog}: error: {one_line(str(exc))}", file=sys.stderr)
        return 2


def _campaign(args: argparse.Namespace) -> int:
    """Check the target and the database, fuzz until ``--seconds``, list the findings."""
    if not args.seconds > 0:
        raise UsageError(f"--seconds must be greater than 0, got {args.seconds:g}")
    _require_hypofuzz()
    target = _absolute(args.target)
    load(target)  # a TargetError (a UsageError) before anything is written
    database = args.database or os.environ.get(ENV_VAR) or str(args.folder / "examples")
    open_database(database)  # a DatabaseError (a UsageError) likewise
    found = _prepare(args.folder, target, database)
    print(f"campaign: fuzzing {args.target} for {args.seconds:g} s on {args.jobs} process(es); "
          f"database {database}", file=sys.stderr)
    status = _fuzz(args.folder, args.jobs, args.seconds, found, quiet=args.quiet)
    if status is not None and status != 0:
        print(f"campaign: HypoFuzz stopped early with exit status {status}", file=sys.stderr)
        return max(_report(found), 2)
    return _report(found)


def _require_hypofuzz() -> None:
    try:
        import hypofuzz  # noqa: F401
    except ImportError:
        raise UsageError(HYPOFUZZ_MISSING) from None


class _Parser(argparse.ArgumentParser):
    """Errors as UsageErrors (one line, exit 2), not argparse's usage text."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="A HypoFuzz campaign on one chunker: fuzz its "
                     "property test for --seconds, then list what it found as reproducers.")
    parser.add_argument("target", help="file.py:attr, module:attr or a registered plugin name")
    parser.add_argument("--seconds", type=float, default=600.0, help="how long (default 600)")
    parser.add_argument("-n", "--jobs", default=str(os.cpu_count() or 1),
                        help="fuzzing processes (default: one per CPU)")
    parser.add_argument("--database", default=None,
                        help=f"a folder or redis:// URL shared by every machine of the campaign "
                             f"(default ${ENV_VAR}, else FOLDER/examples)")
    parser.add_argument("--folder", type=Path, default=Path("build/campaign"),
                        help="where the campaign's test, database and reproducers go")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
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


def _fuzz(folder: Path, jobs: str, seconds: float, found: Path, *, quiet: bool = False
          ) -> int | None:
    """Run HypoFuzz until ``seconds`` have passed (it never stops by itself), showing the time
    left and the findings so far (reproducers in ``found``).

    Returns HypoFuzz's exit status if it stopped by itself before that, else None.
    """
    command = [sys.executable, "-c", _CLI, "fuzz", "--no-dashboard", "-n", jobs, "--"]
    command += [str(folder), "-p", "no:cacheprovider"]
    log = folder / "hypofuzz.log"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(  # the plugin modules of this run named for its pytest
            command, start_new_session=True, stdout=out, stderr=subprocess.STDOUT,
            env=plugins.child_environment(),
        )
        print(f"campaign: HypoFuzz's output goes to {log}", file=sys.stderr)
        reaper.register(process.pid, "HypoFuzz")  # killed on a signal or at exit
        try:
            with campaign_bar(seconds, quiet=quiet) as bar:
                return _until(process, time.monotonic() + seconds,
                              lambda: show(bar, found))
        finally:
            reaper.unregister(process.pid)


def campaign_bar(
    seconds: float,
    *,
    quiet: bool = False,
    stream: TextIO | None = None,
    tty: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ProgressBar:
    """The campaign's progress: seconds of its budget done, findings so far, time left."""
    return ProgressBar(label="campaign", total=max(1, round(seconds)), unit="second",
                       budget_s=seconds, quiet=quiet, stream=stream, tty=tty, clock=clock)


def show(bar: ProgressBar, found: Path) -> None:
    """Update ``bar``: the seconds elapsed, and the reproducers saved so far as findings."""
    elapsed = bar.clock() - bar.started
    findings = sum(1 for _ in found.glob("*.json")) if found.is_dir() else 0
    bar.update(min(bar.total or 0, int(elapsed)), violations=findings)


def _until(process: subprocess.Popen[bytes], deadline: float,
           tick: Callable[[], None] = lambda: None) -> int | None:
    """Wait for ``process`` until ``deadline`` (calling ``tick`` twice a second), then stop
    its whole process group."""
    try:
        while process.poll() is None and time.monotonic() < deadline:
            tick()
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
        print(f"    {reproducers.replay_command(path, item.target)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m chunk_contract.integrations.campaign.driver"))
