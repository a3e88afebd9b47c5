"""Mutation testing: the kill tests run only when mutmut drives pytest (``nox -s mutation``).

Under mutmut (``MUTANT_UNDER_TEST`` set) this loads a derandomized, deadline-free Hypothesis
profile and caps each mutant's test process's memory; see
chunk_contract.integrations.mutation.suite.
"""

from chunk_contract.integrations.mutation import suite

collect_ignore = suite.collect_ignore(__file__)


def pytest_configure(config: object) -> None:
    suite.configure()
