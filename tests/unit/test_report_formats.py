"""The registry of report formats: declarations, flags on every front door, merging, paths."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from chunk_contract.cli.main import build_parser
from chunk_contract.engine.runner import Finished, InvariantResult, RunResult, Started
from chunk_contract.errors import UsageError
from chunk_contract.reporting import formats
from chunk_contract.reporting.formats import (
    MERGED,
    PER_TARGET,
    MergedFile,
    Output,
    PerTargetFile,
    ReportFormat,
    Reports,
    register,
)

ROOT = Path(__file__).parent.parent.parent


def _result(target: str) -> RunResult:
    return RunResult(target, "text", 1, 3, [InvariantResult("non_empty", "passed", 3)], 0.1)


def _write_names(output: Output, results: Sequence[RunResult]) -> None:
    assert output.path is not None
    output.path.write_text("\n".join(r.target for r in results))


@pytest.fixture
def extra() -> Iterator[ReportFormat]:
    """A format registered for one test (as a third party would), then removed."""
    fmt = register(
        ReportFormat(
            name="names", flag="--names", help="write the target names",
            open=lambda output: MergedFile(output, _write_names),
        )
    )
    yield fmt
    formats._FORMATS.pop("names")


def test_every_builtin_format_declares_a_name_help_and_handler() -> None:
    known = formats.formats()
    assert {"text", "progress", "json", "junit", "sarif", "markdown", "html"} <= set(known)
    flags = [f.flag for f in known.values() if f.flag]
    assert len(flags) == len(set(flags)) == 5
    assert known["text"].flag is None and known["progress"].flag is None  # streams
    assert known["json"].merge == PER_TARGET
    assert {known[n].merge for n in ("junit", "sarif", "markdown", "html")} == {MERGED}
    assert all(f.help and callable(f.open) for f in known.values())


def test_a_second_format_of_the_same_name_is_refused(extra: ReportFormat) -> None:
    register(extra)  # the same declaration again: harmless (a module imported twice)
    with pytest.raises(ValueError, match="'names' is registered twice"):
        register(ReportFormat(name="names", help="other", open=extra.open, flag="--other"))


def _options(parser: argparse.ArgumentParser, command: str) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {o for action in sub.choices[command]._actions for o in action.option_strings}


@pytest.mark.parametrize("command", ["run", "check", "matrix"])
def test_every_file_format_is_a_flag_of_each_front_door(
    command: str, extra: ReportFormat
) -> None:
    options = _options(build_parser(), command)
    for fmt in formats.file_formats(command):
        assert fmt.flag in options, (command, fmt.name)
    assert "--names" in options  # a format registered later gets its flag too


def test_a_registered_format_is_fed_and_merged_by_the_registry(
    extra: ReportFormat, tmp_path: Path
) -> None:
    args = build_parser().parse_args(["run", "x.py:split", "--names", str(tmp_path / "n.txt")])
    given = formats.requested(args, "run")
    assert given == {"names": str(tmp_path / "n.txt")}
    reports = formats.open_reports(given, command="run", targets=2)
    for target in ("a.py:split", "b.py:split"):
        reports(Started(target, "text", ("non_empty",), 1, 3))
        reports(Finished(_result(target)))
    assert not (tmp_path / "n.txt").exists()  # a merged file waits for the last target
    reports.close()
    assert (tmp_path / "n.txt").read_text() == "a.py:split\nb.py:split"


def test_a_merged_file_with_no_finished_target_is_not_written(tmp_path: Path) -> None:
    handler = MergedFile(Output(tmp_path / "n.txt"), _write_names)
    handler(Started("a.py:split", "text", (), 1, 3))
    handler.close()
    assert not (tmp_path / "n.txt").exists()


@pytest.mark.parametrize(
    ("command", "targets", "folder", "expected"),
    [
        ("run", 1, False, "out/r.json"),
        ("check", 1, False, "out/r.json"),
        ("run", 2, False, "out/r.head-split-x.json"),
        ("pytest", 2, False, "out/r.head-split-x.json"),
        ("matrix", 2, True, "out/r.json/head-split-x.json"),
    ],
)
def test_per_target_files_keep_their_names(
    command: str, targets: int, folder: bool, expected: str
) -> None:
    output = Output(Path("out/r.json"), command=command, targets=targets, folder=folder)
    handler = PerTargetFile(output, lambda path, result: None, suffix=".json")
    assert handler.path_for("lib/head.py:split_x") == Path(expected)


def test_matrix_json_names_a_folder_and_the_others_a_file() -> None:
    known = formats.formats()
    assert known["json"].is_folder("matrix") and not known["json"].is_folder("run")
    assert not known["junit"].is_folder("matrix")


@pytest.mark.parametrize("command", ["run", "check", "matrix", "pytest"])
def test_a_folder_where_a_report_file_is_expected_is_a_usage_error(
    command: str, tmp_path: Path
) -> None:
    with pytest.raises(UsageError, match="directory"):
        formats.validate({"junit": str(tmp_path)}, command)


def test_a_file_where_the_matrix_json_folder_is_expected_is_a_usage_error(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(UsageError, match="not a folder"):
        formats.validate({"json": str(tmp_path / "file")}, "matrix")


class _Failing:
    def __call__(self, event: object) -> None:
        pass

    def close(self) -> None:
        raise OSError("disk full")


def test_one_failing_report_does_not_stop_the_others_from_being_written(tmp_path: Path) -> None:
    written = MergedFile(Output(tmp_path / "n.txt"), _write_names)
    reports = Reports([_Failing(), written])
    reports(Finished(_result("a.py:split")))
    with pytest.raises(OSError, match="disk full"):
        reports.close()
    assert (tmp_path / "n.txt").read_text() == "a.py:split"


def test_the_registry_and_every_format_load_without_hypothesis() -> None:
    probe = (
        "import sys, chunk_contract.reporting, chunk_contract.reporting.formats as f; f.formats(); "
        "import chunk_contract.cli.main; chunk_contract.cli.main.build_parser(); "
        "print(sorted(m for m in ('hypothesis', 'chunk_contract.engine.runner')"
        " if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("command", ["check", "matrix"])
def test_check_and_matrix_refuse_an_unusable_report_path_before_running(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from chunk_contract.cli.main import main

    target = f"{ROOT / 'tests' / 'gate' / 'plugins.py'}:windows"
    (tmp_path / "doc.txt").write_text("text")
    args = [target]
    if command == "check":
        args += [str(tmp_path / "doc.txt"), "--max-size", "3"]
    assert main([command, *args, "--sarif", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--sarif" in err and "is a directory" in err and len(err.splitlines()) == 1


def _following() -> RunResult:
    """span_fidelity violated, and line_citations following from it."""
    from chunk_contract.engine.results import Counterexample
    from chunk_contract.spec.model import Config

    def found(rule: str, follows: str | None) -> Counterexample:
        return Counterexample(rule, "aa\nbb", Config(2, 0), [f"{rule} message"], [],
                              follows_from=follows)

    items = [InvariantResult("span_fidelity", "violated", 3, found("span_fidelity", None)),
             InvariantResult("line_citations", "violated", 3,
                             found("line_citations", "span_fidelity"))]
    return RunResult("t.py:split", "text", 1, 3, items, 0.1)


def test_every_report_marks_a_verdict_that_follows_from_another() -> None:
    import xml.etree.ElementTree as ET

    from chunk_contract.reporting.html import render_html
    from chunk_contract.reporting.json_report import report_json
    from chunk_contract.reporting.junit import junit_tree
    from chunk_contract.reporting.markdown import render_markdown
    from chunk_contract.reporting.sarif import sarif_log
    from chunk_contract.reporting.text import render

    result = _following()
    note = "(follows from span_fidelity)"
    entries = {i["id"]: i for i in report_json(result)["invariants"]}
    assert entries["line_citations"]["follows_from"] == "span_fidelity"
    assert entries["line_citations"]["counterexample"]["follows_from"] == "span_fidelity"
    assert "follows_from" not in entries["span_fidelity"]
    for text in (render(result), render_markdown([result]), render_html([result])):
        assert text.count(note) >= 1 and "span_fidelity message" in text
    junit = ET.tostring(junit_tree(result).getroot(), encoding="unicode")
    assert f'message="{note} line_citations message"' in junit
    sarif = sarif_log([result])["runs"][0]["results"]
    follows = {r["ruleId"]: r["properties"]["follows_from"] for r in sarif}
    assert follows == {"span_fidelity": None, "line_citations": "span_fidelity"}
    assert any(note in r["message"]["text"] for r in sarif)
