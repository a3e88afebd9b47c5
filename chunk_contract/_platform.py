"""The platform chunk-contract needs: POSIX, with ``os.fork`` and the ``resource`` module.

The isolated worker (chunk_contract.containment.worker) forks, puts the plugin in its own process
group and
caps its memory with ``resource.setrlimit``; none of that exists on Windows. Rather than fail with a
traceback deep inside a run, the command line checks first and says so in one line (exit 2).
"""

from __future__ import annotations

import importlib.util
import os
import sys

#: The exit status of a usage error (chunk_contract.cli.main), used here without importing the CLI.
EXIT_USAGE = 2


def missing_features() -> list[str]:
    """What this interpreter lacks of what the worker needs (empty: everything is there)."""
    missing = [] if hasattr(os, "fork") else ["os.fork"]
    if importlib.util.find_spec("resource") is None:
        missing.append("the resource module")
    return missing


def require_posix() -> None:
    """Exit with status 2 and one line on stderr when the platform cannot run the worker."""
    missing = missing_features()
    if missing:
        print(
            f"chunk-contract: error: this platform ({sys.platform}) lacks {', '.join(missing)}; "
            "chunk-contract needs a POSIX system (Linux or macOS; on Windows, use WSL)",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_USAGE)
