"""An ``exec:`` target at the last front doors: SARIF that GitHub accepts, the
shared database (stored, replayed first, the document exact) and reproducers replayed from
another folder. The chunker is tests/outofprocess/rare_child.py, a Python program run as an
``exec:`` command, so these tests need no node."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.engine.results import Counterexample
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.reporting import sarif as sarif_mod
from chunk_contract.spec.model import Config, Declarations
from chunk_contract.store import database, reproducers
from chunk_contract.transport.targets import Plugin
from tests.gate import ghas_rules

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("rare_child.py")
CHILDREN = Path(__file__).with_name("children.py")
SCHEMA = ROOT / "tests" / "gate" / "schemas" / "sarif-schema-2.1.0.json"
#: The command, relative to the checkout it runs in: the script lies outside that checkout.
TARGET = f"exec:{sys.executable} ../tools/rare_child.py"
#: Runs that meet the digit bug only through the database (no corpus, no schedule).
QUIET = ("-q", "--no-corpus", "--no-schedule", "--skip", "scales_linearly", "--only", "no_crash")
#: A document with every line ending, a BOM, NUL, an astral character and U+2028.
TRICKY = "\ufeffa\r\nb\rc\u2028\U0001f600\x00 x\n\n# h\t\u0085end "


def cli(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``chunk-contract ARGS`` in ``folder``."""
    return subprocess.run([sys.executable, "-m", "chunk_contract", *args], cwd=folder,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A project folder with pyproject.toml; the chunker's script in ../tools, outside it."""
    (tmp_path / "tools").mkdir()
    shutil.copy(CHILD, tmp_path / "tools" / "rare_child.py")
    project = tmp_path / "checkout"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.chunk-contract]\n')
    (tmp_path / "elsewhere" / "deeper").mkdir(parents=True)  # ../tools is not found from here
    return project


def violated_documents(report: Path) -> dict[str, dict[str, object]]:
    """Invariant id -> counterexample of a JSON report's violated invariants."""
    found = json.loads(report.read_text(encoding="utf-8"))["invariants"]
    return {r["id"]: r["counterexample"] for r in found if r["status"] == "violated"}


def stored(folder: Path, target: str) -> list[str]:
    """The documents the shared database in ``folder`` keeps for ``target``."""
    return [r.document for r in database.open_database(str(folder)).fetch(target, "text")]


def _sarif_located_at_pyproject(path: Path) -> None:
    log = json.loads(path.read_text(encoding="utf-8"))
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(log))
    assert ghas_rules.problems(log) == []
    (result,) = log["runs"][0]["results"]
    where = result["locations"][0]["physicalLocation"]
    assert result["ruleId"] == "no_crash"
    assert (where["artifactLocation"]["uri"], where["region"]["startLine"]) == ("pyproject.toml", 4)


def test_an_exec_violation_reaches_sarif_the_database_and_replay_from_elsewhere(
    checkout: Path,
) -> None:
    control = cli(checkout, "run", TARGET, *QUIET, "--max-examples", "1", "--seed", "1")
    assert control.returncode == 0, "control: one example alone must not meet the bug"
    found = cli(checkout, "run", TARGET, *QUIET, "--max-examples", "200", "--seed", "3",
                "--database", "db", "--reproducers", "repro", "--sarif", "a.sarif",
                "--json", "a.json")
    assert found.returncode == 1, found.stdout + found.stderr
    _sarif_located_at_pyproject(checkout / "a.sarif")
    document = violated_documents(checkout / "a.json")["no_crash"]["document"]
    assert stored(checkout / "db", TARGET) == [document]
    again = cli(checkout, "run", TARGET, *QUIET, "--max-examples", "1", "--seed", "1",
                "--database", "db", "--json", "b.json")
    assert again.returncode == 1, again.stdout + again.stderr
    replayed = violated_documents(checkout / "b.json")["no_crash"]
    assert replayed["document"] == document and "shared database" in str(replayed["replayed_from"])
    (saved,) = (checkout / "repro").glob("no_crash-*.json")
    elsewhere = checkout.parent / "elsewhere" / "deeper"
    still = cli(elsewhere, "replay", str(saved), "--trust-target")
    assert still.returncode == 1 and "STILL FAILS: no_crash" in still.stdout, still.stderr
    fixed = cli(elsewhere, "replay", str(saved), "--trust-target", RARE_CHILD_FIXED="1")
    assert fixed.returncode == 0 and "FIXED: no_crash" in fixed.stdout, fixed.stderr


