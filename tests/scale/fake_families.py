"""A quadratic chunker that rewrites the scaling families at import, in its own process, so a
worker that builds a family's document itself builds 3,125 characters whatever size the host
asked for: its times stay flat (tests/scale)."""

from __future__ import annotations


def _shrink_families() -> None:
    try:
        from contract.generation import families
    except ImportError:  # not in a contract worker: nothing to fake
        return
    for name, build in list(families.FAMILIES.items()):
        families.FAMILIES[name] = lambda n, build=build: build(min(n, 3_125))


_shrink_families()


def split(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Right everywhere, quadratic without a line break."""
    return _split(document, max_size, overlap)


def _split(document: str, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Hard-cut windows; without a line break, a pass over the document up to each window."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")
    out: list[dict[str, int | str]] = []
    start = 0
    quadratic = "\n" not in document
    while start < len(document):
        end = min(start + max_size, len(document))
        if quadratic:
            for _ in range(start):
                pass
        out.append({"text": document[start:end], "start": start, "end": end})
        start = end if end >= len(document) else end - overlap
    return [c for c in out if str(c["text"]).strip()]
