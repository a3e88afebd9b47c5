"""``chunk-contract fuzz``: fuzz one target against the contract, or convert artifacts.

    chunk-contract fuzz TARGET [--seconds 60] [options] [-libfuzzer_flag=value ...]
    chunk-contract fuzz TARGET --convert ARTIFACT [ARTIFACT ...]
    chunk-contract fuzz TARGET --engine [-libfuzzer_flag=value ...] [CORPUS_DIR ...]

A Python target is fuzzed with libFuzzer (atheris), guided by the coverage of the chunker's own
code (:mod:`.libfuzzer`); an ``exec:`` / ``http(s)://`` target with the blind engine
(:mod:`.blind`): the same generated cases, without coverage feedback from the other language.
Exit 0: nothing found; 1: findings (confirmed in the isolated worker); 2: usage error, a
missing optional dependency, or the fuzzer itself failed.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from chunk_contract import _files
from chunk_contract.config import plugins, table
from chunk_contract.errors import UsageError, one_line
from chunk_contract.integrations.fuzzing.artifacts import REPRODUCERS, convert
from chunk_contract.integrations.fuzzing.blind import Mutator, run_blind
from chunk_contract.integrations.fuzzing.libfuzzer import Driver, EngineFailed, fuzz_main
from chunk_contract.integrations.fuzzing.options import (
    DICTIONARY,
    SEEDS,
    WORK,
    FuzzOptions,
    Summary,
    render,
    seed_corpus,
    seed_dirs,
)
from chunk_contract.integrations.fuzzing.target import FuzzTarget, require_atheris, text_plugin
from chunk_contract.reporting.progress import ProgressBar
from chunk_contract.spec.registry import select
from chunk_contract.transport.kinds import is_out_of_process
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin, TargetError

EXIT_CLEAN, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
PROG = "chunk-contract fuzz"


class _Parser(argparse.ArgumentParser):
    """Errors as UsageErrors (one line, exit 2), not argparse's usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def split_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """libFuzzer flags (``-name=value``) apart from our own arguments."""
    ours: list[str] = []
    theirs: list[str] = []
    for arg in argv:
        (theirs if re.match(r"^-[A-Za-z_]+=", arg) else ours).append(arg)
    return ours, theirs


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The fuzz command's parser (its errors raise UsageError)."""
    parser = _Parser(prog=prog, description=__doc__.split("\n\n")[0].strip("`: "))
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The fuzz command's arguments (also shown by ``chunk-contract fuzz --help``)."""
    parser.add_argument("target", help="file.py:attr, module:attr, a plugin name, or an "
                        "exec:/http(s):// target (fuzzed without coverage feedback)")
    parser.add_argument("paths", nargs="*", help="with --convert: artifacts; with --engine: "
                        "corpus dirs or inputs for libFuzzer")
    _limits(parser)
    _folders(parser)
    _output(parser)
    _modes(parser)


def _limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=60.0, help="fuzzing time (default 60)")
    parser.add_argument("--timeout", type=table.converter(table.row("timeout")), default=2.0,
                        help="seconds per input before it counts as a hang (default 2)")
    parser.add_argument("--rss-limit-mb", type=int, default=2048,
                        help="memory limit in MiB (default 2048)")
    parser.add_argument("--max-len", type=int, default=4096,
                        help="longest fuzz input in bytes (default 4096)")
    parser.add_argument("--seed", type=table.converter(table.row("seed")), default=0,
                        help="random seed of the blind engine (out-of-process targets; default 0)")
    parser.add_argument("--runs", type=int, default=None, metavar="N",
                        help="blind engine: stop after N inputs even if time is left "
                        "(libFuzzer: pass -runs=N)")
    parser.add_argument("--only", default="", metavar="ID,...", help="check only these invariants")
    parser.add_argument("--skip", default="", metavar="ID,...",
                        help="do not check these invariants")


def _folders(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", help=f"working corpus (default {WORK}/<target>/corpus)")
    parser.add_argument("--seeds", action="append", metavar="DIR",
                        help=f"seed corpus dirs (default: every folder in {SEEDS.name}/)")
    parser.add_argument("--no-seeds", action="store_true", help="start from an empty corpus")
    parser.add_argument("--dict", default=str(DICTIONARY), help="libFuzzer dictionary")
    parser.add_argument("--artifacts",
                        help=f"artifact folder (default {WORK}/<target>/artifacts)")
    parser.add_argument("--reproducers", default=str(REPRODUCERS),
                        help="where reproducers are saved (default %(default)s)")


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log", help="the engine's full output (default next to the corpus)")
    parser.add_argument("--summary-json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument("--stop-first", action="store_true",
                        help="stop at the first finding (default: keep fuzzing for the other "
                        "invariants until time is up)")
    parser.add_argument("--progress", type=float, default=5.0,
                        help="longest silence between progress lines in a log (default 5 s)")
    parser.add_argument("--verbose", action="store_true", help="show libFuzzer's own output")
    parser.add_argument("--quiet", action="store_true", help="only the summary")


def _modes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--convert", action="store_true",
                        help="convert the given artifacts into reproducers, then exit")
    parser.add_argument("--engine", action="store_true",
                        help="run libFuzzer in this process with the flags given")
    parser.add_argument("--ignore", default="", help=argparse.SUPPRESS)


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Parse ``argv`` and fuzz, convert or run the engine; errors as one line and exit 2."""
    try:
        plugin_modules, given = plugins.take_flags(sys.argv[1:] if argv is None else argv)
        plugins.load_plugins(plugin_modules)  # the engine child checks the rules itself
        ours, extra = split_flags(given)
        args = build_parser(prog).parse_intermixed_args(ours)
        return _dispatch(args, extra)
    except (UsageError, EngineFailed) as exc:
        print(f"{prog}: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace, extra: list[str]) -> int:
    if args.engine:
        fuzz_main(args.target, [sys.argv[0], *extra, *args.paths], heartbeat=True,
                  ignore=_ids(args.ignore), timeout=args.timeout, selected=_selected(args))
        return EXIT_CLEAN  # not reached: libFuzzer exits the process
    if args.convert:
        return _convert_command(args)
    return fuzz(options_from(args, extra))


def options_from(args: argparse.Namespace, extra: Sequence[str]) -> FuzzOptions:
    """The run's options from parsed arguments and the libFuzzer flags."""
    names = FuzzOptions.__dataclass_fields__
    given = {name: value for name, value in vars(args).items() if name in names}
    return FuzzOptions(**given, libfuzzer=list(extra))


