"""The contract run: generate -> call -> check, then shrink each violated invariant on its own.

Phase 1 explores ``max_examples`` generated cases and notes the first violation of every
invariant without stopping. Phase 2 replays the same seeded search once per violated invariant,
failing only on that invariant, so Hypothesis shrinks each bug separately and one bug never hides
another. The runner emits events; reporters (never imported here) turn them into output.
"""

from __future__ import annotations

import contextlib
import random
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning

from chunk_contract import _files
from chunk_contract.containment import reaper
from chunk_contract.diagnosis import Diagnosis, Probe, diagnose
from chunk_contract.engine import crossrun, fresh, health, scaling
from chunk_contract.engine import findings as findings_mod
from chunk_contract.engine.events import (
    Event,
    Finished,
    Listener,
    Measuring,
    PhaseClock,
    Progress,
    RunPhase,
    Shrinking,
    Started,
)
from chunk_contract.engine.health import Finding
from chunk_contract.engine.minimize import minimize
from chunk_contract.engine.results import (
    Counterexample,
    InvariantResult,
    RunResult,
    RunSettings,
    replace_settings,
    stable_seed,
)
from chunk_contract.engine.session import Observation, PluginFailure, Session
from chunk_contract.generation import strategies
from chunk_contract.generation.corpus import corpus_for, range_probes
from chunk_contract.generation.stability import stable_generation
from chunk_contract.generation.strategies.configs import fit
from chunk_contract.generation.strategies.kinds import documents_for
from chunk_contract.generation.strategies.schedule import Coverage, Schedule, schedule_for
from chunk_contract.spec.model import Chunk, Config, Violation
from chunk_contract.spec.registry import registry, select
from chunk_contract.store import database, reproducers
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

# ----------------------------------------------------------------------------- the run


def run(
    target: str | Plugin | Any,
    run_settings: RunSettings | None = None,
    on_event: Listener | None = None,
) -> RunResult:
    """Run the contract against ``target`` and return the verdict on every invariant.

    What is generated depends on the seed alone, not on the modules this process has loaded
    (see chunk_contract.generation.stability).
    """
    with stable_generation():
        return _run(target, run_settings, on_event)


