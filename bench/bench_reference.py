"""Time every reference chunker on a realistic 1 MB and 10 MB document.

    python bench/bench_reference.py [--sizes 1,10] [--repeat 3]

The document is built deterministically (a seeded PRNG) from a mix of markdown sections, prose
paragraphs with a little non-ASCII text, fenced code, lists and JSON, so every run times the same
input. Each chunker runs at ``max_size=1000, overlap=100`` in its own unit (``fixed``: bytes,
``header``: whitespace tokens, the others: characters). A linear chunker shows a 10MB/1MB time
ratio of about 10; a quadratic one about 100. CPU time is the steadier figure on a shared
machine (the chunkers are single-threaded), so the ratio is taken from it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chunk_contract_reference import fixed, grapheme, header, markdown, recursive

CHUNKERS: dict[str, Callable[..., list[Any]]] = {
    "fixed (bytes)": fixed.split,
    "recursive (chars)": recursive.split,
    "markdown (chars)": markdown.split,
    "header (tokens)": header.split,
    "header duplicate (tokens)": header.split_duplicate_headers,
    "grapheme (chars)": grapheme.split,
}

WORDS = (
    "the",
    "chunk",
    "document",
    "retrieval",
    "embedding",
    "vector",
    "index",
    "query",
    "model",
    "split",
    "overlap",
    "size",
    "cap",
    "pipeline",
    "token",
    "sentence",
    "paragraph",
    "section",
    "heading",
    "search",
    "answer",
    "context",
    "window",
    "budget",
    "offset",
    "line",
    "byte",
    "character",
    "cluster",
    "boundary",
    "header",
    "body",
    "table",
    "code",
    "block",
    "list",
    "item",
    "a",
    "of",
    "to",
    "in",
    "is",
    "and",
    "for",
    "with",
    "on",
    "by",
    "from",
    "as",
    "that",
    "this",
    "it",
    "be",
    "are",
    "was",
)
EXTRAS = ("café", "naïve", "Zürich", "—", "数据", "🚀", "e.g.", "3.14", "U.S.", "“quoted”")
CODE = (
    "def handler(event, context):",
    "    payload = json.loads(event['body'])",
    "    for item in payload.get('items', []):",
    "        if item['size'] > LIMIT:",
    "            raise ValueError(f'too big: {item}')",
    "    return {'statusCode': 200, 'body': json.dumps(payload)}",
    "# a comment with a # in it",
    "",
)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 24))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(EXTRAS))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice(".....?!")


def _block(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.12:
        return "#" * rng.randint(1, 3) + " " + " ".join(rng.choice(WORDS) for _ in range(3)).title()
    if kind < 0.62:
        return " ".join(_sentence(rng) for _ in range(rng.randint(2, 8)))
    if kind < 0.77:
        body = [rng.choice(CODE) for _ in range(rng.randint(3, 15))]
        return "```python\n" + "\n".join(body) + "\n```"
    if kind < 0.9:
        return "\n".join("- " + _sentence(rng) for _ in range(rng.randint(2, 6)))
    rows = [
        f'  {{"id": {i}, "name": "{rng.choice(WORDS)}", "size": {rng.randint(1, 999)}}}'
        for i in range(rng.randint(2, 8))
    ]
    return "[\n" + ",\n".join(rows) + "\n]"


def document(size: int, seed: int = 0) -> str:
    """A realistic mixed document of exactly ``size`` characters."""
    rng = random.Random(seed)
    blocks: list[str] = []
    total = 0
    while total < size:
        block = _block(rng)
        blocks.append(block)
        total += len(block) + 2
    return "\n\n".join(blocks)[:size]


def _time(split: Callable[..., list[Any]], text: str, repeat: int) -> tuple[float, float, int]:
    """Best wall-clock and CPU seconds over ``repeat`` runs, and the number of chunks."""
    wall, cpu, count = float("inf"), float("inf"), 0
    for _ in range(repeat):
        started, used = time.perf_counter(), time.process_time()
        count = len(split(text, max_size=1000, overlap=100))
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - used)
    return wall, cpu, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="document sizes in MB (default 1,10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is kept")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    docs = {mb: document(mb * 1_000_000) for mb in sizes}
    print(f"best of {args.repeat}; wall-clock and CPU seconds; max_size=1000, overlap=100")
    head = f"{'chunker':<27}" + "".join(
        f"{f'{mb}MB wall':>11}{f'{mb}MB cpu':>10}{'chunks':>8}" for mb in sizes
    )
    ratio = len(sizes) >= 2
    print(head + (f"{f'{sizes[-1]}/{sizes[0]} cpu':>12}" if ratio else ""))
    for name, split in CHUNKERS.items():
        cpus = []
        row = f"{name:<27}"
        for mb in sizes:
            wall, cpu, count = _time(split, docs[mb], args.repeat)
            cpus.append(cpu)
            row += f"{wall:>11.3f}{cpu:>10.3f}{count:>8}"
        if ratio:
            row += f"{cpus[-1] / cpus[0]:>12.1f}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
