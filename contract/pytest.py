"""``contract.pytest.contract_tests``: the Python API of the pytest integration.

A re-export of contract.testing (the implementation; prefer importing from there). Imports are
absolute, so this module never hides the real ``pytest`` from the package's own modules; it is
only a problem if ``contract/`` itself is put on ``sys.path``, which nothing does.
"""

from contract.testing import contract_tests

__all__ = ["contract_tests"]