def _run(
    target: str | Plugin | Any,
    run_settings: RunSettings | None,
    on_event: Listener | None,
) -> RunResult:
    clock = PhaseClock()
    config = run_settings or RunSettings()
    with clock.phase("start-up"):
        plugin = target if isinstance(target, Plugin) else load(target)
        emit = on_event or (lambda event: None)
        chosen = select(config.only, ())
        waived = config.waived
        select((), tuple(waived))  # an unknown waived id is a usage error
        accepted = findings_mod.load_baseline(config.baseline) if config.baseline else None
        the_seed = _seed_for(plugin, config)
        started = time.monotonic()
        spec = config.example_database
        shared = database.open_database(spec) if spec else None
        session = Session(
            plugin, timeout=config.timeout, memory_mb=config.memory_mb, selected=chosen,
            selected_only=True,
        )
    explored = _Explored()
    findings: dict[str, list[Counterexample]] = {}
    noticed: list[Finding] = []
    stop = ""
    with session:
        with clock.phase("start-up"):
            active = tuple(r.id for r in session.rules)
            emit(Started(plugin.target, plugin.kind, active, the_seed, config.max_examples))
            strategy = cases_for(plugin, config)
            saved_files = database.known_failure_files(config.database, plugin.target, plugin.kind)
            from_shared = shared.fetch(plugin.target, plugin.kind) if shared else []
            origins = _origins(saved_files, from_shared, config.example_database)
            known = [(document, cfg) for document, cfg, _ in saved_files]
            known += [(saved.document, saved.config) for saved in from_shared]
            if config.corpus:
                known += map(_in_range(plugin), corpus_for(plugin.kind))
            known += _range_probes(plugin)
        try:
            with clock.phase("covering schedule"):
                plan = schedule_for(plugin.kind) if config.schedule else None
            _explore(session, strategy, config, the_seed, emit, known, explored, plan,
                     clock=clock)
            measured = tuple(i for i in active if i not in waived)  # no measurement is waived
            _measure(plugin, session, config, measured, explored, emit, clock)
            with clock.phase("health checks"):
                noticed = _health(plugin, session, explored)
            for rule in _gating(explored, waived):
                if rule not in explored.unshrunk:
                    with clock.phase("shrinking"):
                        findings[rule] = _shrink_each(
                            session, strategy, config, the_seed, rule, explored, emit
                        )
        except reaper.Interrupted as exc:
            stop = exc.reason  # keep what was found; the rest is not shrunk
        for rule in _gating(explored, waived):
            _unshrunk(findings.setdefault(rule, []), rule, explored)
        if config.diagnose and not stop:
            with clock.phase("diagnosis"):
                _diagnose_all(session, [f for found in findings.values() for f in found])
        with clock.phase("wrap-up"):
            session.close()  # the worker's exit is wrap-up too (the second close does nothing)
    with clock.phase("wrap-up"):
        findings = {rule: _distinct(found) for rule, found in findings.items()}
        for found in (f for items in findings.values() for f in items):
            found.replayed_from = origins.get(_key((found.document, found.config)))
            _save(plugin, config, the_seed, found, shared)
        if shared and not stop:
            shared.delete(_fixed_since(from_shared, explored, active))
        _own_causes(findings)
        waived_results = {rule: _waived(rule, reason, explored)
                          for rule, reason in waived.items() if rule in active}
        results = verdicts(
            plugin, chosen, active, explored.examples, explored.exercised, findings,
            waived=waived_results,
        )
        _name_unmeasured(results, config)
    result = RunResult(
        plugin.target,
        plugin.kind,
        the_seed,
        explored.examples,
        results,
        time.monotonic() - started,
        config,
        examples_asked=explored.asked,
        stopped_early=explored.stopped,
        interrupted=bool(stop),
        interrupted_reason=stop,
        coverage=explored.coverage,
        documents=plugin.declarations.documents,
        health=noticed + waiver_findings(results, active=active, only=config.only),
        phases=dict(clock.phases),
        total_time=clock.total(),
    )
    if accepted is not None:
        findings_mod.compare(result, accepted)
    emit(Finished(result))
    return result


def _gating(explored: _Explored, waived: Mapping[str, str]) -> list[str]:
    """The violated rules that gate the run: every one not waived."""
    return [rule for rule in explored.first if rule not in waived]


def _unshrunk(found: list[Counterexample], rule: str, explored: _Explored) -> None:
    """Add the first observation of each cause not shrunk (an interrupt, a whole-run
    measurement, a shrink that drifted to another cause) to ``found``."""
    have = {f.cause for f in found}
    for cause, seen in explored.distinct.get(rule, {}).items():
        if cause not in have:
            found.append(_counterexample(rule, seen, shrunk=False, cause=cause))
    if not found:
        found.append(_counterexample(rule, explored.first[rule], shrunk=rule in explored.reduced))


def _distinct(found: list[Counterexample]) -> list[Counterexample]:
    """At most DISTINCT counterexamples, one per final cause (diagnosis first), in order."""
    out: dict[str, Counterexample] = {}
    for item in found:
        item.cause = findings_mod.cause_of_counterexample(item)
        out.setdefault(item.cause, item)
    return list(out.values())[: findings_mod.DISTINCT]


#: Rules that leave a chunk to ``span_fidelity`` when its text or offsets do not place it in
#: the document: waiving span_fidelity leaves such chunks unjudged by them too.
DEFER_TO_SPAN_FIDELITY = ("codepoint_integrity", "line_citations", "ordered", "overlap_bounded")


