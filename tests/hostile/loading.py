"""Plugins whose declarations or construction attack the process that loads them."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from tests.hostile.plugins import windows


def _forever() -> None:
    while True:
        time.sleep(0.01)


class InitHangs:
    def __init__(self) -> None:
        _forever()


class InitExits:
    def __init__(self) -> None:
        os._exit(0)


class GetattrHangs:
    """Every attribute it lacks (``kind``, ``unit``, ``promises``...) hangs."""

    def split(self, document: str, *, max_size: int, overlap: int) -> list[str]:
        return list(windows(document, max_size))

    def __getattr__(self, name: str) -> Any:
        _forever()


def _hanging_promises() -> Iterator[str]:
    _forever()
    yield "no_crash"


class PromisesHang:
    promises = _hanging_promises()

    def split(self, document: str, *, max_size: int, overlap: int) -> list[str]:
        return list(windows(document, max_size))


class HangingKind(str):
    def __eq__(self, other: object) -> bool:
        _forever()
        return False

    __hash__ = str.__hash__


class KindEqHangs:
    kind = HangingKind("text")

    def split(self, document: str, *, max_size: int, overlap: int) -> list[str]:
        return list(windows(document, max_size))


class Fine:
    """A correct plugin class, for the API path."""

    unit = "chars"

    def split(self, document: str, *, max_size: int, overlap: int) -> list[str]:
        return list(windows(document, max_size))
