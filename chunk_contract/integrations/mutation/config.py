"""What a mutation run mutates, with which budget, and how mutmut is configured for it.

Everything here is data and pure functions: the pytest side
(:mod:`chunk_contract.integrations.mutation.suite`) and the driver
(:mod:`chunk_contract.integrations.mutation.running`) both read it, and it imports nothing heavy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The environment variable mutmut sets in every process of a run (SPEC-independent: mutmut's).
MUTANT_ENV = "MUTANT_UNDER_TEST"
#: Values mutmut gives ``MUTANT_UNDER_TEST`` outside a mutant's own test run.
PHASES = ("", "mutant_generation", "stats", "list_all_tests", "fail")

#: The reference chunkers, as ``module:attr`` targets. Only those whose module file exists are
#: mutated, so a chunker still being written is picked up as soon as it lands.
REFERENCE_TARGETS = (
    "chunk_contract_reference.fixed:split",
    "chunk_contract_reference.recursive:split",
    "chunk_contract_reference.markdown:split",
    "chunk_contract_reference.header:split",
    "chunk_contract_reference.header:split_duplicate_headers",
    "chunk_contract_reference.grapheme:split",
    "chunk_contract_reference.spreadsheet:split",
)

#: Where the mutmut-driven test module lives (outside the normal test run: see its conftest).
KILL_TESTS = "tests/mutation/test_contract_kills.py"
#: The triage file: every surviving mutant of the reference chunkers, with a reason.
BASELINE = Path("docs/mutation-baseline.toml")
#: Reports land here (build/ is ignored by git).
REPORT_DIR = Path("build/mutation")
#: Inside mutmut's ``mutants/`` folder: one note per killed mutant (which invariant killed it).
KILLS_DIR = ".chunk-contract-kills"
#: Third-party targets are mutated in a scratch project under this folder.
WORK_DIR = Path("build/mutation/work")


@dataclass(frozen=True)
class Budget:
    """The contract's budget for one mutant: small, seeded, and the same for every mutant.

    A mutant is run against the *same* generated documents as the unmutated code (fixed seed,
    no example database, no wall-clock cut-off during exploration), so a verdict never depends
    on the machine's load. ``scales_linearly`` is timing-based and is left out: a mutant is
    killed by what it does, never by how busy the machine was.
    """

    max_examples: int = 200
    seed: int = 20240611
    timeout: float = 2.0
    memory_mb: int = 512
    max_length: int = 2000
    skip: tuple[str, ...] = ("scales_linearly",)
    #: Generous: exploration must not be cut short by a loaded machine (mutmut's own timeout
    #: bounds the whole test).
    explore_seconds: float = 600.0
    shrink_seconds: float = 0.5

    def run_settings(self, *, skip: tuple[str, ...] = ()) -> Any:
        """The RunSettings of this budget (``skip`` adds to the budget's own)."""
        # lazy: each mutmut phase imports only what it runs
        from chunk_contract.engine.results import RunSettings

        return RunSettings(
            max_examples=self.max_examples, seed=self.seed, timeout=self.timeout,
            memory_mb=self.memory_mb, skip=tuple(dict.fromkeys(self.skip + skip)),
            explore_seconds=self.explore_seconds, shrink_seconds=self.shrink_seconds,
            max_length=self.max_length, reproducers=None, database=None,
            derandomize=True,
        )


DEFAULT_BUDGET = Budget()
#: JSON ``{"file": triage file, "display": {path: shown path}}``: survivors triaged equivalent
#: or allowed in that file are not re-run (their test passes at once). Set by the driver
#: unless ``--recheck``.
TRIAGE_ENV = "CHUNK_CONTRACT_MUTATION_TRIAGE"
#: Overrides the budget's example count in the kill tests (set by ``--max-examples``).
EXAMPLES_ENV = "CHUNK_CONTRACT_MUTATION_EXAMPLES"


def budget() -> Budget:
    """The budget of this run: the default, with ``$CHUNK_CONTRACT_MUTATION_EXAMPLES`` applied."""
    from dataclasses import replace

    value = os.environ.get(EXAMPLES_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return replace(DEFAULT_BUDGET, max_examples=int(value))
    return DEFAULT_BUDGET


@dataclass(frozen=True)
class MutmutSettings:
    """The ``[tool.mutmut]`` table of one mutation run."""

    source_paths: tuple[str, ...]
    tests: tuple[str, ...]
    also_copy: tuple[str, ...] = ()
    #: Wall limit of a mutant = (its tests' measured time + 1 s) x this. An infinite-loop
    #: mutant is normally killed by the contract's own worker timeout (``terminates``) long
    #: before; this catches what is left (a mutant that hangs the test process itself).
    timeout_multiplier: float = 3.0
    do_not_mutate: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def table(self) -> dict[str, Any]:
        table: dict[str, Any] = {
            "source_paths": list(self.source_paths),
            "also_copy": list(self.also_copy),
            "pytest_add_cli_args_test_selection": list(self.tests),
            "timeout_multiplier": self.timeout_multiplier,
            "debug": False,
        }
        if self.do_not_mutate:
            table["do_not_mutate"] = list(self.do_not_mutate)
        table.update(self.extra)
        return table

    def toml(self) -> str:
        """The table as TOML text, under ``[tool.mutmut]``."""
        lines = ["[tool.mutmut]"]
        for key, value in self.table().items():
            lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"


#: The repository's own configuration (what ``[tool.mutmut]`` in pyproject.toml holds).
REFERENCE_MUTMUT = MutmutSettings(
    source_paths=("chunk_contract_reference/",),
    tests=(KILL_TESTS,),
    also_copy=("chunk_contract/",),
)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def mutant_phase() -> str | None:
    """None outside mutmut; else ``"mutant"`` inside a mutant's test run, or mutmut's phase name."""
    value = os.environ.get(MUTANT_ENV)
    if value is None:
        return None
    return value if value in PHASES else "mutant"


#: Where the evidence on survivors (``python -m chunk_contract.integrations.mutation.explain``) is
#: in ``mutants/``.
EVIDENCE_FILE = ".chunk-contract-evidence.json"
