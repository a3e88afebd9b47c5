"""Reading a user's ``.xlsx`` file without letting it take the host down.

An ``.xlsx`` is a zip of XML files, and a few megabytes of zip can expand to gigabytes of
sheet XML (a zip bomb), which openpyxl would parse for minutes or until memory runs out. So
:func:`read_workbook` first checks what the zip's directory declares (member count, each
member's and the total uncompressed size, the compression ratio; ``zipfile`` never reads past
a declared size), then parses with openpyxl inside a
:class:`~chunk_contract.containment.worker.Worker`, under
the run's memory limit and a time limit of :data:`PARSE_TIMEOUTS` per-call timeouts. Every
failure is a :class:`WorkbookFileError` whose message names the file and the limit.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import Any

from chunk_contract.containment.worker import Outcome, Worker
from chunk_contract.spec.workbook import describe, load_xlsx

MIB = 2**20


@dataclass(frozen=True)
class ZipLimits:
    """What a workbook's zip directory may declare."""

    members: int = 10_000
    member_bytes: int = 256 * MIB
    total_bytes: int = 512 * MIB
    #: Uncompressed / compressed, checked for members larger than ``ratio_floor`` bytes only
    #: (small files compress as they like). Sheet XML compresses about 5-30x.
    ratio: float = 200.0
    ratio_floor: int = 1 * MIB


LIMITS = ZipLimits()
#: The parse may take this many per-call timeouts (``--timeout``): 30 s by default.
PARSE_TIMEOUTS = 15


class WorkbookFileError(Exception):
    """A workbook file that is unreadable, or over a limit: a usage error."""


def check_zip(path: str, limits: ZipLimits = LIMITS) -> None:
    """Raises WorkbookFileError if ``path`` is no zip, or declares more than ``limits`` allow."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise WorkbookFileError(f"{path}: cannot read as .xlsx: {exc}") from None
    if len(members) > limits.members:
        raise WorkbookFileError(
            f"{path}: the zip holds {len(members)} members, over the limit of "
            f"{limits.members}: not a workbook this tool will open"
        )
    for member in members:
        _check_member(path, member, limits)
    total = sum(m.file_size for m in members)
    if total > limits.total_bytes:
        raise WorkbookFileError(
            f"{path}: the zip declares {_mib(total)} uncompressed in all, over the "
            f"{_mib(limits.total_bytes)} limit (a zip bomb?)"
        )


def _check_member(path: str, member: zipfile.ZipInfo, limits: ZipLimits) -> None:
    """One member's declared size and compression ratio against ``limits``."""
    if member.file_size > limits.member_bytes:
        raise WorkbookFileError(
            f"{path}: {member.filename} declares {_mib(member.file_size)} uncompressed, over "
            f"the {_mib(limits.member_bytes)} per-member limit (a zip bomb?)"
        )
    ratio = member.file_size / max(member.compress_size, 1)
    if member.file_size > limits.ratio_floor and ratio > limits.ratio:
        raise WorkbookFileError(
            f"{path}: {member.filename} expands {ratio:.0f}x ({_mib(member.compress_size)} "
            f"-> {_mib(member.file_size)}), over the {limits.ratio:.0f}x compression-ratio "
            "limit (a zip bomb?)"
        )


def _mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB"


def _parse(path: str) -> dict[str, Any]:
    """In the worker: the description of the workbook in ``path``."""
    return describe(load_xlsx(path))


def read_workbook(path: str, *, timeout: float, memory_mb: int | None) -> dict[str, Any]:
    """The description of the ``.xlsx`` file at ``path``, checked and parsed in a worker."""
    check_zip(path)
    limit = timeout * PARSE_TIMEOUTS
    with Worker(_parse, timeout=limit, memory_mb=memory_mb) as worker:
        outcome = worker.call(path)
    if outcome.ok:
        return dict(outcome.value)
    raise WorkbookFileError(_failure(path, outcome, limit, memory_mb))


def _failure(path: str, outcome: Outcome, limit: float, memory_mb: int | None) -> str:
    """One line saying why parsing ``path`` failed, and which limit to raise."""
    if outcome.kind == "timeout":
        return (
            f"{path}: parsing the workbook took longer than {limit:g} s "
            f"({PARSE_TIMEOUTS} x --timeout); raise --timeout if the file is sound"
        )
    if outcome.kind == "memory" or outcome.error_type == "MemoryError":
        return (
            f"{path}: parsing the workbook needed more than --memory-mb {memory_mb} MiB; "
            "raise --memory-mb if the file is sound"
        )
    if outcome.kind == "crash":
        first = outcome.message.splitlines()[0] if outcome.message else "the parser died"
        return f"{path}: cannot read as .xlsx: {first}"
    return f"{path}: cannot read as .xlsx: {outcome.error_type}: {outcome.message}".rstrip(": ")
