"""chunk-contract: an executable spec of what a correct text or spreadsheet chunker must do.

The public API is small on purpose::

    from contract import run, check, RunSettings
    result = run("reference_chunkers/fixed.py:split")
    assert result.passed, result.violated
    assert not check("reference_chunkers/fixed.py:split", "a\r\nb", max_size=2, overlap=1)

Writing a new invariant: decorate a function ``(case: Case) -> Iterator[Violation]`` with
``@invariant("my_rule")``; its docstring's first line is the rule.
"""

from typing import TYPE_CHECKING, Any

from contract import _legacy
from contract.engine.results import RunResult, RunSettings
from contract.engine.targets import Plugin, TargetError
from contract.spec.model import Case, Chunk, Config, Violation
from contract.spec.registry import invariant

_legacy.install()  # the old import paths (contract.runner, contract.adapters, ...) keep working

#: The version of the public interface (docs/spec.md) that this package implements; reports
#: name it, so a reader knows which rules a verdict was reached under.
SPEC_VERSION = "1.1"

if TYPE_CHECKING:
    from contract.engine.loading import load
    from contract.engine.runner import run
    from contract.engine.verify import check


def __getattr__(name: str) -> Any:
    """``run``, ``check`` and ``load``, imported on first use: the first two import
    Hypothesis, and ``import contract.<anything>`` (the pytest plugin, the reporters) must not."""
    if name == "check":
        from contract.engine.verify import check  # lazy: Hypothesis

        return check
    if name == "load":
        from contract.engine.loading import load  # lazy: it imports the worker machinery

        return load
    if name == "run":
        from contract.engine.runner import run  # lazy: Hypothesis

        return run
    raise AttributeError(f"module 'contract' has no attribute {name!r}")


__all__ = [
    "SPEC_VERSION",
    "Case",
    "Chunk",
    "Config",
    "Plugin",
    "RunResult",
    "RunSettings",
    "TargetError",
    "Violation",
    "check",
    "invariant",
    "load",
    "run",
]
