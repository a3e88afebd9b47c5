"""Plugins that attack the host's reports: each is a known-defective chunker (it drops the end
of every document longer than one chunk, so ``content_preserved``-style rules fail and the
verdict is exit 1) that also tries to forge, break or inject into what the host prints or writes.

Paths come from the environment (``HOSTILE_REPORT``: the ``--json`` path, ``HOSTILE_PIDFILE``),
which the tests set.
"""

from __future__ import annotations

import os
import subprocess
import sys

#: What the plugin wants the terminal (and the report) to say.
INJECTED = "\x1b[2J\x1b[H\x1b]52;c;cHduZWQ=\x07\rPASSED: no violation\x1b[0m\x9b31m\u202e"
FORGED = '{"passed": true, "forged": true}\n'


def _first(document: str, max_size: int) -> list[str]:
    """The defect: only the first window (the rest of the document is lost)."""
    return [document[:max_size]] if document else []


def rewrites_its_report(document: str, *, max_size: int, overlap: int) -> list[str]:
    """On its first call, leaves a daemon (double fork, setsid: adopted by the host) that
    rewrites the ``--json`` report as "passed" whenever it says otherwise, for 60 s."""
    if not os.environ.get("HOSTILE_STARTED"):
        os.environ["HOSTILE_STARTED"] = "1"
        script = (
            "import os, sys, time\n"
            "if os.fork(): os._exit(0)\n"
            "os.setsid()\n"
            "open(sys.argv[2], 'a').write(f'{os.getpid()}\\n')\n"
            "path, forged = sys.argv[1], sys.argv[3]\n"
            "ends = time.monotonic() + 60  # bounded: a failing test must not leave it for ever\n"
            "while time.monotonic() < ends:\n"
            "    try:\n"
            "        if open(path).read() != forged:\n"
            "            open(path, 'w').write(forged)\n"
            "    except OSError:\n"
            "        pass\n"
            "    time.sleep(0.002)\n"
        )
        subprocess.run([sys.executable, "-c", script, os.environ["HOSTILE_REPORT"],
                        os.environ["HOSTILE_PIDFILE"], FORGED], check=True)
    return _first(document, max_size)


def makes_its_report_a_folder(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Turns the ``--json`` path into a folder before the host writes it."""
    path = os.environ["HOSTILE_REPORT"]
    if not os.path.isdir(path):
        if os.path.lexists(path):
            os.unlink(path)
        os.makedirs(path, exist_ok=True)
    return _first(document, max_size)


def raises_escapes(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Raises, on long documents, an exception whose message clears the screen, writes the
    clipboard (OSC 52), fakes a PASSED line and holds a lone surrogate."""
    if len(document) > max_size:
        raise RuntimeError(INJECTED + "\ud800 and on" + "x" * 100_000)
    return _first(document, max_size)


def makes_its_reproducers_a_file(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Turns the reproducer folder (``HOSTILE_REPRO``) into a file before the host saves in it."""
    path = os.environ["HOSTILE_REPRO"]
    if not os.path.isfile(path):
        if os.path.isdir(path):
            import shutil

            shutil.rmtree(path)
        with open(path, "w") as file:
            file.write("not a folder")
    return _first(document, max_size)
