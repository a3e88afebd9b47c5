"""One table for many chunkers: invariant x chunker, passed / VIOLATED / skipped (with reasons)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from chunk_contract.engine.results import RunResult
from chunk_contract.spec.model import plural

if TYPE_CHECKING:
    from chunk_contract.engine.results import RunResult

_CELL = {"passed": "passed", "violated": "VIOLATED", "skipped": "skipped", "waived": "waived"}


def short_name(target: str) -> str:
    """A target's column name: ``.../header.py:split_x`` -> ``header:split_x``."""
    where, _, attr = target.rpartition(":")
    stem = where.rsplit("/", 1)[-1].removesuffix(".py") if where else target
    return stem if attr in ("split", "") else f"{stem}:{attr}"


def render_matrix(results: list[RunResult]) -> str:
    """The table, then why each skipped cell was skipped, then the verdict."""
    names = [short_name(r.target) for r in results]
    ids = [item.id for item in results[0].results] if results else []
    width = max([len(i) for i in ids] + [9])
    cols = [max(len(n), 8) for n in names]
    lines = [" " * width + "  " + "  ".join(n.ljust(w) for n, w in zip(names, cols))]
    for k, rule in enumerate(ids):
        cells = [_CELL[r.results[k].status].ljust(w) for r, w in zip(results, cols)]
        lines.append(rule.ljust(width) + "  " + "  ".join(cells))
    lines += ["", "Skipped or waived, and why:"]
    lines += _reasons(results, names)
    failed = [n for n, r in zip(names, results) if not r.passed]
    lines += [
        "",
        f"FAILED: {', '.join(failed)}"
        if failed
        else f"PASSED: {plural(len(results), 'chunker')}, every applicable invariant holds",
    ]
    return "\n".join(lines)


def _reasons(results: list[RunResult], names: list[str]) -> list[str]:
    grouped: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, result in zip(names, results):
        for item in result.results:
            if item.status == "skipped":
                grouped[item.reason][name].append(item.id)
            elif item.status == "waived":
                grouped[f"waived: {item.reason}"][name].append(item.id)
    out = []
    for reason, by_name in grouped.items():
        out.append(f"  {reason}:")
        out += [f"    {name}: {', '.join(ids)}" for name, ids in by_name.items()]
    return out
