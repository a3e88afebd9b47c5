"""Configuration: run settings (one table of them, :mod:`contract.config.table`), profiles,
``[tool.chunk-contract]`` in pyproject.toml, and the plugin modules every front door imports
first (:mod:`contract.config.plugins`).

Nothing here sits in the event path of a run: the front doors read configuration into
:class:`contract.engine.results.RunSettings` before a run starts.
"""
