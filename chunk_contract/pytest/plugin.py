"""pytest plugin: ``pytest --chunk-contract TARGET`` turns the contract into test items.

Each target gets one test item per invariant that applies to it (its kind and promises), named
``chunk-contract::TARGET::INVARIANT_ID``. The contract runs once per target, when its first item
runs, and the other items read the cached result: a violated invariant fails its item with the
text report of the violation (shrunk counterexample, config, ``chunk-contract replay ...``),
and an invariant the run did not check is skipped with the reason (deselected, declared
``skip = {id = "reason"}``, or a chunk field the plugin never reports).

Options: ``--chunk-contract TARGET`` (repeatable), ``--chunk-contract-plugin MODULE``
(repeatable: invariants, report formats, patterns or target kinds to load first, like the
``plugins`` key of ``[tool.chunk-contract]`` and ``$CHUNK_CONTRACT_PLUGINS``),
``--chunk-contract-declared`` (the targets of
``[tool.chunk-contract]``), ``--chunk-contract-profile dev|ci|nightly``,
``--chunk-contract-max-examples N``, ``--chunk-contract-seed N``, ``--chunk-contract-only`` /
``--chunk-contract-skip ID,...`` (waivers: evaluated, not gating), ``--chunk-contract-baseline
FILE`` (accepted findings are xfailed), and one ``--chunk-contract-NAME PATH`` per report format of
chunk_contract.reporting.formats (``json``, ``junit``, ``sarif``, ``markdown``, ``html``), written
at the end of the session from the runs of that process. The items carry the ``chunk_contract``
marker (``-m chunk_contract`` runs only them). Relative targets are taken from pytest's rootdir.

Under pytest-xdist (``pytest -n auto``), unless ``--dist`` is given, the plugin schedules each
target's items as one unit: each target runs once, on one worker, and the targets run side by
side on every core. The items also carry an ``xdist_group`` mark, for ``--dist loadgroup``. A
random run's seed is shared by all workers (``chunk_contract.pytest.suite.for_this_session``), so
verdicts never depend on which worker ran an item.

Loading this plugin imports only the standard library, pytest, chunk_contract.config.profiles and
the report formats (their declarations, no Hypothesis); Hypothesis and the rest of the contract are
imported when a target is collected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from chunk_contract.config import table
from chunk_contract.config.profiles import ENV_VAR, PROFILES
from chunk_contract.errors import UsageError

if TYPE_CHECKING:
    from chunk_contract.engine.results import RunSettings
    from chunk_contract.transport.targets import Plugin

MARKER = "chunk_contract"
PREFIX = "chunk-contract"


def _ids(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


PLUGIN_FLAG = "--chunk-contract-plugin"


def _load_plugins(modules: list[str]) -> None:
    """The plugin modules (chunk_contract.config.plugins): a bad one stops pytest with one line."""
    from chunk_contract.config import plugins  # lazy: the pytest plugin loads light

    try:
        plugins.load_plugins(modules)
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None


def _group(parser: pytest.Parser) -> pytest.OptionGroup:
    return parser.getgroup("chunk-contract", "chunk-contract: check chunkers against the contract")


def pytest_addoption(parser: pytest.Parser) -> None:
    _load_plugins([])  # the project's and $CHUNK_CONTRACT_PLUGINS: before the report options
    group = _group(parser)
    group.addoption(
        PLUGIN_FLAG,
        action="append",
        default=[],
        metavar="MODULE",
        dest="chunk_contract_plugins",
        help="import MODULE first: its invariants, report formats, diagnosis patterns and "
        "target kinds join the contract runs (repeatable)",
    )
    group.addoption(
        "--chunk-contract",
        action="append",
        default=[],
        metavar="TARGET",
        dest="chunk_contract_targets",
        help="add one test per invariant of TARGET (repeatable)",
    )
    group.addoption(
        "--chunk-contract-declared",
        action="store_true",
        dest="chunk_contract_declared",
        help="also test the targets of [tool.chunk-contract] in pyproject.toml",
    )
    group.addoption(
        "--chunk-contract-profile",
        choices=sorted(PROFILES),
        default=None,
        dest="chunk_contract_profile",
        help=f"budgets: dev, ci (fixed seed) or nightly (default ${ENV_VAR}, else pyproject.toml)",
    )
    table.add_flags(group, "pytest")  # the run settings (chunk_contract.config.table), bounded
    group.addoption(
        "--chunk-contract-only",
        type=_ids,
        default=[],
        metavar="ID,...",
        dest="chunk_contract_only",
        help="evaluate only these invariants (no_crash, terminates and config_validation "
        "included): the others are not evaluated and their tests are skipped",
    )
    group.addoption(
        "--chunk-contract-skip",
        type=_ids,
        default=[],
        metavar="ID,...",
        dest="chunk_contract_skip",
        help="waive these invariants: still evaluated, never failing; their tests are skipped "
        "with \"waived: REASON\" (reasons: skip = {ID = \"reason\"} in [tool.chunk-contract])",
    )
    group.addoption(
        "--chunk-contract-baseline",
        "--contract-baseline",
        default=None,
        metavar="FILE",
        dest="chunk_contract_baseline",
        help="a baseline of accepted findings (chunk-contract run --write-baseline): an "
        "invariant whose findings are all in it is xfailed, a new finding fails",
    )
    _report_options(group)


_REPORT = "chunk_contract_"


def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """``--chunk-contract-plugin MODULE``: imported before the command line is parsed, so that
    a report format it registers has its option."""
    from chunk_contract.config.plugins import take_flags  # lazy: the pytest plugin loads light

    try:
        modules, _ = take_flags(args, PLUGIN_FLAG)
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None
    if modules:
        _load_plugins(modules)
        _report_options(_group(parser))


def _report_options(group: pytest.OptionGroup) -> None:
    """``--chunk-contract-NAME PATH`` for every file format of chunk_contract.reporting.formats (the
    ones a group does not offer yet)."""
    from chunk_contract.reporting.formats import file_formats  # lazy: the pytest plugin loads light

    offered = {name for option in group.options for name in option.names()}
    for fmt in file_formats("pytest"):
        if f"--chunk-contract-{fmt.name}" in offered:
            continue
        group.addoption(
            f"--chunk-contract-{fmt.name}",
            default=None,
            metavar=fmt.metavar,
            dest=_REPORT + fmt.name,
            help=f"{fmt.help_for('pytest')}, from the contract runs of this session",
        )


def _reports_given(config: pytest.Config) -> dict[str, str]:
    from chunk_contract.reporting import formats  # lazy: the pytest plugin loads light

    return formats.requested(config.option, "pytest", prefix=_REPORT)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the requested report files from the contract runs of this process."""
    given = _reports_given(session.config)
    results = _finished(given)
    if not results:
        return  # no run in this process (an xdist controller, or no target): nothing to say
    from chunk_contract.engine.events import Finished  # lazy: the pytest plugin loads light
    from chunk_contract.reporting import formats  # lazy: the pytest plugin loads light

    plugins = session.config.stash.get(_PLUGINS, {})
    reports = formats.open_reports(given, command="pytest", targets=len(results), plugins=plugins)
    for result in results:
        reports(Finished(result))
    reports.close()


