"""The built-in invariants of SPEC §5, one small function each, grouped by family.

Importing this package registers them; each module imports only the model layer
(:mod:`contract.spec.model`, :mod:`contract.spec.placement`) and the registry.
"""

from contract.spec.invariants import (  # noqa: F401
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
