"""Plugins for the containment tests: correct ones, and ones that misbehave only somewhere.

``HOST_SEED`` (an environment variable the tests set to the host's PYTHONHASHSEED) tells the
host's forked workers, which inherit it unchanged, from a fresh interpreter, which does not.
``MARK`` (an environment variable holding a random token) is inherited by every process of a
run, the grandchildren these plugins spawn included, so a test can find them all in /proc.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from chunk_contract_reference.fixed import split as fixed_split

HOST_SEED = "CONTAIN_HOST_SEED"
MARK = "CONTAIN_MARK"


def _fresh() -> bool:
    """True inside a fresh interpreter (another PYTHONHASHSEED than the host's)."""
    return os.environ.get("PYTHONHASHSEED", "none") != os.environ.get(HOST_SEED, "none")


def split(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """A correct chunker (the reference fixed-size one)."""
    return fixed_split(document, max_size=max_size, overlap=overlap)


def hangs_when_fresh(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """Correct in the host's workers; hangs forever in a fresh interpreter."""
    while _fresh():
        time.sleep(0.05)
    return split(document, max_size=max_size, overlap=overlap)


def leaves_a_holder_when_fresh(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """Correct everywhere; in a fresh interpreter it first starts, in a session of its own,
    a ``sleep`` that inherits (and so holds open) the interpreter's stdout and stderr."""
    if _fresh() and not os.environ.get("HOLDER_STARTED"):
        os.environ["HOLDER_STARTED"] = "1"
        holder = subprocess.Popen(["sleep", "1000"], start_new_session=True)
        Path(os.environ["HOLDER_PIDFILE"]).write_text(str(holder.pid))
    return split(document, max_size=max_size, overlap=overlap)


def dies_when_fresh(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """Correct in the host's workers; the fresh interpreter dies with a message."""
    if _fresh():
        os.write(2, b"fresh interpreter going down\n")
        os._exit(7)
    return split(document, max_size=max_size, overlap=overlap)


#: Kept alive so the allocation is not freed before the chunks are returned.
_HELD: list[bytearray] = []


def allocates_when_fresh(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """Correct in the host's workers; allocates 3 GiB in a fresh interpreter."""
    if _fresh():
        _HELD.append(bytearray(3 * 2**30))
    return split(document, max_size=max_size, overlap=overlap)


def _spawn_marked_sleep() -> None:
    """Starts ``sleep 1000``, which inherits the run's marker (once per process)."""
    if getattr(_spawn_marked_sleep, "done", 0) == os.getpid():
        return
    _spawn_marked_sleep.done = os.getpid()  # type: ignore[attr-defined]
    subprocess.Popen(["sleep", "1000"])  # inherits MARK in its environment


def spawns_and_hangs(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """Spawns a marked ``sleep 1000`` grandchild, then hangs (until the timeout kills it)."""
    _spawn_marked_sleep()
    time.sleep(1000)
    return []


def slow_split(document: str, *, max_size: int, overlap: int = 0) -> Any:
    """A correct chunker that takes 50 ms a call (a run long enough to interrupt). Each call
    is counted in the file named by $CHUNK_CONTRACT_TEST_CALLS, when set."""
    time.sleep(0.05)
    calls = os.environ.get("CHUNK_CONTRACT_TEST_CALLS")
    if calls:
        with open(calls, "a", encoding="ascii") as out:
            out.write(".")
    return split(document, max_size=max_size, overlap=overlap)
