"""chunk-contract: an executable spec of what a correct text or spreadsheet chunker must do.

The public API is small on purpose::

    from chunk_contract import run, check, RunSettings
    result = run("chunk_contract_reference/fixed.py:split")
    assert result.passed, result.violated
    assert not check("chunk_contract_reference/fixed.py:split", "a\r\nb", max_size=2, overlap=1)

Extending it (docs/how-to/extend.md), from a module named by ``--plugin``,
``$CHUNK_CONTRACT_PLUGINS``, ``plugins = [...]`` in ``[tool.chunk-contract]`` or an entry point:

- a rule: decorate ``(case: Case) -> Iterator[Violation]`` with ``@invariant("my_rule")``; its
  docstring's first line is the rule;
- a report format: ``register_format(ReportFormat(name, flag, help, open))``;
- a diagnosis pattern: decorate ``(probe: Probe) -> str | None`` with ``@pattern(...)``;
- a target kind: ``register_kind(TargetKind(prefix, transport, working_folder, location))``.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str
    from chunk_contract.diagnosis import Probe, pattern
    from chunk_contract.engine.results import RunResult, RunSettings
    from chunk_contract.engine.runner import run
    from chunk_contract.engine.verify import check
    from chunk_contract.errors import UsageError
    from chunk_contract.reporting.formats import MergedFile, PerTargetFile, ReportFormat
    from chunk_contract.reporting.formats import register as register_format
    from chunk_contract.spec import SPEC_VERSION
    from chunk_contract.spec.model import Case, Chunk, Config, Violation
    from chunk_contract.spec.registry import invariant
    from chunk_contract.transport.kinds import TargetKind, command_child, register_kind
    from chunk_contract.transport.loading import load
    from chunk_contract.transport.targets import Plugin, TargetError

#: Every public name, imported on first use: ``run`` and ``check`` import Hypothesis, ``load``
#: the worker machinery, the others the spec and the engine's results, and
#: ``import chunk_contract.<anything>`` must not (the pytest plugin, the reporters, and the
#: fresh interpreters of ``deterministic``, which start twice a run).
_ON_FIRST_USE = {
    "RunResult": ("chunk_contract.engine.results", "RunResult"),
    "RunSettings": ("chunk_contract.engine.results", "RunSettings"),
    "UsageError": ("chunk_contract.errors", "UsageError"),
    "SPEC_VERSION": ("chunk_contract.spec", "SPEC_VERSION"),
    "Case": ("chunk_contract.spec.model", "Case"),
    "Chunk": ("chunk_contract.spec.model", "Chunk"),
    "Config": ("chunk_contract.spec.model", "Config"),
    "Violation": ("chunk_contract.spec.model", "Violation"),
    "invariant": ("chunk_contract.spec.registry", "invariant"),
    "TargetKind": ("chunk_contract.transport.kinds", "TargetKind"),
    "command_child": ("chunk_contract.transport.kinds", "command_child"),
    "register_kind": ("chunk_contract.transport.kinds", "register_kind"),
    "Plugin": ("chunk_contract.transport.targets", "Plugin"),
    "TargetError": ("chunk_contract.transport.targets", "TargetError"),
    "check": ("chunk_contract.engine.verify", "check"),
    "load": ("chunk_contract.transport.loading", "load"),
    "run": ("chunk_contract.engine.runner", "run"),
    "pattern": ("chunk_contract.diagnosis", "pattern"),
    "Probe": ("chunk_contract.diagnosis", "Probe"),
    "ReportFormat": ("chunk_contract.reporting.formats", "ReportFormat"),
    "MergedFile": ("chunk_contract.reporting.formats", "MergedFile"),
    "PerTargetFile": ("chunk_contract.reporting.formats", "PerTargetFile"),
    "register_format": ("chunk_contract.reporting.formats", "register"),
}


def __getattr__(name: str) -> Any:
    """The names of ``_ON_FIRST_USE``, imported when first read; ``__version__``, the installed
    distribution's version, looked up when first read."""
    if name == "__version__":
        from chunk_contract._version import version  # lazy: as every name here

        return version()
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module 'chunk_contract' has no attribute {name!r}")
    module, attribute = _ON_FIRST_USE[name]
    return getattr(import_module(module), attribute)


__all__ = [
    "SPEC_VERSION",
    "Case",
    "Chunk",
    "Config",
    "MergedFile",
    "PerTargetFile",
    "Plugin",
    "Probe",
    "ReportFormat",
    "RunResult",
    "RunSettings",
    "TargetError",
    "TargetKind",
    "UsageError",
    "Violation",
    "__version__",
    "check",
    "command_child",
    "invariant",
    "load",
    "pattern",
    "register_format",
    "register_kind",
    "run",
]
