"""What every adapter shares: the library check, the record (declarations and the metadata the
matrix shows), and chunk records.

An adapter is one class: its ClassVars are the record the catalogue
(``chunk_contract.integrations.adapters``) and the conformance matrix are derived from. Importing an
adapter module needs no library; the
library is imported when the adapter is instantiated (:func:`import_library`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import operator
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

_HERE = Path(__file__).resolve().parent

#: The optional extra that installs every adapted library at its tested version.
EXTRA = "chunk-contract[peers]"


def library_installed(module: str) -> bool:
    """Whether ``module`` (a dotted import name) can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a missing parent package of a dotted name
        return False


def library_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def missing_message(module: str, distribution: str, who: str) -> str:
    """The one-line ImportError message for an adapter whose library is not installed."""
    return (
        f"{who} needs the {distribution} package, which is not installed: "
        f"pip install '{EXTRA}' (or pip install {distribution})"
    )

#: What :meth:`Adapter.warm_up` splits: sentences, a paragraph break, a heading, non-ASCII.
WARM_UP = "# Warm up\n\nOne here. Two there.\n\nCaf\u00e9 \u6570\u636e text."


def require(module: str, distribution: str, who: str) -> None:
    """Raise a one-line ImportError naming the package to install, if ``module`` is missing.

    It only looks the module up; it imports nothing. :func:`import_library` calls it first, so
    a missing library is a usage error when the target is loaded (exit 2), never a violation.
    """
    if not library_installed(module):
        raise ImportError(missing_message(module, distribution, who))


def import_library(module: str, distribution: str, who: str) -> ModuleType:
    """Import the library, refusing an adapter module that shadows it.

    A file target such as ``chunk_contract/integrations/adapters/chonkie.py:Token`` puts
    ``chunk_contract/integrations/adapters`` first on ``sys.path``, where ``chonkie.py`` would
    shadow the real ``chonkie``: load the adapters as
    ``chunk_contract.integrations.adapters.chonkie:Token`` (or by their entry-point names) instead.
    """
    require(module, distribution, who)
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{missing_message(module, distribution, who)} ({exc})") from None
    origin = getattr(found, "__file__", None)
    if origin and Path(origin).resolve().parent == _HERE:
        raise ImportError(
            f"{who}: {module!r} resolved to the adapter file {origin}; load the adapter as "
            "a module target (chunk_contract.integrations.adapters.NAME:Class) or by its plugin "
            "name"
        )
    return found


class Adapter:
    """Base class of the built-in adapters: the record, the SPEC §3 declarations, the library.

    A subclass with a non-empty ``name`` is an adapter: the catalogue collects it, and
    ``pyproject.toml`` registers it under that name (a test checks the two agree). It sets the
    record below and implements :meth:`split`. Instantiating an adapter imports its library,
    once, in the process that loads the target, so the worker that the runner forks starts with
    it in memory.
    """

    #: The entry-point name (``chunk_contract.plugins``); empty on abstract bases.
    name: ClassVar[str] = ""
    #: The library's name on PyPI, and its top-level import name.
    distribution: ClassVar[str] = ""
    module: ClassVar[str] = ""
    #: The pinned version the conformance matrix was made with (the ``peers`` extra).
    version: ClassVar[str] = ""
    #: What the adapter wraps, in the library's terms.
    splitter: ClassVar[str] = ""
    #: Where the chunks' offsets come from, in one phrase.
    offsets: ClassVar[str] = ""
    #: The adapter's own choices (tokenizer, parameters), shown in the matrix.
    choices: ClassVar[dict[str, str]] = {}
    #: The input the splitter is meant for: "text", "markdown", "code:python", ...
    documents: ClassVar[str] = "text"

    kind: ClassVar[str] = "text"
    unit: ClassVar[str] = "chars"
    newlines: ClassVar[str] = "preserve"
    promises: ClassVar[frozenset[str]] = frozenset()

    def __init__(self) -> None:
        self.lib = import_library(self.module, self.distribution, self.name)
        self.setup()
        self.warm_up()

    def setup(self) -> None:
        """Import what the adapter needs from its library (heavy imports belong here)."""

    def warm_up(self) -> None:
        """Split a small document once, so that the library's one-time lazy initialisation
        happens here, in the process that loads the target, and not in every worker the runner
        forks: LlamaIndex's sentence splitter, for one, loads NLTK's punkt and stopwords on its
        first call (about 1.5 s), which would count against the per-call time limit (and again
        after every worker restart). Failures are left for the contract to find."""
        with contextlib.suppress(Exception):
            self.split(WARM_UP, max_size=32, overlap=4)

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        """The library's chunks of ``document`` as chunk records (SPEC §4)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<chunk-contract adapter {self.name}>"


def record(text: str, start: Any = None, end: Any = None, **fields: Any) -> dict[str, Any]:
    """A chunk record (SPEC §4) from library values; ``None`` values are left out (not reported).

    Integer-like library values (numpy integers, for instance) become plain ints; anything else
    is passed through unchanged, so that a library reporting a wrong type is still caught.
    """
    out: dict[str, Any] = {"text": text}
    if start is not None:
        out["start"] = _as_int(start)
    if end is not None:
        out["end"] = _as_int(end)
    for key, value in fields.items():
        if value is not None:
            out[key] = _as_int(value) if key == "token_count" else value
    return out


def _as_int(value: Any) -> Any:
    """An integer-like value as a plain int; anything else unchanged."""
    if isinstance(value, bool):
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value
