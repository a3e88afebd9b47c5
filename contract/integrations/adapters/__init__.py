"""Built-in adapters: popular chunking libraries as chunk-contract plugins.

Each adapter turns one library splitter into a plugin (SPEC §1-§4): it passes ``max_size`` and
``overlap`` to the library's own chunk size and overlap parameters, maps the library's own output
fields (start indices, character offsets, heading metadata, ids) onto chunk fields, and declares
the unit the library counts in, using only tokenizers that work offline.

This module is the catalogue and imports no library: listing the adapters, or asking whether a
library is installed, costs nothing. An adapter module checks for its library when it is
imported, and raises an :class:`ImportError` naming the package to install; the library itself is
imported when the adapter is instantiated (once, when the target is loaded, before the worker
process is forked), never per call.

The libraries are the optional extra ``peers``: ``pip install 'chunk-contract[peers]'``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass

#: The optional extra that installs every adapted library at its tested version.
EXTRA = "chunk-contract[peers]"


@dataclass(frozen=True)
class AdapterInfo:
    """One built-in adapter: its entry-point name, target, and the library it needs."""

    name: str
    target: str
    distribution: str  # the library's name on PyPI
    module: str  # the library's top-level import name
    splitter: str  # what the adapter wraps

    @property
    def installed(self) -> bool:
        return library_installed(self.module)

    @property
    def version(self) -> str | None:
        return library_version(self.distribution)


#: Every built-in adapter, in the order of SPEC §1 (the entry points registered under
#: ``chunk_contract.plugins``).
ADAPTERS: tuple[AdapterInfo, ...] = (
    AdapterInfo(
        "langchain-recursive",
        "contract.integrations.adapters.langchain:RecursiveCharacter",
        "langchain-text-splitters",
        "langchain_text_splitters",
        "RecursiveCharacterTextSplitter",
    ),
    AdapterInfo(
        "langchain-character",
        "contract.integrations.adapters.langchain:Character",
        "langchain-text-splitters",
        "langchain_text_splitters",
        "CharacterTextSplitter",
    ),
    AdapterInfo(
        "langchain-markdown",
        "contract.integrations.adapters.langchain:Markdown",
        "langchain-text-splitters",
        "langchain_text_splitters",
        "MarkdownTextSplitter",
    ),
    AdapterInfo(
        "langchain-markdown-headers",
        "contract.integrations.adapters.langchain:MarkdownHeaders",
        "langchain-text-splitters",
        "langchain_text_splitters",
        "MarkdownHeaderTextSplitter",
    ),
    AdapterInfo(
        "llamaindex-sentence",
        "contract.integrations.adapters.llamaindex:Sentence",
        "llama-index-core",
        "llama_index.core",
        "SentenceSplitter",
    ),
    AdapterInfo(
        "llamaindex-token",
        "contract.integrations.adapters.llamaindex:Token",
        "llama-index-core",
        "llama_index.core",
        "TokenTextSplitter",
    ),
    AdapterInfo(
        "llamaindex-markdown",
        "contract.integrations.adapters.llamaindex:Markdown",
        "llama-index-core",
        "llama_index.core",
        "MarkdownNodeParser",
    ),
    AdapterInfo(
        "chonkie-token",
        "contract.integrations.adapters.chonkie:Token",
        "chonkie",
        "chonkie",
        "TokenChunker",
    ),
    AdapterInfo(
        "chonkie-sentence",
        "contract.integrations.adapters.chonkie:Sentence",
        "chonkie",
        "chonkie",
        "SentenceChunker",
    ),
    AdapterInfo(
        "chonkie-recursive",
        "contract.integrations.adapters.chonkie:Recursive",
        "chonkie",
        "chonkie",
        "RecursiveChunker",
    ),
    AdapterInfo(
        "semchunk",
        "contract.integrations.adapters.semchunk:Semchunk",
        "semchunk",
        "semchunk",
        "semchunk.chunkerify",
    ),
    AdapterInfo(
        "text-splitter",
        "contract.integrations.adapters.text_splitter:Text",
        "semantic-text-splitter",
        "semantic_text_splitter",
        "TextSplitter",
    ),
    AdapterInfo(
        "text-splitter-markdown",
        "contract.integrations.adapters.text_splitter:Markdown",
        "semantic-text-splitter",
        "semantic_text_splitter",
        "MarkdownSplitter",
    ),
)

BY_NAME: dict[str, AdapterInfo] = {a.name: a for a in ADAPTERS}

#: The distributions the adapters need, in catalogue order.
DISTRIBUTIONS: tuple[str, ...] = tuple(dict.fromkeys(a.distribution for a in ADAPTERS))


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


__all__ = [
    "ADAPTERS",
    "BY_NAME",
    "DISTRIBUTIONS",
    "EXTRA",
    "AdapterInfo",
    "library_installed",
    "library_version",
    "missing_message",
]
