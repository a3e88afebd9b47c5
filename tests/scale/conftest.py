"""A real Redis server on loopback for the shared-database tests (tests/scale).

The server is ``redis-server`` from the PATH, started on a free 127.0.0.1 port with no
persistence and stopped after the tests. Without the binary the Redis tests are skipped, unless
``$CHUNK_CONTRACT_REQUIRE_REDIS=1`` (set by .ci/run, which installs Redis): then they fail, so CI
never passes by skipping them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REQUIRE_ENV = "CHUNK_CONTRACT_REQUIRE_REDIS"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _missing(why: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{why}, and ${REQUIRE_ENV}=1 requires the Redis tests to run")
    pytest.skip(f"{why} (install redis-server to run the Redis database tests)")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``redis://127.0.0.1:PORT/0`` of a fresh server, for this test session only."""
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("no redis-server on the PATH")
    try:
        import redis
    except ImportError:
        _missing("the redis package is not installed")
    folder: Path = tmp_path_factory.mktemp("redis")
    port = _free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        for _ in range(100):  # at most about 10 s
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None:
                    pytest.fail(f"redis-server exited with {server.returncode}")
                time.sleep(0.1)
        else:
            pytest.fail("redis-server did not answer within 10 s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
