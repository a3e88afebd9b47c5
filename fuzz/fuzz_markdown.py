"""libFuzzer target (atheris) for reference_chunkers/markdown.py: markdown sections with
heading paths (promises heading_boundary, newline_invariance).

OSS-Fuzz / ClusterFuzzLite layout (``TestOneInput`` and ``main``). Run it directly with libFuzzer
flags, or, with progress, a summary and reproducers, through the generic driver::

    python fuzz/harness.py reference_chunkers/markdown.py:split --seconds 60

A ``crash-*``, ``timeout-*`` or ``oom-*`` artifact becomes a reproducer for
``chunk-contract replay`` with ``python fuzz/harness.py TARGET --convert ARTIFACT``.
"""

import harness

TestOneInput, main = harness.entry_points("reference_chunkers.markdown:split")

if __name__ == "__main__":
    main()
