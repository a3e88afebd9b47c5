"""The fuzz target: one fuzz input in, every applicable invariant checked, an exception out.

A Python plugin runs *in the fuzzing process*: libFuzzer only sees coverage of code running in
its own process, so the isolated worker that ``chunk-contract run`` uses would leave it blind.
The plugin is reached through the transport seam (:class:`~chunk_contract.transport.base.
InProcessTransport`: the same typed requests and checked replies as the fork worker), so the
invariants, config rules, reruns for ``deterministic`` and token counts are the very code of a
run. An ``exec:`` / ``http(s)://`` target keeps its own out-of-process transport (its code is
another language's: there is no coverage to gain by running it here).

The target's own modules (everything loading it imported) are instrumented with
``atheris.instrument_func``; the contract's checks are not, so the search follows the
chunker's branches, not ours.
"""

from __future__ import annotations

import gc
import os
import sys
import sysconfig
import time
import types
from collections.abc import Iterable, Sequence
from typing import Any

from chunk_contract.engine.session import Session
from chunk_contract.errors import UsageError
from chunk_contract.integrations.fuzzing.inputs import FuzzCase, decode
from chunk_contract.spec.model import Violation, escape
from chunk_contract.spec.registry import registry
from chunk_contract.transport.base import InProcessTransport
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.targets import Plugin, TargetError
from chunk_contract.transport.targets import load_here as load

ATHERIS_MISSING = (
    "coverage-guided fuzzing of a Python chunker needs atheris, which is not installed here: "
    "pip install 'chunk-contract[fuzz]' (atheris==3.0.0; Linux or macOS, CPython 3.11)"
)
#: Seconds between the heartbeat lines the engine writes for the driver's progress display.
HEARTBEAT = 2.0


class MissingDependency(UsageError):
    """An optional dependency is missing: one line naming the extra to install, exit 2."""


class AtherisMissing(MissingDependency, ImportError):
    """atheris is not installed (an ImportError too, for the OSS-Fuzz target files)."""


def require_atheris() -> Any:
    """The atheris module, or :class:`AtherisMissing` saying how to install it."""
    try:
        import atheris
    except ImportError as exc:
        raise AtherisMissing(ATHERIS_MISSING) from exc
    return atheris


def text_plugin(plugin: Plugin) -> Plugin:
    """``plugin`` if it chunks text; a TargetError for workbook plugins (not fuzzed yet)."""
    if plugin.kind != "text":
        raise TargetError(
            f"{plugin.target}: {plugin.kind} plugins cannot be fuzzed yet (only text "
            "chunkers); use `chunk-contract run` for them"
        )
    return plugin


def fuzz_session(
    plugin: Plugin,
    *,
    timeout: float = 2.0,
    selected: Sequence[str] | None = None,
    memory_mb: int | None = None,
) -> Session:
    """A Session (every invariant, or ``selected``) for fuzzing ``plugin``.

    In process for a Python plugin; out of process (its own transport, with ``memory_mb``)
    for an ``exec:`` / ``http(s)://`` target.
    """
    chosen = list(registry()) if selected is None else list(selected)
    if is_out_of_process(plugin.spec):
        return Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=chosen)
    transport = InProcessTransport(plugin)
    return Session(plugin, timeout=timeout, memory_mb=None, selected=chosen, transport=transport)


class ContractViolation(Exception):
    """A fuzz input on which the plugin broke one or more invariants (raised in TestOneInput)."""

    def __init__(self, target: str, case: FuzzCase, violations: Sequence[Violation]) -> None:
        """Keep the case and its violations; the message is :meth:`report`."""
        self.target = target
        self.case = case
        self.violations = list(violations)
        super().__init__(self.report())

    @property
    def invariants(self) -> list[str]:
        """The violated invariant ids, sorted."""
        return sorted({v.invariant for v in self.violations})

    def report(self) -> str:
        """Each violated id with its message, then the document and the config."""
        lines = [f"{self.target} violates {', '.join(self.invariants)}"]
        for v in self.violations[:8]:
            lines += _message_lines(v)
        if len(self.violations) > 8:
            lines.append(f"  ... and {len(self.violations) - 8} more")
        lines.append(
            f"  document = {escape(self.case.document, 200)} ({len(self.case.document)} codepoints)"
        )
        lines.append(f"  config   = {self.case.config.describe()}")
        return "\n".join(lines)


