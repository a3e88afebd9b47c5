"""The contract as pytest tests, from a test module: ``contract_tests``.

    # tests/test_contract.py
    from chunk_contract.pytest.suite import contract_tests

    test_my_chunker = contract_tests("my_pkg.chunk:split")
    test_legacy = contract_tests("legacy.py:split", profile="ci",
                                 skip={"ordered": "emits nested chunks"})

Each assignment is one test function parametrized over the invariants that apply to the plugin
(its kind and promises): ``test_my_chunker[cap_respected]``, ... The contract runs once per
(target, settings) in the process, on the first of those tests; the others read the cached
result. A violated invariant fails its test with the text report of that violation (the shrunk
input, its config and ``chunk-contract replay ...``); one the run did not check (deselected, or
a chunk field the plugin never reports) is skipped with the reason.

Settings, first match wins: the keyword arguments; the pytest flags of the plugin
(``--chunk-contract-profile``, ``--chunk-contract-max-examples``, ``--chunk-contract-seed``);
$CHUNK_CONTRACT_PROFILE; ``[tool.chunk-contract]`` in the project's pyproject.toml (its
profile, budgets and skip reasons); the built-in defaults.

The same helpers back the pytest plugin (chunk_contract.pytest.plugin). ``chunk_contract.pytest``
re-exports ``contract_tests``, the name the documentation uses.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from chunk_contract.config import profiles, table
from chunk_contract.config import pyproject as config_file
from chunk_contract.config.plugins import load_plugins
from chunk_contract.config.pyproject import ProjectConfig, TargetEntry
from chunk_contract.errors import UsageError
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

if TYPE_CHECKING:
    from chunk_contract.engine.results import InvariantResult, RunResult, RunSettings

__all__ = [
    "applicable_ids",
    "contract_tests",
    "failure_text",
    "for_this_session",
    "result_for",
    "settle",
    "xdist_group",
]

#: (target, settings, reasons) -> the finished run, or what stopped it.
_RESULTS: dict[tuple[str, RunSettings, tuple[tuple[str, str], ...]], RunResult | BaseException] = {}


def applicable_ids(plugin: Plugin) -> list[str]:
    """The invariants that apply to ``plugin`` (its kind and promises), in report order."""
    from chunk_contract.spec.registry import registry  # lazy: the pytest plugin loads light

    return [
        rule_id
        for rule_id, rule in registry().items()
        if rule.applies_to(plugin.kind, plugin.declarations.promises)
    ]


def result_for(
    plugin: Plugin, settings: RunSettings, reasons: Mapping[str, str] | None = None
) -> RunResult:
    """Run the contract once per (target, settings) in this process; later calls read the cache."""
    key = (plugin.target, settings, tuple(sorted((reasons or {}).items())))
    if key not in _RESULTS:
        from chunk_contract.engine.runner import run  # lazy: Hypothesis

        try:
            _RESULTS[key] = run(plugin, settings)  # the waivers' reasons are in the settings
        except Exception as exc:  # every test of the target reports it
            _RESULTS[key] = exc
    found = _RESULTS[key]
    if isinstance(found, BaseException):
        raise found
    return found


def finished_results() -> list[RunResult]:
    """Every run this process finished, in the order they ran (for the HTML report)."""
    return [r for r in _RESULTS.values() if not isinstance(r, BaseException)]


def xdist_group(target: str) -> pytest.MarkDecorator:
    """The pytest-xdist group of a target's tests: one worker runs the contract for all of them."""
    return pytest.mark.xdist_group(name=f"chunk-contract:{target}")  # no "::": nodeids stay
    # splittable (xdist appends "@GROUP" to the nodeid of a grouped test)


def for_this_session(settings: RunSettings, config: pytest.Config) -> RunSettings:
    """Under pytest-xdist, a seedless random run gets the seed every worker of the session shares.

    Each xdist worker is its own process; without this, two workers running tests of the same
    target would draw different random seeds and could disagree on its verdicts. The seed comes
    from xdist's test-run id, so it still changes from one pytest session to the next.
    """
    run_id = getattr(config, "workerinput", {}).get("testrunuid")
    if run_id is None or settings.seed is not None or settings.derandomize:
        return settings
    from dataclasses import replace

    return replace(settings, seed=zlib.crc32(f"chunk-contract:{run_id}".encode()))


