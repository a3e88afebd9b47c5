"""The contract as the test suite of mutmut: ``nox -s mutation`` (not part of ``pytest``).

One test per reference chunker: it runs the contract with a small seeded budget and fails when
an invariant breaks, which is how mutmut counts a mutant of chunk_contract_reference/ as killed.
Collected only under mutmut (see conftest.py).
"""

from pathlib import Path

import pytest

from chunk_contract.integrations.mutation.config import REFERENCE_TARGETS
from chunk_contract.integrations.mutation.suite import check


def existing_reference_targets(root: Path | str = ".") -> list[str]:
    """The reference targets whose module file exists under ``root``."""
    found = []
    for target in REFERENCE_TARGETS:
        module = target.partition(":")[0]
        if (Path(root) / (module.replace(".", "/") + ".py")).is_file():
            found.append(target)
    return found


@pytest.mark.parametrize(
    "target", existing_reference_targets(),
    ids=lambda t: t.removeprefix("chunk_contract_reference.").replace(":", "."),
)
def test_contract_holds(target: str) -> None:
    check(target)
