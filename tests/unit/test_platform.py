"""Without fork or resource (Windows), the command line says so in one line and exits 2."""

from __future__ import annotations

import importlib.util
import os

import pytest

from chunk_contract import _platform
from chunk_contract.cli.main import main


def test_this_platform_has_what_the_worker_needs() -> None:
    assert _platform.missing_features() == []
    _platform.require_posix()  # returns


@pytest.mark.parametrize("lack", ["fork", "resource"])
def test_a_platform_without_fork_or_resource_is_a_one_line_usage_error(
    lack: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if lack == "fork":
        monkeypatch.delattr(os, "fork")
    else:
        real = importlib.util.find_spec

        def find_spec(name: str, *rest: object) -> object:
            return None if name == "resource" else real(name, *rest)  # type: ignore[arg-type]

        monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(SystemExit) as stopped:
        main(["list"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("chunk-contract: error:") and "POSIX" in err
    assert ("os.fork" if lack == "fork" else "resource module") in err
