"""``chunk-contract run``: the given TARGET, or every target ``[tool.chunk-contract]`` declares.

Settings come, lowest first, from the built-in defaults, the profile (``--profile``, else
$CHUNK_CONTRACT_PROFILE, else ``profile`` in pyproject.toml), the table, the target's own
entry, and the flags. Every target is resolved before anything runs, so a bad target is a usage
error (exit 2) and never half a report. The reports come from the registry of formats
(chunk_contract.reporting.formats): with several targets, ``--junit``, ``--sarif``, ``--markdown``
and ``--html`` cover all of them in one file, and ``--json`` (one SPEC §7 report per target)
writes ``NAME.<target>.json`` beside the given path.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chunk_contract import _files
from chunk_contract.config import pyproject as config_file
from chunk_contract.config import settings as run_settings
from chunk_contract.config import table
from chunk_contract.config.pyproject import ConfigError, ProjectConfig, TargetEntry
from chunk_contract.containment import boundaries, reaper
from chunk_contract.reporting import formats
from chunk_contract.store.database import open_database
from chunk_contract.transport.targets import Plugin


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The run settings the flags set explicitly (None: not given), as plain values."""
    return {
        **table.given(vars(args)),
        "only": tuple(args.only),
        "skip": tuple(rule for rule, reason in args.skip if reason is None),
        "waivers": {rule: reason for rule, reason in args.skip if reason is not None},
        "baseline": Path(args.baseline) if getattr(args, "baseline", None) else None,
        "reproducers": Path(args.reproducers) if args.reproducers else None,
        "example_database": getattr(args, "database", None),
    }


def plan(
    args: argparse.Namespace, project: ProjectConfig | None = None
) -> list[tuple[Plugin, Any, dict[str, str]]]:
    """(plugin, RunSettings, skip reasons) for each target this command runs."""
    return resolve(
        target=args.target,
        profile=args.profile,
        flags=settings_overrides(args),
        project=project if project is not None else config_file.find(),
        environ=os.environ,
    )


def resolve(
    *,
    target: str | None,
    profile: str | None,
    flags: Mapping[str, Any],
    project: ProjectConfig,
    environ: Mapping[str, str],
) -> list[tuple[Plugin, Any, dict[str, str]]]:
    """The targets to run with their settings, from plain values
    (:mod:`chunk_contract.config.settings`: flag > environment > ``[tool.chunk-contract]`` > profile
    > default)."""
    entries, base = _entries(target, project)
    jobs = []
    for entry in entries:
        settings = run_settings.resolve(
            flags=flags, environ=environ, project=project, entry=entry, profile=profile
        )
        plugin = config_file.load_target(entry.target, base)
        if settings.example_database:
            open_database(settings.example_database)  # a bad spec is a usage error, up front
        if settings.reproducers is not None:
            _files.output_folder(settings.reproducers, what="the reproducer folder")
        if settings.baseline is not None:
            from chunk_contract.engine import findings  # lazy: a bad baseline fails before any run

            findings.load_baseline(settings.baseline)
        jobs.append((plugin, settings, project.skip_reasons(entry)))
    return jobs


def _entries(target: str | None, project: ProjectConfig) -> tuple[list[TargetEntry], Path]:
    if target:  # a target on the command line is relative to where it was typed
        return [project.entry(target)], Path.cwd()
    if project.targets:
        return list(project.targets), project.base
    where = f" ({project.path} has none)" if project.path else ""
    raise ConfigError(
        f"no TARGET given and no targets declared in [tool.chunk-contract] of "
        f"a pyproject.toml{where}"
    )


def _report_paths(args: argparse.Namespace) -> dict[str, str]:
    """The requested report files (format -> path), every path checked before anything runs
    (with several targets the JSON reports are written beside ``--json``)."""

    given = formats.requested(args, "run")
    formats.validate(given, "run")
    return given


def run_command(args: argparse.Namespace) -> int:
    """Run the planned targets, print the text reports, write the requested files.

    Every report comes from the registry (chunk_contract.reporting.formats): one handler per
    requested format, fed every target's events, closed once all targets ran.
    """

    jobs = plan(args)
    given = _report_paths(args)
    streams = [
        formats.open_stream("progress", quiet=args.quiet, targets=len(jobs)),
        formats.open_stream("text", quiet=args.quiet, verbose=getattr(args, "verbose", False)),
    ]
    reports = formats.open_reports(
        given, command="run", targets=len(jobs), plugins={p.target: p for p, _, _ in jobs},
        streams=streams, sweep=reaper.kill_adopted,
    )
    for line in boundaries.warnings():  # once per run: what this machine cannot hold
        print(f"chunk-contract: {line}", file=sys.stderr)
    results = _run_jobs(args, jobs, reports)
    reports.close()  # the merged files, over every target that ran
    if getattr(args, "write_baseline", None):
        return _write_baseline(Path(args.write_baseline), results)
    return exit_status(results)


def _write_baseline(path: Path, results: list[Any]) -> int:
    """Record the findings of ``results`` in ``path``; 0 unless a run was interrupted."""
    from chunk_contract.engine import findings  # lazy: the engine only once the runs are done

    if any(r.interrupted for r in results):
        print(f"chunk-contract: the run was interrupted: {path} not written", file=sys.stderr)
        return exit_status(results)
    keep = findings.load_baseline(path) if path.exists() else []
    written = findings.write_baseline(path, results, keep=keep)
    print(f"chunk-contract: wrote {len(written)} accepted finding(s) to {path}", file=sys.stderr)
    return 0


def _run_jobs(args: argparse.Namespace, jobs: list[Any], reports: Any) -> list[Any]:
    """Run each job in turn, its events to ``reports`` (the waivers' reasons are in the
    settings: the engine puts them into the result)."""
    from chunk_contract.engine.runner import run  # lazy: Hypothesis

    results = []
    for plugin, settings, _ in jobs:
        emit = reports
        if getattr(args, "jobs", 1) > 1:
            from chunk_contract.engine.parallel import run_parallel  # lazy: Hypothesis

            results.append(run_parallel(plugin, settings, args.jobs, on_event=emit))
        else:
            results.append(run(plugin, settings, on_event=emit))
        if results[-1].interrupted:
            print(f"chunk-contract: {plugin.target}: {results[-1].interrupted_reason}",
                  file=sys.stderr)
            break  # the remaining targets are not run: the whole command was stopped
    return results


def exit_status(results: list[Any]) -> int:
    """1 if any run found a violation, else 2 if any was interrupted, else 0."""
    statuses = {r.exit_status for r in results}
    return 1 if 1 in statuses else max(statuses, default=0)
