"""Containment: every process that runs plugin code, and the limits around it.

- :mod:`chunk_contract.containment.worker`: the forked worker, its rlimits and its deadline.
- :mod:`chunk_contract.containment.framing`: length-framed JSON over raw pipe fds, deadlines and
  size limits on every host read.
- :mod:`chunk_contract.containment.pipes`: a child's pipes read with deadlines and caps.
- :mod:`chunk_contract.containment.sandbox`: the seccomp filter that keeps plugins off the host.
- :mod:`chunk_contract.containment.reaper` and :mod:`chunk_contract.containment.procs`: every
  process group a run starts, killed on exit and on signals; the process table read from ``/proc``.
- :mod:`chunk_contract.containment.xlsx`: workbook files checked and parsed in a worker.
"""
