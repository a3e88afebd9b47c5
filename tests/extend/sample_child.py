"""A SPEC §8 child for the sample target kind: ``python sample_child.py good|echo``.

``good`` answers fixed windows with offsets; ``echo`` adds one chunk, the document and a mark,
that is in no document.
"""

import json
import sys


def main() -> None:
    mode = sys.argv[1]
    sys.stdout.write(json.dumps({"chunk_contract": 1, "unit": "chars"}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        call = json.loads(line)
        size, document = call["max_size"], call["document"]
        if size < 1 or not 0 <= call["overlap"] < size:
            reply = {"id": call["id"], "error": {"type": "config", "message": "bad config"}}
        else:
            chunks = [document[i : i + size] for i in range(0, len(document), size)]
            reply = {"id": call["id"], "chunks": chunks + ([document + "!"] if mode == "echo"
                                                            else [])}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
