"""Test-wide setup: the repository root is importable, so ``contract`` and the shared test
helpers (``tests.unit.helpers``) load the same way under ``pytest`` and ``python -m pytest``."""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
