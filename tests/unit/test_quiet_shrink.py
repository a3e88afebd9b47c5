"""A counterexample of real size (over 30,000 characters) shrinks without Hypothesis's warning
about large reprs reaching the user: the report shows the document its own way."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from chunk_contract.engine.runner import RunSettings, run

#: The module, not the function the package exports under the same name.
cases_module = importlib.import_module("chunk_contract.generation.strategies.cases")

PLUGIN = '''
def split(document, *, max_size, overlap):
    if len(document) > 30_000:
        raise OverflowError("a buffer of 30,000 characters")
    step = max_size - overlap
    return [document[i:i + max_size] for i in range(0, max(len(document), 1), step)]
'''


def test_a_real_size_counterexample_shrinks_without_a_repr_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cases_module, "LARGE_ONE_IN", 1)  # every generated document at a real size
    plugin = tmp_path / "big_buffer.py"
    plugin.write_text(PLUGIN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run(f"{plugin}:split", RunSettings(seed=1, measure=False, reproducers=None,
                                                     only=("no_crash",), max_examples=30))
    verdicts = {r.id: r for r in result.results}
    assert verdicts["no_crash"].status == "violated"  # a real-size document was generated
    assert not [w for w in caught if "overly large repr" in str(w.message)]
