"""The pytest integration: :func:`contract_tests` generates one test per invariant, and
:mod:`chunk_contract.pytest.plugin` (registered through the ``pytest11`` entry point) adds the
``--contract-*`` options and the ``contract_target`` fixture.

Imports are absolute, so this package never hides the real ``pytest`` from the package's own
modules.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chunk_contract.pytest.suite import contract_tests


def __getattr__(name: str) -> Any:
    """``contract_tests``, imported on first use: the plugin module must load light."""
    if name == "contract_tests":
        from chunk_contract.pytest.suite import contract_tests  # lazy: it imports Hypothesis

        return contract_tests
    raise AttributeError(f"module 'chunk_contract.pytest' has no attribute {name!r}")


__all__ = ["contract_tests"]