def failure_text(result: RunResult, item: InvariantResult) -> str:
    """What a failing test shows: which run, then the text report of the violation."""
    # lazy: the pytest plugin loads light
    from chunk_contract.reporting.text import render_violation

    profile = f", profile {result.settings.profile}" if result.settings.profile else ""
    head = (
        f"chunk-contract: {result.target} violates {item.id} "
        f"(seed {result.seed}, {result.examples} examples{profile})"
    )
    return f"{head}\n{render_violation(result, item)}"


def settle(result: RunResult, invariant: str) -> None:
    """Pass, fail (with the violation's report), xfail (every finding accepted by the
    baseline) or skip (with the reason; a waived invariant: "waived: REASON (...)")."""
    from chunk_contract.reporting.text import others, waiver_note  # lazy: the plugin loads light

    for item in result.results:
        if item.id != invariant:
            continue
        found = item.all_counterexamples
        if item.status == "violated" and found and all(f.baseline == "unchanged" for f in found):
            pytest.xfail("accepted by the baseline: " + "; ".join(f.cause for f in found))
        if item.status == "violated" and item.counterexample is not None:
            text = "\n".join([failure_text(result, item), *others(item)])
            pytest.fail(text, pytrace=False)
        if item.status == "waived":
            _skip(f"waived: {waiver_note(item)}")
        if item.status == "skipped":
            _skip(item.reason or "not checked")
        return
    _skip(f"{invariant} is not an invariant of this chunk-contract version")


def _skip(reason: str) -> None:
    """Skip, reported at the test (not at this line): ``SKIPPED [1] chunk-contract::...``."""
    try:
        error = pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:  # a pytest without the keyword
        pytest.skip(reason)
    raise error


def _load_plugins(modules: Iterable[str]) -> None:
    try:
        load_plugins(modules)
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None


def project_config(start: Path | None = None) -> ProjectConfig:
    """``[tool.chunk-contract]`` of the nearest pyproject.toml; a bad table stops pytest."""
    try:
        return config_file.find(start)
    except config_file.ConfigError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None


def resolve(target: Any, base: Path | None = None) -> Plugin:
    """A target string (SPEC §1, relative to ``base``) or a plugin object, as a Plugin."""
    from chunk_contract.transport.targets import TargetError  # lazy: the pytest plugin loads light

    try:
        if isinstance(target, Plugin):
            return target
        if isinstance(target, str):
            return config_file.load_target(target, base)
        module = getattr(target, "__module__", None)
        qualname = getattr(target, "__qualname__", None) or type(target).__qualname__
        return load(target, name=f"{module}:{qualname}" if module else qualname)
    except TargetError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc}") from None


#: pytest's rootdir, once the pytest plugin is configured (None: outside pytest).
_ROOTDIR: list[Path] = []


def remember_rootdir(rootpath: Path) -> None:
    """Record pytest's rootdir, the second place a relative file target is looked for."""
    _ROOTDIR[:] = [Path(rootpath)]


def target_base(target: Any, *, caller: Path, project: Path | None) -> Path | None:
    """The folder a relative ``file.py:attr`` target is taken from: the calling test module's
    folder, then pytest's rootdir, then the project's (pyproject.toml), then the current one
    (the first that holds the file); ``project`` for any other target."""
    where, sep, _ = target.rpartition(":") if isinstance(target, str) else ("", "", "")
    if not sep or not where.endswith(".py") or Path(where).is_absolute():
        return project
    for folder in (caller, *_ROOTDIR, *([project] if project else []), Path.cwd()):
        if (folder / where).is_file():
            return folder
    return project


def _skips(skip: Mapping[str, str] | Iterable[str]) -> dict[str, str]:
    if isinstance(skip, str):
        skip = [skip]
    if isinstance(skip, Mapping):
        return {str(k): str(v) for k, v in skip.items()}
    return dict.fromkeys(skip, "waived by contract_tests(skip=...)")


