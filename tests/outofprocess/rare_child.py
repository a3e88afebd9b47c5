"""An ``exec:`` chunker (SPEC 1.1 §8) with a bug that a one-example run never meets.

``python rare_child.py`` answers ``split`` with fixed windows of codepoints (offsets included)
and crashes (``no_crash``) on any document holding a decimal digit, unless
``$RARE_CHILD_FIXED=1``. With ``$RARE_CHILD_EXACT=FILE`` it crashes instead on exactly one
document, the JSON string in FILE (so shrinking cannot change it: whatever is reported is
the document the child received). The front-door tests (test_exec_front_doors.py) run it as
an ``exec:`` target to prove that SARIF, the shared database and reproducers treat it like
any other.
"""

from __future__ import annotations

import json
import os
import sys


def send(message: object) -> None:
    """One JSON line on stdout."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def windows(document: str, max_size: int, overlap: int) -> list[dict[str, object]]:
    """Windows of ``max_size`` codepoints, ``overlap`` shared, blank ones left out."""
    step, out, start = max_size - overlap, [], 0
    while start < len(document):
        end = min(start + max_size, len(document))
        if not document[start:end].isspace():
            out.append({"text": document[start:end], "start": start, "end": end})
        if end == len(document):
            break
        start += step
    return out


def broken(document: str) -> bool:
    """Whether this document meets the bug (see the module's docstring)."""
    exact = os.environ.get("RARE_CHILD_EXACT")
    if exact is not None:
        with open(exact, encoding="utf-8") as source:
            return bool(document == json.load(source))
    return os.environ.get("RARE_CHILD_FIXED") != "1" and any(c.isdigit() for c in document)


def answer(call: dict[str, object]) -> dict[str, object]:
    """The reply to one ``split`` call."""
    document, size, overlap = call["document"], call["max_size"], call["overlap"]
    assert isinstance(document, str) and isinstance(size, int) and isinstance(overlap, int)
    if size < 1 or not 0 <= overlap < size:
        return {"id": call["id"], "error": {"type": "config", "message": "bad config"}}
    if broken(document):
        return {"id": call["id"], "error": {"type": "crash", "message": "digits unsupported"}}
    return {"id": call["id"], "chunks": windows(document, size, overlap)}


def main() -> None:
    """Handshake, then one reply per request line until stdin closes."""
    send({"chunk_contract": 1, "unit": "chars"})
    for line in sys.stdin:
        send(answer(json.loads(line)))


if __name__ == "__main__":
    main()
