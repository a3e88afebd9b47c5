"""An independent check of what GitHub code scanning requires of a SARIF log.

Written from the documented GitHub rules of the official SARIF multitool (``sarif-multitool
validate --rule-kind Ghas``), so the tests hold even where that tool is not installed:

- GH1015 (result): a ``message`` with ``text``, a non-empty ``locations`` array, and
  ``partialFingerprints``;
- GH1016 / GH1001 (location): a ``physicalLocation`` with ``artifactLocation.uri``;
- GH1017 (physical location): a ``region`` that has ``startLine`` (or an offset) and whose
  ``endLine``/``endColumn`` do not precede the start, and an ``artifactLocation``;
- GH2012 (rule): an ``id``, ``shortDescription.text``, ``fullDescription.text`` and ``help.text``;
- GH1005 (location URIs): relative to the checkout (no scheme, no leading ``/``, no ``..``), so
  GitHub can find the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def problems(log: dict[str, Any]) -> list[str]:
    """Every GitHub-rule problem in ``log``, as ``"RULE pointer: what"`` lines (empty: accepted)."""
    found: list[str] = []
    for r, run in enumerate(log.get("runs", [])):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        for i, rule in enumerate(rules):
            found += _rule(rule, f"runs[{r}].tool.driver.rules[{i}]")
        for i, result in enumerate(run.get("results", [])):
            found += _result(result, f"runs[{r}].results[{i}]")
    return found


def _text(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("text"), str) and bool(
        value["text"].strip()
    )


def _rule(rule: dict[str, Any], at: str) -> Iterator[str]:
    if not str(rule.get("id", "")).strip():
        yield f"GH2012 {at}: no id"
    for key in ("shortDescription", "fullDescription", "help"):
        if not _text(rule.get(key)):
            yield f"GH2012 {at}: no {key}.text"


def _result(result: dict[str, Any], at: str) -> Iterator[str]:
    if not _text(result.get("message")):
        yield f"GH1015 {at}: no message.text"
    if not result.get("partialFingerprints"):
        yield f"GH1015 {at}: no partialFingerprints"
    locations = result.get("locations")
    if not locations:
        yield f"GH1015 {at}: no locations"
        return
    for i, location in enumerate(locations):
        yield from _location(location, f"{at}.locations[{i}]")


def _location(location: dict[str, Any], at: str) -> Iterator[str]:
    physical = location.get("physicalLocation")
    if not isinstance(physical, dict):
        yield f"GH1016 {at}: no physicalLocation"
        return
    yield from _region(physical.get("region"), f"{at}.physicalLocation.region")
    artifact = physical.get("artifactLocation")
    uri = artifact.get("uri") if isinstance(artifact, dict) else None
    if not isinstance(uri, str) or not uri:
        yield f"GH1017 {at}: no physicalLocation.artifactLocation.uri"
    elif _SCHEME.match(uri) or uri.startswith("/") or ".." in uri.split("/"):
        yield f"GH1005 {at}: uri {uri!r} is not relative to the checkout"


def _region(region: Any, at: str) -> Iterator[str]:
    if not isinstance(region, dict):
        yield f"GH1017 {at}: no region"
        return
    if not any(isinstance(region.get(k), int) for k in ("startLine", "charOffset", "byteOffset")):
        yield f"GH1017 {at}: no startLine, charOffset or byteOffset"
    start, end = region.get("startLine", 1), region.get("endLine")
    if isinstance(end, int) and isinstance(start, int) and end < start:
        yield f"GH1017 {at}: endLine {end} precedes startLine {start}"
    if (end in (None, start)) and region.get("endColumn", 1) < region.get("startColumn", 1):
        yield f"GH1017 {at}: endColumn precedes startColumn"
