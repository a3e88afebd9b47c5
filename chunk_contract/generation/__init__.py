"""The generation layer: the Hypothesis strategies (:mod:`chunk_contract.generation.strategies`,
with the covering schedules) and the seed corpus (:mod:`chunk_contract.generation.corpus`).

It builds on :mod:`chunk_contract.spec` only; the engine draws from it.
"""
