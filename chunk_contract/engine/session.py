"""One observation: call the plugin in its worker, then check the chunks against the invariants.

This is where the engine-decided rules come from: a hang or a memory blowup is ``terminates``,
an exception, a dead interpreter or a wrong return type is ``no_crash``, and anything wrong on a
degenerate config is ``config_validation``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any

from chunk_contract.containment.worker import Outcome
from chunk_contract.spec.causes import attribute
from chunk_contract.spec.model import (
    Case,
    Chunk,
    Config,
    Declarations,
    Document,
    Violation,
)
from chunk_contract.spec.registry import Invariant, registry
from chunk_contract.spec.rules import BrokenRule, Check
from chunk_contract.transport.base import ForkTransport, Transport
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.messages import Chunks, Counts, CountTokens, Split, WrongType
from chunk_contract.transport.outofprocess import OutOfProcessTransport, valid_unicode
from chunk_contract.transport.targets import Plugin


@dataclass
class Observation:
    """What one call showed: the violations found and the chunks returned (if any)."""

    document: Any
    config: Config
    violations: list[Violation] = field(default_factory=list)
    given_records: InitVar[list[dict[str, Any]] | None] = None
    exercised: set[str] = field(default_factory=set)
    #: The chunks returned; their records (``records``) are built only when asked for: most
    #: observations are clean and never reported.
    chunks: Sequence[Chunk] | None = None

    def __post_init__(self, given_records: list[dict[str, Any]] | None) -> None:
        self._records = given_records

    @property
    def records(self) -> list[dict[str, Any]] | None:
        """The chunks as records (reports, reproducers, the fresh interpreter's comparison)."""
        if self._records is None and self.chunks is not None:
            self._records = [c.as_record() for c in self.chunks]
        return self._records

    def of(self, invariant_id: str) -> list[Violation]:
        return [v for v in self.violations if v.invariant == invariant_id]


#: Engine rules no single call exercises: the scaling probe alone judges them, when it runs.
PROBED = frozenset({"scales_linearly"})
#: Texts one count_tokens request asks for ahead of the checks (see Session.count_ahead).
COUNT_BATCH = 256


class PluginFailure(Exception):
    """A plugin call that did not give chunks; carries the violation it amounts to."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation


class Session:
    """A plugin behind its worker, ready to be observed on many inputs."""

    def __init__(
        self,
        plugin: Plugin,
        *,
        timeout: float,
        memory_mb: int | None,
        selected: Iterable[str],
        reply_limit: int | None = None,
        transport: Transport | None = None,
        selected_only: bool = False,
    ) -> None:
        """``transport``: how the plugin is reached (default: a ForkTransport, which loads the
        plugin in its worker, again after every restart). ``reply_limit``: bytes a reply may
        take (default: 16 MiB plus 64 times the request's size). ``selected_only``: report
        violations of the selected rules only, the engine's own (no_crash, terminates,
        config_validation) included; by default an engine rule is reported even when not
        selected."""
        self.plugin = plugin
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.transport: Transport = transport or _transport_for(
            plugin, timeout=timeout, memory_mb=memory_mb, reply_limit=reply_limit
        )
        rules = registry()
        self.applicable: list[Invariant] = [
            r for r in rules.values() if r.applies_to(plugin.kind, plugin.declarations.promises)
        ]
        self.rules: list[Invariant] = [
            rules[i]
            for i in selected
            if rules[i].applies_to(plugin.kind, plugin.declarations.promises)
        ]
        self._reported = {r.id for r in self.rules} if selected_only else None
        self._counts: dict[str, int] = {}
        #: Slowest successful call so far, and how many calls hung: after a hang, later calls
        #: get a timeout scaled to the plugin's real speed, so a hanging plugin cannot make the
        #: run last (examples x timeout).
        self.slowest = 0.0
        self.hangs = 0

    def quick_timeout(self) -> float:
        """A timeout well above this plugin's slowest successful call, at most the full one."""
        return min(self.timeout, max(0.1, 20 * self.slowest))

    def time_family(self, family: str) -> Any:
        """Time the plugin on one scaling family (:func:`chunk_contract.engine.scaling.measure`),
        with this session's timeout: what a diagnosis asks to confirm superlinear growth."""
        from chunk_contract.engine import scaling  # lazy: only a scaling diagnosis needs it

        return scaling.measure(self.transport, family, timeout=self.timeout, check=self.verdict)

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def observe(
        self,
        document: Any,
        config: Config,
        *,
        only: str | None = None,
        timeout: float | None = None,
        rerun: bool = True,
    ) -> Observation:
        """Call the plugin on ``document`` with ``config`` and check the result. ``rerun=False``
        leaves out the rules that call the plugin a second time on the same input
        (``deterministic``): for inputs played in bulk where other inputs judge that rule."""
        if getattr(self.transport, "needs_valid_unicode", False):
            document = valid_unicode(document)  # what goes out of process (SPEC §8)
        seen = Observation(document, config)
        if config.is_valid and not self.plugin.declarations.supports(config):
            return self._out_of_range(seen, only=only, timeout=timeout)
        if only == "config_validation" and config.is_valid:
            return seen  # only degenerate configs can break that rule
        rules = [r for r in self.rules if only in (None, "config_validation") or r.id == only]
        if not config.is_valid and any(r.id == "config_validation" for r in rules):
            # A degenerate config's output must keep every rule: the selected ones, or all of
            # them when only engine rules were selected (--only config_validation).
            checked = [r for r in self.rules if not r.engine]
            rules = self.rules if checked else self.applicable
        if not rerun:
            rules = [r for r in rules if "rerun" not in r.needs]
        if timeout is None and self.hangs:
            timeout = self.quick_timeout()
        try:
            chunks = self.call(document, config, timeout=timeout)
            seen.chunks = chunks
            seen.violations = self._check(document, config, chunks, rules, seen.exercised)
        except PluginFailure as failure:
            seen.violations = [failure.violation]
        except _Rejected:
            return seen
        if not config.is_valid:
            seen.violations = [_as_config_violation(v, config) for v in seen.violations]
        if self._reported is not None:
            seen.violations = [v for v in seen.violations if v.invariant in self._reported]
        return seen

    def _out_of_range(self, seen: Observation, *, only: str | None,
                      timeout: float | None) -> Observation:
        """A config outside the declared ranges: the plugin must refuse it (config_validation)."""
        if only not in (None, "config_validation") or not any(
            r.id == "config_validation" for r in self.rules
        ):
            return seen
        seen.exercised.add("config_validation")
        try:
            chunks = self.call(seen.document, seen.config, timeout=timeout)
        except _Rejected:
            return seen
        except PluginFailure as failure:
            seen.violations = [_as_range_violation(seen.config, self.plugin.declarations,
                                                   failure.violation.message)]
            return seen
        seen.chunks = chunks
        accepted = f"it returned {len(chunks)} chunk(s)"
        seen.violations = [_as_range_violation(seen.config, self.plugin.declarations, accepted)]
        return seen

    def supported(self, config: Config) -> bool:
        """Whether the plugin must chunk ``config``: valid (SPEC §2) and inside its ranges."""
        return config.is_valid and self.plugin.declarations.supports(config)

    def call(self, document: Any, config: Config, *, timeout: float | None = None) -> list[Chunk]:
        """The plugin's chunks, or PluginFailure (_Rejected: a degenerate config refused)."""
        request = Split(document, config.max_size, config.overlap)
        outcome = self.transport.call(request, timeout=timeout)
        if outcome.kind == "ok":
            self.slowest = max(self.slowest, outcome.elapsed)
        elif outcome.kind == "timeout":
            self.hangs += 1
        return self._chunks(outcome, config)

    def verdict(self, document: str, config: Config, outcome: Outcome) -> list[Violation]:
        """The violations of a call made elsewhere (the scaling probe's, on a document the host
        built): ``outcome`` (its value a split's reply) failed or checked as :meth:`observe`
        checks a call, leaving out the rules that would call the plugin again (the probe's
        documents are large; generated inputs exercise those rules)."""
        rules = [r for r in self.rules if not set(r.needs) & {"rerun", "lf_twin"}]
        try:
            chunks = self._chunks(outcome, config)
            return self._check(document, config, chunks, rules, set())
        except PluginFailure as failure:
            return [failure.violation]
        except _Rejected:
            return []

    def _chunks(self, outcome: Outcome, config: Config) -> list[Chunk]:
        """The chunks of a split's outcome, or PluginFailure (_Rejected: a degenerate config
        refused)."""
        reply = _unwrap(outcome, self.memory_mb)
        if isinstance(reply, Chunks):
            return reply.chunks
        if isinstance(reply, WrongType):
            raise PluginFailure(Violation("no_crash", f"the plugin {reply.message}"))
        if reply.rejects and not self.supported(config):
            raise _Rejected()
        head = f"raised {reply.error_type}: {reply.message}".rstrip(": ")
        raise PluginFailure(Violation("no_crash", head + f"\n{reply.trace}".rstrip()))

    def _check(
        self,
        document: Any,
        config: Config,
        chunks: list[Chunk],
        rules: Sequence[Invariant],
        exercised: set[str],
    ) -> list[Violation]:
        case = self.case(document, config, chunks)
        if self.plugin.declarations.unit == "tokens" and isinstance(document, str):
            self.count_ahead(case.measured_texts())
        found: list[Violation] = []
        for rule in rules:
            if rule.engine or not rule.exercised_by(chunks):
                continue
            exercised.add(rule.id)
            try:
                self._prepare(case, rule, document, config)
                found.extend(_checked(rule, case))
            except PluginFailure as failure:  # a rerun or a token count went wrong
                found.append(failure.violation)
        exercised.update(r.id for r in rules if r.engine and r.id not in PROBED)
        try:
            return attribute(case, found, self._judged_on_text)
        except PluginFailure:  # a token count failed while judging again: keep the verdicts
            return found

    @property
    def _judged_on_text(self) -> dict[str, Check]:
        """The rules that can be judged again on the chunk texts alone
        (chunk_contract.spec.causes)."""
        return {r.id: r.check for r in self.rules if not r.engine and not r.needs}

    def case(self, document: Any, config: Config, chunks: Sequence[Chunk]) -> Case:
        """The Case the invariants see for this call."""
        decl = self.plugin.declarations
        if decl.kind == "workbook":
            # lazy: only for workbook plugins
            from chunk_contract.spec.workbook import non_empty_cells

            return Case(
                Document(""),
                config,
                chunks,
                decl,
                self.measure,
                raw_document=None,
                workbook=non_empty_cells(document),
            )
        text = document.replace("\r\n", "\n") if decl.newlines == "lf" else document
        return Case(Document(text), config, chunks, decl, self.measure, raw_document=document)

    def _prepare(self, case: Case, rule: Invariant, document: Any, config: Config) -> None:
        if "rerun" in rule.needs and case.rerun is None:
            case.rerun = self._rerun(document, config)
        if "lf_twin" in rule.needs and case.twins is None and "\n" in document:
            lf = document.replace("\r\n", "\n")
            if "\r\n" in lf:
                return  # "\r\r\n": no LF version whose CRLF twin is this document
            # The twins' own failures are found when they are generated themselves; a twin that
            # is this very document is this call's chunks (a second call is deterministic's).
            with contextlib.suppress(PluginFailure, _Rejected):
                case.twins = (self._twin(lf.replace("\n", "\r\n"), case, document, config),
                              self._twin(lf, case, document, config))

    def _twin(self, text: str, case: Case, document: str, config: Config) -> Sequence[Chunk]:
        return case.chunks if text == document else self.call(text, config)

    def _rerun(self, document: Any, config: Config) -> list[Chunk]:
        try:
            return self.call(document, config)
        except PluginFailure as failure:
            raise PluginFailure(
                Violation(
                    "deterministic",
                    f"the first call returned chunks; a second on the same input "
                    f"failed: {failure.violation.message.splitlines()[0]}",
                )
            ) from None

    def measure(self, text: str) -> int:
        """Size of ``text`` in the plugin's unit (token counts run in the worker, cached)."""
        unit = self.plugin.declarations.unit
        if unit == "chars":
            return len(text)
        if unit == "bytes":
            return len(text.encode("utf-8", "surrogatepass"))
        if text not in self._counts:
            self._counts[text] = self._count(text)
        return self._counts[text]

    def count_ahead(self, texts: Iterable[str]) -> None:
        """Ask the plugin's token counts of ``texts`` not counted yet, COUNT_BATCH at a time:
        one round trip for a call's chunks, not one per chunk (a scaling probe's largest size
        has thousands). A batch that fails is left to :meth:`measure`, which asks text by text
        and so names the text at fault."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._counts))
        for start in range(0, len(missing), COUNT_BATCH):
            batch = tuple(missing[start : start + COUNT_BATCH])
            outcome = self.transport.call(CountTokens(batch))
            if not outcome.ok or not isinstance(outcome.value, Counts):
                return
            self._remember(zip(batch, outcome.value.values))

    def _remember(self, counts: Iterable[tuple[str, int]]) -> None:
        if len(self._counts) > 100_000:
            self._counts.clear()
        self._counts.update(counts)

    def _count(self, text: str) -> int:
        try:
            reply = _unwrap(self.transport.call(CountTokens((text,))), self.memory_mb)
        except PluginFailure as failure:
            v = failure.violation
            raise PluginFailure(Violation(v.invariant, f"count_tokens: {v.message}")) from None
        if len(self._counts) > 100_000:
            self._counts.clear()
        return int(reply.values[0])


def _transport_for(
    plugin: Plugin, *, timeout: float, memory_mb: int | None, reply_limit: int | None
) -> Transport:
    """The fork worker, or the out-of-process child of an ``exec:`` / ``http(s)://`` target."""
    if is_out_of_process(plugin.spec):
        assert plugin.spec is not None
        return OutOfProcessTransport(plugin.spec, timeout=timeout, memory_mb=memory_mb,
                                     cwd=plugin.cwd)
    return ForkTransport(plugin, timeout=timeout, memory_mb=memory_mb, reply_limit=reply_limit)


def _checked(rule: Invariant, case: Case) -> list[Violation]:
    """The violations ``rule`` finds; a rule that raises is wrong (BrokenRule), not the plugin
    (a failing token count during the check stays the plugin's: PluginFailure)."""
    try:
        return list(rule.check(case))
    except PluginFailure:
        raise
    except Exception as exc:
        raise BrokenRule(rule.id, exc) from exc


class _Rejected(Exception):
    """A degenerate config refused with ValueError or TypeError: the allowed answer."""


def _unwrap(outcome: Outcome, memory_mb: int | None) -> Any:
    if outcome.kind == "ok":
        return outcome.value
    if outcome.kind == "timeout":
        raise PluginFailure(Violation("terminates", f"{outcome.message}: the call was killed"))
    if outcome.kind == "memory":
        raise PluginFailure(
            Violation(
                "terminates",
                f"memory grew past the {memory_mb} MiB limit: {outcome.message}".rstrip(": "),
            )
        )
    if outcome.kind == "crash":
        detail = outcome.detail.strip().removeprefix(outcome.message).strip()
        tail = f"\n{detail[-600:]}" if detail else ""
        raise PluginFailure(
            Violation("no_crash", f"the worker process died: {outcome.message}{tail}")
        )
    # an error outside the plugin's own call (e.g. count_tokens, or an unpicklable result)
    raise PluginFailure(Violation("no_crash", f"{outcome.error_type}: {outcome.message}"))


def _as_config_violation(violation: Violation, config: Config) -> Violation:
    first = violation.message
    return Violation(
        "config_validation",
        f"degenerate config {config.describe()} was neither refused with ValueError/TypeError "
        f"nor handled cleanly: [{violation.invariant}] {first}",
        violation.chunks,
    )


def _as_range_violation(config: Config, declared: Declarations, what: str) -> Violation:
    """An out-of-range config that was not refused with ValueError/TypeError."""
    first = what.splitlines()[0] if what else what
    return Violation(
        "config_validation",
        f"config {config.describe()} lies outside the declared max_size_range "
        f"{_bounds(declared.max_size_range)} / overlap_range {_bounds(declared.overlap_range)}, "
        f"so it must be refused with ValueError or TypeError, but {first}: raise ValueError "
        f"for configs the plugin does not support, or widen the declared range",
    )


def _bounds(bounds: tuple[int, int | None]) -> str:
    return f"({bounds[0]}, {bounds[1]})"
