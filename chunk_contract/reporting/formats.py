"""The registry of report formats: each format is one module that registers itself once.

A format declares its name, its flag (``--junit PATH``; None for a report on a stream: the text
report on stdout, the progress on stderr), its help, how it consumes the runner's events (a
handler, opened once per command and fed the events of every target), and how several targets
meet: in one file (``MERGED``: JUnit, SARIF, markdown, HTML) or in one file per target
(``PER_TARGET``: JSON). ``run``, ``check``, ``matrix`` and the pytest plugin build their flags
from here and feed every requested format the same events::

    reports = open_reports({"junit": "r.xml"}, command="run", targets=2)
    result = run(plugin, settings, on_event=reports)
    reports.close()  # the merged formats write their one file here

The built-in formats are loaded explicitly, once (:func:`formats`); a new one is one module
calling :func:`register` plus one line in ``BUILTIN``; a format of another package is a module
named by an extension (docs/how-to/extend.md). Importing this module, or a format
module, loads no Hypothesis: runner types are read only when events arrive.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from chunk_contract import _files
from chunk_contract._extensions import register_objects
from chunk_contract.engine.events import Event, Finished
from chunk_contract.engine.results import RunResult
from chunk_contract.reporting.matrix import short_name

#: How several targets meet: one file for all of them, or one file per target.
MERGED, PER_TARGET = "one file", "per target"
#: The front doors that take report flags.
COMMANDS = ("run", "check", "matrix", "pytest")
#: The modules of the built-in formats, imported (and so registered) on first use.
BUILTIN = (
    "chunk_contract.reporting.text",
    "chunk_contract.reporting.progress",
    "chunk_contract.reporting.json_report",
    "chunk_contract.reporting.junit",
    "chunk_contract.reporting.sarif",
    "chunk_contract.reporting.markdown",
    "chunk_contract.reporting.html",
)


class Handler(Protocol):
    """Consumes a command's events; ``close`` runs once, after the last target."""

    def __call__(self, event: Event) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Output:
    """What a handler is opened for: the flag's value, the command, its targets."""

    #: The flag's value (a file, or for ``folder_in`` commands a folder); None for a stream.
    path: Path | None
    command: str = "run"
    #: How many targets the command runs (a per-target file is named after its target then).
    targets: int = 1
    #: target -> resolved Plugin, for formats that locate the chunker's source (SARIF).
    plugins: Mapping[str, Any] = field(default_factory=dict)
    #: ``-q``: a stream format shows less, or nothing.
    quiet: bool = False
    #: ``-v``: a stream format shows more (the text report: the time of each phase).
    verbose: bool = False
    #: The stream of a stream format (None: its own default, stdout or stderr).
    stream: TextIO | None = None
    #: ``path`` is a folder: one file per target in it (``matrix --json DIR``).
    folder: bool = False


@dataclass(frozen=True)
class ReportFormat:
    """One report format (see the module docstring)."""

    name: str
    help: str
    open: Callable[[Output], Handler]
    flag: str | None = None
    metavar: str = "PATH"
    merge: str = MERGED
    #: Commands whose flag names a folder, one file per target in it (``matrix --json DIR``).
    folder_in: frozenset[str] = frozenset()
    #: The front doors that offer the flag.
    commands: tuple[str, ...] = COMMANDS

    def is_folder(self, command: str) -> bool:
        """Whether ``command``'s flag of this format names a folder."""
        return command in self.folder_in

    def help_for(self, command: str) -> str:
        """The flag's help for ``command`` (a folder or a file, merged or per target)."""
        if self.is_folder(command):
            return f"{self.help}: one file per target, in the folder DIR"
        if command == "check":
            return self.help
        if self.merge == MERGED:
            return f"{self.help}; every target in one file"
        return f"{self.help}; several targets: NAME.<target>{self.suffix()} beside PATH"

    def suffix(self) -> str:
        """The per-target file suffix (``.json``)."""
        return "." + self.name

    def validate(self, value: str, command: str) -> None:
        """Check the flag's path before anything runs: a usage error (exit 2) if unusable."""
        what = f"--{self.name}" if command != "pytest" else f"--chunk-contract-{self.name}"
        if self.is_folder(command):
            _files.output_folder(value, what=what)
        else:
            _files.output_path(value, what=what)


_FORMATS: dict[str, ReportFormat] = {}


def register(fmt: ReportFormat) -> ReportFormat:
    """Add ``fmt`` to the registry (once: a second format of that name is an error)."""
    known = _FORMATS.get(fmt.name)
    if known is not None and known != fmt:
        raise ValueError(f"report format {fmt.name!r} is registered twice; rename one")
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> dict[str, ReportFormat]:
    """Every registered format, the built-in ones first (loaded on the first call), then those
    of the installed ``chunk_contract.formats`` entry points (a module, or a ReportFormat)."""
    for module in BUILTIN:
        importlib.import_module(module)
    register_objects("chunk_contract.formats", ReportFormat, register)
    return dict(_FORMATS)


def file_formats(command: str) -> list[ReportFormat]:
    """The formats written to a file that ``command`` offers a flag for."""
    return [f for f in formats().values() if f.flag and command in f.commands]


def add_flags(parser: argparse.ArgumentParser, command: str) -> None:
    """One ``--NAME PATH`` flag per file format (``dest`` is the format's name)."""
    for fmt in file_formats(command):
        assert fmt.flag is not None
        metavar = "DIR" if fmt.is_folder(command) else fmt.metavar
        parser.add_argument(
            fmt.flag, dest=fmt.name, metavar=metavar, default=None, help=fmt.help_for(command)
        )


