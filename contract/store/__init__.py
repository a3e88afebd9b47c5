"""Storage: what a run keeps after it ends.

- :mod:`contract.store.reproducers`: one JSON file per failing case, and replaying it.
- :mod:`contract.store.database`: the example database shared across runs and CI jobs.
- :mod:`contract.store.regression`: regression files for the project's own suite.
"""
