"""Failures replay first: the reproducer folder is the run's example database.

Every violation a run finds is saved as a reproducer file (``contract.reproducers``), already
shrunk. The next run against the same target reads those files back and calls the plugin on
them *before* it explores anything new, so a bug that was found once is found again at once,
whatever the seed, until it is fixed. A reproducer that no longer fails costs one call and
nothing else; the files are never deleted (they are the user's, and ``replay`` reads them).

This is the contract's own database rather than Hypothesis's ``DirectoryBasedExampleDatabase``:
Hypothesis keys its entries by the test function and stores choice sequences, which change
whenever a strategy changes; a reproducer stores the document and config themselves, so it
survives upgrades and is readable by a person.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract import reproducers
from contract.model import Config

#: At most this many reproducers of one target are replayed, the newest first.
MAX_REPLAYED = 32
#: At most this many files of the folder are read to find them.
MAX_SCANNED = 1000


def known_failures(folder: Path | None, target: str, kind: str) -> list[tuple[Any, Config]]:
    """Saved (document, config) pairs that once broke an invariant of ``target``, newest first."""
    if folder is None or not folder.is_dir():
        return []
    try:
        files = sorted(folder.glob("*.json"), key=_mtime, reverse=True)[:MAX_SCANNED]
    except OSError:
        return []
    found: list[tuple[Any, Config]] = []
    seen: set[str] = set()
    for path in files:
        try:
            saved = reproducers.load(path)
        except reproducers.ReproducerError:
            continue
        if saved.target != target or saved.kind != kind or saved.invariant == "scales_linearly":
            continue
        key = repr((saved.document, saved.config))
        if key in seen:
            continue
        seen.add(key)
        found.append((saved.document, saved.config))
        if len(found) >= MAX_REPLAYED:
            break
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
