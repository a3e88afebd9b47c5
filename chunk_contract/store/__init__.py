"""Storage: what a run keeps after it ends.

- :mod:`chunk_contract.store.reproducers`: one JSON file per failing case, and replaying it.
- :mod:`chunk_contract.store.database`: the example database shared across runs and CI jobs.
- :mod:`chunk_contract.store.regression`: regression files for the project's own suite.
"""
