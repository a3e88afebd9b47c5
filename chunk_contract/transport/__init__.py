"""Transport: how one plugin call reaches the plugin, whatever kind of target it is.

- :mod:`chunk_contract.transport.base`: the ``Transport`` protocol and its fork and in-process
  implementations.
- :mod:`chunk_contract.transport.messages`: typed requests and replies, their wire forms, and the
  host's checks of every reply.
- :mod:`chunk_contract.transport.targets` and :mod:`chunk_contract.transport.loading`: target
  strings, plugins loaded, instantiated and declared in the worker;
  :mod:`chunk_contract.transport.serving` is the worker's side of a call.
- :mod:`chunk_contract.transport.kinds`: the target kinds, one ``TargetKind`` record each
  (``exec:``, ``http(s)://``, and those of plugins); nothing else reads a target's prefix.
- :mod:`chunk_contract.transport.outofprocess`, :mod:`chunk_contract.transport.exec_child`,
  :mod:`chunk_contract.transport.http_target` and :mod:`chunk_contract.transport.wire`: ``exec:``
  children of any language and ``http(s)://`` services, speaking the line protocol of SPEC section
  8.
"""
