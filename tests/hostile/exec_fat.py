"""A correct ``exec:`` chunker (SPEC §8) that, at its first call, starts three helpers of 48 MiB
each in sessions of their own (out of its group and session) and answers at once; their pids go
to HOSTILE_PIDFILE. Each helper is small under a 64 MiB cap; the tree is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

HELPER = "import time; hoard = b'\\x01' * (48 << 20); time.sleep(60)"


def main() -> None:
    print(json.dumps({"chunk_contract": 1, "unit": "chars"}), flush=True)
    started = False
    for line in sys.stdin:
        call = json.loads(line)
        if not started and not os.path.exists(os.environ["HOSTILE_PIDFILE"]):
            started = True
            with open(os.environ["HOSTILE_PIDFILE"], "a", encoding="ascii") as pids:
                for _ in range(3):
                    helper = subprocess.Popen([sys.executable, "-c", HELPER],
                                              start_new_session=True)
                    pids.write(f"{helper.pid}\n")
        if call["op"] != "split":
            print(json.dumps({"id": call["id"], "counts": []}), flush=True)
            continue
        if call["max_size"] < 1 or not 0 <= call["overlap"] < call["max_size"]:
            error = {"type": "config", "message": "bad config"}
            print(json.dumps({"id": call["id"], "error": error}), flush=True)
            continue
        document, size = call["document"], call["max_size"]
        chunks = [{"text": document[i : i + size], "start": i, "end": min(i + size, len(document))}
                  for i in range(0, len(document), size)]
        print(json.dumps({"id": call["id"], "chunks": chunks}), flush=True)


if __name__ == "__main__":
    main()
