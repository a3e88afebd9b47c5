"""Failures replay first: the reproducer folder is the run's example database.

Every violation a run finds is saved as a reproducer file (``chunk_contract.store.reproducers``),
already shrunk. The next run against the same target reads those files back and calls the plugin on
them *before* it explores anything new, so a bug that was found once is found again at once,
whatever the seed, until it is fixed. A reproducer that no longer fails costs one call and
nothing else; the files are never deleted (they are the user's, and ``replay`` reads them).

This is the contract's own database rather than Hypothesis's ``DirectoryBasedExampleDatabase``:
Hypothesis keys its entries by the test function and stores choice sequences, which change
whenever a strategy changes; a reproducer stores the document and config themselves, so it
survives upgrades and is readable by a person.

A *shared* database (``run --database SPEC``) holds the same reproducers, as JSON values, in one
of Hypothesis's own example databases, so that many processes, machines and CI jobs see each
other's counterexamples: a folder (``DirectoryBasedExampleDatabase``, safe for concurrent
writers) or Redis (``hypothesis.extra.redis.RedisExampleDatabase``). Unlike the folder, a
shared entry that no longer fails is deleted, as Hypothesis does with its own entries.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract import _files, errors
from chunk_contract.errors import UsageError
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

#: At most this many reproducers of one target are replayed, the newest first.
MAX_REPLAYED = 32
#: At most this many files of the folder are read to find them.
MAX_SCANNED = 1000


def known_failure_files(
    folder: Path | None, target: str, kind: str
) -> list[tuple[Any, Config, Path]]:
    """Saved (document, config) pairs that once broke an invariant of ``target``, newest first,
    with the reproducer file each pair was read from."""
    if folder is None or not folder.is_dir():
        return []
    try:
        files = sorted(folder.glob("*.json"), key=_mtime, reverse=True)[:MAX_SCANNED]
    except OSError:
        return []
    found: list[tuple[Any, Config, Path]] = []
    seen: set[str] = set()
    bad = _BadEntries(str(folder))
    for path in files:
        try:
            saved = reproducers.load(path)
        except reproducers.ReproducerError as exc:
            bad.note(exc)
            continue
        if saved.target != target or saved.kind != kind or saved.invariant == "scales_linearly":
            continue
        key = repr((saved.document, saved.config))
        if key in seen:
            continue
        seen.add(key)
        found.append((saved.document, saved.config, path))
        if len(found) >= MAX_REPLAYED:
            break
    bad.warn()
    return found


class _BadEntries:
    """Reproducers of ours that cannot be read: skipped, and told in one warning line."""

    def __init__(self, where: str) -> None:
        self.where = errors.redact(where)
        self.count = 0
        self.first = ""

    def note(self, exc: reproducers.ReproducerError) -> None:
        """Count ``exc``, unless it is a file of another kind or version (left alone quietly)."""
        if not isinstance(exc, reproducers.ForeignFile):
            self.count += 1
            self.first = self.first or errors.one_line(str(exc))

    def warn(self) -> None:
        """One line on stderr when any entry was skipped; never fatal."""
        if self.count:
            print(
                f"chunk-contract: warning: {self.where}: skipped {self.count} unreadable "
                f"reproducer(s), first: {self.first}",
                file=sys.stderr,
            )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# ----------------------------------------------------------------------------- shared


class DatabaseError(UsageError):
    """A shared database that cannot be opened: a usage error, reported before anything runs."""


#: Keys are this prefix, the plugin kind and the target: one set of reproducers per target.
KEY_PREFIX = b"chunk-contract/v1:"
#: Seconds to wait for a Redis server before giving up on it.
REDIS_TIMEOUT = 5.0
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


class SharedDatabase:
    """Reproducers kept in a Hypothesis ``ExampleDatabase``, keyed by target and kind."""

    def __init__(self, backend: ExampleDatabase, spec: str) -> None:
        self.backend = backend
        self.spec = spec

    def __repr__(self) -> str:
        return f"SharedDatabase({errors.redact(self.spec)!r})"

    @staticmethod
    def key(target: str, kind: str) -> bytes:
        """The database key under which ``target``'s reproducers are kept."""
        return KEY_PREFIX + f"{kind}:{target}".encode()

    def fetch(self, target: str, kind: str) -> list[reproducers.Reproducer]:
        """The readable reproducers of ``target``, smallest document first (at most 32)."""
        found = []
        bad = _BadEntries(self.spec)
        for value in self.backend.fetch(self.key(target, kind)):
            try:
                saved = reproducers.parse(value, source=self.spec)
            except reproducers.ReproducerError as exc:
                bad.note(exc)  # another version's entry, or not ours, is left alone quietly
                continue
            if saved.target == target and saved.kind == kind:
                found.append(saved)
        bad.warn()
        found.sort(key=lambda r: (len(repr(r.document)), repr(r.document)))
        return found[:MAX_REPLAYED]

    def save(self, reproducer: reproducers.Reproducer) -> None:
        """Add ``reproducer`` under its target's key."""
        key = self.key(reproducer.target, reproducer.kind)
        self.backend.save(key, reproducers.dumps(reproducer))

    def delete(self, reproducers_: Iterable[reproducers.Reproducer]) -> None:
        """Remove entries that no longer fail."""
        for saved in reproducers_:
            value = saved.raw if saved.raw is not None else reproducers.dumps(saved)
            self.backend.delete(self.key(saved.target, saved.kind), value)


#: The environment variable that names a shared database when ``--database`` is not given.
ENV_VAR = "CHUNK_CONTRACT_DATABASE"


def database_spec(args: Any) -> str | None:
    """``--database``, else $CHUNK_CONTRACT_DATABASE, else None."""
    return getattr(args, "database", None) or os.environ.get(ENV_VAR) or None


def open_database(spec: str) -> SharedDatabase:
    """The shared database named by ``spec``: a redis:// URL, ``:memory:``, or a folder."""
    if not spec:
        raise DatabaseError("--database needs a folder or a redis:// URL")
    if spec.startswith(_REDIS_SCHEMES):
        return SharedDatabase(_redis(spec), spec)
    if "://" in spec:
        raise DatabaseError(
            f"--database {errors.redact(spec)}: unknown URL scheme; give a folder or a "
            "redis://HOST:PORT/N URL"
        )
    from hypothesis.database import DirectoryBasedExampleDatabase, InMemoryExampleDatabase

    if spec == ":memory:":
        return SharedDatabase(InMemoryExampleDatabase(), spec)
    folder = Path(spec).expanduser()
    if folder.exists() and not folder.is_dir():
        raise DatabaseError(f"--database {spec}: not a folder (give a folder or a redis:// URL)")
    try:
        _files.output_folder(folder, what=f"--database {spec}")
    except UsageError as exc:
        raise DatabaseError(str(exc)) from None
    return SharedDatabase(DirectoryBasedExampleDatabase(str(folder)), spec)


def _redis(url: str) -> ExampleDatabase:
    shown = errors.redact(url)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise DatabaseError(
            f"--database {shown}: the Redis database needs the redis package "
            "(pip install 'chunk-contract[redis]')"
        ) from None
    try:
        client = redis.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
        )
        client.ping()
    except (redis.RedisError, ValueError, OSError) as exc:
        raise DatabaseError(
            f"--database {shown}: cannot reach the Redis server: {errors.redact(str(exc))}"
        ) from None
    return RedisExampleDatabase(client, key_prefix=b"")
