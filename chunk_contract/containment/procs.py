"""A child's whole process tree, from outside: its members, CPU time, resident memory, the kill.

An out-of-process plugin is started as the leader of a session of its own
(``start_new_session=True``), so every process it starts (a shell, ``sleep`` grandchildren,
node's workers) carries its session id unless it calls ``setsid`` itself. Members are found in
``/proc`` by that session id (and by process group, for the kill). Linux only for the /proc
parts; elsewhere the helpers see the leader alone.

Where cgroup v2 is writable, each child also gets a cgroup of its own (:class:`Cgroup`): exact
CPU time (µs, reaped processes included), a kill that reaches processes that left the session,
and, when the memory controller is on, ``memory.max``. Otherwise memory is watched as the
group's resident size (:func:`session_rss`) while a call runs, and CPU time read in clock ticks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

_PROC = Path("/proc")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
# Fields of /proc/PID/stat after the ")" that closes the command name (field 3 is index 0).
_STATE, _PPID, _PGRP, _SESSION = 0, 1, 2, 3
_UTIME, _STIME, _CUTIME, _CSTIME, _RSS = 11, 12, 13, 14, 21
#: The index of the resident size (in pages) in :func:`stat`'s fields, and the page size.
RSS, PAGE = _RSS, _PAGE


def stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, or None if it is gone.

    Read with bare ``os`` calls: :func:`members` reads one per process on the machine, every
    memory tick of a call, and pathlib plus a buffered file cost most of that scan.
    """
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw[raw.rfind(b")") + 2 :].decode("ascii", "replace").split()


def members(leader: int) -> list[tuple[int, list[str]]]:
    """Every live (non-zombie) process in ``leader``'s session or process group, with its stat."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(_PROC):
            if not entry.name.isdigit():
                continue
            fields = stat(entry.name)
            if fields is None or fields[_STATE] == "Z":
                continue
            if str(leader) in (fields[_SESSION], fields[_PGRP]):
                found.append((int(entry.name), fields))
    return found


def children(parent: int) -> list[tuple[int, bool]]:
    """Every child of ``parent`` (pid, whether it is a zombie), from /proc (none elsewhere)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(_PROC):
            fields = stat(entry.name) if entry.name.isdigit() else None
            if fields is not None and fields[_PPID] == str(parent):
                found.append((int(entry.name), fields[_STATE] == "Z"))
    return found


def session_cpu_seconds(leader: int) -> float:
    """User + system CPU seconds of the group: its live members and the children they reaped."""
    ticks = 0
    for _, fields in members(leader):
        ticks += sum(int(fields[i]) for i in (_UTIME, _STIME, _CUTIME, _CSTIME))
    return ticks / _CLOCK_TICKS


def cpu_ticks(pid: int) -> int:
    """Clock ticks of user + system CPU of ``pid`` and the children it reaped (0 if gone)."""
    fields = stat(pid)
    if fields is None:
        return 0
    return sum(int(fields[i]) for i in (_UTIME, _STIME, _CUTIME, _CSTIME))


def ticks_to_seconds(ticks: int) -> float:
    return ticks / _CLOCK_TICKS


def session_rss(leader: int) -> int:
    """Resident bytes of every live process of the group, summed."""
    return sum(int(fields[_RSS]) for _, fields in members(leader)) * _PAGE


def tree(root: int, *, adopter: int | None = None, known: Collection[int] = ()) -> list[int]:
    """Every live process of ``root``'s tree, from one /proc scan: ``root``, the members of its
    session and process group, the processes ``adopter`` (a subreaper) adopted that are not
    ``known`` and left its session (a plugin's daemons), and every descendant of all these."""
    table = _table()
    picked = {pid for pid, f in table.items() if str(root) in (f[_SESSION], f[_PGRP])}
    picked.update(pid for pid in (root,) if pid in table)
    if adopter is not None and adopter in table:
        home = table[adopter][_SESSION]
        picked.update(pid for pid, f in table.items()
                      if f[_PPID] == str(adopter) and pid not in known and f[_SESSION] != home)
    children: dict[str, list[int]] = {}
    for pid, fields in table.items():
        children.setdefault(fields[_PPID], []).append(pid)
    stack = list(picked)
    while stack:
        for child in children.get(str(stack.pop()), []):
            if child not in picked:
                picked.add(child)
                stack.append(child)
    return sorted(picked)


