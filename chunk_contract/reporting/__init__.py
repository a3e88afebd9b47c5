"""Reporters: consume the runner's events and render the result (text, progress, JSON, JUnit
XML, SARIF, markdown, HTML). Every format registers itself in chunk_contract.reporting.formats
(``formats.formats()`` lists them)."""

from chunk_contract.reporting.formats import ReportFormat, open_reports, register
from chunk_contract.reporting.json_report import JsonReport, report_json
from chunk_contract.reporting.progress import RunProgress
from chunk_contract.reporting.text import TextReport

__all__ = [
    "JsonReport",
    "ReportFormat",
    "RunProgress",
    "TextReport",
    "open_reports",
    "register",
    "report_json",
]
