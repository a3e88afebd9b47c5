"""The command line (SPEC §6): thin parsing around the runner; exit 0 pass, 1 violation, 2 usage."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from chunk_contract import _files, errors
from chunk_contract._platform import require_posix
from chunk_contract._version import version
from chunk_contract.config import plugins, table
from chunk_contract.config.profiles import ENV_VAR, PROFILES
from chunk_contract.containment import reaper
from chunk_contract.engine.events import Finished
from chunk_contract.engine.results import RunSettings
from chunk_contract.errors import UsageError
from chunk_contract.reporting import formats
from chunk_contract.reporting.matrix import render_matrix
from chunk_contract.spec import SPEC_VERSION, registry
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers
from chunk_contract.store.database import database_spec, open_database
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

EXIT_PASSED, EXIT_VIOLATED, EXIT_USAGE = 0, 1, 2
DEFAULT_REPRODUCERS = Path(".chunk-contract/reproducers")

__all__ = ["EXIT_PASSED", "EXIT_USAGE", "EXIT_VIOLATED", "UsageError", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageErrors (one line, exit 2) instead of exits."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("chunk-contract").strip()
        hint = f" (see chunk-contract {command} --help)" if command else " (see --help)"
        raise UsageError(f"{message}{hint}")


class _Version(argparse.Action):
    """``--version``: prints the version and exits; the version is looked up only then."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> NoReturn:
        print(f"chunk-contract {version()}")
        parser.exit()


def _ids(text: str) -> tuple[str, ...]:
    return tuple(i.strip() for i in text.split(",") if i.strip())


def _waivers(text: str) -> list[tuple[str, str | None]]:
    """``ID=REASON`` (one waiver with its reason) or ``ID,...`` (waivers without one)."""
    rule, sep, reason = text.partition("=")
    if sep:
        if not rule.strip() or not reason.strip():
            raise argparse.ArgumentTypeError(f"expected ID=REASON, got {text!r}")
        return [(rule.strip(), reason.strip())]
    return [(i, None) for i in _ids(text)]




def _size(text: str) -> int:
    """``--max-size`` / ``--overlap`` of ``check``: any integer of sane size (degenerate ones
    are checked as config_validation)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if abs(value) > errors.MAX_SIZE:
        raise argparse.ArgumentTypeError(
            f"must be between {-errors.MAX_SIZE} and {errors.MAX_SIZE}, got {text}"
        )
    return value


def _jobs(text: str) -> int:
    from chunk_contract.engine.parallel import jobs_from  # lazy: Hypothesis

    try:
        return jobs_from(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive number or 'auto', got {text!r}"
        ) from None


_TARGET_HELP = (
    "the chunker: path/to/file.py:attr, module:attr, or a registered plugin name (SPEC §1)"
)


def build_parser() -> argparse.ArgumentParser:
    """The ``chunk-contract`` parser: one subcommand each for run, check, replay, matrix, list
    (fuzz, mutate and campaign are listed here and parsed by their packages, see DELEGATED)."""
    parser = _Parser(prog="chunk-contract", description="Check a chunker against the contract.")
    parser.add_argument(
        "--version", action=_Version,
        help="print the version and exit",
    )
    _plugin_flag(parser)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _run_parser(sub.add_parser("run", help="generate documents and check every invariant"))
    _check_parser(sub.add_parser("check", help="check the invariants on your own files"))
    _replay_parser(sub.add_parser("replay", help="re-run a saved counterexample"))
    _matrix_parser(sub.add_parser("matrix", help="run several targets and print one table"))
    listing = sub.add_parser("list", help="list the invariants (and adapters)")
    listing.add_argument("--adapters", action="store_true", help="list the registered plugins")
    for command in (sub.choices[name] for name in ("run", "check", "replay", "matrix", "list")):
        _plugin_flag(command)
    for name, (_, summary) in DELEGATED.items():
        _delegated_parser(sub.add_parser(name, help=summary, add_help=False), name)
    return parser


#: Subcommands parsed by their own packages: name -> (module with ``main(argv, *, prog)``, help).
DELEGATED = {
    "fuzz": ("chunk_contract.integrations.fuzzing.cli",
             "fuzz a chunker for a time budget (libFuzzer for Python, blind for exec: targets)"),
    "mutate": ("chunk_contract.integrations.mutation.running",
               "mutation-test a chunker with the contract as its test suite (mutmut)"),
    "campaign": ("chunk_contract.integrations.campaign.driver",
                 "a long HypoFuzz campaign on a chunker, shared through --database"),
}


def _plugin_flag(parser: argparse.ArgumentParser) -> None:
    """``--plugin MODULE``, read by ``main`` before parsing (it may add report flags): shown
    here for the help, accepted before or after the command."""
    parser.add_argument(
        plugins.FLAG, action="append", default=[], metavar="MODULE",
        help="import MODULE first: its invariants, report formats, diagnosis patterns and "
        f"target kinds join the run (repeatable; also ${plugins.ENV_VAR} and plugins = [...] "
        "in [tool.chunk-contract])",
    )


def _delegated_parser(parser: argparse.ArgumentParser, name: str) -> None:
    """A placeholder for the top-level help: ``main`` hands these commands to their package."""
    parser.add_argument("arguments", nargs=argparse.REMAINDER,
                        help=f"the options of {name} (see chunk-contract {name} --help)")


def _delegate(name: str, argv: Sequence[str]) -> int:
    """Run subcommand ``name`` with its own package's parser and main."""
    module = importlib.import_module(DELEGATED[name][0])
    with reaper.handling_signals():  # a signal kills every process group the command started
        code: int = module.main(list(argv), prog=f"chunk-contract {name}")
    return code


