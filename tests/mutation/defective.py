"""A defective chunker for the mutation tests: it breaks one invariant, in one place.

``nox -s mutation -- tests/mutation/defective.py:drops_tail`` shows what a mutation run makes of
a chunker with a known defect: the invariant it already violates (``no_lost_text``) cannot kill
a mutant, so the survivors gather around the defect (the loop bound).
"""


def drops_tail(document, *, max_size, overlap):
    """Fixed character windows that never emit the last, partial window: the tail is lost."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"bad config max_size={max_size}, overlap={overlap}")
    step = max_size - overlap
    chunks = []
    for start in range(0, len(document) - max_size + 1, step):  # the defect: no partial tail
        piece = document[start:start + max_size]
        if piece.strip():
            chunks.append({"text": piece, "start": start, "end": start + max_size})
    return chunks