def tree_memory(root: int, **options: Any) -> tuple[int, list[int]]:
    """Bytes of memory the tree of ``root`` (see :func:`tree`, same options) holds, and its
    pids. Each process counts its proportional set size (shared pages divided among the
    processes that share them, so forked copies are not counted twice), else its resident
    size where /proc does not say."""
    pids = tree(root, **options)
    return sum(memory(pid) for pid in pids), pids


def memory(pid: int) -> int:
    """Bytes of memory ``pid`` holds: ``Pss`` of /proc/PID/smaps_rollup, else its resident
    size, else 0 (gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    fields = stat(pid)
    return int(fields[_RSS]) * _PAGE if fields is not None else 0


def kill_pids(pids: Iterable[int]) -> None:
    """SIGKILLs each of ``pids`` (and the group it leads), quietly."""
    for pid in pids:
        if pid == os.getpid():
            continue
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)


def _table() -> dict[int, list[str]]:
    """pid -> stat fields of every live (non-zombie) process."""
    found = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(_PROC):
            fields = stat(entry.name) if entry.name.isdigit() else None
            if fields is not None and fields[_STATE] != "Z":
                found[int(entry.name)] = fields
    return found


def kill_tree(leader: int) -> None:
    """SIGKILL the process group, then any member that left the group (but not the session)."""
    with contextlib.suppress(OSError):
        os.killpg(leader, signal.SIGKILL)
    for pid, _ in members(leader):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class Cgroup:
    """A cgroup v2 of one child: its CPU time (``cpu.stat``, µs), the kill of every process in
    it (``cgroup.kill``), and where the memory controller is on, ``memory.max`` and the kernel's
    ``oom_kill`` count. Removed at close."""

    def __init__(self, path: Path, *, limits_memory: bool = False) -> None:
        self.path = path
        self.limits_memory = limits_memory

    @classmethod
    def create(cls, name: str, memory_bytes: int | None) -> Cgroup | None:
        """A new cgroup under this process's own one, or None where cgroup v2 is not writable;
        ``memory.max`` is set when ``memory_bytes`` is given and the controller is on."""
        found = _own_v2_cgroup()
        if found is None:
            return None
        parent, memory = found
        path = parent / name
        try:
            path.mkdir()
        except OSError:
            return None
        group = cls(path)
        if memory and memory_bytes is not None:
            group.limits_memory = _limit(path, memory_bytes)
        return group

    @property
    def procs_file(self) -> str:
        """Writing ``0`` here moves the writing process into the cgroup (done before exec)."""
        return str(self.path / "cgroup.procs")

    def oom_kills(self) -> int:
        """How many processes the kernel killed for going over ``memory.max``."""
        return _event(self.path / "memory.events", "oom_kill")

    def cpu_seconds(self) -> float | None:
        """CPU time of every process that ever ran in the cgroup (µs resolution)."""
        usec = _event(self.path / "cpu.stat", "usage_usec", missing=-1)
        return None if usec < 0 else usec / 1e6

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (``cgroup.kill``, or one by one)."""
        try:
            (self.path / "cgroup.kill").write_text("1\n")
        except OSError:
            for line in _lines(self.path / "cgroup.procs"):
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(line), signal.SIGKILL)

    def remove(self) -> None:
        """Remove the cgroup once its killed processes are gone (up to a second); a failure
        leaves an empty cgroup behind, never an error."""
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)


def _limit(path: Path, memory_bytes: int) -> bool:
    """Set ``memory.max`` (and no swap); whether the limit is in force."""
    try:
        (path / "memory.max").write_text(f"{memory_bytes}\n")
    except OSError:
        return False
    with contextlib.suppress(OSError):
        (path / "memory.swap.max").write_text("0\n")
    return True


def _own_v2_cgroup() -> tuple[Path, bool] | None:
    """This process's cgroup v2 folder if it is writable, and whether its children get the
    memory controller."""
    mount = _v2_mount()
    if mount is None:
        return None
    own = next((ln[3:] for ln in _lines(_PROC / "self" / "cgroup") if ln.startswith("0::")), None)
    if own is None:
        return None
    folder = mount / own.lstrip("/")
    if not (folder / "cgroup.procs").exists() or not os.access(folder, os.W_OK):
        return None
    enabled = " ".join(_lines(folder / "cgroup.subtree_control")).split()
    return folder, "memory" in enabled


def _v2_mount() -> Path | None:
    for line in _lines(_PROC / "self" / "mounts"):
        parts = line.split()
        if len(parts) > 2 and parts[2] == "cgroup2":
            return Path(parts[1])
    return None


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except OSError:
        return []


def _event(path: Path, key: str, *, missing: int = 0) -> int:
    for line in _lines(path):
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return missing