def _run_parser(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "target",
        nargs="?",
        metavar="TARGET",
        help=f"{_TARGET_HELP}; default: the targets of [tool.chunk-contract] in pyproject.toml",
    )
    _reports(run, "run")
    run.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        help=f"budgets: {'; '.join(p.describe() for p in PROFILES.values())} "
        f"(default ${ENV_VAR}, else pyproject.toml)",
    )
    table.add_flags(run, "run")  # the run settings (chunk_contract.config.table)
    run.add_argument(
        "--only", type=_ids, default=(), metavar="ID,...",
        help="evaluate only these invariants: the others, no_crash, terminates and "
        "config_validation included, are not evaluated, never fail the run, and are reported "
        "as deselected",
    )
    run.add_argument(
        "--skip", type=_waivers, action="extend", default=[], metavar="ID[=REASON]",
        help="waive an invariant (repeatable; ID,... waives several without a reason): it is "
        "still evaluated but never fails the run; every report shows it as waived with the "
        "reason, and warns \"waiver no longer needed\" when it held. Adds to the skip table "
        "of [tool.chunk-contract]",
    )
    run.add_argument(
        "--baseline", metavar="FILE", default=None,
        help="a baseline of accepted findings (written by --write-baseline): only findings "
        "not in it fail the run; reports mark each finding new or unchanged, and list the "
        "accepted ones that no longer occur as fixed (default: baseline in "
        "[tool.chunk-contract])",
    )
    run.add_argument(
        "--write-baseline", metavar="FILE", default=None,
        help="record this run's findings as the accepted ones in FILE (fixed ones dropped, "
        "other targets' kept) and exit 0 unless interrupted",
    )
    run.add_argument(
        "--reproducers",
        metavar="DIR",
        default=None,
        help="where counterexamples are saved, and replayed first by the next run "
        "(default .chunk-contract/reproducers)",
    )
    _database(run)
    run.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also report the wall and CPU time of each phase of the run",
    )
    run.add_argument(
        "-n",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N|auto",
        help="split the examples over N processes (auto: one per CPU; at most one per CPU)",
    )
    run.add_argument(
        "--force-jobs",
        action="store_true",
        help="allow -n above the number of CPUs (up to 8 per CPU)",
    )


def _check_parser(check: argparse.ArgumentParser) -> None:
    check.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    check.add_argument(
        "files", nargs="+", metavar="FILE", help="UTF-8 text files (.xlsx for workbook plugins)"
    )
    check.add_argument(
        "--max-size", type=_size, required=True, metavar="N",
        help="the chunk size cap passed to the chunker (0 or less: checked as config_validation)",
    )
    check.add_argument(
        "--overlap", type=_size, default=0, metavar="N", help="the overlap passed (default 0)"
    )
    _reports(check, "check")
    table.add_flags(check, "check")


def _matrix_parser(matrix: argparse.ArgumentParser) -> None:
    matrix.add_argument("targets", nargs="+", metavar="TARGET", help=_TARGET_HELP)
    table.add_flags(matrix, "matrix")
    _reports(matrix, "matrix")
    _database(matrix)
    matrix.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")






def _reports(parser: argparse.ArgumentParser, command: str) -> None:
    """Every file report of the registry (chunk_contract.reporting.formats) as a flag of
    ``command``."""
    formats.add_flags(parser, command)


def _database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        metavar="SPEC",
        default=None,
        help="a shared example database, a folder or redis://HOST:PORT/N: counterexamples "
        "saved there by any run are replayed first (default $CHUNK_CONTRACT_DATABASE)",
    )