def fuzz(options: FuzzOptions) -> int:
    """Fuzz ``options.target``; print the summary; 0 clean, 1 findings."""
    _check_options(options)
    plugin = _text_plugin(options.target)  # a bad target is a usage error, before any child
    selected = select(_ids(options.only), _ids(options.skip))
    if is_out_of_process(plugin.spec):
        summary = fuzz_blind(options, plugin, selected)
    else:
        require_atheris()
        summary = Driver(options, plugin, selected, bar=fuzz_bar(options)).run()
    print(render(summary))
    if options.summary_json:
        _files.write_json(Path(options.summary_json), summary.as_json())
    return EXIT_FOUND if summary.found else EXIT_CLEAN


def _check_options(options: FuzzOptions) -> None:
    if not options.seconds > 0 or not options.timeout > 0:
        raise UsageError("--seconds and --timeout must be greater than 0")
    if options.max_len < 3 or options.rss_limit_mb < 64:
        raise UsageError("--max-len must be at least 3 and --rss-limit-mb at least 64")
    if options.runs is not None and options.runs < 1:
        raise UsageError(f"--runs must be at least 1, got {options.runs}")


def fuzz_blind(options: FuzzOptions, plugin: Plugin, selected: list[str]) -> Summary:
    """Fuzz an out-of-process target without coverage feedback (see :mod:`.blind`)."""
    corpus = options.corpus_dir
    corpus.mkdir(parents=True, exist_ok=True)
    seed_corpus(corpus, seed_dirs(options))
    inputs = [p.read_bytes() for p in sorted(corpus.iterdir()) if p.is_file()]
    mutator = Mutator(inputs, seed=options.seed, max_len=options.max_len)
    check = FuzzTarget(plugin, timeout=options.timeout, selected=selected,
                       memory_mb=options.rss_limit_mb)
    bar = fuzz_bar(options)
    options.log_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with bar, options.log_path.open("w", encoding="utf-8") as log:
            stats = run_blind(check, mutator, seconds=options.seconds,
                              artifacts=options.artifact_dir, stop_first=options.stop_first,
                              on_input=lambda s: bar.update(s.execs, violations=len(s.seen)),
                              log=log, runs=options.runs)
    finally:
        check.close()
    findings = []
    for artifact in stats.artifacts:
        findings += convert(plugin, artifact, timeout=options.timeout,
                            memory_mb=options.rss_limit_mb, folder=Path(options.reproducers),
                            selected=selected)
    rate = stats.execs / stats.seconds if stats.seconds > 0 else 0.0
    return Summary(options.target, stats.seconds, stats.execs, rate, 0.0, 0, len(inputs),
                   findings, str(options.log_path), engine="blind")


def fuzz_bar(
    options: FuzzOptions,
    *,
    stream: TextIO | None = None,
    tty: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ProgressBar:
    """The fuzzing progress: inputs run, findings so far, time left of --seconds."""
    return ProgressBar(label=f"fuzzing {options.target}", unit="input", budget_s=options.seconds,
                       quiet=options.quiet or options.verbose, every=options.progress,
                       stream=stream, tty=tty, clock=clock)


def _text_plugin(target: str) -> Plugin:
    return text_plugin(load(target))


def _ids(text: str) -> list[str]:
    return [i.strip() for i in text.split(",") if i.strip()]


def _selected(args: argparse.Namespace) -> list[str]:
    """The invariants chosen by --only / --skip (all by default); UsageError for unknown ids."""
    return select(_ids(args.only), _ids(args.skip))


def _convert_command(args: argparse.Namespace) -> int:
    if not args.paths:
        raise UsageError("--convert needs at least one artifact file")
    plugin = _text_plugin(args.target)
    findings = []
    for path in map(Path, args.paths):
        if not path.is_file():
            raise UsageError(f"{path}: no such artifact file")
        findings += convert(plugin, path, timeout=args.timeout, memory_mb=args.rss_limit_mb,
                            folder=Path(args.reproducers), selected=_selected(args))
    for f in findings:
        status = f"{f.invariant}: {f.reproducer}" if f.reproducer else "unconfirmed"
        print(f"{f.artifact}: {status}\n    {f.message.splitlines()[0] if f.message else ''}")
    return EXIT_FOUND if any(f.confirmed for f in findings) else EXIT_CLEAN


__all__ = ["TargetError", "add_arguments", "build_parser", "fuzz", "main", "split_flags"]
