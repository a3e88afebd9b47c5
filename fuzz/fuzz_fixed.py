"""libFuzzer target (atheris) for reference_chunkers/fixed.py.

The chunker: fixed-size windows in UTF-8 bytes.

OSS-Fuzz / ClusterFuzzLite layout: ``TestOneInput(data)`` and ``main()``. Run it directly::

    python fuzz/fuzz_fixed.py -max_total_time=60 -timeout=2 -rss_limit_mb=2048 \\
        -dict=fuzz/chunks.dict -artifact_prefix=out/ out/corpus fuzz/corpus/fixed

or, with progress, a summary and reproducers, through the generic driver::

    python fuzz/harness.py reference_chunkers/fixed.py:split --seconds 60

The chunker is named by target string, so this file imports even while the chunker is being
written; loading (and instrumenting) it happens in ``main()``. A finding is a ``crash-*``,
``timeout-*`` or ``oom-*`` artifact; turn it into a reproducer for ``chunk-contract replay``::

    python fuzz/harness.py reference_chunkers/fixed.py:split --convert ARTIFACT
"""

import sys

import harness

atheris = harness.require_atheris()  # ImportError with install instructions if it is missing

TARGET = "reference_chunkers.fixed:split"
_check = None


def TestOneInput(data: bytes) -> None:
    """Decode ``data`` into a document and a config, chunk it, check every invariant."""
    global _check
    if _check is None:
        _check = harness.prepare(TARGET)
    _check(data)


def main() -> None:
    global _check
    _check = harness.prepare(TARGET)  # load and instrument the chunker before fuzzing starts
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