def test_a_stored_document_reaches_the_exec_child_exactly(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child crashes on one document only, so what the run reports is what it received."""
    (checkout / "exact.json").write_text(json.dumps(TRICKY), encoding="utf-8")
    monkeypatch.setenv("RARE_CHILD_EXACT", str(checkout / "exact.json"))
    monkeypatch.chdir(checkout)
    shared = database.open_database("db")
    shared.save(reproducers.Reproducer(TARGET, "no_crash", TRICKY, Config(4, 1), "boom"))
    settings = RunSettings(max_examples=1, seed=1, only=("no_crash",), corpus=False,
                           schedule=False, example_database="db", reproducers=None)
    result = run(TARGET, settings)
    (item,) = result.violated
    assert item.counterexample is not None and item.counterexample.document == TRICKY
    assert set(stored(checkout / "db", TARGET)) == {TRICKY}  # the saved entry, and the new
    monkeypatch.setenv("RARE_CHILD_EXACT", str(checkout / "pyproject.toml"))  # not JSON: crash
    assert run(TARGET, settings).violated, "control: the child does read the file"


def test_an_exec_reproducer_records_the_folder_its_command_ran_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = Counterexample("no_crash", "a", Config(4, 1), ["boom"], None)

    def base(target: str, cwd: str | None = None) -> str | None:
        plugin = Plugin(target, None, Declarations(), spec=target, cwd=cwd)
        return found.to_reproducer(plugin, timeout=2.0, memory_mb=None).base

    assert base("exec:node chunker.mjs") == str(tmp_path.resolve())
    assert base("exec:./chunker --fast") == str(tmp_path.resolve())
    assert base("exec:./chunker", cwd="/srv/project") == "/srv/project"  # the table's folder
    assert base("https://chunker.test/v1") is None
    assert base("chunker.py:split") is None  # found by reproducers.save, from the file


def test_sarif_locates_an_exec_target_by_its_script_or_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the checkout the script itself; outside it pyproject.toml, else the script's name."""
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "chunk.mjs").write_text("// a chunker\n")
    monkeypatch.chdir(tmp_path)

    def uri(target: str, root: Path) -> tuple[str, int]:
        where = sarif_mod._location(target, None, root)["physicalLocation"]
        return where["artifactLocation"]["uri"], where["region"]["startLine"]

    assert uri("exec:node js/chunk.mjs --fast", tmp_path) == ("js/chunk.mjs", 1)
    bare = tmp_path / "bare"
    bare.mkdir()
    assert uri("exec:node js/chunk.mjs --fast", bare) == ("chunk.mjs", 1)
    (bare / "pyproject.toml").write_text("[tool.chunk-contract]\n")
    assert uri("exec:node js/chunk.mjs --fast", bare) == ("pyproject.toml", 1)


@pytest.mark.parametrize("mode, code", [("hash_ids", 1), ("ok", 0)])
def test_a_child_that_follows_its_hash_seed_is_caught_and_replays_from_elsewhere(
    checkout: Path, mode: str, code: int
) -> None:
    """A Python chunker run as an ``exec:`` command hashes the same in every call of its one
    child; a new child with another PYTHONHASHSEED tells, in the folder the run ran it in, and
    the finding replays the same from another folder."""
    shutil.copy(CHILDREN, checkout.parent / "tools" / "children.py")
    target = f"exec:{sys.executable} ../tools/children.py {mode}"
    report = checkout / "report.json"
    done = cli(checkout, "run", target, "--seed", "1", "--only", "deterministic", "-q",
               "--max-examples", "20", "--json", str(report))
    assert done.returncode == code, done.stdout + done.stderr
    if not code:
        return
    found = violated_documents(report)["deterministic"]
    assert "chunked the same input differently: chunk[0].id was" in found["message"]
    assert "a fresh interpreter (PYTHONHASHSEED=" in found["message"]
    again = cli(checkout.parent / "elsewhere" / "deeper", "replay",
                str(checkout / found["reproducer"]), "--trust-target")
    assert again.returncode == 1 and "STILL FAILS: deterministic" in again.stdout, again.stdout
