"""The adapter catalogue, derived from the adapter classes: no library needed (fast).

A new adapter is one class (its record) and one pyproject.toml entry point; these tests say
which of the two is missing, and that the catalogue imports no library.
"""

from __future__ import annotations

import sys
import tomllib
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest

from chunk_contract.integrations import adapters
from chunk_contract.integrations.adapters import ADAPTERS, BY_NAME, AdapterInfo, records_of
from chunk_contract.integrations.adapters._base import Adapter

ROOT = Path(__file__).resolve().parents[2]
#: The libraries behind the Python adapters: none may be imported by the catalogue.
HEAVY = (
    "langchain_text_splitters",
    "llama_index.core",
    "chonkie",
    "semchunk",
    "semantic_text_splitter",
    "haystack",
    "unstructured",
)
RECORD_FIELDS = (
    "name",
    "distribution",
    "module",
    "version",
    "splitter",
    "unit",
    "kind",
    "newlines",
    "promises",
    "offsets",
    "choices",
    "documents",
)


def entry_points() -> dict[str, str]:
    """pyproject.toml's ``chunk_contract.plugins`` entry points of the built-in adapters."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    points = meta["project"]["entry-points"]["chunk_contract.plugins"]
    prefix = "chunk_contract.integrations.adapters."
    return {k: v for k, v in points.items() if v.startswith(prefix)}


def mismatches(points: dict[str, str], catalogue: dict[str, str]) -> list[str]:
    """What differs between the entry points and the catalogue, one line each."""
    out = [
        f'{n}: a class defines it but pyproject.toml has no entry point {n} = "{t}"'
        for n, t in catalogue.items()
        if n not in points
    ]
    out += [
        f'{n}: pyproject.toml registers it but no adapter class has name = "{n}"'
        for n in points
        if n not in catalogue
    ]
    out += [
        f"{n}: pyproject.toml points to {points[n]}, the class is {t}"
        for n, t in catalogue.items()
        if n in points and points[n] != t
    ]
    return out


def test_pyproject_entry_points_and_the_catalogue_agree_exactly() -> None:
    assert mismatches(entry_points(), {a.name: a.target for a in ADAPTERS}) == []


def test_a_missing_entry_point_or_class_is_named() -> None:
    points = {"a": "m:A", "b": "m:B", "c": "m:C"}
    found = mismatches(points, {"a": "m:A", "c": "m:Other", "d": "m:D"})
    assert len(found) == 3
    assert found[0].startswith("d: a class defines it but pyproject.toml has no entry point")
    assert found[1].startswith("b: pyproject.toml registers it but no adapter class")
    assert found[2] == "c: pyproject.toml points to m:C, the class is m:Other"


@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_every_record_is_complete(info: AdapterInfo) -> None:
    for field in RECORD_FIELDS:
        value = getattr(info, field)
        assert value or field == "promises", f"{info.name}: {field} is empty"
    assert info.unit in ("chars", "tokens", "bytes")
    assert info.version[0].isdigit(), info.version
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in info.choices.items())


#: Run in a fresh interpreter: records every import of a library that is attempted, so the
#: test means the same whether the libraries are installed or not.
SPY = """
import sys
HEAVY = {heavy!r}
tried = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if any(name == h or name.startswith(h + ".") or h.startswith(name + ".") for h in HEAVY):
            tried.append(name)
        return None
sys.meta_path.insert(0, Spy())
import chunk_contract.integrations.adapters
modules = [m.__name__ for m in chunk_contract.integrations.adapters.adapter_modules()]
assert len(chunk_contract.integrations.adapters.ADAPTERS) > 0
print(sorted(set(tried)), len(modules))
"""


def test_importing_the_catalogue_and_every_adapter_module_imports_no_library() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", SPY.format(heavy=HEAVY)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    tried, count = done.stdout.rsplit(" ", 1)
    assert tried == "[]" and int(count) >= 6


def test_records_are_collected_once_with_their_class_target() -> None:
    module = types.ModuleType("chunk_contract.integrations.adapters.fake")

    class Base(Adapter):
        name: ClassVar[str] = ""

    class One(Base):
        name = "fake-one"
        distribution, module, version, splitter = "fake", "fake", "1.0", "One"

    for cls in (Base, One):
        cls.__module__ = module.__name__
    module.Base, module.One, module.one = Base, One, One  # an alias is not a second adapter
    module.Imported = BY_NAME["semchunk"].source  # an import from elsewhere is not collected
    found = list(records_of(module))
    expected = [("fake-one", "chunk_contract.integrations.adapters.fake:One")]
    assert [(a.name, a.target) for a in found] == expected


def test_an_adapter_name_defined_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    twin = BY_NAME["semchunk"]
    other = "chunk_contract.integrations.adapters.other:Semchunk"
    copy = AdapterInfo(**{**twin.__dict__, "target": other})

    def modules() -> Any:
        yield types.ModuleType("one")
        yield types.ModuleType("two")

    monkeypatch.setattr(adapters, "adapter_modules", modules)
    monkeypatch.setattr(adapters, "records_of", lambda module: iter([copy]))
    with pytest.raises(RuntimeError, match="'semchunk' is defined twice"):
        adapters.collect()


def test_a_missing_library_is_a_one_line_import_error_at_instantiation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import chunk_contract.integrations.adapters._base as base

    monkeypatch.setattr(base, "library_installed", lambda name: False)
    cls = BY_NAME["semchunk"].source
    with pytest.raises(ImportError) as caught:
        cls()
    message = str(caught.value)
    assert "semchunk" in message and adapters.EXTRA in message and "\n" not in message


def test_list_adapters_shows_each_record(capsys: pytest.CaptureFixture[str]) -> None:
    from chunk_contract.cli.main import main

    assert main(["list", "--adapters"]) == 0
    out = capsys.readouterr().out
    for info in ADAPTERS:
        line = next(line for line in out.splitlines() if line.startswith(info.name + " "))
        assert info.distribution in line
        assert ("not installed" in line) != info.installed
