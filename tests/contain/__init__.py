"""Containment: process trees, signals, the fresh-interpreter rerun, -n, workbooks."""
