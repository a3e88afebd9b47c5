"""Make ``.venv`` beside this checkout, with nox in it, on any POSIX machine with Python 3.11+.

    python3 scripts/bootstrap.py
    .venv/bin/nox -s contract

A virtual environment keeps the system Python untouched, so this works where that Python is
externally managed (PEP 668: Debian, Ubuntu) and needs no root. Where the system's ``venv`` comes
without pip (Debian's python3 without the python3-venv package), pip is installed into the
environment from the package index, as a wheel that pip runs from directly. Only the standard
library is used. Running it again reuses the environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import urllib.request
import venv
from pathlib import Path
from urllib.parse import urljoin

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
#: What the environment needs: nox runs every job; uv makes nox's own environments fast.
TOOLS = ["nox", "uv"]
PIP_JSON = "https://pypi.org/pypi/pip/json"


def has_ensurepip() -> bool:
    """Whether this Python can put pip into a new environment by itself."""
    try:
        import ensurepip  # noqa: F401
    except ImportError:
        return False
    return True


def has_pip() -> bool:
    """Whether the environment's Python can run pip."""
    done = subprocess.run([PYTHON, "-m", "pip", "--version"], capture_output=True)
    return done.returncode == 0


def pip_wheel(folder: Path) -> Path:
    """The newest pip wheel, downloaded from the package index into ``folder``."""
    with urllib.request.urlopen(PIP_JSON, timeout=60) as reply:
        files, base = json.load(reply)["urls"], reply.geturl()
    url = urljoin(base, next(f["url"] for f in files if f["filename"].endswith(".whl")))
    wheel = folder / url.rsplit("/", 1)[1]
    with urllib.request.urlopen(url, timeout=120) as reply:
        wheel.write_bytes(reply.read())
    return wheel


def install_pip() -> None:
    """pip, installed into the environment by the pip wheel itself (no ensurepip needed)."""
    with tempfile.TemporaryDirectory() as folder:
        wheel = pip_wheel(Path(folder))
        subprocess.run([PYTHON, f"{wheel}/pip", "install", "--quiet", str(wheel)], check=True)


def main() -> int:
    """Create or reuse ``.venv``, give it pip, then install the tools."""
    if sys.version_info < (3, 11):  # noqa: UP036 (said plainly to an older python3)
        found = sys.version.split()[0]
        sys.stderr.write(f"chunk-contract needs Python 3.11 or later, not {found}\n")
        return 2
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=has_ensurepip(), symlinks=True).create(VENV)
    if not has_pip():
        install_pip()
    subprocess.run([PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", *TOOLS], check=True)
    print(f"ready: {VENV.relative_to(Path.cwd()) if VENV.is_relative_to(Path.cwd()) else VENV}"
          "/bin/nox -s contract (the main job), -s tests (the test suite), -s docs (the site)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
