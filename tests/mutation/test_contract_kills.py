"""The contract as the test suite of mutmut: ``nox -s mutation`` (not part of ``pytest``).

One test per reference chunker: it runs the contract with a small seeded budget and fails when
an invariant breaks, which is how mutmut counts a mutant of reference_chunkers/ as killed.
Collected only under mutmut (see conftest.py).
"""

import pytest

from contract.integrations.mutation.config import existing_reference_targets
from contract.integrations.mutation.suite import check


@pytest.mark.parametrize(
    "target", existing_reference_targets(),
    ids=lambda t: t.removeprefix("reference_chunkers.").replace(":", "."),
)
def test_contract_holds(target: str) -> None:
    check(target)
