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
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from contract import config_file, profiles
from contract.config_file import ConfigError, ProjectConfig
from contract.database import database_spec, open_database
from contract.plugins import Plugin


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The run settings the flags set explicitly (None: not given)."""
    return {
        "max_examples": args.max_examples,
        "seed": args.seed,
        "timeout": args.timeout,
        "memory_mb": args.memory_mb,
        "only": tuple(args.only),
        "skip": tuple(args.skip),
        "reproducers": Path(args.reproducers) if args.reproducers else None,
        "example_database": database_spec(args),
        "corpus": False if getattr(args, "no_corpus", False) else None,
    }


def plan(
    args: argparse.Namespace, project: ProjectConfig | None = None
) -> list[tuple[Plugin, Any, dict[str, str]]]:
    """(plugin, RunSettings, skip reasons) for each target this command runs."""
    project = project if project is not None else config_file.find()
    if args.target:
        entries = [project.entry(args.target)]
        base = Path.cwd()  # a target on the command line is relative to where it was typed
    elif project.targets:
        entries = list(project.targets)
        base = project.base
    else:
        where = f" ({project.path} has none)" if project.path else ""
        raise ConfigError(
            f"no TARGET given and no targets declared in [tool.chunk-contract] of "
            f"a pyproject.toml{where}"
        )
    profile = profiles.choose(args.profile, project.profile)
    overrides = settings_overrides(args)
    jobs = []
    for entry in entries:
        plugin = config_file.load_target(entry.target, base)
        settings = project.settings(entry, profile, overrides=overrides)
        if settings.example_database:
            open_database(settings.example_database)  # a bad spec is a usage error, up front
        jobs.append((plugin, settings, project.skip_reasons(entry)))
    return jobs


def run_command(args: argparse.Namespace) -> int:
    """Run the planned targets, print the text reports, write the requested files."""
    from contract.reporting import JsonReport, ProgressPrinter, TextReport
    from contract.reporting.junit import junit_tree
    from contract.reporting.markdown import write_markdown
    from contract.reporting.matrix import short_name
    from contract.reporting.sarif import write_sarif
    from contract.runner import run

    jobs = plan(args)
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
            from contract.parallel import run_parallel

            results.append(run_parallel(plugin, settings, args.jobs, on_event=emit))
        else:
            results.append(run(plugin, settings, on_event=emit))
    if args.junit:
        _write_junit(
            Path(args.junit),
            [root for r in results if (root := junit_tree(r).getroot()) is not None],
        )
    if getattr(args, "sarif", None):
        write_sarif(args.sarif, results, plugins={p.target: p for p, _, _ in jobs})
    if getattr(args, "markdown", None):
        write_markdown(args.markdown, results)
    return 0 if all(r.passed for r in results) else 1


def _write_junit(path: Path, roots: list[ET.Element]) -> None:
    """One ``<testsuites>`` holding the suites of every target, written whole."""
    merged = ET.Element("testsuites")
    for root in roots:
        merged.extend(root.findall("testsuite"))
    ET.indent(merged)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        ET.ElementTree(merged).write(temp, encoding="utf-8", xml_declaration=True)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
