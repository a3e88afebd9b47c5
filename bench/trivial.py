"""A trivial correct chunker: the cheapest plugin, so benchmarks measure the contract itself."""


def split(document, *, max_size, overlap):
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")
    step = max_size - overlap
    return [
        document[i : i + max_size]
        for i in range(0, len(document), step)
        if document[i : i + max_size].strip()
    ]