def contract_tests(
    target_or_plugin: Any,
    *,
    profile: str | None = None,
    max_examples: int | None = None,
    only: Iterable[str] = (),
    skip: Mapping[str, str] | Iterable[str] = (),
    seed: int | None = None,
    timeout: float | None = None,
    reproducers: str | Path | None = None,
    plugins: Iterable[str] = (),
    **settings: Any,
) -> Callable[..., None]:
    """A pytest test function with one case per applicable invariant of the target.

    ``target_or_plugin``: a target string (``pkg.mod:attr``, ``path/file.py:attr``, a
    registered plugin name; a relative file is looked for next to the calling test module,
    then in pytest's rootdir, the project root and the current folder) or the plugin itself (a
    function, an object with ``split``, a class). ``skip`` maps invariant ids to reasons (or
    is a list of ids). ``plugins``: modules to import first (their invariants, formats, patterns
    and target kinds), with those of ``$CHUNK_CONTRACT_PLUGINS`` and ``[tool.chunk-contract]``.
    ``settings``: any other run setting of chunk_contract.config.table (``memory_mb=512``,
    ``shrink_seconds=30``), checked with the same bounds as its flag and its pyproject key.
    Assign the result to a module-level name starting with ``test``.
    """
    _load_plugins(plugins)
    project = project_config()
    caller = Path(sys._getframe(1).f_code.co_filename).resolve().parent
    base = target_base(target_or_plugin, caller=caller, project=project.base)
    plugin = resolve(target_or_plugin, base)
    if profile is not None:
        profiles.get(profile)  # an unknown name fails at import, not in every test
    skipped = _skips(skip)
    from chunk_contract.spec.registry import select  # lazy: the pytest plugin loads light

    try:
        select(tuple(only), tuple(skipped))
    except KeyError as exc:
        raise pytest.UsageError(f"chunk-contract: {exc.args[0]}") from None
    entry = project.entry(plugin.target)
    entry = TargetEntry(entry.target, entry.only, {**entry.skip, **skipped}, entry.budgets)
    explicit = {
        **_checked_settings({"max_examples": max_examples, "seed": seed, "timeout": timeout,
                             **settings}),
        "only": tuple(only),
        "reproducers": Path(reproducers) if reproducers is not None else None,
    }

    @xdist_group(plugin.target)
    @pytest.mark.parametrize("invariant", applicable_ids(plugin))
    def test_contract(invariant: str, request: pytest.FixtureRequest) -> None:
        option = request.config.getoption
        chosen, explicit_profile = profiles.chosen(
            profile or option("chunk_contract_profile", None), project.profile
        )
        flags = table.given({s.dest: option(f"chunk_contract_{s.dest}", None)
                             for s in table.for_command("pytest")})
        baseline = option("chunk_contract_baseline", None)
        flags["baseline"] = Path(baseline) if baseline else None
        overrides = {**flags, **{k: v for k, v in explicit.items() if v is not None}}
        settings = project.settings(
            entry, chosen, overrides=overrides, profile_explicit=explicit_profile
        )
        settings = for_this_session(settings, request.config)
        settle(result_for(plugin, settings, project.skip_reasons(entry)), invariant)

    test_contract.__doc__ = f"chunk-contract invariants of {plugin.target}"
    _place_at_caller(test_contract, sys._getframe(1))
    return test_contract


def _checked_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments that are run settings, each within its bounds
    (chunk_contract.config.table); an unknown name or a bad value stops pytest with one line."""
    known = {s.name: s for s in table.SETTINGS}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise pytest.UsageError(f"chunk-contract: contract_tests() got unknown setting(s) "
                                f"{', '.join(unknown)}; known: {', '.join(known)}")
    try:
        return {name: table.check(known[name], value, label=name)
                for name, value in values.items() if value is not None}
    except UsageError as exc:
        raise pytest.UsageError(f"chunk-contract: contract_tests(): {exc}") from None


def _place_at_caller(test: Callable[..., None], frame: FrameType) -> None:
    """Report the tests at the ``contract_tests(...)`` line (pytest reads ``place_as``)."""
    code = test.__code__.replace(
        co_filename=frame.f_code.co_filename, co_firstlineno=frame.f_lineno
    )
    test.place_as = SimpleNamespace(__code__=code)  # type: ignore[attr-defined]
