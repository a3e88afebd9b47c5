"""What a run is given and what it gives back: :class:`RunSettings` and :class:`RunResult` with
its per-invariant verdicts and counterexamples.

Plain dataclasses that import no Hypothesis (nor the runner), so the reporters, the pytest
plugin and the front doors read results without paying for the engine. The runner re-exports
them (``from chunk_contract.engine.runner import RunResult`` keeps working).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunk_contract.spec.model import Config
from chunk_contract.store.reproducers import Reproducer
from chunk_contract.transport.kinds import working_folder


def stable_seed(target: str) -> int:
    """The fixed seed of a derandomized run: derived from the target string alone."""
    return zlib.crc32(f"chunk-contract:{target}".encode())

if TYPE_CHECKING:
    from chunk_contract.diagnosis import Diagnosis
    from chunk_contract.engine.findings import BaselineEntry
    from chunk_contract.engine.health import Finding
    from chunk_contract.generation.strategies.coverage import Coverage
    from chunk_contract.transport.targets import Plugin

__all__ = [
    "Counterexample", "InvariantResult", "PhaseTime", "RunResult", "RunSettings",
    "replace_settings",
]

#: The reason of a waiver given without one (``--skip ID``).
SKIP_REASON = "no reason given (--skip)"


#: The covering schedule's budget, in exploration budgets (see RunSettings.schedule_seconds):
#: 3 min by default. The schedule's 217 small cases take 2-4 s for a fast chunker on an idle
#: machine, and at load 13 on 2 cores they outlasted the 45 s budget; only a chunker slower
#: than about 0.8 s a call is cut now, and every report says so.
SCHEDULE_FACTOR = 4.0


@dataclass(frozen=True)
class RunSettings:
    """Budgets and selections for one run (the CLI's flags)."""

    max_examples: int = 200
    seed: int | None = None
    timeout: float = 2.0
    memory_mb: int | None = 1024
    #: Check only these invariants: the others are not evaluated and never gate, engine rules
    #: (no_crash, terminates, config_validation) included. Reports list them as deselected.
    only: tuple[str, ...] = ()
    #: Waive these invariants (reason: ``waivers``, else SKIP_REASON); see ``waived``.
    skip: tuple[str, ...] = ()
    explore_seconds: float = 45.0
    shrink_seconds: float = 10.0
    max_length: int = 2000
    reproducers: Path | None = Path(".chunk-contract/reproducers")
    #: The profile these budgets came from (chunk_contract.config.profiles), for reports only.
    profile: str | None = None
    #: Without a ``seed``: derive it from the target (stable_seed), so the
    #: same target always meets the same examples and a CI gate never flickers.
    derandomize: bool = False
    #: A folder of reproducer files: those of this target are replayed before exploring
    #: (chunk_contract.store.database). None: no replay.
    database: Path | None = None
    #: A shared example database (chunk_contract.store.database.open_database): a folder or a redis://
    #: URL. Its reproducers of this target are replayed first, and every finding is added.
    example_database: str | None = None
    #: Rerun the most telling clean inputs in fresh interpreters for ``deterministic``. A
    #: parallel run does it in one of its processes only.
    measure: bool = True
    #: Run the ``scales_linearly`` timing probe. A parallel run gives it a process of its own.
    probe: bool = True
    #: Replay the seed corpus (chunk_contract.generation.corpus) before generating. A parallel run
    #: does it in one of its processes only.
    corpus: bool = True
    #: Name the bug pattern behind each counterexample, by experiment (chunk_contract.diagnosis).
    diagnose: bool = True
    #: Play the covering schedule (chunk_contract.generation.strategies.schedule) after the corpus,
    #: before generating. A parallel run does it in one of its processes only.
    schedule: bool = True
    #: Seconds from the start of exploring within which the covering schedule is played to its
    #: end even when ``explore_seconds`` runs out first (None: ``SCHEDULE_FACTOR`` times
    #: ``explore_seconds``). The schedule is what makes coverage a property of the run: on a
    #: busy machine the wall-clock budget would cut it, and coverage would depend on the load.
    #: Generated examples still stop at ``explore_seconds``.
    schedule_seconds: float | None = None
    #: Invariant id -> why it is waived. A waived rule is still evaluated but never gates the
    #: run: reports show it as waived with the reason, with its counterexample if it still
    #: fails, and warn "waiver no longer needed" when it held.
    waivers: Mapping[str, str] = field(default_factory=dict, hash=False)
    #: A baseline file of accepted findings (chunk_contract.engine.findings): only findings not in
    #: it fail the run. None: every finding fails it.
    baseline: Path | None = None

    @property
    def waived(self) -> dict[str, str]:
        """Every waived invariant id -> its reason (``skip`` ids and ``waivers``)."""
        return {**dict.fromkeys(self.skip, SKIP_REASON), **self.waivers}

    @property
    def schedule_budget(self) -> float:
        """The seconds the covering schedule may take (see ``schedule_seconds``)."""
        if self.schedule_seconds is not None:
            return max(self.schedule_seconds, self.explore_seconds)
        return SCHEDULE_FACTOR * self.explore_seconds

    def __post_init__(self) -> None:
        if self.max_examples < 1:
            raise ValueError(f"max_examples must be at least 1, got {self.max_examples}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")
        if self.schedule_seconds is not None and self.schedule_seconds < 0:
            raise ValueError(f"schedule_seconds must be at least 0, got {self.schedule_seconds}")


@dataclass
class Counterexample:
    """A (shrunk) input that breaks one invariant, with what was observed."""

    invariant: str
    document: Any
    config: Config
    messages: list[str]
    chunks: list[dict[str, Any]] | None
    shrunk: bool = False
    reproducer: str | None = None
    offending: list[int] = field(default_factory=list)
    #: The shrink budget (``shrink_seconds``) ran out before Hypothesis finished shrinking: a
    #: smaller failing input may exist.
    shrink_incomplete: bool = False
    #: The bug pattern behind it, when an experiment on the plugin confirms one
    #: (chunk_contract.diagnosis); None otherwise.
    diagnosis: Diagnosis | None = None
    #: The saved failure (reproducer file or shared database) this input was replayed from at
    #: the start of the run, when shrinking found nothing smaller; None for a new finding.
    replayed_from: str | None = None
    #: The rule whose violation causes this one (chunk_contract.spec.causes): judged without the
    #: chunks' offsets, this rule holds, so the fix is the cause's. None: a verdict of its own.
    follows_from: str | None = None
    #: What makes it this finding and not another (chunk_contract.engine.findings.cause_of): the
    #: diagnosed pattern, the exception and its innermost frame, or the message's shape.
    cause: str = ""
    #: Against a baseline (RunSettings.baseline): "new" or "unchanged"; None without one.
    baseline: str | None = None

    @property
    def message(self) -> str:
        return self.messages[0]

    def to_reproducer(self, plugin: Plugin, *, timeout: float, memory_mb: int | None,
                      seed: int | None = None) -> Reproducer:
        """This input as a reproducer of ``plugin`` (SPEC §7), the one way every front door
        (run, check, fuzz, campaign) saves a counterexample. Its ``base`` is the folder the
        target runs in: the plugin's own (an ``exec:`` command of [tool.chunk-contract]), else
        its kind's (chunk_contract.transport.kinds); None lets ``reproducers.save`` find a relative
        file target's folder."""
        spec = plugin.spec or plugin.target
        return Reproducer(
            target=plugin.target, invariant=self.invariant, document=self.document,
            config=self.config, message=self.message, kind=plugin.kind, timeout=timeout,
            memory_mb=memory_mb, chunks=self.chunks, seed=seed,
            base=plugin.cwd if plugin.cwd is not None else working_folder(spec),
        )


@dataclass
class InvariantResult:
    """The verdict on one invariant: ``passed``, ``violated``, ``skipped`` (with a reason) or
    ``waived`` (evaluated but not gating; ``reason`` is the waiver's, ``counterexample`` set when
    the rule still fails)."""

    id: str
    status: str
    examples: int = 0
    counterexample: Counterexample | None = None
    reason: str = ""
    #: Up to chunk_contract.engine.findings.DISTINCT distinct counterexamples, the first being
    #: ``counterexample``.
    counterexamples: list[Counterexample] = field(default_factory=list)

    @property
    def all_counterexamples(self) -> list[Counterexample]:
        """Every distinct counterexample (``counterexample`` first)."""
        if self.counterexamples:
            return self.counterexamples
        return [self.counterexample] if self.counterexample is not None else []

    @property
    def waiver_needed(self) -> bool:
        """A waived rule that still fails (False: the waiver is no longer needed)."""
        return self.status == "waived" and self.counterexample is not None

    @property
    def follows_from(self) -> str | None:
        """The rule whose violation causes this one, if any (see Counterexample.follows_from)."""
        return self.counterexample.follows_from if self.counterexample else None

    @property
    def follows_note(self) -> str:
        """``"(follows from span_fidelity)"`` for the reports, or ``""``."""
        return f"(follows from {self.follows_from})" if self.follows_from else ""


@dataclass(frozen=True)
class PhaseTime:
    """Where a phase of a run (or the whole run) spent its time, in seconds: ``wall`` on the
    clock, ``cpu`` user + system of the host and every process it started (the worker, an
    ``exec:`` child, the fresh interpreter), and ``plugin_cpu`` the part of ``cpu`` spent in
    those started processes: the plugin's calls and the worker code around them (reading the
    request, encoding the reply). ``cpu - plugin_cpu`` is the gate's own work in the host:
    generating, checking, reporting. An ``http(s)://`` service's CPU is in neither."""

    wall: float = 0.0
    cpu: float = 0.0
    plugin_cpu: float = 0.0

    def __post_init__(self) -> None:
        for value in (self.wall, self.cpu, self.plugin_cpu):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"a phase's time is a number of seconds, got {value!r}")

    def __add__(self, other: PhaseTime) -> PhaseTime:
        return PhaseTime(self.wall + other.wall, self.cpu + other.cpu,
                         self.plugin_cpu + other.plugin_cpu)

    @property
    def host_cpu(self) -> float:
        """The CPU seconds of the host process itself: ``cpu`` less ``plugin_cpu``."""
        return max(0.0, self.cpu - self.plugin_cpu)

    def as_dict(self) -> dict[str, float]:
        return {"wall": round(self.wall, 3), "cpu": round(self.cpu, 3),
                "plugin_cpu": round(self.plugin_cpu, 3)}


