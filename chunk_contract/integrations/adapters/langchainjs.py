"""LangChain.js text splitters (npm ``@langchain/textsplitters``) as out-of-process plugins.

The splitters run in node, behind ``chunk_contract/integrations/adapters/js/bridge.mjs`` (SPEC §8 on
stdio); this module imports nothing from JavaScript. Each entry point (``langchainjs-recursive``,
...) resolves to a :class:`JsSplitter`, an object carrying ``exec_command``: the command line
(``node``, the bridge's absolute path, the splitter's name) that ``plugins.load`` turns into an
``exec:`` target, i.e. an :class:`~chunk_contract.transport.exec_child.ExecChild`.

Install the pinned npm packages with ``npm ci --prefix chunk_contract/integrations/adapters/js``.
What the bridge reports (see its header): ``unit = "chars"`` (its ``lengthFunction`` counts code
points; the library's default counts UTF-16 units), the chunk text and ``line_start``/``line_end``
from the library's ``metadata.loc.lines``, and no offsets, because the library gives none.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from chunk_contract.transport.kinds import exec_target

#: The folder of the npm lockfile and the bridge script.
PACKAGE_DIR = Path(__file__).resolve().parent / "js"
BRIDGE = PACKAGE_DIR / "bridge.mjs"
#: The npm package wrapped, and the command that installs it at the pinned version.
NPM_PACKAGE = "@langchain/textsplitters"
INSTALL = f"npm ci --prefix {PACKAGE_DIR}"


def npm_version(package: str = NPM_PACKAGE, *, root: Path = PACKAGE_DIR) -> str | None:
    """The installed version of npm ``package`` under ``root``, or None when not installed."""
    manifest = root / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def node() -> str | None:
    """The absolute path of ``node`` on PATH, or None."""
    return shutil.which("node")


def unavailable() -> str | None:
    """Why the LangChain.js adapters cannot run here (None when they can)."""
    if node() is None:
        return "the LangChain.js adapters need node (>= 20) on PATH, which is not there"
    if npm_version() is None:
        return f"{NPM_PACKAGE} is not installed: run {INSTALL}"
    return None


#: The record fields every LangChain.js splitter shares (see :class:`JsSplitter`).
VERSION = "1.0.2"
CHOICES: dict[str, str] = {
    "lengthFunction": "code points (the library's default counts UTF-16 units)",
    "createDocuments": "text and `loc.lines` only",
}


@dataclass(frozen=True)
class JsSplitter:
    """One LangChain.js splitter, run out of process by the bridge script.

    A record of the same shape as the class variables of
    :class:`chunk_contract.integrations.adapters._base.Adapter`, so that the catalogue and the
    matrix treat it like any adapter; ``argument`` is what the
    bridge is given to pick the splitter.
    """

    name: str  # the entry-point name
    argument: str  # the bridge's argument
    splitter: str  # what it wraps, in the library's terms
    documents: str = "text"
    distribution: str = NPM_PACKAGE
    module: str = NPM_PACKAGE
    version: str = VERSION
    unit: str = "chars"
    kind: str = "text"
    newlines: str = "preserve"
    promises: frozenset[str] = frozenset()
    offsets: str = "none (placed by the contract; `loc.lines` for lines)"
    choices: Mapping[str, str] = field(default_factory=lambda: dict(CHOICES), compare=False)

    @property
    def exec_command(self) -> list[str]:
        """``[node, bridge.mjs, argument]``, both paths absolute (``node`` if not on PATH)."""
        return [node() or "node", str(BRIDGE), self.argument]

    @property
    def target(self) -> str:
        """The ``exec:`` target (SPEC §1) this splitter runs as."""
        return exec_target(self.exec_command)

    def unavailable(self) -> str | None:
        """Why this splitter cannot run here (None when it can), naming what to install."""
        reason = unavailable()
        return None if reason is None else f"{self.name}: {reason}"


Recursive = JsSplitter("langchainjs-recursive", "recursive", "RecursiveCharacterTextSplitter")
Character = JsSplitter("langchainjs-character", "character", "CharacterTextSplitter")
Markdown = JsSplitter(
    "langchainjs-markdown", "markdown", "MarkdownTextSplitter", documents="markdown"
)
Latex = JsSplitter("langchainjs-latex", "latex", "LatexTextSplitter", documents="latex")
Python = JsSplitter(
    "langchainjs-python",
    "python",
    'RecursiveCharacterTextSplitter.fromLanguage("python")',
    documents="code:python",
)
JavaScript = JsSplitter(
    "langchainjs-js",
    "js",
    'RecursiveCharacterTextSplitter.fromLanguage("js")',
    documents="code:javascript",
)

#: Every LangChain.js adapter, in entry-point order.
SPLITTERS: tuple[JsSplitter, ...] = (Recursive, Character, Markdown, Latex, Python, JavaScript)
BY_NAME: dict[str, JsSplitter] = {s.name: s for s in SPLITTERS}

__all__ = [
    "BRIDGE",
    "BY_NAME",
    "CHOICES",
    "INSTALL",
    "NPM_PACKAGE",
    "PACKAGE_DIR",
    "SPLITTERS",
    "VERSION",
    "JsSplitter",
    "node",
    "npm_version",
    "unavailable",
]
