"""The engine: how a plugin call reaches the plugin, and what keeps every process a run starts
under control.

- :mod:`contract.engine.framing`: length-framed JSON over raw pipe fds, deadlines and size
  limits on every host read.
- :mod:`contract.engine.messages`: typed requests and replies, their wire forms, and the host's
  checks of every reply.
- :mod:`contract.engine.transport`: the ``Transport`` protocol and its fork and in-process
  implementations; :mod:`contract.engine.exec_child` is the third, a child process of any
  language speaking SPEC §8 (:mod:`contract.engine.http_target` for services).
- :mod:`contract.engine.loading`: plugins loaded, instantiated and declared in the worker.
- :mod:`contract.engine.reaper`: every process group a run starts, killed on exit and on signals.
- :mod:`contract.engine.xlsx`: workbook files checked and parsed in a worker.
"""
