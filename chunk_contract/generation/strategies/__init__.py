"""Hypothesis strategies for the contract: adversarial documents and chunking configs.

Public strategies (all keyword-only, arguments checked at call time):

- :func:`documents`: adversarial plain text;
- :func:`markdown_documents`: markdown aimed at heading-aware splitters;
- :func:`headed_documents`: documents opening with a long three-line header;
- :func:`any_documents`: the default mixture of the three;
- :func:`configs`: chunking configs, degenerate ones included on request;
- :func:`cases`: ``(document, config)`` pairs where the config makes the chunker chunk.

A bad argument raises :class:`StrategyArgumentError` (both a ``ValueError`` and Hypothesis's
``InvalidArgument``).
"""

from __future__ import annotations

from ._common import StrategyArgumentError
from .cases import any_documents, cases
from .configs import configs
from .markdown import headed_documents, markdown_documents
from .text import documents

__all__ = [
    "StrategyArgumentError",
    "any_documents",
    "cases",
    "configs",
    "documents",
    "headed_documents",
    "markdown_documents",
]
