"""libFuzzer target (atheris) for chunk_contract_reference/fixed.py: fixed-size windows in UTF-8
bytes.

OSS-Fuzz / ClusterFuzzLite layout (``TestOneInput`` and ``main``). Run it directly with libFuzzer
flags, or, with progress, a summary and reproducers, through the generic driver::

    chunk-contract fuzz chunk_contract_reference/fixed.py:split --seconds 60

A ``crash-*``, ``timeout-*`` or ``oom-*`` artifact becomes a reproducer for
``chunk-contract replay`` with ``chunk-contract fuzz TARGET --convert ARTIFACT``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # a checkout, not installed

from chunk_contract.integrations.fuzzing.libfuzzer import entry_points

TestOneInput, main = entry_points("chunk_contract_reference.fixed:split")

if __name__ == "__main__":
    main()
