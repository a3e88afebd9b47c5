"""Integrations with other tools, built on the public layers and never imported by them.

- :mod:`chunk_contract.integrations.adapters`: third-party chunkers as plugins, their reviewed
  findings and the conformance generators.
- :mod:`chunk_contract.integrations.mutation`: mutation testing (mutmut, StrykerJS) with the
  contract as the test suite.
- :mod:`chunk_contract.integrations.fuzzing`: coverage-guided fuzzing (atheris, libFuzzer) of Python
  targets, and a blind engine for out-of-process ones.
"""
