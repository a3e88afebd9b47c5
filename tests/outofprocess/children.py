"""Hand-made §8 children for the ExecChild tests: ``python children.py MODE``.

Each mode is one way a child can behave (well or badly); the tests start them as
``exec:PYTHON children.py MODE``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HELLO = {"chunk_contract": 1, "unit": "chars"}


def send(message: object) -> None:
    """Write one JSON line to stdout."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def fixed(document: str, size: int) -> list[dict[str, object]]:
    """Windows of ``size`` codepoints with offsets (a correct chunker)."""
    return [
        {"text": document[i : i + size], "start": i, "end": min(i + size, len(document))}
        for i in range(0, len(document), size)
    ]


def utf16(document: str, size: int) -> list[dict[str, object]]:
    """The same windows, offsets counted in UTF-16 units."""
    out, units = [], 0
    for chunk in fixed(document, size):
        text = str(chunk["text"])
        width = len(text.encode("utf-16-le")) // 2
        out.append({"text": text, "start": units, "end": units + width})
        units += width
    return out


def serve(mode: str) -> None:
    """Answer calls until stdin closes, misbehaving as ``mode`` says."""
    for line in sys.stdin:
        call = json.loads(line)
        if mode == "hang" or (mode == "grandchild"):
            if mode == "grandchild":
                subprocess.Popen(["sleep", "1000"])
            time.sleep(1000)
        if mode == "escape":  # a grandchild in a session of its own, then a hang
            runaway = subprocess.Popen(["sleep", "1000"], start_new_session=True)
            sys.stderr.write(f"runaway {runaway.pid}\n")
            sys.stderr.flush()
            time.sleep(1000)
        if mode == "slow":  # one second per call, then a correct answer
            time.sleep(1.0)
        if mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if mode == "exit":
            sys.stderr.write("fatal: giving up\n")
            sys.exit(3)
        if mode == "flood":
            for _ in range(2000):  # about 2 MB of stderr, far more than a pipe holds
                sys.stderr.write("x" * 1000 + "\n")
        if mode == "alloc":
            hoard = []
            while True:
                hoard.append(bytearray(8 * 1024 * 1024))
                time.sleep(0.001)
        if mode == "wrong_id":
            send({"id": call["id"] + 7, "chunks": []})
            continue
        if mode == "huge":
            sys.stdout.write('{"id": 1, "chunks": ["' + "a" * (40 * 1024 * 1024))
            sys.stdout.flush()
            time.sleep(1000)
        if mode == "burn":  # CPU work proportional to the document, in a grandchild
            n = len(call["document"])
            subprocess.run([sys.executable, "-c", f"sum(range({n} * 200000))"], check=True)
        if call["op"] == "count_tokens":
            send({"id": call["id"], "counts": [len(t.split()) for t in call["texts"]]})
            continue
        if call["max_size"] < 1 or not 0 <= call["overlap"] < call["max_size"]:
            send({"id": call["id"], "error": {"type": "config", "message": "bad config"}})
            continue
        make = utf16 if mode in ("utf16", "utf16-cut") else fixed
        chunks = make(call["document"], call["max_size"])
        if mode == "utf16-cut":  # claims the first chunk starts one unit later
            chunks[0]["start"] = int(str(chunks[0]["start"])) + 1
        if mode == "hash_ids":  # the same in every call of this process, not of the next one
            for k, chunk in enumerate(chunks):
                chunk["id"] = f"{hash(call['document']) & 0xFFFFFFFF:08x}-{k}"
        send({"id": call["id"], "chunks": chunks})


def main() -> None:
    """Send the handshake MODE calls for (or a broken one), then serve."""
    mode = sys.argv[1]
    handshakes = {
        "no-handshake": None,
        "bad-json": "{not json",
        "version-2": json.dumps({"chunk_contract": 2}),
        "bad-unit": json.dumps({"chunk_contract": 1, "unit": "words"}),
        "bad-promises": json.dumps({"chunk_contract": 1, "promises": "ordered"}),
        "no-version": json.dumps({"unit": "chars"}),
        "utf16": json.dumps({"chunk_contract": 1, "offsets": "utf16"}),
        "utf16-cut": json.dumps({"chunk_contract": 1, "offsets": "utf16"}),
        "tokens": json.dumps({"chunk_contract": 1, "unit": "tokens"}),
    }
    if mode == "no-handshake":
        sys.stderr.write("starting failed: missing model\n")
        sys.exit(1)
    if mode == "silent":
        time.sleep(1000)
    if mode == "deaf":  # hands shake, then never reads its stdin
        send(HELLO)
        time.sleep(1000)
    line = handshakes.get(mode, json.dumps(HELLO))
    sys.stdout.write(f"{line}\n")
    sys.stdout.flush()
    if mode == "pid":
        sys.stderr.write(f"pid {os.getpid()}\n")
    if mode == "runaway":  # a correct chunker that leaves a sleeper holding its stdout/stderr
        runaway = subprocess.Popen(["sleep", "1000"], start_new_session=True)
        with open(os.environ["RUNAWAY_PIDFILE"], "a", encoding="ascii") as pids:
            pids.write(f"{runaway.pid}\n")
    serve(mode)


if __name__ == "__main__":
    main()
