"""chunk-contract: an executable spec of what a correct text or spreadsheet chunker must do.

The public API is small on purpose::

    from contract import run, check, RunSettings
    result = run("reference_chunkers/fixed.py:split")
    assert result.passed, result.violated

Writing a new invariant: decorate a function ``(case: Case) -> Iterator[Violation]`` with
``@invariant("my_rule")``; its docstring's first line is the rule.
"""

from contract.model import Case, Chunk, Config, Violation
from contract.plugins import Plugin, TargetError, load
from contract.registry import invariant
from contract.runner import RunResult, RunSettings, run

__all__ = [
    "Case",
    "Chunk",
    "Config",
    "Plugin",
    "RunResult",
    "RunSettings",
    "TargetError",
    "Violation",
    "invariant",
    "load",
    "run",
]
