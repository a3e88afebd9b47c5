"""Fuzzing chunkers against the contract: ``chunk-contract fuzz`` (see fuzz/README.md).

Modules, one job each:

- :mod:`.inputs`: fuzz input bytes <-> (document, config), a total and stable decoding;
- :mod:`.target`: the fuzz target (``TestOneInput``): a Python plugin in process through the
  transport seam, with the target's own code instrumented for atheris;
- :mod:`.artifacts`: libFuzzer artifacts -> confirmed, minimized reproducers;
- :mod:`.libfuzzer`: the libFuzzer (atheris) driver, in rounds, with progress;
- :mod:`.blind`: the engine for ``exec:`` / ``http(s)://`` targets, without coverage feedback;
- :mod:`.options`: a run's settings and its summary; :mod:`.cli`: the command line.

Importing this package needs no atheris; only coverage-guided fuzzing does.
"""
