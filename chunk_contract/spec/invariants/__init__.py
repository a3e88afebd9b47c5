"""The built-in invariants of SPEC §5, one small function each, grouped by family.

:func:`load_builtin` registers them: the registry's accessors call it (explicitly, once per
process), so importing this package alone registers nothing. Each module imports only the spec
layer (:mod:`chunk_contract.spec.model`, :mod:`chunk_contract.spec.placement`,
:mod:`chunk_contract.spec.a1`) and the ``@invariant`` decorator of :mod:`chunk_contract.spec.rules`.
"""

from __future__ import annotations

import functools

__all__ = ["load_builtin"]


@functools.cache
def load_builtin() -> None:
    """Register every built-in invariant (idempotent: later calls do nothing)."""
    # The explicit loading of the built-in rules, schemathesis-style: importing a family
    # registers its rules with chunk_contract.spec.rules.
    # lazy: the explicit loading of the built-in rules
    from chunk_contract.spec.invariants import (  # noqa: F401
        content,
        execution,
        ids,
        lines,
        markdown,
        metamorphic,
        order,
        sheets,
        size,
        unicode,
    )
