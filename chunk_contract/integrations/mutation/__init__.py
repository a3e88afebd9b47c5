"""Mutation testing with the contract as the test suite (``nox -s mutation``).

mutmut mutates a chunker (the reference chunkers, or any chunker file); for each mutant the
contract runs with a small seeded budget, and a mutant that makes it report a violation is
killed. A survivor is a change to the chunker that no invariant noticed: either an equivalent
mutant (triaged, with a reason, in docs/mutation-baseline.toml) or a hole in the contract.

In :mod:`chunk_contract.integrations.mutation`:

* ``config`` -- targets, the per-mutant budget, the ``[tool.mutmut]`` table;
* ``suite`` -- the pytest side: kill tests, the stats-phase probe, limits;
* ``running`` -- the driver (``python -m chunk_contract.integrations.mutation``);
* ``results`` -- reads mutmut's results back, locates each mutant;
* ``triage`` -- the triage file of known survivors;
* ``reports`` -- Stryker JSON, offline HTML, markdown summary.

Nothing here is imported by the rest of the contract.
"""
