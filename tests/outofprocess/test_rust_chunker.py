"""The Rust reference chunker (built here with rustc into a temporary folder), driven through
ExecChild: it keeps every applicable rule; seed 002's twin is caught as ``cap_respected``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from chunk_contract.spec.model import Config
from tests.outofprocess.driving import exec_session, violations

ROOT = Path(__file__).resolve().parents[2]
RUSTC = shutil.which("rustc")
pytestmark = pytest.mark.skipif(
    RUSTC is None, reason="rustc is not installed: the Rust chunkers cannot be built"
)


def build(source: Path, folder: Path) -> Path:
    """``rustc -O`` of one std-only source file; its binary path."""
    binary = folder / source.stem
    done = subprocess.run(
        [str(RUSTC), "-O", "--edition", "2021", "-o", str(binary), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, f"rustc failed on {source}:\n{done.stderr}"
    return binary


@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("rust")
    return {
        "reference": build(ROOT / "chunk_contract_reference" / "rust" / "chunker.rs", folder),
        "defect": build(Path(__file__).with_name("defects") / "overlap_on_top.rs", folder),
    }


def test_the_rust_reference_chunker_keeps_every_rule(binaries: dict[str, Path]) -> None:
    with exec_session(f"exec:{binaries['reference']}") as session:
        assert session.plugin.declarations.unit == "bytes"
        found = violations(session, examples=300)
    assert found == {}, found


def test_the_rust_reference_chunker_on_wide_characters(binaries: dict[str, Path]) -> None:
    document = "a\u00e9\u6570\U0001f680\u2014" * 5 + "\n\r\n\ufeff\x1c x"
    with exec_session(f"exec:{binaries['reference']}") as session:
        for max_size, overlap in ((1, 0), (2, 1), (4, 3), (5, 2), (9, 0)):
            seen = session.observe(document, Config(max_size, overlap))
            assert seen.violations == [], seen.violations
            assert seen.records


def test_the_rust_json_reader_takes_escapes_and_pairs(binaries: dict[str, Path]) -> None:
    line = '{"id": 1, "op": "split", "document": "\\u00e9\\ud83d\\ude80\\n\\"\\\\/", ' \
           '"max_size": 100, "overlap": 0}\n'
    done = subprocess.run([str(binaries["reference"])], input=line.encode(),
                          capture_output=True, timeout=30, check=True)
    reply = done.stdout.decode().splitlines()[1]
    assert '"text":"\u00e9\U0001f680\\n\\"\\\\/"' in reply


def test_the_rust_chunker_refuses_a_lone_surrogate_escape(binaries: dict[str, Path]) -> None:
    line = '{"id": 1, "op": "split", "document": "\\ud83d", "max_size": 3, "overlap": 0}\n'
    done = subprocess.run([str(binaries["reference"])], input=line.encode(),
                          capture_output=True, timeout=30, check=True)
    reply = done.stdout.decode()
    assert '"type":"crash"' in reply and "lone high surrogate" in reply


def test_seed_002s_overlap_on_top_is_caught_as_cap_respected(binaries: dict[str, Path]) -> None:
    with exec_session(f"exec:{binaries['defect']}") as session:
        found = violations(session, examples=60, stop_at="cap_respected")
    assert "cap_respected" in found, found
