"""Compatibility name of :mod:`chunk_contract.integrations.fuzzing.inputs` (fuzz input <-> case).

The decoding moved into the package; scripts here (make_corpus.py) and older imports of
``chunk_input`` keep working through this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:  # so ``chunk_contract`` imports from a checkout without installing
    sys.path.append(str(_ROOT))

from chunk_contract.integrations.fuzzing.inputs import (  # noqa: E402,F401
    FORMAT,
    HEADER,
    MAX_CHARS,
    PIECES,
    REPEATS,
    RUNS,
    FuzzCase,
    decode,
    decode_config,
    decode_text,
    encode,
)
