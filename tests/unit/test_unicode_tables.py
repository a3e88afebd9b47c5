"""Generation builds no codec table: Hypothesis makes one by encoding every code point (1.5 s of
CPU for UTF-8, 0.5 s for ASCII) the first time a folder's run draws ``characters(codec=...)``,
which a CI checkout pays on every run. The same characters come from categories and code-point
bounds, whose only table (the category map) every Hypothesis text strategy needs anyway."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODEC = re.compile(r"characters\([^)]*codec\s*=")

DRAW = """
from hypothesis import HealthCheck, Phase, given, settings, seed
from chunk_contract.generation.strategies.cases import cases
from chunk_contract.generation.strategies.markdown import headed_documents

@settings(max_examples=300, database=None, deadline=None, phases=(Phase.generate,),
          suppress_health_check=list(HealthCheck))
@seed(1)
@given(cases(real_sizes=True), headed_documents())
def draw(case, headed):
    pass

draw()
"""


def test_generating_the_default_mixture_builds_no_codec_table(tmp_path: Path) -> None:
    env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", DRAW], env=env, check=True, timeout=300)
    tables = sorted(p.name for p in tmp_path.rglob("*.json.gz"))
    assert not [name for name in tables if name.startswith("codec")], tables


def test_the_strategies_name_no_codec() -> None:
    """Code review's half: no strategy module asks Hypothesis for a codec's characters."""
    sources = (ROOT / "chunk_contract").rglob("*.py")
    offending = [p.name for p in sources if CODEC.search(p.read_text())]
    assert not offending