def _finished(given: dict[str, str]) -> list[Any]:
    """The runs this process finished, if any report file was asked for."""
    if not given:
        return []
    from chunk_contract.pytest.suite import finished_results  # lazy: tomllib only when needed

    return finished_results()


_PLUGINS = pytest.StashKey[dict[str, Any]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a chunk-contract invariant of one chunker")
    # pytest-xdist registers it too; without xdist, --strict-markers must still accept it.
    config.addinivalue_line("markers", "xdist_group(name): tests that run on one xdist worker")
    _group_by_target(config)
    _check_report_paths(config)
    from chunk_contract.pytest import suite as testing  # lazy: the pytest plugin loads light

    testing.remember_rootdir(config.rootpath)


def _check_report_paths(config: pytest.Config) -> None:
    """Every report path is usable before any test runs, or a usage error (exit 4)."""
    given = _reports_given(config)
    if not given:
        return
    from chunk_contract.errors import UsageError  # lazy: the pytest plugin loads light
    from chunk_contract.reporting import formats  # lazy: the pytest plugin loads light

    try:
        formats.validate(given, "pytest")
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None


def _group_by_target(config: pytest.Config) -> None:
    """Note whether ``-n N`` came without ``--dist``: then targets are scheduled whole.

    xdist's implied ``load`` distribution would spread one target's items over the workers and
    each worker would run that target's contract again. An explicit ``--dist`` is kept.
    """
    wanted = config.getoption("chunk_contract_targets", None) or config.getoption(
        "chunk_contract_declared", None
    )
    if not wanted or hasattr(config, "workerinput") or config.getoption("dist", None) != "load":
        return
    given = [*config.invocation_params.args, *config.getini("addopts")]
    given += os.environ.get("PYTEST_ADDOPTS", "").split()
    if not any(a == "-d" or a == "--dist" or a.startswith("--dist=") for a in given):
        config.stash[_BY_TARGET] = True


_BY_TARGET = pytest.StashKey[bool]()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``-n N`` and no ``--dist``: each target's items go to one worker, as one unit.

    A scheduler of our own rather than xdist's ``loadgroup``, which tags node ids on the
    workers, a side channel that pytest 9.2's structured node ids broke (pytest-xdist #1386):
    here the unit is read from the item's own node id, ``chunk-contract::TARGET::ID``. Every
    other test is a unit of its own, spread one by one as with ``load``.
    """
    if not config.stash.get(_BY_TARGET, False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByTarget(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(f"{PREFIX}::"):
                return nodeid.rsplit("::", 1)[0]
            return nodeid

    return ByTarget(config, log)


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect, so they apply to these items too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    targets = list(config.getoption("chunk_contract_targets") or [])
    if not targets and not config.getoption("chunk_contract_declared"):
        return
    from chunk_contract.config import profiles  # lazy: the pytest plugin loads light
    from chunk_contract.pytest import suite as testing  # lazy: the pytest plugin loads light
    from chunk_contract.spec.registry import select  # lazy: the pytest plugin loads light

    project = testing.project_config(config.rootpath)
    if config.getoption("chunk_contract_declared"):
        if not project.targets:
            raise pytest.UsageError(
                "chunk-contract: --chunk-contract-declared, but no targets "
                "in [tool.chunk-contract] of pyproject.toml"
            )
        targets += [e.target for e in project.targets if e.target not in targets]
    only, skip = config.getoption("chunk_contract_only"), config.getoption("chunk_contract_skip")
    try:
        select(only, skip)
        profile, explicit = profiles.chosen(
            config.getoption("chunk_contract_profile"), project.profile
        )
    except UsageError as exc:  # unknown ids, an unknown profile: chunk_contract.errors' one root
        raise pytest.UsageError(f"chunk-contract: {exc.args[0]}") from None
    overrides = {
        **table.given({s.dest: config.getoption(f"chunk_contract_{s.dest}")
                       for s in table.for_command("pytest")}),
        "only": tuple(only),
        "skip": tuple(skip),
        "baseline": _baseline(config),
    }
    base = project.path.parent if project.path is not None else config.rootpath
    for target in dict.fromkeys(targets):
        plugin = testing.resolve(target, base)
        entry = project.entry(target)
        settings = testing.for_this_session(
            project.settings(entry, profile, overrides=overrides, profile_explicit=explicit),
            config,
        )
        collector = ContractTarget.from_parent(
            session,
            name=f"{PREFIX}::{target}",
            nodeid=f"{PREFIX}::{target}",
            plugin=plugin,
            settings=settings,
            reasons=project.skip_reasons(entry),
        )
        config.stash.setdefault(_PLUGINS, {})[plugin.target] = plugin  # SARIF locations
        collected = collector.collect()
        # the terminal's "collected N items" (and --co) count reported collections
        config.hook.pytest_collectreport(
            report=pytest.CollectReport(collector.nodeid, "passed", None, list(collected))
        )
        for item in collected:
            item.add_marker(testing.xdist_group(target))
        items.extend(collected)


def _baseline(config: pytest.Config) -> Path | None:
    """The ``--chunk-contract-baseline`` file, checked before anything runs."""
    given = config.getoption("chunk_contract_baseline", None)
    if not given:
        return None
    from chunk_contract.engine import findings  # lazy: the pytest plugin loads light

    path = Path(given)
    try:
        findings.load_baseline(path)
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc.args[0]}") from None
    return path


class ContractTarget(pytest.Collector):
    """One chunker: its items share one run of the contract."""

    def __init__(
        self, *, plugin: Plugin, settings: RunSettings, reasons: dict[str, str], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.plugin = plugin
        self.settings = settings
        self.reasons = reasons

    def collect(self) -> list[pytest.Item]:
        from chunk_contract.pytest.suite import applicable_ids  # lazy: tomllib only when needed

        return [
            ContractItem.from_parent(self, name=rule_id, nodeid=f"{self.nodeid}::{rule_id}")
            for rule_id in applicable_ids(self.plugin)
        ]

    def location(self) -> tuple[Path, int]:
        """Where the chunker is defined (0-based line), else the rootdir: for reports."""
        import inspect

        if self.plugin.location is not None:  # read in the worker that loaded the plugin
            where, number = self.plugin.location
            return Path(where), number - 1
        split: Any = getattr(self.plugin.split, "__func__", self.plugin.split)
        try:
            source = inspect.getsourcefile(split)
            if source:
                return Path(source), inspect.getsourcelines(split)[1] - 1
        except (TypeError, OSError):
            pass
        return self.config.rootpath, 0


class ContractItem(pytest.Item):
    """One invariant of one chunker."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker(MARKER)

    def runtest(self) -> None:
        from chunk_contract.pytest.suite import result_for, settle  # lazy: tomllib only when needed

        target = self.parent
        assert isinstance(target, ContractTarget)
        result = result_for(target.plugin, target.settings, target.reasons)
        self.user_properties.append(("chunk_contract_seed", result.seed))  # JUnit <property>
        settle(result, self.name)

    def reportinfo(self) -> tuple[Any, int, str]:
        target = self.parent
        assert isinstance(target, ContractTarget)
        path, line = target.location()
        return path, line, f"{PREFIX} {target.plugin.target} {self.name}"