def _message_lines(violation: Violation) -> list[str]:
    first, *rest = violation.message.splitlines() or [""]
    return [f"  [{violation.invariant}] {first}", *(f"      {line}" for line in rest[:6])]


class FuzzTarget:
    """``TestOneInput`` for one plugin: decode, chunk, check, raise on a violation.

    ``ignore`` names invariants already reported (the driver fuzzing on): inputs that only
    break those pass. ``heartbeat`` makes it print an execution count every few seconds.
    """

    def __init__(
        self,
        plugin: Plugin,
        *,
        ignore: Iterable[str] = (),
        heartbeat: bool = False,
        timeout: float = 2.0,
        selected: Sequence[str] | None = None,
        memory_mb: int | None = None,
    ) -> None:
        """Open the plugin's session (see :func:`fuzz_session`)."""
        self.plugin = text_plugin(plugin)
        self.session = fuzz_session(plugin, timeout=timeout, selected=selected,
                                    memory_mb=memory_mb)
        self.ignore = frozenset(ignore)
        self.heartbeat = heartbeat
        self.execs = 0
        self._started = time.monotonic()
        self._next_beat = self._started + HEARTBEAT

    def __call__(self, data: bytes) -> None:
        """Check one input; :class:`ContractViolation` if it breaks an invariant not ignored."""
        self.execs += 1
        if self.heartbeat and self.execs % 64 == 0:
            self._beat()
        case = decode(data)
        found = self.violations(case)
        if found:
            raise ContractViolation(self.plugin.target, case, found)

    def violations(self, case: FuzzCase) -> list[Violation]:
        """The violations of ``case``, minus the ignored invariants."""
        seen = self.session.observe(case.document, case.config)
        return [v for v in seen.violations if v.invariant not in self.ignore]

    def close(self) -> None:
        """Stop the session (and an out-of-process child, if any)."""
        self.session.close()

    def _beat(self) -> None:
        now = time.monotonic()
        if now >= self._next_beat:
            self._next_beat = now + HEARTBEAT
            seconds = now - self._started
            sys.stderr.write(f"#chunk-contract execs={self.execs} seconds={seconds:.1f}\n")
            sys.stderr.flush()


def load_instrumented(target: str) -> tuple[Plugin, int]:
    """Load ``target`` here and add atheris coverage instrumentation to its own code.

    Instrumented: every Python function of the modules that loading the target imported (the
    plugin file or module, its siblings, the third-party library an adapter wraps), and of the
    module defining the chunker. Not instrumented: the contract and what it had loaded already
    (its checks would steer the search toward our branches, not the chunker's), atheris, and
    the standard library. Returns the plugin and the number of functions instrumented.
    """
    atheris = require_atheris()
    registry()  # imports every invariant (and what they use) before the snapshot below
    import chunk_contract.spec.placement  # noqa: F401  # lazy: loaded before the snapshot below

    before = set(sys.modules)
    plugin = load(target)
    owner = getattr(plugin.split, "__module__", None)
    fresh = {name for name in sys.modules if name not in before} | ({owner} if owner else set())
    chosen = {name for name in fresh if _wanted(name, owner)}
    return plugin, _instrument(atheris, chosen)


def _wanted(name: str, owner: str | None) -> bool:
    """Whether module ``name`` is the target's own code (not atheris, the stdlib, __main__)."""
    if name.split(".")[0] in ("atheris", "chunk_input", "harness") or name == "__main__":
        return False
    where = getattr(sys.modules.get(name), "__file__", None) or ""
    stdlib = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib")}
    in_stdlib = any(where.startswith(folder + os.sep) for folder in stdlib)
    return name == owner or not (in_stdlib and "site-packages" not in where)


def _instrument(atheris: Any, modules: set[str]) -> int:
    count = 0
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__module__ in modules:
            try:
                atheris.instrument_func(obj)
                count += 1
            except Exception:  # a builtin-like function atheris cannot rewrite: left as is
                pass
    return count


def prepare(
    target: str,
    *,
    ignore: Iterable[str] = (),
    heartbeat: bool = False,
    timeout: float = 2.0,
    selected: Sequence[str] | None = None,
) -> FuzzTarget:
    """Load and instrument ``target``; the returned object is its ``TestOneInput``."""
    plugin, _ = load_instrumented(target)
    return FuzzTarget(
        plugin, ignore=ignore, heartbeat=heartbeat, timeout=timeout, selected=selected
    )
