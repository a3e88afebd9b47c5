"""The generation layer: the Hypothesis strategies (:mod:`contract.generation.strategies`, with
the covering schedules) and the seed corpus (:mod:`contract.generation.corpus`).

It builds on :mod:`contract.spec` only; the engine draws from it.
"""