@dataclass
class RunResult:
    target: str
    kind: str
    seed: int
    examples: int
    results: list[InvariantResult]
    elapsed: float = 0.0
    settings: RunSettings = field(default_factory=RunSettings)
    #: Examples the run set out to check: the replayed inputs (saved failures, the seed corpus)
    #: plus ``max_examples`` generated ones. 0 when not counted (``check`` on real files).
    examples_asked: int = 0
    #: Why exploration stopped before ``examples_asked`` (the time budget ran out, ...), or None
    #: when every example asked for was checked.
    stopped_early: str | None = None
    #: The run stopped early (a signal, a dead ``-n`` process): what it found is kept, but it
    #: has not passed. ``interrupted_reason`` says why ("interrupted by SIGTERM").
    interrupted: bool = False
    interrupted_reason: str = ""
    #: What the covering schedule covered (None: no schedule played, e.g. ``--no-schedule``).
    coverage: Coverage | None = None
    #: The documents the plugin declared it is meant for (``documents``, "text" by default).
    documents: str = "text"
    #: Health-check findings (chunk_contract.engine.health): warnings and notes, never a failure.
    health: list[Finding] = field(default_factory=list)
    #: Time of each phase of the run, in the order they ran ("start-up", "seed corpus",
    #: "covering schedule", "exploration", "scaling probe", "fresh-interpreter rerun",
    #: "health checks", "shrinking", "diagnosis", "wrap-up"); only the phases that ran.
    phases: dict[str, PhaseTime] = field(default_factory=dict)
    #: The whole run's time: the phases add up to it.
    total_time: PhaseTime | None = None
    #: Against a baseline: its findings of this target that no longer occur.
    fixed: list[BaselineEntry] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """No new violation, and the run went to its end."""
        return not self.gating and not self.interrupted

    @property
    def exit_status(self) -> int:
        """0 passed, 1 a new violation (interrupted or not), 2 interrupted with none found.

        Without a baseline every violation is new; waived rules never count.
        """
        if self.gating:
            return 1
        return 2 if self.interrupted else 0

    @property
    def new_findings(self) -> list[Counterexample]:
        """The gating counterexamples a baseline does not accept (all of them without one)."""
        return [
            found
            for item in self.violated
            for found in item.all_counterexamples
            if found.baseline != "unchanged"
        ]

    @property
    def gating(self) -> bool:
        """A violation that fails the run: a new finding (or one without a counterexample)."""
        return bool(self.new_findings) or any(not r.all_counterexamples for r in self.violated)

    @property
    def waived(self) -> list[InvariantResult]:
        return [r for r in self.results if r.status == "waived"]

    @property
    def early_stop(self) -> str | None:
        """One line for the reports: how many examples were checked and why not all, or None."""
        if self.stopped_early is None:
            return None
        return f"checked {self.examples} of {self.examples_asked} examples: {self.stopped_early}"

    @property
    def shrinks_cut_short(self) -> list[str]:
        """The violated invariants whose shrink the ``shrink_seconds`` budget cut short."""
        return [
            r.id for r in self.violated if r.counterexample and r.counterexample.shrink_incomplete
        ]

    @property
    def violated(self) -> list[InvariantResult]:
        return [r for r in self.results if r.status == "violated"]


def replace_settings(config: RunSettings, **changes: Any) -> RunSettings:
    return replace(config, **changes)
