"""Configuration: run settings (one table of them, :mod:`chunk_contract.config.table`), profiles,
``[tool.chunk-contract]`` in pyproject.toml, and the plugin modules every front door imports
first (:mod:`chunk_contract.config.plugins`).

Nothing here sits in the event path of a run: the front doors read configuration into
:class:`chunk_contract.engine.results.RunSettings` before a run starts.
"""
