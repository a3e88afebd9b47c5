"""The engine's boundary with the plugin: what crosses it, and how.

- :mod:`contract.engine.framing`: length-framed JSON over raw pipe fds, deadlines and size
  limits on every host read.
- :mod:`contract.engine.messages`: typed requests and replies, their wire forms, and the host's
  checks of every reply.
- :mod:`contract.engine.transport`: the ``Transport`` protocol and its fork and in-process
  implementations (an ``exec:`` child is the third; the interface it must provide is there).
- :mod:`contract.engine.loading`: plugins loaded, instantiated and declared in the worker.
"""
