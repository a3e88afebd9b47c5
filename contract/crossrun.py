"""``deterministic`` across interpreters: the same inputs, chunked again in a fresh Python.

The worker is forked, so its reruns share the parent's hash seed: ids built from ``hash()``,
or output that follows set iteration order, look stable within one run and change with the
next interpreter. After exploring, the runner sends a few explored inputs to a new interpreter
with another ``PYTHONHASHSEED`` and compares the chunks.

    python -m contract.crossrun TARGET < cases.json > chunks.json   (the child side)
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from contract.model import CHUNK_FIELDS, Config, chunks_from_records, plural

#: Inputs re-chunked in the fresh interpreter.
SAMPLES = 8


def fresh_chunks(
    target: str,
    cases: Sequence[tuple[str, Config]],
    *,
    timeout: float,
    hash_seed: int | None = None,
) -> tuple[int, list[list[dict[str, Any]] | None]] | None:
    """``(hash_seed, records per case)`` from a new interpreter, or None if it could not run."""
    seed = hash_seed if hash_seed is not None else random.randrange(1, 2**31)
    payload = json.dumps([{"document": d, "config": c.as_dict()} for d, c in cases])
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "contract.crossrun", target],
            input=payload,
            env=env,
            capture_output=True,
            text=True,
            timeout=10 + timeout * len(cases),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return seed, json.loads(done.stdout)
    except ValueError:
        return None


def first_difference(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str | None:
    """Where two chunk lists differ (texts, offsets, lines, ids), or None."""
    a, b = chunks_from_records(before), chunks_from_records(after)
    if len(a) != len(b):
        return f"{plural(len(a), 'chunk')}, then {len(b)}"
    for x, y in zip(a, b):
        for name, p, q in zip(CHUNK_FIELDS, x.comparable(), y.comparable()):
            if p != q:
                return f"chunk[{x.index}].{name} was {p!r}, then {q!r}"
    return None


def _serve(target: str) -> int:
    from contract.model import normalise_chunks
    from contract.plugins import TargetError, load

    try:
        plugin = load(target)
    except TargetError:
        return 3
    out: list[list[dict[str, Any]] | None] = []
    for case in json.loads(sys.stdin.read()):
        config = case["config"]
        try:
            result = plugin.split(
                case["document"], max_size=config["max_size"], overlap=config["overlap"]
            )
            records = normalise_chunks(result)
            out.append([{k: v for k, v in r.items() if k != "bare"} for r in records])
        except Exception:
            out.append(None)
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1]))
