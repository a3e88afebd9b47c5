"""The run itself: a session of calls over a transport, the exploration and its covering
schedule, shrinking, the scaling probe, health checks, the fresh-interpreter rerun, and the
events a run emits.

The layers below it have packages of their own: :mod:`chunk_contract.transport` (how a call reaches
the plugin), :mod:`chunk_contract.containment` (what keeps every process a run starts under control)
and :mod:`chunk_contract.store` (reproducers, the shared database, regression files).
"""
