"""An ``exec:`` chunker that declares ``max_size_range`` [12, null] in its handshake and refuses
smaller caps with a ``config`` error; with ``$RANGED_CHILD_LAX=1`` it chunks them anyway (the
declared range is not enforced: ``config_validation``)."""

from __future__ import annotations

import json
import os
import sys


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def windows(document: str, size: int) -> list[dict[str, object]]:
    return [{"text": document[i:i + size], "start": i, "end": min(i + size, len(document))}
            for i in range(0, len(document), size) if document[i:i + size].strip()]


def answer(call: dict[str, object]) -> dict[str, object]:
    document, size, overlap = call["document"], call["max_size"], call["overlap"]
    assert isinstance(document, str) and isinstance(size, int) and isinstance(overlap, int)
    lax = os.environ.get("RANGED_CHILD_LAX") == "1"
    if size < 1 or not 0 <= overlap < size or (size < 12 and not lax):
        return {"id": call["id"], "error": {"type": "config", "message": "needs max_size >= 12"}}
    return {"id": call["id"], "chunks": windows(document, size)}


def main() -> None:
    send({"chunk_contract": 1, "unit": "chars", "max_size_range": [12, None]})
    for line in sys.stdin:
        send(answer(json.loads(line)))


if __name__ == "__main__":
    main()