def _replay_parser(replay: argparse.ArgumentParser) -> None:
    replay.add_argument("reproducer", metavar="REPRODUCER", nargs="?",
                        help="a reproducer .json file")
    replay.add_argument(
        "--emit-pytest", metavar="PATH",
        help="instead of replaying, write a standalone pytest regression test to PATH that "
        "fails while the bug is there and passes once it is fixed",
    )
    replay.add_argument(
        "--target", metavar="TARGET",
        help="the chunker to replay on (a reproducer is data: the target it records runs only "
        "when named here or with --trust-target)",
    )
    replay.add_argument(
        "--trust-target", action="store_true",
        help="run the target the reproducer records (only for files you trust: it is code)",
    )
    replay.add_argument(
        "--prune", metavar="FOLDER", nargs="?", const=str(DEFAULT_REPRODUCERS),
        help="replay every reproducer in FOLDER (default .chunk-contract/reproducers) and "
        "delete those that no longer fail",
    )
    table.add_flags(replay, "replay")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``chunk-contract`` console script."""
    require_posix()  # one line and exit 2 where fork/resource are missing (Windows)
    reaper.adopt_orphans()  # what a plugin started and left behind is killed at exit
    reaper.undumpable()  # no plugin process can open this one's /proc/PID/mem or fd
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        modules, argv = plugins.take_flags(argv)
        plugins.load_plugins(modules)  # before the parser: a plugin's report format adds a flag
        if argv and argv[0] in DELEGATED:
            return _delegate(argv[0], argv[1:])
        args = build_parser().parse_args(argv)
        # What the imports made lives as long as the process: out of the collector's sight, a
        # full collection walks what the run makes only (Hypothesis's tables are large).
        gc.freeze()
        with reaper.handling_signals():
            return _HANDLERS[args.command](args)
    except reaper.Interrupted as exc:  # outside a run's own handling: nothing to report
        print(f"chunk-contract: {exc.reason}; stopped every process it started", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"chunk-contract: error: {errors.one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_VIOLATED
    except KeyboardInterrupt:
        print("chunk-contract: interrupted", file=sys.stderr)
        return EXIT_USAGE


def _silence_stdout() -> None:
    """Point stdout at devnull: the reader went away (``| head``), and the interpreter's final
    flush must not raise a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is no real file (a test's capture)
        pass


def _load(target: str) -> Plugin:
    return load(target)


def cmd_run(args: argparse.Namespace) -> int:
    """``run``: explore generated documents against TARGET, or the declared targets."""
    from chunk_contract.cli.run import run_command  # lazy: tomllib only when needed
    from chunk_contract.engine.parallel import check_jobs  # lazy: Hypothesis

    registry.select(args.only, [rule for rule, _ in args.skip])
    try:
        args.jobs = check_jobs(args.jobs, force=args.force_jobs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return run_command(args)  # TARGET, or the targets of [tool.chunk-contract]


def cmd_matrix(args: argparse.Namespace) -> int:
    """``matrix``: run every target, print one invariant x chunker table."""

    plugins = [_load(target) for target in args.targets]  # every target resolves, or exit 2
    given = formats.requested(args, "matrix")
    formats.validate(given, "matrix")
    spec = database_spec(args)
    if spec:
        open_database(spec)  # a bad spec is a usage error, before anything runs
    settings = RunSettings(
        max_examples=args.max_examples,
        seed=args.seed,
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        example_database=spec,
    )
    progress = formats.open_stream("progress", quiet=args.quiet, targets=len(plugins))
    reports = formats.open_reports(
        given, command="matrix", targets=len(plugins), plugins={p.target: p for p in plugins},
        streams=[progress], sweep=reaper.kill_adopted,
    )
    results = _matrix_runs(plugins, settings, reports)
    reports.close()
    print(render_matrix(results))
    from chunk_contract.cli.run import exit_status  # lazy: tomllib only when needed

    return exit_status(results)


def _matrix_runs(plugins: list[Plugin], settings: Any, reports: Any) -> list[Any]:
    """Each target in turn, its events to ``reports``; a failing one's text report to stderr."""
    from chunk_contract.engine.runner import run  # lazy: Hypothesis

    text = formats.open_stream("text", stream=sys.stderr)
    results = []
    for plugin in plugins:
        result = run(plugin, settings, on_event=reports)
        if not result.passed:
            text(Finished(result))
        results.append(result)
        if result.interrupted:
            break  # a signal stops the whole command
    return results


def cmd_check(args: argparse.Namespace) -> int:
    """``check``: every invariant on the user's own files, with one config."""
    from chunk_contract.cli.check import REPRODUCERS, check_files  # lazy: Hypothesis

    for path in args.files:
        _readable_file(path)
    given = formats.requested(args, "check")
    formats.validate(given, "check")
    _files.output_folder(REPRODUCERS, what="the reproducer folder")
    plugin = _load(args.target)
    reports = formats.open_reports(given, command="check", plugins={plugin.target: plugin},
                                   sweep=reaper.kill_adopted)
    code = check_files(
        plugin,
        args.files,
        Config(args.max_size, args.overlap),
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        on_event=reports,
    )
    reports.close()
    return code


def _readable_file(path: str) -> None:
    """A FILE of ``check`` exists and is a regular file, or a one-line usage error."""
    try:
        _readable(Path(path), path)
    except (OSError, ValueError) as exc:
        detail = getattr(exc, "strerror", "") or exc
        raise UsageError(f"{path[:80]!r}: cannot read: {detail}") from None


def _readable(file: Path, path: str) -> None:
    if file.is_dir():
        raise UsageError(f"{path}: is a directory; give the files in it")
    if not file.exists():
        raise UsageError(f"{path}: no such file")
    if not file.is_file():
        raise UsageError(f"{path}: not a regular file (a FIFO, device or socket)")
    if not os.access(file, os.R_OK):
        raise UsageError(f"{path}: cannot read: permission denied")


def cmd_replay(args: argparse.Namespace) -> int:
    """``replay``: run one saved counterexample again (exit 1 while it still fails), write it
    as a pytest test, or prune a folder of them."""
    # lazy: Hypothesis
    from chunk_contract.cli.check import chosen_target, prune, replay

    if args.prune is not None:
        if args.reproducer is not None or args.emit_pytest:
            raise UsageError("replay --prune FOLDER takes no REPRODUCER and no --emit-pytest")
        return prune(Path(args.prune), target=args.target, trust=args.trust_target,
                     timeout=args.timeout, memory_mb=args.memory_mb)
    if args.reproducer is None:
        raise UsageError("replay needs a REPRODUCER file, or --prune [FOLDER] "
                         "(see chunk-contract replay --help)")
    if args.emit_pytest:
        return _emit_pytest(args)
    saved, lowered = reproducers.bounded(reproducers.load(args.reproducer))
    saved = chosen_target(saved, target=args.target, trust=args.trust_target,
                          source=args.reproducer)
    if lowered and (args.timeout is None or args.memory_mb is None):
        print(f"chunk-contract: note: {lowered}", file=sys.stderr)
    return replay(saved, timeout=args.timeout, memory_mb=args.memory_mb)


def _emit_pytest(args: argparse.Namespace) -> int:
    """Write the regression test (it runs the target when pytest runs it, not now)."""
    from dataclasses import replace

    # lazy: each subcommand imports only what it runs
    from chunk_contract.store.regression import emit_pytest

    saved = reproducers.load(args.reproducer)
    if args.target is not None:
        saved = replace(saved, target=args.target, base=None)
    written = emit_pytest(saved, Path(args.emit_pytest), source=args.reproducer)
    print(f"wrote {written}: it runs the target {saved.target!r}; review it, then run it "
          f"with pytest {written}")
    return EXIT_PASSED


def cmd_list(args: argparse.Namespace) -> int:
    if args.adapters:
        # lazy: each subcommand imports only what it runs
        from chunk_contract.integrations.adapters import ADAPTERS
        from chunk_contract.transport.targets import entry_points  # lazy: as above

        registered = entry_points()
        print(f"{'adapter':<28} {'library':<32} {'status':<24} target")
        for adapter in ADAPTERS:
            found = adapter.installed_version if adapter.installed else None
            status = f"installed {found}" if found else "not installed"
            target = adapter.name if adapter.name in registered else adapter.target
            print(f"{adapter.name:<28} {adapter.distribution:<32} {status:<24} {target}")
        others = sorted(set(registered) - {a.name for a in ADAPTERS})
        for name in others:
            built_in = registered[name].value.startswith("chunk_contract.integrations.adapters.")
            library = "(built-in, out of process)" if built_in else "(third-party plugin)"
            print(f"{name:<28} {library:<32} {'registered':<24} {registered[name].value}")
        missing = sorted({f"{a.distribution}=={a.version}" for a in ADAPTERS
                          if not a.installed and not a.out_of_process})
        if missing:
            print(f"\nInstall the missing libraries at the versions checked: pip install "
                  f"{' '.join(missing)} (or, from a clone of chunk-contract, pip install -e "
                  f"'.[peers]')")
        return EXIT_PASSED

    rules = registry.registry()
    tags = {i: "/".join(sorted(r.kinds)) + (", opt-in" if r.opt_in else "")
            for i, r in rules.items()}
    width, tag_width = max(map(len, rules)), max(map(len, tags.values()))
    print(f"chunk-contract {version()} · spec {SPEC_VERSION} (docs/spec.md)")
    for rule_id, rule in rules.items():
        print(f"{rule_id:<{width}}  {tags[rule_id]:<{tag_width}}  {rule.rule}")
    return EXIT_PASSED


_HANDLERS = {
    "run": cmd_run,
    "check": cmd_check,
    "replay": cmd_replay,
    "list": cmd_list,
    "matrix": cmd_matrix,
}

if __name__ == "__main__":
    sys.exit(main())
