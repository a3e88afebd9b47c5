"""Transport: how one plugin call reaches the plugin, whatever kind of target it is.

- :mod:`contract.transport.base`: the ``Transport`` protocol and its fork and in-process
  implementations.
- :mod:`contract.transport.messages`: typed requests and replies, their wire forms, and the
  host's checks of every reply.
- :mod:`contract.transport.targets` and :mod:`contract.transport.loading`: target strings, plugins
  loaded, instantiated and declared in the worker; :mod:`contract.transport.serving` is the
  worker's side of a call.
- :mod:`contract.transport.kinds`: the target kinds, one ``TargetKind`` record each (``exec:``,
  ``http(s)://``, and those of plugins); nothing else reads a target's prefix.
- :mod:`contract.transport.outofprocess`, :mod:`contract.transport.exec_child`,
  :mod:`contract.transport.http_target` and :mod:`contract.transport.wire`: ``exec:`` children of
  any language and ``http(s)://`` services, speaking the line protocol of SPEC section 8.
"""
