"""A tiny extension, as a chunker team would write it: one rule, one report format, one
diagnosis pattern and one target kind. The tests copy it into a temporary folder as the package
``house_ext`` and name it with ``--plugin``, ``plugins = [...]``, ``$CHUNK_CONTRACT_PLUGINS`` or
an entry point.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from chunk_contract import (
    Case,
    MergedFile,
    Probe,
    ReportFormat,
    RunResult,
    TargetKind,
    Violation,
    command_child,
    invariant,
    pattern,
    register_format,
    register_kind,
)
from chunk_contract.reporting.formats import Output

RULE = "house_text_from_document"


@invariant(RULE)
def text_from_document(case: Case) -> Iterator[Violation]:
    """Every chunk's text occurs in the document."""
    for chunk in case.chunks:
        if chunk.text not in case.document.text:
            yield Violation(RULE, f"chunk {chunk.index} is not in the document: {chunk.text!r}",
                            (chunk.index,))


@pattern("house_echo", invariants=(RULE,), cause="the whole document is echoed with a suffix",
         fix="drop the echo chunk")
def echo(probe: Probe) -> str | None:
    """Confirmed when, on a fresh document, the last chunk is that document and more."""
    chunks = probe.rechunk("abc", probe.config)
    if chunks and chunks[-1].text.startswith("abc") and len(chunks[-1].text) > 3:
        return f"on 'abc' the last chunk is {chunks[-1].text!r}"
    return None


def _write(output: Output, results: Sequence[RunResult]) -> None:
    assert output.path is not None
    lines = [f"{r.target} violated={','.join(i.id for i in r.violated)}" for r in results]
    output.path.write_text("\n".join(lines) + "\n", encoding="utf-8")


FORMAT = register_format(ReportFormat(
    name="house-count", flag="--house-count", help="write one line per target: its violations",
    open=lambda output: MergedFile(output, _write),
))


def _command(target: str) -> list[str]:
    return [sys.executable, *shlex.split(target.removeprefix("pyfile:"))]


def _transport(target: str, **limits: Any) -> Any:
    return command_child(_command(target), **limits)


def _location(target: str) -> tuple[str, Path | None]:
    script = Path(_command(target)[1])
    return script.name, script if script.is_file() else None


KIND = register_kind(TargetKind(
    "pyfile:", _transport, working_folder=lambda target: str(Path.cwd()),
    sarif_location=_location,
))
