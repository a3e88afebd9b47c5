"""Containment: every process that runs plugin code, and the limits around it.

- :mod:`contract.containment.worker`: the forked worker, its rlimits and its deadline.
- :mod:`contract.containment.framing`: length-framed JSON over raw pipe fds, deadlines and size
  limits on every host read.
- :mod:`contract.containment.pipes`: a child's pipes read with deadlines and caps.
- :mod:`contract.containment.sandbox`: the seccomp filter that keeps plugins off the host.
- :mod:`contract.containment.reaper` and :mod:`contract.containment.procs`: every process group
  a run starts, killed on exit and on signals; the process table read from ``/proc``.
- :mod:`contract.containment.xlsx`: workbook files checked and parsed in a worker.
"""
