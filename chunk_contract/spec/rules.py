"""What a rule is and how one is registered: :class:`Invariant` and the ``@invariant``
decorator (re-exported by :mod:`chunk_contract.spec.registry`, which also lists them).

The built-in rules (:mod:`chunk_contract.spec.invariants`) and users' own rules register here; this
module imports no rule, so registering one never loads the others.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chunk_contract.errors import UsageError
from chunk_contract.spec.model import Case, Violation

__all__ = ["BrokenRule", "Check", "Invariant", "invariant"]


class BrokenRule(UsageError):
    """A rule that raised while checking a chunker's output: the rule is wrong, not the
    chunker, so no verdict can be given (a usage error, one line)."""

    def __init__(self, rule: str, exc: BaseException) -> None:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        super().__init__(
            f"invariant {rule!r} raised {type(exc).__name__}: {exc}{where}; a rule that raises "
            "gives no verdict on the chunker: fix the rule (or leave it out with --skip)"
        )

Check = Callable[[Case], Iterable[Violation]]


@dataclass(frozen=True)
class Invariant:
    """A registered rule: its id, its check, and when it applies."""

    id: str
    check: Check
    rule: str
    kinds: frozenset[str]
    opt_in: bool = False
    needs: frozenset[str] = frozenset()
    fields: frozenset[str] = frozenset()
    engine: bool = False
    #: An empty output is judged (exercises the rule) even though it reports none of ``fields``.
    judges_empty: bool = False

    def exercised_by(self, chunks: Iterable[object]) -> bool:
        """Whether some chunk reports one of the fields this rule needs (always, if none)."""
        chunks = list(chunks)
        if not chunks and self.judges_empty:
            return True
        return not self.fields or any(
            getattr(c, name, None) is not None for c in chunks for name in self.fields
        )

    def applies_to(self, kind: str, promises: Iterable[str]) -> bool:
        """Whether this rule is checked for a plugin of ``kind`` with these ``promises``."""
        return kind in self.kinds and (not self.opt_in or self.id in set(promises))


_REGISTRY: dict[str, Invariant] = {}


def invariant(
    id: str,
    *,
    kinds: Iterable[str] = ("text",),
    opt_in: bool = False,
    needs: Iterable[str] = (),
    fields: Iterable[str] = (),
    engine: bool = False,
    judges_empty: bool = False,
) -> Callable[[Check], Check]:
    """Register ``check`` under ``id``; a second registration of the same id is an error.

    ``needs`` names extra observations the runner must make (``"rerun"``, ``"lf_twin"``);
    ``fields`` names chunk fields the rule reads: a plugin that never reports any of them
    leaves the rule ``skipped``, unless ``judges_empty`` and the output is empty (an empty
    output reports no field, yet can break the rule). ``engine`` marks rules the runner itself
    decides (hangs, crashes, configs, scaling).
    """

    def register(check: Check) -> Check:
        if id in _REGISTRY:
            raise ValueError(f"invariant {id!r} is already registered by {_REGISTRY[id].check!r}")
        doc = (check.__doc__ or "").strip()
        if not doc:
            raise ValueError(f"invariant {id!r} needs a docstring whose first line is the rule")
        _REGISTRY[id] = Invariant(
            id=id,
            check=check,
            rule=doc.splitlines()[0].replace("``", ""),  # plain text: reports print it
            kinds=frozenset(kinds),
            opt_in=opt_in,
            needs=frozenset(needs),
            fields=frozenset(fields),
            engine=engine,
            judges_empty=judges_empty,
        )
        return check

    return register
