"""Fuzzing (chunk_contract/integrations/fuzzing, fuzz/): total input decoding, artifact conversion,
and short fuzz runs through ``chunk-contract fuzz``.

Decoding and conversion need no atheris and always run; the tests that start libFuzzer are
skipped when atheris is not installed (``pip install 'chunk-contract[fuzz]'``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunk_contract.cli import main as cli
from chunk_contract.integrations.fuzzing import inputs as chunk_input
from chunk_contract.integrations.fuzzing.artifacts import convert
from chunk_contract.integrations.fuzzing.target import ContractViolation, FuzzTarget
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers
from chunk_contract.transport.loading import load

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "fuzz"
#: ``chunk-contract`` of this checkout, in a child process.
CHUNK_CONTRACT = [sys.executable, "-m", "chunk_contract"]

PLUGINS = ROOT / "tests" / "cli" / "plugins.py"
WORDS_ONLY = f"{PLUGINS}:words_only"
HANGS = f"{PLUGINS}:hangs"
FIXED = f"{ROOT}/chunk_contract_reference/fixed.py:split"

try:
    import atheris  # noqa: F401
except ImportError:
    HAVE_ATHERIS = False
else:
    HAVE_ATHERIS = True
needs_atheris = pytest.mark.skipif(
    not HAVE_ATHERIS, reason="atheris is not installed (pip install 'chunk-contract[fuzz]')"
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def _artifact(folder: Path, data: bytes, kind: str = "crash") -> Path:
    path = folder / f"{kind}-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------- decoding


@FAST
@given(st.binary(max_size=2000))
def test_any_bytes_decode_to_a_document_and_a_config(data: bytes) -> None:
    case = chunk_input.decode(data)
    assert isinstance(case.document, str) and isinstance(case.config, Config)
    assert len(case.document) <= chunk_input.MAX_CHARS
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in case.document)  # no lone surrogates
    case.document.encode("utf-8")  # so it always fits a reproducer


def test_every_header_decodes_and_degenerate_configs_come_up() -> None:
    configs = {chunk_input.decode_config(bytes((a, b))) for a in range(256) for b in range(256)}
    assert Config(1, 0) in configs and Config(1, 999) in configs
    assert any(c.max_size <= 0 for c in configs) and any(c.overlap < 0 for c in configs)
    assert sum(c.is_valid for c in configs) > sum(not c.is_valid for c in configs)
    assert chunk_input.decode(b"") == chunk_input.FuzzCase("", Config(1, 0))  # short input


def test_every_short_body_decodes() -> None:
    for a in range(256):
        for b in range(256):
            chunk_input.decode_text(bytes((a, b)))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=300))
def test_valid_utf8_decodes_verbatim(text: str) -> None:
    assert chunk_input.decode(chunk_input.encode(text, 8, 0)).document == text


def test_invalid_bytes_become_interesting_pieces() -> None:
    assert chunk_input.decode_text(b"a\x81b") == "a\r\nb"  # lone continuation byte -> CRLF
    assert chunk_input.decode_text(b"\xff\x00\x02") == "a" * 5  # a run
    assert chunk_input.decode_text(b"\xfe\x07\x01") == "# Title\n\ntext\n\n" * 2  # a repeat
    assert chunk_input.decode_text("\u2028".encode()) == "\u2028"  # dictionary tokens land


def test_seed_corpora_decode_and_exist_for_every_fuzz_target() -> None:
    for target in sorted(FUZZ.glob("fuzz_*.py")):
        seeds = sorted((FUZZ / "corpus" / target.stem.removeprefix("fuzz_")).iterdir())
        assert seeds, f"no seeds for {target.name}"
        for seed in seeds:
            assert chunk_input.decode(seed.read_bytes()).document


def test_seed_corpora_are_what_make_corpus_writes(capsys: pytest.CaptureFixture[str]) -> None:
    """The seeds follow the probes of chunk_contract.generation.corpus: rerun fuzz/make_corpus.py
    after changing them (a stale seed folder fuzzes from yesterday's probes)."""
    sys.path.insert(0, str(FUZZ))
    try:
        import make_corpus
    finally:
        sys.path.remove(str(FUZZ))
    assert make_corpus.main(["--check"]) == 0, capsys.readouterr().out


# --------------------------------------------------------------------------- in-process oracle


def test_in_process_target_names_the_violated_invariant() -> None:
    check = FuzzTarget(load(WORDS_ONLY))
    with pytest.raises(ContractViolation) as caught:
        check(chunk_input.encode("abcdef gh", 2, 0))
    assert caught.value.invariants == ["no_lost_text"]
    assert "[no_lost_text]" in str(caught.value) and "max_size=2, overlap=0" in str(caught.value)
    FuzzTarget(load(WORDS_ONLY), ignore={"no_lost_text"})(
        chunk_input.encode("abcdef gh", 2, 0)
    )  # ignored invariants pass


def test_in_process_target_passes_a_correct_chunker_and_refused_configs() -> None:
    check = FuzzTarget(load(FIXED))
    for seed in sorted((FUZZ / "corpus" / "fixed").iterdir()):
        check(seed.read_bytes())  # degenerate seeds are refused with ValueError: allowed


# --------------------------------------------------------------------------- conversion


def test_a_crash_artifact_converts_into_a_reproducer_that_replay_confirms(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, chunk_input.encode("ok toolongword ok", 3, 1))
    found = convert(load(WORDS_ONLY), artifact, folder=tmp_path / "repro")
    assert [f.invariant for f in found] == ["no_lost_text"]
    saved = reproducers.load(found[0].reproducer)
    assert saved.invariant == "no_lost_text" and saved.config == Config(3, 1)
    assert "lies in no chunk" in saved.message
    assert len(saved.document) < len("ok toolongword ok")  # minimized
    assert cli.main(["replay", found[0].reproducer, "--trust-target"]) == 1


def test_a_timeout_artifact_converts_into_a_terminates_reproducer(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, chunk_input.encode("a b", 5, 0), kind="timeout")
    found = convert(
        load(HANGS), artifact, timeout=0.5, folder=tmp_path, minimize_seconds=1.0
    )
    assert found[0].invariant == "terminates" and found[0].kind == "timeout"
    assert reproducers.load(found[0].reproducer).invariant == "terminates"


def test_an_artifact_the_worker_cannot_confirm_is_reported_unconfirmed(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, chunk_input.encode("fine text", 4, 0))
    (found,) = convert(load(FIXED), artifact, folder=tmp_path)
    assert not found.confirmed and found.reproducer is None


def test_the_convert_command_and_usage_errors(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, chunk_input.encode("ok toolongword", 3, 0))
    repro = str(tmp_path / "repro")
    assert fuzz([WORDS_ONLY, "--convert", str(artifact), "--reproducers", repro]) == 1
    assert list((tmp_path / "repro").glob("no_lost_text-*.json"))
    assert fuzz(["no/such/file.py:split", "--convert", str(artifact)]) == 2
    spreadsheet = f"{ROOT}/chunk_contract_reference/spreadsheet.py:split"
    assert fuzz([spreadsheet, "--convert", str(artifact)]) == 2  # workbook plugins: not yet
    assert fuzz([WORDS_ONLY, "--convert", str(artifact), "--only", "bogus"]) == 2
    assert fuzz([WORDS_ONLY, "--convert"]) == 2  # no artifact given


def test_the_compatibility_script_still_converts(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, chunk_input.encode("ok toolongword", 3, 0))
    done = subprocess.run(
        [sys.executable, str(FUZZ / "harness.py"), WORDS_ONLY, "--convert", str(artifact),
         "--reproducers", str(tmp_path / "repro")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "no_lost_text" in done.stdout


def fuzz(argv: list[str]) -> int:
    """``chunk-contract fuzz ARGV`` in this process."""
    return cli.main(["fuzz", *argv])


def test_fuzz_modules_without_atheris_say_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['atheris'] = None; sys.path.insert(0, sys.argv[1])\n"
        "try:\n    import fuzz_fixed\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(FUZZ)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert "pip install 'chunk-contract[fuzz]'" in out.stdout, out.stderr


# --------------------------------------------------------------------------- fuzzing (atheris)


@needs_atheris
def test_a_short_fuzz_run_finds_the_words_only_bug(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [
            *CHUNK_CONTRACT,
            "fuzz",
            WORDS_ONLY,
            "--seconds",
            "6",
            "--no-seeds",
            "--corpus",
            str(tmp_path / "corpus"),
            "--artifacts",
            str(tmp_path / "artifacts"),
            "--reproducers",
            str(tmp_path / "repro"),
            "--log",
            str(tmp_path / "fuzz.log"),
            "--summary-json",
            str(summary),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(summary.read_text())
    assert result["execs"] > 0 and result["exec_per_sec"] > 0
    lost = [f for f in result["findings"] if f["invariant"] == "no_lost_text"]
    assert lost, result["findings"]
    assert Path(lost[0]["artifact"]).is_file()
    assert cli.main(["replay", lost[0]["reproducer"], "--trust-target"]) == 1
    assert "exec/s" in done.stdout and "no_lost_text" in done.stdout


@needs_atheris
@pytest.mark.parametrize("target", sorted(p.name for p in FUZZ.glob("fuzz_*.py")))
def test_each_fuzz_target_passes_its_own_seed_corpus(target: str, tmp_path: Path) -> None:
    chunker = ROOT / "chunk_contract_reference" / f"{target.removeprefix('fuzz_')}"
    if not chunker.is_file():
        pytest.skip(f"{chunker.name} is not written yet")
    seeds = FUZZ / "corpus" / chunker.stem
    done = subprocess.run(
        [
            sys.executable,
            str(FUZZ / target),
            "-runs=0",
            "-timeout=10",
            f"-artifact_prefix={tmp_path}/",
            str(seeds),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_libfuzzer_output_is_read_into_run_stats() -> None:
    from chunk_contract.integrations.fuzzing.libfuzzer import RunStats, parse

    stats = RunStats()
    for line in [
        "#chunk-contract execs=640 seconds=2.0\n",
        "#1024\tNEW    cov: 88 ft: 120 corp: 17/2Kb lim: 4096 exec/s: 512 rss: 60Mb\n",
        "==1== Test unit written to out/crash-" + "a" * 40 + "\n",
        "stat::number_of_executed_units: 2048\n",
        "stat::average_exec_per_sec:     512\n",
    ]:
        parse(line, stats)
    assert (stats.coverage, stats.features, stats.corpus) == (88, 120, 17)
    assert stats.artifacts == [Path("out/crash-" + "a" * 40)]
    assert stats.execs == 2048 and stats.seconds == 4.0 and stats.exec_per_sec == 512
