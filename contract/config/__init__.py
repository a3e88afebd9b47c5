"""Configuration: run settings, profiles and ``[tool.chunk-contract]`` in pyproject.toml.

Nothing here sits in the event path of a run: the front doors read configuration into
:class:`contract.engine.results.RunSettings` before a run starts.
"""
