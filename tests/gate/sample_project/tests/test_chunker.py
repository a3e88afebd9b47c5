"""The project's own tests, plus the contract through the Python API."""

from chunker import split

from chunk_contract.pytest.suite import contract_tests


def test_packs_short_words():
    assert [c["text"] for c in split("a b c d", max_size=3)] == ["a b", "c d"]


# One test per applicable invariant: test_contract[cap_respected], ...
test_contract = contract_tests("chunker.py:split")
