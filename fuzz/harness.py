"""Compatibility script: ``python fuzz/harness.py ARGS`` is ``chunk-contract fuzz ARGS``.

The harness moved into the package (chunk_contract/integrations/fuzzing/); this file keeps old
command lines and ``import harness`` working. New code: ``chunk-contract fuzz`` and
``from chunk_contract.integrations.fuzzing... import ...``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:  # so ``chunk_contract`` imports from a checkout without installing
    sys.path.insert(0, str(_ROOT))

from chunk_contract.integrations.fuzzing.artifacts import Finding, artifact_kind, convert  # noqa: E402
from chunk_contract.integrations.fuzzing.cli import main  # noqa: E402
from chunk_contract.integrations.fuzzing.libfuzzer import entry_points, fuzz_main  # noqa: E402
from chunk_contract.integrations.fuzzing.target import (  # noqa: E402
    ContractViolation,
    FuzzTarget,
    load_instrumented,
    prepare,
    require_atheris,
)

__all__ = [
    "ContractViolation", "Finding", "FuzzTarget", "artifact_kind", "convert", "entry_points",
    "fuzz_main", "load_instrumented", "main", "prepare", "require_atheris",
]

if __name__ == "__main__":
    sys.exit(main(prog="fuzz/harness.py"))