def requested(values: Any, command: str, *, prefix: str = "") -> dict[str, str]:
    """The file formats given on the command line: name -> path (``values``: a Namespace, or
    anything with the flags' dests as attributes, ``prefix`` before each dest)."""
    given = {f.name: getattr(values, prefix + f.name, None) for f in file_formats(command)}
    return {name: str(path) for name, path in given.items() if path}


def validate(given: Mapping[str, str], command: str) -> None:
    """Check every requested path up front (see :meth:`ReportFormat.validate`)."""
    known = formats()
    for name, value in given.items():
        known[name].validate(value, command)


class Reports:
    """The handlers of one command: each event goes to every one, ``close`` closes them all.

    A file that cannot be written costs one line on stderr and that file only: the other
    handlers still get the event, and the command's exit status stands. ``sweep`` (the front
    doors pass :func:`chunk_contract.containment.reaper.kill_adopted`) runs before the handlers get
    a target's ``Finished`` and first in ``close``, so no process the plugin left behind outlives
    the run into its reports; then every file the run wrote is read back and written again if
    it changed (:func:`chunk_contract._files.recheck`).
    """

    def __init__(
        self, handlers: Iterable[Handler] = (), *, sweep: Callable[[], Any] | None = None
    ) -> None:
        self.handlers = list(handlers)
        self.sweep = sweep

    def add(self, handler: Handler) -> None:
        """Feed ``handler`` too."""
        self.handlers.append(handler)

    def __call__(self, event: Event) -> None:
        if self.sweep is not None and isinstance(event, Finished):
            self.sweep()  # the target's run is over: nothing it started may touch its reports
        _each(self.handlers, lambda handler: handler(event))

    def close(self) -> None:
        """Stop what the plugin left behind, close every handler (merged files are written
        here) even if one fails, then check every file written."""
        if self.sweep is not None:
            self.sweep()
        _each(self.handlers, lambda handler: handler.close())
        for note in _files.recheck():
            _files.warn(note)


def _each(handlers: Iterable[Handler], call: Callable[[Handler], Any]) -> None:
    """``call`` every handler; a WriteError is one line, any other error is raised after all
    handlers ran (a report that cannot be printed never stops the files being written)."""
    failed: list[BaseException] = []
    for handler in handlers:
        try:
            call(handler)
        except _files.WriteError as exc:
            _files.report_error(exc)
        except Exception as exc:
            failed.append(exc)
    if failed:
        raise failed[0]


def open_reports(
    given: Mapping[str, str],
    *,
    command: str,
    targets: int = 1,
    plugins: Mapping[str, Any] | None = None,
    streams: Sequence[Handler] = (),
    sweep: Callable[[], Any] | None = None,
) -> Reports:
    """``streams`` (fed first: a progress bar is cleared before the text report is printed),
    then a handler for each requested file format (name -> path), fed by one command;
    ``sweep`` runs before they close (see :class:`Reports`)."""
    known = formats()
    _files.forget()  # the files this command writes from now on are the ones checked at close
    return Reports(
        [*streams]
        + [known[name].open(
            Output(
                Path(path),
                command=command,
                targets=targets,
                plugins=plugins or {},
                folder=known[name].is_folder(command),
            )
        ) for name, path in given.items()],
        sweep=sweep,
    )


def open_stream(name: str, **options: Any) -> Handler:
    """The handler of a stream format (``text``, ``progress``), options as in :class:`Output`."""
    return formats()[name].open(Output(None, **options))


# ----------------------------------------------------------------------------- handlers


def finished(event: Event) -> RunResult | None:
    """The result of a ``Finished`` event, else None."""
    return event.result if isinstance(event, Finished) else None


class MergedFile:
    """Collects every target's result; ``close`` writes them all in one file with ``write``."""

    def __init__(
        self, output: Output, write: Callable[[Output, Sequence[RunResult]], None]
    ) -> None:
        self.output, self.write = output, write
        self.results: list[RunResult] = []

    def __call__(self, event: Event) -> None:
        result = finished(event)
        if result is not None:
            self.results.append(result)

    def close(self) -> None:
        """Write the file, if any target finished."""
        if self.results:
            self.write(self.output, self.results)


class PerTargetFile:
    """Writes one file per target as each finishes, with ``write(path, result)``."""

    def __init__(
        self, output: Output, write: Callable[[Path, RunResult], None], *, suffix: str
    ) -> None:
        self.output, self.write, self.suffix = output, write, suffix

    def __call__(self, event: Event) -> None:
        result = finished(event)
        if result is not None:
            self.write(self.path_for(result.target), result)

    def close(self) -> None:
        """Nothing left to write: each file was written when its target finished."""

    def path_for(self, target: str) -> Path:
        """The file of ``target``: the path itself, ``NAME.<target>.json`` beside it when
        several targets run, or ``<target>.json`` in the folder of a ``folder_in`` command."""
        path = self.output.path
        assert path is not None
        if self.output.folder:
            return path / f"{target_name(target)}{self.suffix}"
        if self.output.targets > 1:
            return path.with_name(f"{path.stem}.{target_name(target)}{path.suffix or self.suffix}")
        return path


def target_name(target: str) -> str:
    """A target as a file name part: ``.../header.py:split_x`` -> ``header-split-x``."""
    return "".join(c if c.isalnum() else "-" for c in short_name(target))
