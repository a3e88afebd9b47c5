"""The docs stay true about the code: ARCHITECTURE.md's Layout names every module, and the
worked example
of "A new invariant" (docs/how-to/extend.md) runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def section(title: str, text: str = README) -> str:
    """The README section ``title``: up to the next heading of its level or above (headings
    inside fenced code blocks do not count)."""
    level = len(title.split(" ", 1)[0])
    lines = text.splitlines(keepends=True)
    start = lines.index(title + "\n")
    fenced = False
    for end in range(start + 1, len(lines)):
        fenced ^= lines[end].startswith("```")
        hashes = len(lines[end]) - len(lines[end].lstrip("#"))
        if not fenced and 0 < hashes <= level and lines[end][hashes : hashes + 1] == " ":
            return "".join(lines[start:end])
    return "".join(lines[start:])


def unnamed_modules(layout: str, package: Path) -> list[str]:
    """Module files of ``package`` the Layout does not name: by their path under chunk_contract/, or
    by their file name in the lines that follow their folder's first mention."""
    missing = []
    for path in sorted(package.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        rel = path.relative_to(package).as_posix()
        folder, _, name = rel.rpartition("/")
        if rel in layout or (not folder and f" {name}" in layout):
            continue
        at = layout.find(folder + "/") if folder else -1
        if at >= 0 and (name == "__init__.py" or name in layout[at : at + 700]):
            continue
        missing.append(rel)
    return missing


def test_the_layout_names_every_module() -> None:
    missing = unnamed_modules(section("## Layout", ARCHITECTURE), ROOT / "chunk_contract")
    assert not missing, f"ARCHITECTURE.md's Layout leaves out: {', '.join(missing)}"


def test_the_layout_check_catches_a_missing_module(tmp_path: Path) -> None:
    package = tmp_path / "contract"
    (package / "engine").mkdir(parents=True)
    for name in ("cli.py", "engine/__init__.py", "engine/runner.py", "engine/hidden.py"):
        (package / name).write_text("")
    layout = "chunk_contract/\n  cli.py  the CLI\n  engine/\n    engine/runner.py  the runner\n"
    assert unnamed_modules(layout, package) == ["engine/hidden.py"]


def _blocks(text: str) -> dict[str, str]:
    """The python code blocks of ``text`` by the file name on their first line (``# name.py``)."""
    found = re.findall(r"```python\n# (\S+\.py)[^\n]*\n(.*?)```", text, re.S)
    return {name: code for name, code in found}


def test_the_new_invariant_example_runs(tmp_path: Path) -> None:
    extend = (ROOT / "docs" / "how-to" / "extend.md").read_text(encoding="utf-8")
    blocks = _blocks(section("## A new invariant", extend))
    assert set(blocks) == {"my_rules.py", "test_my_rules.py"}
    for name, code in blocks.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
    code = (
        "import test_my_rules\n"
        "test_my_rules.test_no_tabs_rejects_a_tab_and_accepts_plain_text()\n"
        "from chunk_contract.spec.registry import registry\n"
        "assert 'no_tabs' in registry() and registry()['no_tabs'].rule == 'No chunk holds a tab "
        "character.'\n"
    )
    env_path = f"{tmp_path}:{ROOT}"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": env_path, "PATH": "/usr/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