def waiver_findings(
    results: Sequence[InvariantResult], *, active: Sequence[str], only: Sequence[str]
) -> list[Finding]:
    """Warnings for waivers no longer needed, and what waiving or deselecting
    ``span_fidelity`` implies for the rules that defer to it."""
    out = [_unneeded(item) for item in results if item.status == "waived" and item.id in active
           and item.counterexample is None and item.examples]
    waived = any(r.id == "span_fidelity" and r.status == "waived" for r in results)
    deselected = bool(only) and "span_fidelity" not in only
    dependants = [i for i in DEFER_TO_SPAN_FIDELITY if i in active]
    if (waived or deselected) and dependants:
        out.append(_span_note(dependants, waived=waived))
    return out


def _unneeded(item: InvariantResult) -> Finding:
    return Finding(
        "waiver_unneeded", "warning",
        f"waiver no longer needed: {item.id} held on all {item.examples} examples checked "
        f"(waived: {item.reason})",
        "a waiver that is not needed hides the next regression of this rule: it would not "
        "fail the run",
        f"remove {item.id} from --skip / the skip table of [tool.chunk-contract]",
    )


def _span_note(dependants: Sequence[str], *, waived: bool) -> Finding:
    how = "waived" if waived else "not in --only"
    return Finding(
        "span_fidelity_unchecked", "note",
        f"span_fidelity is {how}: chunks whose text or offsets do not place them in the "
        f"document are not judged by {', '.join(dependants)} either (they leave such chunks "
        "to span_fidelity)",
        "those rules hold only for the chunks they can place, so a misplaced chunk passes "
        "unnoticed",
        "check span_fidelity too, or accept that misplaced chunks go unjudged",
    )


def _measure(
    plugin: Plugin,
    session: Session,
    config: RunSettings,
    active: tuple[str, ...],
    explored: _Explored,
    emit: Listener,
    clock: PhaseClock,
) -> None:
    """The whole-run measurements: the timing probe, then the fresh-interpreter rerun (of the
    ``active`` rules: a waived rule is not measured)."""
    if "scales_linearly" in active and config.probe:
        with clock.phase("scaling probe"):
            _measure_scaling(session, explored, emit)
    if config.measure and "deterministic" in active and "deterministic" not in explored.first:
        with clock.phase("fresh-interpreter rerun"):
            emit(RunPhase("fresh-interpreter rerun"))
            _fresh_interpreter(plugin, session, explored)


def _health(plugin: Plugin, session: Session, explored: _Explored) -> list[Finding]:
    """The health checks (chunk_contract.engine.health) on the run's clean calls, else on probe
    calls."""
    if plugin.declarations.unit != "tokens" or plugin.kind != "text":
        return []
    calls = [(s.document, s.records or []) for s in explored.samples.chosen]
    try:
        if not calls:
            calls = [(doc, _records(session.call(doc, Config(max_size=m, overlap=o))))
                     for doc in health.PROBE_DOCUMENTS for m, o in health.PROBE_CONFIGS]
        return health.run_health_checks(plugin.declarations, session.measure, calls)
    except PluginFailure:
        return []  # a split or count_tokens that fails is the invariants' business


