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

from contract._version import version as _version
from contract.engine.results import RunResult, RunSettings
from contract.spec import SPEC_VERSION
from contract.spec.model import Case, Chunk, Config, Violation
from contract.spec.registry import invariant
from contract.transport.targets import Plugin, TargetError

#: The installed distribution's version.
__version__ = _version()

if TYPE_CHECKING:
    from contract.engine.runner import run
    from contract.engine.verify import check
    from contract.transport.loading import load


def __getattr__(name: str) -> Any:
    """``run``, ``check`` and ``load``, imported on first use: the first two import
    Hypothesis, and ``import contract.<anything>`` (the pytest plugin, the reporters) must not."""
    if name == "check":
        from contract.engine.verify import check  # lazy: Hypothesis

        return check
    if name == "load":
        from contract.transport.loading import load  # lazy: it imports the worker machinery

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
    "__version__",
    "check",
    "invariant",
    "load",
    "run",
]
