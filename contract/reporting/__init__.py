"""Reporters: consume the runner's events and render the result (text, JSON, JUnit XML)."""

from contract.reporting.json_report import JsonReport, report_json
from contract.reporting.junit import JUnitReport
from contract.reporting.text import ProgressPrinter, TextReport

__all__ = ["JUnitReport", "JsonReport", "ProgressPrinter", "TextReport", "report_json"]