def _records(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    return [{"text": c.text, "start": c.start, "end": c.end} for c in chunks]


def _origins(
    files: Sequence[tuple[Any, Config, Any]],
    shared: Sequence[reproducers.Reproducer],
    spec: str | None,
) -> dict[tuple[str, Config], str]:
    """Each replayed saved failure's input -> where it was saved (file, or shared database)."""
    label = f"the shared database {spec}"
    origins = {_key((saved.document, saved.config)): label for saved in shared}
    origins.update({_key((document, cfg)): str(path) for document, cfg, path in files})
    return origins


def _seed_for(plugin: Plugin, config: RunSettings) -> int:
    if config.seed is not None:
        return config.seed
    if config.derandomize:
        return stable_seed(plugin.target)
    return random.randrange(2**32)


def cases_for(plugin: Plugin, config: RunSettings) -> st.SearchStrategy[tuple[Any, Config]]:
    """The generated (document, config) pairs for this plugin's kind, inside its declared
    config ranges."""
    found = _cases_for(plugin, config)
    return found.map(_in_range(plugin)) if plugin.declarations.ranged else found


def _cases_for(plugin: Plugin, config: RunSettings) -> st.SearchStrategy[tuple[Any, Config]]:
    if plugin.kind == "workbook":
        # lazy: only for workbook plugins
        from chunk_contract.generation.strategies.workbooks import workbook_cases

        return workbook_cases(max_length=config.max_length, degenerate=True)
    declared = plugin.declarations.documents
    limit = config.max_length
    documents = None if declared == "text" else documents_for(declared, max_length=limit)
    return strategies.cases(
        kind=plugin.kind, max_length=config.max_length, degenerate=True, documents=documents,
        real_sizes=True,
    )


def _in_range(plugin: Plugin) -> Callable[[tuple[Any, Config]], tuple[Any, Config]]:
    """Moves a case's valid config into the plugin's declared ranges (SPEC §3 extension)."""
    decl = plugin.declarations

    def move(case: tuple[Any, Config]) -> tuple[Any, Config]:
        inside = fit(case[1], max_size_range=decl.max_size_range, overlap_range=decl.overlap_range)
        return case[0], inside

    return move


def _range_probes(plugin: Plugin) -> list[tuple[Any, Config]]:
    decl = plugin.declarations
    return range_probes(plugin.kind, max_size_range=decl.max_size_range,
                        overlap_range=decl.overlap_range)


def _hypothesis_settings(config: RunSettings, phases: tuple[Phase, ...]) -> settings:
    return settings(
        max_examples=config.max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=phases,
        report_multiple_bugs=False,
    )


@dataclass
class _Explored:
    examples: int = 0
    first: dict[str, Observation] = field(default_factory=dict)
    exercised: set[str] = field(default_factory=set)
    #: Every explored input -> its observation if it violated something, else None. The
    #: shrinking replays answer from here, so they never call the plugin on a known input.
    seen: dict[tuple[str, Config], Observation | None] = field(default_factory=dict)
    #: The most telling clean observations, re-chunked in fresh interpreters
    #: (chunk_contract.engine.crossrun).
    samples: crossrun.Samples = field(default_factory=crossrun.Samples)
    #: Findings no Hypothesis search can replay (scaling probes, the fresh interpreter).
    unshrunk: set[str] = field(default_factory=set)
    #: Of those, the ones narrowed down by a search of their own (the fresh interpreter's).
    reduced: set[str] = field(default_factory=set)
    #: Examples asked for: the replayed inputs plus ``max_examples`` generated ones.
    asked: int = 0
    #: Why exploration stopped before ``asked`` examples, or None.
    stopped: str | None = None
    #: What the covering schedule covered, when one was played.
    coverage: Coverage | None = None
    #: Invariant -> cause key (chunk_contract.engine.findings.cause_of) -> its first observation,
    #: for up to DISTINCT causes per invariant.
    distinct: dict[str, dict[str, Observation]] = field(default_factory=dict)

    def note(self, case: tuple[Any, Config], seen: Observation) -> None:
        """Count an observed case and keep its first violation of every invariant, and of
        each distinct cause."""
        self.examples += 1
        self.exercised |= seen.exercised
        self.seen[_key(case)] = seen if seen.violations else None
        self.samples.called(case[0])
        if not seen.violations:
            self.samples.offer(seen)
        for violation in seen.violations:
            self.first.setdefault(violation.invariant, seen)
            causes = self.distinct.setdefault(violation.invariant, {})
            if len(causes) < findings_mod.DISTINCT:
                causes.setdefault(findings_mod.cause_of(violation), seen)


def _key(case: tuple[Any, Config]) -> tuple[str, Config]:
    return repr(case[0]), case[1]


def _explore(
    session: Session,
    strategy: st.SearchStrategy[tuple[Any, Config]],
    config: RunSettings,
    the_seed: int,
    emit: Listener,
    known: Sequence[tuple[Any, Config]] = (),
    found: _Explored | None = None,
    plan: Schedule | None = None,
    *,
    clock: PhaseClock | None = None,
) -> _Explored:
    """Explore ``known`` cases, then generated ones, into ``found`` (kept if interrupted);
    ``clock`` times the seed corpus, the covering schedule and the exploration."""
    found = found if found is not None else _Explored()
    clock = clock or PhaseClock()
    step = max(1, config.max_examples // 20)
    started = time.monotonic()
    deadline = started + config.explore_seconds

    # Failures saved by earlier runs come first (chunk_contract.store.database), then the seed
    # corpus. The schedule's cases are counted from the start: the total shown never jumps.
    cases = [] if plan is None else list(map(_in_range(session.plugin), plan.items()))
    if known:
        emit(RunPhase("seed corpus", len(known) + len(cases) + config.max_examples,
                      config.explore_seconds))
    with clock.phase("seed corpus"):
        for case in known:
            if _key(case) in found.seen:
                continue  # a saved failure that is also a corpus probe: one call is enough
            found.note(case, session.observe(*case))
            found.asked += 1
            _progress(found, step, config, emit)
    if plan is not None:
        with clock.phase("covering schedule"):
            found.coverage = _play(session, plan, cases, started + config.schedule_budget,
                                   found, emit, config.max_examples,
                                   lambda: _progress(found, step, config, emit))
    emit(RunPhase("exploring", found.asked + config.max_examples,
                  max(0.0, deadline - time.monotonic())))

    @_hypothesis_settings(config, (Phase.generate,))
    @seed(the_seed)
    @given(strategy)
    def explore(case: tuple[Any, Config]) -> None:
        if time.monotonic() > deadline:
            raise _OutOfTime()
        found.note(case, session.observe(*case))
        _progress(found, step, config, emit)

    found.asked += config.max_examples
    try:
        with clock.phase("exploration"):
            explore()
    except _OutOfTime:
        spent = f"the {config.explore_seconds:g} s exploration budget ran out"
        found.stopped = f"{found.stopped}; {spent}" if found.stopped else spent
    else:
        if found.examples < found.asked:
            found.stopped = "the generator ran out of new inputs (Hypothesis stopped early)"
    return found


def _progress(found: _Explored, step: int, config: RunSettings, emit: Listener) -> None:
    """Every ``step`` examples: how many were checked, and the rules that gate so far."""
    if found.examples % step == 0:
        gating = tuple(r for r in found.first if r not in config.waived)
        emit(Progress(found.examples, config.max_examples, gating))


def _play(
    session: Session,
    plan: Schedule,
    cases: list[tuple[Any, Config]],
    deadline: float,
    found: _Explored,
    emit: Listener,
    generated: int,
    progress: Callable[[], None] = lambda: None,
) -> Coverage:
    """Play the covering schedule in order, until its end or its own deadline (later than the
    generated examples' on a busy machine: see RunSettings.schedule_seconds); ``cases`` are the
    plan's items, each config moved into the plugin's declared range."""
    emit(RunPhase("covering schedule", found.asked + len(cases) + generated,
               deadline - time.monotonic()))
    played = 0
    for case in cases:
        if time.monotonic() > deadline:
            found.asked += len(cases) - played
            found.stopped = "the covering schedule's budget ran out before its end"
            break
        if _key(case) not in found.seen:  # already replayed (a saved failure): not again
            # deterministic is judged on the corpus and the generated inputs: a second call
            # per schedule case would double the schedule's cost and find nothing they miss
            found.note(case, session.observe(*case, rerun=False))
            found.asked += 1
            progress()
        played += 1
    return plan.coverage(played)


def _measure_scaling(session: Session, explored: _Explored, emit: Listener) -> None:
    """Time doubling documents of every family (see chunk_contract.engine.scaling); a probe call
    that broke another rule is that rule's finding (shrunk like any other) unless exploring
    found it already."""
    emit(Measuring("scales_linearly"))
    config = _in_range(session.plugin)(("", scaling.CONFIG))[1]
    probed = scaling.survey(session.transport, timeout=session.timeout, config=config,
                            check=session.verdict)
    explored.exercised.add("scales_linearly")
    active = {r.id for r in session.rules}
    for rule, broken in probed.broken.items():
        if rule not in active:
            continue  # deselected (--only / --skip): not this run's verdict
        explored.exercised.add(rule)
        seen = Observation(broken.document, config, list(broken.violations))
        explored.first.setdefault(rule, seen)
    found = probed.violations
    if found:
        family = found[0].message.split(":")[0]
        document = scaling.FAMILIES[family](scaling.SIZES[0])
        explored.first["scales_linearly"] = Observation(document, config, found)
        explored.unshrunk.add("scales_linearly")


def _fresh_interpreter(plugin: Plugin, session: Session, explored: _Explored) -> None:
    """The ``deterministic`` finding of the fresh interpreters (chunk_contract.engine.fresh) on
    the run's most telling clean inputs, if they give one."""
    found = fresh.judge(plugin, session, explored.samples.chosen)
    if found is None:
        return
    explored.first["deterministic"] = found.seen
    explored.unshrunk.add("deterministic")
    if found.reduced:
        explored.reduced.add("deterministic")


class _Violated(Exception):
    """Raised inside the shrinking search when the invariant under shrink is violated."""


class _OutOfTime(BaseException):
    """Ends a Hypothesis search at once when its time budget is spent (Hypothesis lets
    BaseException through, so the best example so far is kept)."""


def _shrink(
    session: Session,
    strategy: st.SearchStrategy[tuple[Any, Config]],
    config: RunSettings,
    the_seed: int,
    rule: str,
    explored: _Explored,
    emit: Listener,
    cause: str | None = None,
) -> Counterexample:
    """Replay the seeded search failing only on ``rule`` (of ``cause``, when given: see
    chunk_contract.engine.findings), and let Hypothesis shrink it."""
    emit(Shrinking(rule, config.shrink_seconds))
    first = explored.first[rule] if cause is None else explored.distinct[rule][cause]
    verdicts = {k: (v if v is not None and _of(v, rule, cause) else None)
                for k, v in explored.seen.items()}
    last: list[Observation] = []
    deadline = time.monotonic() + config.shrink_seconds
    cut = False

    @_hypothesis_settings(config, (Phase.generate, Phase.shrink))
    @seed(the_seed)
    @given(strategy)
    def search(case: tuple[Any, Config]) -> None:
        key = _key(case)
        if key not in verdicts:
            if time.monotonic() > deadline:
                raise _OutOfTime()
            seen = session.observe(*case, only=rule, timeout=session.quick_timeout())
            verdicts[key] = seen if _of(seen, rule, cause) else None
        found = verdicts[key]
        if found is not None:
            last.append(found)
            raise _Violated(rule)

    # _Violated at the end of the search, _OutOfTime on the budget, or Hypothesis's own
    # Flaky on a nondeterministic plugin: in every case the best example so far is in `last`.
    try:
        with contextlib.suppress(Exception), warnings.catch_warnings():
            # Hypothesis warns when the failing example's repr is large (a real-size
            # document): the report shows the document its own way, the warning is noise
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            search()
    except _OutOfTime:
        cut = True
    found = _confirm(session, rule, first, last[-1] if last else None, cause)
    found.shrink_incomplete = cut
    return found


def _shrink_each(
    session: Session,
    strategy: st.SearchStrategy[tuple[Any, Config]],
    config: RunSettings,
    the_seed: int,
    rule: str,
    explored: _Explored,
    emit: Listener,
) -> list[Counterexample]:
    """Shrink any violation of ``rule`` first (the smallest failure, as before), then each
    distinct cause seen that this did not shrink to."""
    found = [_shrink(session, strategy, config, the_seed, rule, explored, emit)]
    for cause in explored.distinct.get(rule, {}):
        if cause not in {f.cause for f in found}:
            found.append(
                _shrink(session, strategy, config, the_seed, rule, explored, emit, cause)
            )
    return found


def _of(seen: Observation, rule: str, cause: str | None) -> list[Violation]:
    """The violations of ``rule`` in ``seen``, of ``cause`` only when one is given."""
    found = seen.of(rule)
    if cause is None:
        return found
    return [v for v in found if findings_mod.cause_of(v) == cause]


def _confirm(
    session: Session,
    rule: str,
    first: Observation,
    shrunk: Observation | None,
    cause: str | None = None,
) -> Counterexample:
    """Re-check the shrunk input with the full timeout; fall back to the first finding."""
    for candidate in (shrunk, first):
        if candidate is None:
            continue
        document = _minimize(session, rule, candidate, cause)
        again = session.observe(document, candidate.config, only=rule, timeout=session.timeout)
        if _of(again, rule, cause):
            return _counterexample(
                rule, again, shrunk=candidate is not first or document != first.document,
                cause=cause,
            )
    return _counterexample(rule, first, shrunk=False, cause=cause)


def _minimize(session: Session, rule: str, seen: Observation, cause: str | None = None) -> Any:
    """Delete what the failure does not need from a text document (see
    chunk_contract.engine.minimize)."""
    if not isinstance(seen.document, str):
        return seen.document

    def fails(document: str) -> bool:
        quick = session.observe(document, seen.config, only=rule, timeout=session.quick_timeout())
        return bool(_of(quick, rule, cause))

    return minimize(seen.document, fails)


def _counterexample(
    rule: str, seen: Observation, *, shrunk: bool, cause: str | None = None
) -> Counterexample:
    found = _of(seen, rule, cause) or seen.of(rule)
    offending = sorted({i for v in found for i in v.chunks})
    return Counterexample(
        rule,
        seen.document,
        seen.config,
        [v.message for v in found],
        seen.records,
        shrunk,
        offending=offending,
        follows_from=_cause(found),
        cause=findings_mod.cause_of(found[0]) if found else "",
    )


def _cause(found: list[Violation]) -> str | None:
    """The one rule every violation here follows from (chunk_contract.spec.causes), if any."""
    causes = {v.follows_from for v in found}
    return causes.pop() if len(causes) == 1 else None


def _own_causes(findings: Mapping[str, list[Counterexample]]) -> None:
    """A finding follows from a cause only when the cause is itself a finding of the run."""
    for found in (f for items in findings.values() for f in items):
        if found.follows_from not in findings:
            found.follows_from = None


def _diagnose_all(session: Session, findings: Sequence[Counterexample]) -> None:
    """Name the bug pattern behind each finding; an interrupt stops the experiments."""
    with contextlib.suppress(reaper.Interrupted):
        for found in findings:
            found.diagnosis = _diagnosis(session, found)


def _diagnosis(session: Session, found: Counterexample) -> Diagnosis | None:
    """The confirmed bug pattern behind ``found`` (experiments run with the quick timeout)."""
    probe = Probe(found.invariant, found.document, found.config, found.chunks, found.offending,
                  session, timeout=session.quick_timeout(),
                  unit=session.plugin.declarations.unit)
    return diagnose(probe)


def _save(
    plugin: Plugin,
    config: RunSettings,
    the_seed: int,
    found: Counterexample,
    shared: database.SharedDatabase | None,
) -> None:
    saved = found.to_reproducer(
        plugin, timeout=config.timeout, memory_mb=config.memory_mb, seed=the_seed
    )
    if shared is not None and found.invariant not in _NOT_REPLAYABLE:
        shared.save(saved)
    if config.reproducers is not None:
        try:
            found.reproducer = str(reproducers.save(saved, config.reproducers))
        except _files.WriteError as exc:  # one line: the violation is reported all the same
            _files.report_error(exc)


#: Findings of whole-run measurements: one call on the saved input does not show them again.
_NOT_REPLAYABLE = ("scales_linearly", "deterministic")


def _fixed_since(
    saved: list[reproducers.Reproducer], explored: _Explored, active: tuple[str, ...]
) -> list[reproducers.Reproducer]:
    """The shared reproducers whose invariant was checked again and now holds."""
    fixed = []
    for item in saved:
        if item.invariant not in active or item.invariant in _NOT_REPLAYABLE:
            continue
        seen = explored.seen.get(_key((item.document, item.config)))
        if seen is None or not seen.of(item.invariant):
            fixed.append(item)
    return fixed


def verdicts(
    plugin: Plugin,
    chosen: list[str],
    active: tuple[str, ...],
    examples: int,
    exercised: set[str],
    findings: Mapping[str, Counterexample | list[Counterexample]],
    *,
    not_here: Mapping[str, str] | None = None,
    waived: Mapping[str, InvariantResult] | None = None,
) -> list[InvariantResult]:
    """The verdict on every registered invariant, in report order: violated (its distinct
    findings), waived (``waived``: the verdicts of the waived rules), passed (checked and
    exercised), else skipped with the reason. ``not_here``: rule -> why this command cannot
    check it even though it applies (``check`` does not time scaling)."""
    return [_verdict(plugin, rule_id, chosen, active, examples, exercised, findings,
                     not_here or {}, waived or {}) for rule_id in registry()]


def _verdict(plugin: Plugin, rule_id: str, chosen: list[str], active: tuple[str, ...],
             examples: int, exercised: set[str],
             findings: Mapping[str, Counterexample | list[Counterexample]],
             not_here: Mapping[str, str], waived: Mapping[str, InvariantResult]) -> InvariantResult:
    if rule_id in findings:
        found = findings[rule_id]
        items = found if isinstance(found, list) else [found]
        return InvariantResult(rule_id, "violated", examples, items[0], counterexamples=items)
    if rule_id in waived:
        return waived[rule_id]
    if rule_id in active and rule_id in not_here:
        return InvariantResult(rule_id, "skipped", 0, reason=not_here[rule_id])
    if rule_id in active and rule_id in exercised:
        return InvariantResult(rule_id, "passed", examples)
    return InvariantResult(rule_id, "skipped", 0,
                           reason=skip_reason(plugin, rule_id, chosen, active))


def _name_unmeasured(results: list[InvariantResult], config: RunSettings) -> None:
    """``scales_linearly`` is decided by the timing probe alone: a run without it (the quick
    profile, all but one process of ``-n``) has not checked it, whatever it called."""
    if config.probe:
        return
    profile = f"the {config.profile} profile" if config.profile else "this run"
    for item in results:
        unmeasured = item.status == "skipped" and item.reason == "never exercised"
        if item.id == "scales_linearly" and (item.status == "passed" or unmeasured):
            item.status, item.examples = "skipped", 0
            item.reason = (
                f"not measured: {profile} runs no scaling probe (the ci and dev profiles, "
                "and the default budget, do)"
            )


def _waived(rule_id: str, reason: str, explored: _Explored) -> InvariantResult:
    """A waived rule's verdict: its first counterexample (unshrunk) if it still fails;
    ``examples`` 0 when it was never evaluated (a whole-run measurement is not run for it)."""
    seen = explored.first.get(rule_id)
    found = _counterexample(rule_id, seen, shrunk=False) if seen is not None else None
    evaluated = found is not None or rule_id in explored.exercised
    return InvariantResult(rule_id, "waived", explored.examples if evaluated else 0, found,
                           reason, counterexamples=[found] if found else [])


def skip_reason(plugin: Plugin, rule_id: str, chosen: list[str], active: tuple[str, ...]) -> str:
    """Why ``rule_id`` was not checked for this plugin."""
    rule = registry()[rule_id]
    if rule_id not in chosen:
        return "deselected (not in --only)"
    if plugin.kind not in rule.kinds:
        return f"applies to {' and '.join(sorted(rule.kinds))} plugins only"
    if rule.opt_in and rule_id not in active:
        return "opt-in: the plugin does not promise it"
    if rule.fields:
        return f"the plugin never reported {' or '.join(sorted(rule.fields))}"
    return "never exercised"


__all__ = [
    "Counterexample",
    "Event",
    "Finished",
    "InvariantResult",
    "Listener",
    "Measuring",
    "Progress",
    "RunResult",
    "RunSettings",
    "Shrinking",
    "Started",
    "Violation",
    "replace_settings",
    "run",
]
