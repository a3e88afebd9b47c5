"""Evidence for triage: does a survivor ever give different chunks from the original?

For each surviving mutant this calls the original and the mutated chunker on the same generated
cases (the contract's own strategy, a fixed seed, more and longer documents than the kill
tests) and compares their chunks. No difference in hundreds of cases is evidence that the mutant
is **equivalent**; a difference the contract accepted is either **allowed** by SPEC (smaller
chunks, less overlap, an optional field left out) or a **hole** in the contract, and the first
differing case says which to a reader in seconds.

Runs where mutmut ran the tests (``<project>/mutants``), with mutmut importable, in a process
of its own (``python -m chunk_contract.integrations.mutation.explain``); the driver starts it for
``--explain``. Each call runs in the contract's isolated worker, so a mutant that hangs on a longer
document costs one timeout, not the run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from chunk_contract.generation.stability import stabilize_generation
from chunk_contract.integrations.mutation.config import EVIDENCE_FILE

#: Written into ``mutants/`` (the stats phase's test -> target map, and the evidence).
TARGETS_FILE = ".chunk-contract-targets.json"


def record_target(target: str) -> None:
    """In mutmut's stats phase: note which target the running test checks (for explain)."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if not test:
        return
    path = Path(TARGETS_FILE)
    try:
        known = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        known[test] = target
        path.write_text(json.dumps(known, indent=1), "utf-8")
    except (OSError, ValueError):
        pass


def targets_of(mutant: str, stats: Mapping[str, Any], targets: Mapping[str, str]) -> list[str]:
    """The targets whose kill tests cover ``mutant``'s function (mutmut's stats)."""
    function = mutant.partition("__mutmut_")[0]
    tests = stats.get("tests_by_mangled_function_name", {}).get(function, [])
    return sorted({targets[t] for t in tests if t in targets})


def explain(names: Iterable[str], *, examples: int = 200, max_length: int = 2000,
            seed: int = 7, timeout: float = 5.0) -> dict[str, dict[str, Any]]:
    """Evidence for each mutant in ``names`` (run in ``mutants/``)."""
    stats = json.loads(Path("mutmut-stats.json").read_text("utf-8"))
    targets = json.loads(Path(TARGETS_FILE).read_text("utf-8"))
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        found[name] = _one(name, targets_of(name, stats, targets), examples, max_length, seed,
                           timeout)
        print(f"  {name}: {_short(found[name])}", flush=True)
    return found


def _one(name: str, targets: list[str], examples: int, max_length: int, seed_value: int,
         timeout: float) -> dict[str, Any]:
    cases = 0
    for target in targets:
        seen, first = _compare(name, target, examples, max_length, seed_value, timeout)
        cases += seen
        if first is not None:
            return {"cases": cases, **first}
    return {"cases": cases, "targets": targets}


def _compare(name: str, target: str, examples: int, max_length: int, seed_value: int,
             timeout: float) -> tuple[int, dict[str, Any] | None]:
    """How many cases were compared on ``target``, and the first that differed (if any)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.containment.worker import Worker

    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.engine.results import RunSettings
    from chunk_contract.engine.runner import cases_for  # lazy: Hypothesis

    # the suite calls the plugin itself
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.transport.targets import load_here as load

    stabilize_generation()
    plugin = load(target)
    first: list[dict[str, Any]] = []
    count = [0]
    worker = Worker(_task(plugin), timeout=timeout, memory_mb=1024)
    run_settings = RunSettings(max_examples=examples, seed=seed_value, max_length=max_length,
                               reproducers=None)

    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
              phases=(Phase.generate,))
    @seed(seed_value)
    @given(cases_for(plugin, run_settings))
    def compare(case: tuple[Any, Any]) -> None:
        if first:
            return
        document, config = case
        count[0] += 1
        original = _outcome(worker.call(("", document, config.max_size, config.overlap)))
        mutated = _outcome(worker.call((name, document, config.max_size, config.overlap)))
        if original != mutated:
            first.append({"target": target, "document": document,
                          "config": [config.max_size, config.overlap],
                          "difference": _difference(original, mutated)})

    with worker:
        compare()
    return count[0], (first[0] if first else None)


def _task(plugin: Any) -> Any:
    # lazy: each mutmut phase imports only what it runs
    from chunk_contract.spec.model import normalise_chunks

    def task(request: tuple[str, Any, int, int]) -> Any:
        mutant, document, max_size, overlap = request
        os.environ["MUTANT_UNDER_TEST"] = mutant
        if plugin.kind == "workbook":
            # lazy: each mutmut phase imports only what it runs
            from chunk_contract.spec.workbook import build

            document = build(document)
        try:
            return ("chunks", normalise_chunks(plugin.split(document, max_size=max_size,
                                                            overlap=overlap)))
        except Exception as exc:
            return ("raised", type(exc).__name__)

    return task


def _outcome(outcome: Any) -> Any:
    return outcome.value if outcome.ok else (outcome.kind, outcome.error_type)


def _difference(original: Any, mutated: Any) -> str:
    """The first difference, in words."""
    if original[0] != "chunks" or mutated[0] != "chunks":
        return f"original: {_what(original)}; mutant: {_what(mutated)}"
    a, b = original[1], mutated[1]
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            keys = [k for k in dict.fromkeys([*x, *y]) if x.get(k) != y.get(k) and k != "bare"]
            shown = ", ".join(f"{k}: {x.get(k, '(none)')!r} -> {y.get(k, '(none)')!r}"
                              for k in keys[:4])
            return f"chunk[{i}] differs ({shown})"
    return (f"{len(a)} chunks -> {len(b)} chunks (the first {min(len(a), len(b))} agree; "
            f"extra: {_chunk((a if len(a) > len(b) else b)[min(len(a), len(b))])})")


def _what(outcome: Any) -> str:
    if outcome[0] == "chunks":
        return f"{len(outcome[1])} chunks"
    return f"{outcome[0]} {outcome[1]}".strip()


def _chunk(record: Mapping[str, Any]) -> str:
    where = f" [{record['start']}:{record['end']})" if "start" in record else ""
    return f"{record.get('text', '')[:40]!r}{where}"


def _short(evidence: Mapping[str, Any]) -> str:
    if "difference" in evidence:
        return f"differs after {evidence['cases']} cases: {evidence['difference']}"
    return f"no difference in {evidence['cases']} cases"


def main(argv: list[str] | None = None) -> int:
    """``python -m chunk_contract.integrations.mutation.explain NAME...`` in ``mutants/``: writes
    the evidence."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m chunk_contract.integrations.mutation.explain")
    parser.add_argument("names", nargs="+")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--max-length", type=int, default=2000)
    args = parser.parse_args(argv)
    sys.path.insert(0, os.getcwd())
    found = explain(args.names, examples=args.examples, max_length=args.max_length)
    path = Path(EVIDENCE_FILE)
    known = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    known.update(found)
    path.write_text(json.dumps(known, indent=1, ensure_ascii=False, default=repr), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
