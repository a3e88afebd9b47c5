"""``check`` on .xlsx files: zip bombs and unreadable files are usage errors, never a hang."""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.containment import xlsx

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = f"{ROOT / 'chunk_contract_reference' / 'spreadsheet.py'}:split"
SHEET = "xl/worksheets/sheet1.xml"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # check writes its reproducers under the current folder


def _book(path: Path, **cells: object) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    for ref, value in (cells or {"A1": "hello"}).items():
        book.active[ref] = value
    book.save(path)
    return path


def _declare_size(path: Path, member: str, size: int) -> Path:
    """Rewrites the zip so ``member`` *declares* ``size`` uncompressed bytes (a forged bomb)."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = 0
        while (at := data.find(signature, at)) != -1:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                struct.pack_into("<I", data, at + offset, size)
            at += 4
    path.write_bytes(bytes(data))
    return path


def _check(path: Path, *flags: str) -> int:
    return cli.main(["check", REFERENCE, str(path), "--max-size", "200", *flags])


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_sound_workbook_is_read_in_a_worker(tmp_path: Path) -> None:
    book = _book(tmp_path / "ok.xlsx", A1="a", B2=3)
    described = xlsx.read_workbook(str(book), timeout=2, memory_mb=1024)
    assert described["sheets"]["Sheet"] == {"A1": "a", "B2": 3}
    assert _check(book) == 0


def test_a_sheet_declaring_a_huge_expansion_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bomb = _declare_size(_book(tmp_path / "bomb.xlsx"), SHEET, 2**30)
    assert _check(bomb) == 2
    line = _one_line(capsys)
    assert "bomb.xlsx" in line and SHEET in line and "256.0 MiB per-member limit" in line


def test_a_highly_compressed_sheet_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ratio.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(SHEET, b" " * (40 * xlsx.MIB))
    assert os.path.getsize(path) < 200_000
    assert _check(path) == 2
    assert "compression-ratio limit" in _one_line(capsys)


def test_the_total_declared_size_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "many.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        for k in range(3):
            archive.writestr(f"xl/part{k}.xml", b"x")
    for k in range(3):
        _declare_size(path, f"xl/part{k}.xml", 200 * xlsx.MIB)
    with pytest.raises(xlsx.WorkbookFileError, match=r"in all, over the 512\.0 MiB limit"):
        xlsx.check_zip(str(path), xlsx.ZipLimits(ratio=float("inf")))


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "members.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        for k in range(11):
            archive.writestr(f"m{k}", b"")
    with pytest.raises(xlsx.WorkbookFileError, match="11 members, over the limit of 10"):
        xlsx.check_zip(str(path), xlsx.ZipLimits(members=10))


def test_a_file_that_is_no_zip_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fake.xlsx"
    path.write_bytes(b"not a zip at all")
    assert _check(path) == 2
    line = _one_line(capsys)
    assert "fake.xlsx" in line and "cannot read as .xlsx" in line


def _heavy_book(path: Path, mib: int) -> Path:
    """A workbook whose one cell holds ``mib`` MiB of random hex, streamed to the zip (so this
    process never holds it): under every zip limit, since random text hardly compresses."""
    sound = _book(path.with_name("sound.xlsx"))
    with zipfile.ZipFile(sound) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for member in source.infolist():
            if member.filename != SHEET:
                out.writestr(member, source.read(member))
        with out.open(SHEET, "w", force_zip64=True) as sheet:
            sheet.write(b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
                        b'2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>')
            for _ in range(mib):
                sheet.write(os.urandom(xlsx.MIB // 2).hex().encode())
            sheet.write(b"</t></is></c></row></sheetData></worksheet>")
    return path


@pytest.mark.slow
def test_a_memory_bomb_stops_at_the_memory_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = _heavy_book(tmp_path / "heavy.xlsx", 160)  # 160 MiB of text in one cell
    assert _check(book, "--memory-mb", "64") == 2  # 64: the least --memory-mb accepted
    line = _one_line(capsys)
    # the worker's own limit or the watch on its process tree, whichever the bomb meets first:
    # both are the 64 MiB asked for, and the line names it
    assert "heavy.xlsx" in line
    assert "--memory-mb 64 MiB" in line or "memory_mb=64" in line, line
