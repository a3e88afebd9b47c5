"""libFuzzer target (atheris) for reference_chunkers/grapheme.py: windows that never split a
grapheme cluster (promises grapheme_integrity).

OSS-Fuzz / ClusterFuzzLite layout (``TestOneInput`` and ``main``). Run it directly with libFuzzer
flags, or, with progress, a summary and reproducers, through the generic driver::

    python fuzz/harness.py reference_chunkers/grapheme.py:split --seconds 60

A ``crash-*``, ``timeout-*`` or ``oom-*`` artifact becomes a reproducer for
``chunk-contract replay`` with ``python fuzz/harness.py TARGET --convert ARTIFACT``.
"""

import harness

TestOneInput, main = harness.entry_points("reference_chunkers.grapheme:split")

if __name__ == "__main__":
    main()
