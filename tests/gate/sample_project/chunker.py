"""A word-packing chunker with a deliberate bug: words longer than the cap are dropped.

It packs whole words into chunks of at most ``max_size`` characters and reports each chunk's
offsets. A word that does not fit in an empty chunk should be cut; this one silently skips it,
so its text is lost (chunk-contract reports ``no_lost_text``).
"""

import re

WORD = re.compile(r"\S+")


def split(document, *, max_size, overlap=0):
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"bad config max_size={max_size}, overlap={overlap}")
    chunks, start, end = [], None, None
    for word in WORD.finditer(document):
        if word.end() - word.start() > max_size:
            continue  # BUG: the word is lost instead of being cut into pieces
        if start is not None and word.end() - start > max_size:
            chunks.append({"text": document[start:end], "start": start, "end": end})
            start = None
        if start is None:
            start = word.start()
        end = word.end()
    if start is not None:
        chunks.append({"text": document[start:end], "start": start, "end": end})
    return chunks
