"""The spec layer: what a chunk, a document and a rule are, with no engine and no Hypothesis.

- :mod:`chunk_contract.spec.model`: chunks, configs, documents (line and byte geometry), the Case.
- :mod:`chunk_contract.spec.placement`: sound placement of chunks without offsets.
- :mod:`chunk_contract.spec.registry`: the ``@invariant`` registry keyed by stable id.
- :mod:`chunk_contract.spec.invariants`: the built-in rules, loaded by
  :func:`chunk_contract.spec.invariants.load_builtin`.
- :mod:`chunk_contract.spec.a1` and :mod:`chunk_contract.spec.workbook`: A1 geometry and workbook
  descriptions (SPEC §7).

Nothing here imports the generation, engine, reporting or front-door layers.
"""

#: The version of the public interface (docs/spec.md) that this package implements; reports
#: name it, so a reader knows which rules a verdict was reached under.
SPEC_VERSION = "1.1"
