"""The command line (SPEC §6): thin parsing around the runner; exit 0 pass, 1 violation, 2 usage."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from contract import registry, reproducers
from contract._platform import require_posix
from contract.config_file import ConfigError
from contract.database import DatabaseError, database_spec
from contract.model import Config
from contract.plugins import Plugin, TargetError, load
from contract.profiles import ENV_VAR, PROFILES, ProfileError

EXIT_PASSED, EXIT_VIOLATED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad flags, targets or files: one line on stderr and exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _ids(text: str) -> tuple[str, ...]:
    return tuple(i.strip() for i in text.split(",") if i.strip())


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def _jobs(text: str) -> int:
    from contract.parallel import jobs_from

    try:
        return jobs_from(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive number or 'auto', got {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="chunk-contract", description="Check a chunker against the contract.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="generate documents and check every invariant")
    run.add_argument(
        "target", nargs="?", help="default: the targets of [tool.chunk-contract] in pyproject.toml"
    )
    _reports(run)
    run.add_argument("--junit", metavar="PATH")
    run.add_argument("--sarif", metavar="PATH", help="write a SARIF 2.1.0 log (code scanning)")
    run.add_argument("--markdown", metavar="PATH", help="write a markdown summary (CI page)")
    run.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        help=f"budgets: {'; '.join(p.describe() for p in PROFILES.values())} "
        f"(default ${ENV_VAR}, else pyproject.toml)",
    )
    run.add_argument(
        "--max-examples", type=_positive(int), default=None, help="default 200, or the profile's"
    )
    run.add_argument("--seed", type=int)
    _limits(run)
    run.set_defaults(timeout=None, memory_mb=None)  # None: pyproject.toml's, else 2 s / 1024
    run.add_argument("--only", type=_ids, default=(), metavar="ID,...")
    run.add_argument("--skip", type=_ids, default=(), metavar="ID,...")
    run.add_argument(
        "--reproducers",
        metavar="DIR",
        default=None,
        help="where counterexamples are saved, and replayed first by the next run "
        "(default .chunk-contract/reproducers)",
    )
    _database(run)
    run.add_argument(
        "--no-corpus",
        action="store_true",
        help="do not replay the seed corpus (contract.corpus) before generating",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    run.add_argument(
        "-n",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N|auto",
        help="split the examples over N processes (auto: one per CPU)",
    )
    check = sub.add_parser("check", help="check the invariants on your own files")
    check.add_argument("target")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--max-size", type=int, required=True)
    check.add_argument("--overlap", type=int, default=0)
    _reports(check)
    _limits(check)
    replay = sub.add_parser("replay", help="re-run a saved counterexample")
    replay.add_argument("reproducer")
    _limits(replay, defaults=False)
    matrix = sub.add_parser("matrix", help="run several targets and print one table")
    matrix.add_argument("targets", nargs="+", metavar="TARGET")
    matrix.add_argument("--max-examples", type=_positive(int), default=200)
    matrix.add_argument("--seed", type=int)
    _limits(matrix)
    matrix.add_argument("--json", metavar="DIR", help="write one JSON report per target here")
    _database(matrix)
    listing = sub.add_parser("list", help="list the invariants (and adapters)")
    listing.add_argument("--adapters", action="store_true", help="list the registered plugins")
    return parser


def _reports(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="PATH")


def _database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        metavar="SPEC",
        default=None,
        help="a shared example database, a folder or redis://HOST:PORT/N: counterexamples "
        "saved there by any run are replayed first (default $CHUNK_CONTRACT_DATABASE)",
    )


def _limits(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    parser.add_argument(
        "--timeout",
        type=_positive(float),
        default=2.0 if defaults else None,
        metavar="SECONDS",
        help="per-call limit (default 2)",
    )
    parser.add_argument(
        "--memory-mb",
        type=_positive(int),
        default=1024 if defaults else None,
        help="worker memory limit above its start size (default 1024)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``chunk-contract`` console script."""
    require_posix()  # one line and exit 2 where fork/resource are missing (Windows)
    try:
        args = build_parser().parse_args(argv)
        handler = {
            "run": cmd_run,
            "check": cmd_check,
            "replay": cmd_replay,
            "list": cmd_list,
            "matrix": cmd_matrix,
        }
        return handler[args.command](args)
    except (UsageError, TargetError, reproducers.ReproducerError, ConfigError, ProfileError,
            DatabaseError) as exc:
        print(f"chunk-contract: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyError as exc:  # unknown invariant ids from --only / --skip
        print(f"chunk-contract: error: {exc.args[0]}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("chunk-contract: interrupted", file=sys.stderr)
        return 130


def _load(target: str) -> Plugin:
    return load(target)


def cmd_run(args: argparse.Namespace) -> int:
    from contract.project import run_command

    registry.select(args.only, args.skip)
    return run_command(args)  # TARGET, or the targets of [tool.chunk-contract]


def cmd_matrix(args: argparse.Namespace) -> int:
    from contract.reporting import ProgressPrinter, TextReport
    from contract.reporting.json_report import report_json
    from contract.reporting.matrix import render_matrix, short_name
    from contract.runner import RunSettings, run

    plugins = [_load(target) for target in args.targets]  # every target resolves, or exit 2
    settings = RunSettings(
        max_examples=args.max_examples,
        seed=args.seed,
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        example_database=database_spec(args),
    )
    results = []
    for plugin in plugins:
        result = run(plugin, settings, on_event=ProgressPrinter())
        if not result.passed:
            TextReport(sys.stderr)(_finished(result))
        if args.json:
            name = "".join(c if c.isalnum() else "-" for c in short_name(plugin.target))
            reproducers.write_atomic(Path(args.json) / f"{name}.json", report_json(result))
        results.append(result)
    print(render_matrix(results))
    return EXIT_PASSED if all(r.passed for r in results) else EXIT_VIOLATED


def _finished(result: Any) -> Any:
    from contract.runner import Finished

    return Finished(result)


def cmd_check(args: argparse.Namespace) -> int:
    from contract.checking import check_files

    plugin = _load(args.target)
    return check_files(
        plugin,
        args.files,
        Config(args.max_size, args.overlap),
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        json_path=args.json,
    )


def cmd_replay(args: argparse.Namespace) -> int:
    from contract.checking import replay

    saved = reproducers.load(args.reproducer)
    return replay(saved, timeout=args.timeout, memory_mb=args.memory_mb)


def cmd_list(args: argparse.Namespace) -> int:
    if args.adapters:
        from contract.adapters import ADAPTERS, EXTRA
        from contract.plugins import entry_points

        registered = entry_points()
        print(f"{'adapter':<28} {'library':<32} {'status':<24} target")
        for adapter in ADAPTERS:
            version = adapter.version if adapter.installed else None
            status = f"installed {version}" if version else "not installed"
            target = adapter.name if adapter.name in registered else adapter.target
            print(f"{adapter.name:<28} {adapter.distribution:<32} {status:<24} {target}")
        others = sorted(set(registered) - {a.name for a in ADAPTERS})
        for name in others:
            print(
                f"{name:<28} {'(third-party plugin)':<32} {'registered':<24} "
                f"{registered[name].value}"
            )
        if not all(a.installed for a in ADAPTERS):
            print(f"\nInstall the missing libraries with: pip install '{EXTRA}'")
        return EXIT_PASSED
    rules = registry.registry()
    width = max(map(len, rules))
    for rule_id, rule in rules.items():
        tags = "/".join(sorted(rule.kinds)) + (", opt-in" if rule.opt_in else "")
        print(f"{rule_id:<{width}}  [{tags}]  {rule.rule}")
    return EXIT_PASSED


if __name__ == "__main__":
    sys.exit(main())
