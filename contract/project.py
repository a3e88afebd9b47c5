"""``chunk-contract run``: the given TARGET, or every target ``[tool.chunk-contract]`` declares.

Settings come, lowest first, from the built-in defaults, the profile (``--profile``, else
$CHUNK_CONTRACT_PROFILE, else ``profile`` in pyproject.toml), the table, the target's own
entry, and the flags. Every target is resolved before anything runs, so a bad target is a usage
error (exit 2) and never half a report. With several targets, ``--junit``, ``--sarif`` and
``--markdown`` cover all of them in one file, and ``--json`` (one SPEC §7 report per target)
writes ``NAME.<target>.json`` beside the given path.
"""

from __future__ import annotations

import argparse
import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from contract import config_file
from contract import settings as run_settings
from contract.config_file import ConfigError, ProjectConfig, TargetEntry
from contract.engine import reproducers
from contract.engine.database import open_database
from contract.engine.targets import Plugin
from contract.reporting import JsonReport, ProgressPrinter, TextReport
from contract.reporting.junit import junit_tree
from contract.reporting.markdown import write_markdown
from contract.reporting.matrix import short_name
from contract.reporting.sarif import write_sarif


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The run settings the flags set explicitly (None: not given), as plain values."""
    return {
        "max_examples": args.max_examples,
        "seed": args.seed,
        "timeout": args.timeout,
        "memory_mb": args.memory_mb,
        "only": tuple(args.only),
        "skip": tuple(args.skip),
        "reproducers": Path(args.reproducers) if args.reproducers else None,
        "example_database": getattr(args, "database", None),
        "corpus": False if getattr(args, "no_corpus", False) else None,
        "schedule": False if getattr(args, "no_schedule", False) else None,
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
    """The targets to run with their settings, from plain values (:mod:`contract.settings`:
    flag > environment > ``[tool.chunk-contract]`` > profile > default)."""
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
            reproducers.output_folder(settings.reproducers, what="the reproducer folder")
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


def _report_paths(args: argparse.Namespace) -> None:
    """Every report path of the command is checked before anything runs (with several
    targets the JSON reports are written beside ``--json``, so its folder is what counts)."""
    for flag in ("json", "junit", "sarif", "markdown"):
        value = getattr(args, flag, None)
        if value:
            reproducers.output_path(value, what=f"--{flag}")


def run_command(args: argparse.Namespace) -> int:
    """Run the planned targets, print the text reports, write the requested files."""
    from contract.engine.runner import run  # lazy: Hypothesis

    jobs = plan(args)
    _report_paths(args)
    results = []
    for plugin, settings, reasons in jobs:
        listeners: list[Any] = [TextReport(quiet=args.quiet)]
        if not args.quiet:
            listeners.append(ProgressPrinter())
        if args.json:
            path = Path(args.json)
            if len(jobs) > 1:
                name = "".join(c if c.isalnum() else "-" for c in short_name(plugin.target))
                path = path.with_name(f"{path.stem}.{name}{path.suffix or '.json'}")
            listeners.append(JsonReport(path))
        emit = config_file.with_reasons(reasons, lambda e, ls=listeners: [f(e) for f in ls])
        if getattr(args, "jobs", 1) > 1:
            from contract.engine.parallel import run_parallel  # lazy: Hypothesis

            results.append(run_parallel(plugin, settings, args.jobs, on_event=emit))
        else:
            results.append(run(plugin, settings, on_event=emit))
        if results[-1].interrupted:
            print(f"chunk-contract: {plugin.target}: {results[-1].interrupted_reason}",
                  file=sys.stderr)
            break  # the remaining targets are not run: the whole command was stopped
    if args.junit:
        _write_junit(
            Path(args.junit),
            [root for r in results if (root := junit_tree(r).getroot()) is not None],
        )
    if getattr(args, "sarif", None):
        write_sarif(args.sarif, results, plugins={p.target: p for p, _, _ in jobs})
    if getattr(args, "markdown", None):
        write_markdown(args.markdown, results)
    if getattr(args, "html", None):
        from contract.reporting.html import write_html  # lazy: only when that report is asked for

        write_html(args.html, results)
    return exit_status(results)


def exit_status(results: list[Any]) -> int:
    """1 if any run found a violation, else 2 if any was interrupted, else 0."""
    statuses = {r.exit_status for r in results}
    return 1 if 1 in statuses else max(statuses, default=0)


def _write_junit(path: Path, roots: list[ET.Element]) -> None:
    """One ``<testsuites>`` holding the suites of every target, written whole."""
    merged = ET.Element("testsuites")
    for root in roots:
        merged.extend(root.findall("testsuite"))
    ET.indent(merged)
    data = ET.tostring(merged, encoding="utf-8", xml_declaration=True)
    reproducers.write_bytes_atomic(path, data)
