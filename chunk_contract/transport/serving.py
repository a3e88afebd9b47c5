"""The worker's side of a call: split a document, count tokens or time a split for a plugin
resolved in the worker itself, and answer in the shapes the host checks (SPEC §8's replies).

Every transport serves through :func:`serve` (the forked worker, the in-process transport of
the fuzz harness), so a Session sees one kind of reply whatever runs the plugin.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

from chunk_contract.generation.families import FAMILIES
from chunk_contract.spec.model import ChunkTypeError, chunk_columns, normalise_chunks, plain_text
from chunk_contract.spec.workbook import build
from chunk_contract.transport.targets import Plugin

__all__ = ["REJECTIONS", "serve"]

#: Exceptions a plugin may raise to reject a degenerate config (SPEC §2).
REJECTIONS = (ValueError, TypeError)


def serve(plugin: Plugin) -> Callable[[Any], Any]:
    """The function the worker runs: split a document, or count tokens, for ``plugin`` (a
    plugin resolved in the worker itself, with its callables)."""
    split = plugin.split
    assert split is not None, "serve() needs a plugin resolved in this process (load_here)"

    def task(request: tuple[Any, ...]) -> Any:
        if request[0] == "count":
            return [_count(plugin, text) for text in request[1]]
        if request[0] == "cpu":
            return _cpu_seconds(plugin, *request[1:])
        if request[0] == "timed-family":  # built here: megabytes never cross the pipe
            _, family, size, max_size, overlap = request
            request = ("split", FAMILIES[family](size), max_size, overlap)  # the host times it
        _, document, max_size, overlap = request
        if plugin.kind == "workbook":
            document = build(document)
        try:
            return ("chunks", chunk_columns(split(document, max_size=max_size, overlap=overlap)))
        except MemoryError:
            raise
        except ChunkTypeError as exc:
            return ("wrong_type", plain_text(str(exc)))
        except Exception as exc:
            return ("raised", _exc_name(exc), plain_text(str(exc)), isinstance(exc, REJECTIONS),
                    _trace(exc))

    return task


def _cpu_seconds(plugin: Plugin, document: str, max_size: int, overlap: int) -> float | None:
    """CPU seconds one split takes in the worker (load on the machine does not count), or None
    if the plugin failed."""
    split = plugin.split
    assert split is not None
    started = time.process_time()
    try:
        normalise_chunks(split(document, max_size=max_size, overlap=overlap))
    except MemoryError:
        raise
    except Exception:
        return None
    return time.process_time() - started


def _count(plugin: Plugin, text: str) -> int:
    assert plugin.count_tokens is not None
    value = plugin.count_tokens(text)
    if isinstance(value, bool) or not issubclass(type(value), int):
        shown = plain_text(repr(value), 80)
        raise ChunkTypeError(f"count_tokens({text[:20]!r}) returned {shown}, expected an int")
    return int.__index__(value)


def _exc_name(exc: BaseException) -> str:
    return plain_text(type(exc).__name__, 200)


def _trace(exc: BaseException) -> str:
    return plain_text("".join(traceback.format_exception(exc)[-6:]), 20_000)
