"""The engine: how a plugin call reaches the plugin (in a forked worker, in process, or in a
child process of any language speaking SPEC §8's protocol: :mod:`contract.engine.exec_child`),
and what keeps every process a run starts under control (:mod:`contract.engine.reaper`)."""
