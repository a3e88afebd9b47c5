"""JUnit XML: one testcase per invariant, so CI systems show the contract like unit tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chunk_contract import _files
from chunk_contract.errors import printable
from chunk_contract.reporting.formats import MergedFile, Output, ReportFormat, register
from chunk_contract.reporting.text import others, render_violation, stop_notes, waiver_note

if TYPE_CHECKING:
    from chunk_contract.engine.results import InvariantResult, RunResult


def junit_tree(result: RunResult) -> ET.ElementTree:
    """A ``<testsuites>`` document for ``result``."""
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": f"chunk-contract {printable(result.target, limit=300)}",
            "tests": str(len(result.results)),
            "failures": str(sum(_gates(r) for r in result.violated)),
            "skipped": str(sum(r.status != "passed" and not _gates(r) for r in result.results)),
            "errors": "0",
            "time": f"{result.elapsed:.3f}",
        },
    )
    _properties(suite, result)
    for item in result.results:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": f"chunk_contract.{_safe(result.target)}", "name": item.id, "time": "0"},
        )
        if _gates(item) and item.counterexample is not None:
            failure = ET.SubElement(
                case,
                "failure",
                {"message": _failure_message(item), "type": item.id},
            )
            failure.text = "\n".join([render_violation(result, item), *others(item)])
        elif item.status == "violated":
            causes = ", ".join(f.cause for f in item.all_counterexamples)
            ET.SubElement(case, "skipped",
                          {"message": printable(f"accepted by the baseline: {causes}")})
        elif item.status == "waived":
            ET.SubElement(case, "skipped", {"message": printable(f"waived: {waiver_note(item)}")})
        elif item.status == "skipped":
            ET.SubElement(case, "skipped", {"message": printable(item.reason)})
    notes = stop_notes(result)
    if notes:  # after the testcases, as the JUnit schema orders them
        ET.SubElement(suite, "system-out").text = "\n".join(notes)
    ET.indent(suites)
    return ET.ElementTree(suites)


def _first_line(message: str) -> str:
    """A message's first line, cut and escaped: XML holds no control character."""
    return printable(message.splitlines()[0] if message else "")


def _failure_message(item: InvariantResult) -> str:
    """The failure's first line, marked when it follows from another rule's violation."""
    observed = _first_line(item.counterexample.message) if item.counterexample else ""
    return f"{item.follows_note} {observed}" if item.follows_from else observed


def _gates(item: InvariantResult) -> bool:
    """A violated invariant with a finding the baseline does not accept (or no baseline)."""
    return item.status == "violated" and (
        not item.all_counterexamples
        or any(f.baseline != "unchanged" for f in item.all_counterexamples)
    )


def _properties(suite: ET.Element, result: RunResult) -> None:
    """The example counts, and whether a budget cut the run short, as suite properties."""
    props = ET.SubElement(suite, "properties")
    values = {
        "examples": str(result.examples),
        "examples_asked": str(result.examples_asked),
        "stopped_early": result.stopped_early or "",
        "shrink_incomplete": ",".join(result.shrinks_cut_short),
    }
    for name, value in values.items():
        ET.SubElement(props, "property", {"name": name, "value": value})


def _safe(target: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in target).strip("_")


def merged_tree(results: Sequence[RunResult]) -> ET.Element:
    """One ``<testsuites>`` holding the suite of every target."""
    merged = ET.Element("testsuites")
    for result in results:
        root = junit_tree(result).getroot()
        if root is not None:
            merged.extend(root.findall("testsuite"))
    ET.indent(merged)
    return merged


def write_junit(output: Output, results: Sequence[RunResult]) -> None:
    """Write every target's suite in one file, whole."""
    assert output.path is not None
    data = ET.tostring(merged_tree(results), encoding="utf-8", xml_declaration=True)
    _files.write_bytes(output.path, data)


FORMAT = register(
    ReportFormat(
        name="junit",
        flag="--junit",
        help="write a JUnit XML report (CI test tab)",
        open=lambda output: MergedFile(output, write_junit),
    )
)
