"""JUnit XML: one testcase per invariant, so CI systems show the contract like unit tests."""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from contract.engine.events import Event, Finished
from contract.engine.results import RunResult
from contract.reporting.text import render_violation, stop_notes


def junit_tree(result: RunResult) -> ET.ElementTree:
    """A ``<testsuites>`` document for ``result``."""
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": f"chunk-contract {result.target}",
            "tests": str(len(result.results)),
            "failures": str(len(result.violated)),
            "skipped": str(sum(r.status == "skipped" for r in result.results)),
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
        if item.status == "violated" and item.counterexample is not None:
            failure = ET.SubElement(
                case,
                "failure",
                {"message": item.counterexample.message.splitlines()[0], "type": item.id},
            )
            failure.text = render_violation(result, item)
        elif item.status == "skipped":
            ET.SubElement(case, "skipped", {"message": item.reason})
    notes = stop_notes(result)
    if notes:  # after the testcases, as the JUnit schema orders them
        ET.SubElement(suite, "system-out").text = "\n".join(notes)
    ET.indent(suites)
    return ET.ElementTree(suites)


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


class JUnitReport:
    """Writes the JUnit XML file when the run finishes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __call__(self, event: Event) -> None:
        if not isinstance(event, Finished):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        os.close(fd)
        junit_tree(event.result).write(temp, encoding="utf-8", xml_declaration=True)
        os.replace(temp, self.path)
