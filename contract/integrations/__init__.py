"""Integrations with other tools, built on the public layers and never imported by them.

- :mod:`contract.integrations.adapters`: third-party chunkers as plugins, their reviewed
  findings and the conformance generators.
- :mod:`contract.integrations.mutation`: mutation testing (mutmut, StrykerJS) with the contract
  as the test suite.
- :mod:`contract.integrations.fuzzing`: coverage-guided fuzzing (atheris, libFuzzer) of Python
  targets, and a blind engine for out-of-process ones.
"""
