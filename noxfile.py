"""Developer and user jobs: ``nox -s contract`` (the main job) and ``nox -s tests``."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "contract"]
nox.options.reuse_existing_virtualenvs = True

#: Every reference chunker, as chunk-contract targets.
REFERENCE_CHUNKERS = [
    "reference_chunkers/fixed.py:split",
    "reference_chunkers/recursive.py:split",
    "reference_chunkers/markdown.py:split",
    "reference_chunkers/header.py:split",
    "reference_chunkers/header.py:split_duplicate_headers",
    "reference_chunkers/grapheme.py:split",
]


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (unit, defects, reference chunkers, CLI)."""
    session.install("-e", ".[dev]")
    session.run("pytest", "-q", *session.posargs)


@nox.session
def contract(session: nox.Session) -> None:
    """Run the contract over every reference chunker and print one table."""
    session.install("-e", ".")
    targets = session.posargs or REFERENCE_CHUNKERS
    session.run("chunk-contract", "matrix", *targets)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and mypy."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "contract", "reference_chunkers", "tests")
    session.run("mypy")
