"""A plugin module that starts a non-daemon thread at import: it would keep its host alive."""

import threading
import time

from tests.hostile.plugins import windows


def _forever() -> None:
    while True:
        time.sleep(0.05)


threading.Thread(target=_forever, daemon=False).start()


def split(document: str, *, max_size: int, overlap: int) -> list[str]:
    return list(windows(document, max_size))
