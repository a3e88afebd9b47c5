"""Containment (issue 15): process trees, signals, the fresh-interpreter rerun, -n, workbooks."""
