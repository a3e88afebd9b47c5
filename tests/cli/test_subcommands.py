"""``chunk-contract fuzz``, ``mutate``, ``campaign``: delegation, manners, missing extras, progress.

Nothing here fuzzes or mutates (that is tests/fuzz and tests/mutation): these are the fast
checks of the front door. Progress is shown on a StringIO with a clock the test moves.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

import pytest

from chunk_contract.cli import main as cli
from chunk_contract.integrations.campaign import driver as campaign_driver
from chunk_contract.integrations.fuzzing import cli as fuzz_cli
from chunk_contract.integrations.fuzzing.options import FuzzOptions
from chunk_contract.integrations.mutation import running

ROOT = Path(__file__).resolve().parents[2]
WORDS_ONLY = f"{ROOT}/tests/cli/plugins.py:words_only"


class Clock:
    """A clock moved by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _one_error_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"chunk-contract {command}: error: "), err
    return err[0]


def test_the_top_level_help_lists_the_three_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("fuzz", "mutate", "campaign"):
        assert name in out


@pytest.mark.parametrize(
    "parser",
    [fuzz_cli.build_parser(), running._parser(), campaign_driver._parser()],
    ids=["fuzz", "mutate", "campaign"],
)
def test_every_option_of_the_delegated_commands_has_help(
    parser: argparse.ArgumentParser,
) -> None:
    for action in parser._actions:
        assert action.help, f"{parser.prog} {action.dest} has no help"


@pytest.mark.parametrize("command", ["fuzz", "mutate", "campaign"])
def test_each_command_has_its_own_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"usage: chunk-contract {command}" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["fuzz"],
        ["fuzz", WORDS_ONLY, "--seconds", "0"],
        ["fuzz", WORDS_ONLY, "--runs", "0"],
        ["fuzz", WORDS_ONLY, "--bogus"],
        ["fuzz", WORDS_ONLY, "--only", "no_such_invariant"],
        ["fuzz", "no/such/file.py:split"],
        ["mutate", "--max-children", "0"],
        ["mutate", "--bogus"],
        ["campaign"],
        ["campaign", WORDS_ONLY, "--seconds", "0"],
    ],
    ids=lambda argv: " ".join(a.rpartition("/")[2] for a in argv),
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    _one_error_line(capsys, argv[0])


def test_a_python_target_without_atheris_names_the_fuzz_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "atheris", None)  # import atheris now fails
    assert cli.main(["fuzz", WORDS_ONLY, "--seconds", "1"]) == 2
    assert "pip install 'chunk-contract[fuzz]'" in _one_error_line(capsys, "fuzz")


def test_mutate_without_mutmut_names_the_mutation_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(running, "_mutmut", lambda: None)
    assert cli.main(["mutate", f"{ROOT}/tests/mutation/defective.py:drops_tail"]) == 2
    assert "pip install 'chunk-contract[mutation]'" in _one_error_line(capsys, "mutate")


def test_campaign_without_hypofuzz_names_the_campaign_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "hypofuzz", None)
    assert cli.main(["campaign", WORDS_ONLY, "--seconds", "1"]) == 2
    assert "pip install 'chunk-contract[campaign]'" in _one_error_line(capsys, "campaign")


@pytest.mark.parametrize("module", ["chunk_contract.integrations.mutation",
                                    "chunk_contract.integrations.campaign.driver",
                                    "chunk_contract.integrations.fuzzing"])
def test_the_module_entry_points_keep_working(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"usage: python -m {module}" in done.stdout


# --------------------------------------------------------------------------- progress


def test_fuzz_progress_shows_inputs_findings_and_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    bar = fuzz_cli.fuzz_bar(FuzzOptions("t.py:split", seconds=60.0, progress=5.0),
                            stream=out, tty=False, clock=clock)
    bar.update(10)
    clock.now = 6.0
    bar.update(1234, violations=2)
    assert out.getvalue().splitlines() == [
        "fuzzing t.py:split: 1,234 inputs · 2 violations · 54 s left"
    ]


def test_fuzz_progress_is_silent_when_quiet() -> None:
    out, clock = io.StringIO(), Clock()
    bar = fuzz_cli.fuzz_bar(FuzzOptions("t", quiet=True), stream=out, tty=False, clock=clock)
    clock.now = 100.0
    bar.update(5, violations=1)
    bar.close("done")
    assert out.getvalue() == ""


def test_campaign_progress_shows_time_left_and_findings(tmp_path: Path) -> None:
    out, clock = io.StringIO(), Clock()
    bar = campaign_driver.campaign_bar(100.0, stream=out, tty=False, clock=clock)
    clock.now = 10.0
    campaign_driver.show(bar, tmp_path)
    (tmp_path / "no_lost_text-1.json").write_text("{}")
    clock.now = 20.0
    campaign_driver.show(bar, tmp_path)
    assert out.getvalue().splitlines() == [
        "campaign: 10/100 seconds · 1 min 30 s left",
        "campaign: 20/100 seconds · 1 violation · 1 min 20 s left",
    ]


def test_mutation_progress_follows_mutmuts_status_line() -> None:
    out, clock = io.StringIO(), Clock()
    bar = running.MutantBar(label="mutation testing", unit="mutant", stream=out, tty=False,
                            clock=clock)
    assert running.status_line("⠋ Generating mutants", bar)
    clock.now = 10.0
    status = "⠙ 5/50  \U0001f389 3 \U0001fae5 0  \u23f0 1  \U0001f914 0  \U0001f641 1  \U0001f507 0"
    assert running.status_line(status, bar)
    assert not running.status_line("collected 3 items", bar)  # mutmut's other output
    assert out.getvalue().splitlines() == [
        "mutation testing: 0 mutants · generating mutants · 0 killed, 0 survived",
        "mutation testing: 5/50 mutants · testing mutants · 1 min 30 s left · 4 killed, "
        "1 survived",
    ]


def test_mutation_output_relays_lines_and_hides_the_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = io.StringIO()
    bar = running.MutantBar(label="m", unit="mutant", stream=out, tty=False, clock=Clock())
    raw = "line one\n⠋ 1/2  \U0001f389 1 \u23f0 0  \U0001f641 0\rline two\n".encode()
    assert running._relay(io.BufferedReader(io.BytesIO(raw)), bar) == ["line one", "line two"]
    assert capsys.readouterr().out == "  line one\n  line two\n"
    assert "1/2 mutants" in out.getvalue()
