"""The layered layout (issue 16): old import paths are the new modules themselves, nothing in the
project uses them, and the package's import graph, function-level imports included, has no cycle.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import contract
from contract._legacy import MOVED, current, new_name

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "contract"
sys.path.insert(0, str(ROOT / "scripts"))
import relayout  # noqa: E402

#: Where the project's own code lives: none of it may import an old path.
PROJECT = [PACKAGE, ROOT / "tests", ROOT / "bench", ROOT / "fuzz", ROOT / "scripts"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (JavaScript dependencies left out)."""
    files = (p for p in PACKAGE.rglob("*.py") if "node_modules" not in p.parts)
    return {_module_name(p): p for p in sorted(files)}


def old_names() -> list[tuple[str, str]]:
    """(old, new) for every module that now lives under a moved one (``__main__`` excluded)."""
    pairs = []
    for name in package_modules():
        for old, new in MOVED.items():
            if (name == new or name.startswith(new + ".")) and not name.endswith("__main__"):
                pairs.append((old + name[len(new) :], name))
    return pairs


def _import_or_error(name: str) -> object:
    try:
        return importlib.import_module(name)
    except ImportError as exc:  # an adapter whose library is not installed
        return type(exc)


@pytest.mark.parametrize(("old", "new"), old_names())
def test_every_old_name_imports_the_very_same_module(old: str, new: str) -> None:
    real = _import_or_error(new)
    parent, _, child = new.rpartition(".")
    bound = getattr(sys.modules.get(parent), child, None)
    assert _import_or_error(old) is real
    assert getattr(sys.modules.get(parent), child, None) is bound  # no attribute rebound
    if not isinstance(real, type):
        assert sys.modules[old] is real
        assert real.__spec__ is not None and real.__spec__.name == new  # not relabelled


def test_the_table_covers_only_modules_that_exist_and_left_no_shim_file() -> None:
    modules = package_modules()
    for old, new in MOVED.items():
        assert new in modules, f"{old} -> {new}: no such module"
        stem = ROOT.joinpath(*old.split("."))
        assert not stem.with_suffix(".py").exists() and not stem.is_dir(), f"shim left: {stem}"


def test_new_name_maps_submodules_and_leaves_the_rest() -> None:
    assert new_name("contract.adapters.langchain") == "contract.integrations.adapters.langchain"
    assert new_name("contract.runner") == "contract.engine.runner"
    assert new_name("contract.engine.runner") is None
    assert new_name("contract.cli") is None
    assert new_name("contractual.runner") is None
    new = "contract.integrations.adapters.chonkie:Token"
    assert current("contract.adapters.chonkie:Token") == new
    assert current(new) == new


def test_old_entry_point_strings_and_module_targets_load(monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.engine.targets import load_here
    from contract.integrations import adapters
    from contract.integrations.adapters.langchainjs import Recursive

    old = next(k for k, v in MOVED.items() if v == "contract.integrations.adapters")
    point = importlib.metadata.EntryPoint("x", f"{old}.langchainjs:Recursive", "chunk_contract")
    assert point.load() is Recursive

    def split(text: str, max_size: int, overlap: int) -> list[str]:
        """A stand-in plugin, monkeypatched onto the new module, loaded by the old path."""
        return [text]

    monkeypatch.setattr(adapters, "probe_split", split, raising=False)
    assert load_here(f"{old}:probe_split").split is split


def test_pickles_made_under_old_paths_load() -> None:
    """A RunSettings pickled before the move names ``contract.runner``: it still loads."""
    from contract.engine.results import RunSettings

    old = next(k for k, v in MOVED.items() if v == "contract.engine.runner")
    data = pickle.dumps(RunSettings(max_examples=7), protocol=0)
    assert b"contract.engine.results" in data
    before = data.replace(b"contract.engine.results", old.encode())
    assert pickle.loads(before) == RunSettings(max_examples=7)


@pytest.mark.parametrize("moved", [False, True])
def test_python_dash_m_runs_old_and_new_paths(moved: bool) -> None:
    name = "contract.integrations.mutation"
    if moved:
        name = next(k for k, v in MOVED.items() if v == name)
    done = subprocess.run(
        [sys.executable, "-m", name, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


#: The table itself, and this test of it: they name old paths on purpose.
_TABLES = (PACKAGE / "_legacy.py", Path(__file__).resolve())


def _python_files() -> Iterator[Path]:
    for place in PROJECT:
        for path in sorted(place.rglob("*.py")):
            if "node_modules" not in path.parts and path not in _TABLES:
                yield path
    yield ROOT / "noxfile.py"


def _old_references(path: Path) -> Iterator[str]:
    """Each import (or dotted-name string) in ``path`` that names an old module path."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if new_name(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if new_name(node.module):
                yield node.module
            elif node.module == "contract":
                names = (f"contract.{a.name}" for a in node.names)
                yield from (name for name in names if new_name(name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            word = node.value.partition(":")[0]
            dotted = "." in word and all(part.isidentifier() for part in word.split("."))
            if dotted and new_name(word):
                yield word


def test_no_file_of_the_project_imports_an_old_path() -> None:
    found = [f"{p.relative_to(ROOT)}: {n}" for p in _python_files() for n in _old_references(p)]
    assert not found, "old import paths (rewrite with scripts/relayout.py):\n" + "\n".join(found)


def test_the_old_path_check_and_relayout_catch_each_form(tmp_path: Path) -> None:
    sample = tmp_path / "user.py"
    old = {v: k for k, v in MOVED.items()}
    sample.write_text(
        f"import {old['contract.engine.runner']}\n"
        f"from {old['contract.integrations.adapters']}.langchain import Character\n"
        f"from contract import cli, {old['contract.engine.targets'].rpartition('.')[2]}\n"
        f"TARGET = '{old['contract.integrations.adapters']}.chonkie:Token'\n"
    )
    assert len(list(_old_references(sample))) == 4
    assert relayout.main([str(sample)]) == 0
    text = sample.read_text()
    assert list(_old_references(sample)) == [], text
    assert "from contract.engine import targets as plugins" in text
    assert "'contract.integrations.adapters.chonkie:Token'" in text
    assert relayout.main(["--check", str(sample)]) == 0  # idempotent


def test_relayout_rewrites_paths_in_prose() -> None:
    text = "npm ci --prefix contract/adapters/js; see contract/runner.py and contract/cli.py"
    assert relayout.rewrite(text) == (
        "npm ci --prefix contract/integrations/adapters/js; see contract/engine/runner.py and "
        "contract/cli.py"
    )


#: Modules that must load without Hypothesis (reporters, result types, the pytest plugin).
LIGHT = [
    "contract.reporting",
    *(f"contract.reporting.{p.stem}" for p in sorted((PACKAGE / "reporting").glob("[!_]*.py"))),
    "contract.engine.results",
    "contract.engine.events",
    "contract.settings",
    "contract.pytest_plugin",
]


@pytest.mark.parametrize("module", LIGHT)
def test_module_loads_no_hypothesis(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('hypothesis'))\n"
        "assert not loaded, loaded[:5]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_hypothesis_check_catches_a_module_that_loads_it() -> None:
    code = (
        "import sys, contract.engine.runner\n"
        "assert not any(m.startswith('hypothesis') for m in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode != 0


# --- the import graph -------------------------------------------------------------------------


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import under ``node``, at any depth, except under ``if TYPE_CHECKING:``."""
    if isinstance(node, ast.If) and _is_type_checking(node):
        for child in node.orelse:
            yield from _import_nodes(child)
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _import_nodes(child)


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement of module ``name`` loads (relative ones resolved)."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
        return
    base = node.module or ""
    if node.level:
        package = name.split(".") if is_package else name.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    yield from (f"{base}.{a.name}" for a in node.names)
    yield base


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports (module and function level, not TYPE_CHECKING).

    ``from package import name`` counts as importing the submodule ``package.name`` when there
    is one, else ``package`` itself; a parent package's implicit import is not an edge.
    """
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in _import_nodes(tree):
            for target in _targets(node, name, path.name == "__init__.py"):
                if target in modules and target != name:
                    edges.add(target)
                    break
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ``[a, b, ..., a]``, or None if it is acyclic."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_cycles() -> None:
    cycle = find_cycle(import_graph(package_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def unexplained_lazy_imports(modules: dict[str, Path]) -> list[str]:
    """Function-level imports of package modules without a ``# lazy: reason`` comment (on the
    import's line or the line above)."""
    found = []
    for name, path in modules.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in (n for stmt in func.body for n in _import_nodes(stmt)):
                inside = [t for t in _targets(node, name, path.name == "__init__.py")
                          if t in modules and t != name]
                near = " ".join(lines[max(node.lineno - 2, 0) : node.lineno])
                if inside and "lazy:" not in near:
                    found.append(f"{path.name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_every_function_level_import_states_its_reason() -> None:
    found = unexplained_lazy_imports(package_modules())
    assert not found, "import at module level, or say why not (# lazy: ...):\n" + "\n".join(found)


def test_the_reason_check_catches_a_bare_lazy_import(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    b.write_text("")
    a.write_text(
        "def f():\n    from pkg import b\n\ndef g():\n    from pkg import b  # lazy: why\n"
    )
    assert unexplained_lazy_imports({"pkg.a": a, "pkg.b": b}) == ["a.py:2: from pkg import b"]


def test_the_cycle_check_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text("def f():\n    from pkg import b\n")
    b.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.c\nfrom .c import x\n"
    )
    c.write_text("import pkg.a\n")
    graph = import_graph({"pkg.a": a, "pkg.b": b, "pkg.c": c})
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    c.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n")
    assert find_cycle(import_graph({"pkg.a": a, "pkg.b": b, "pkg.c": c})) is None


def test_built_in_rules_load_explicitly_through_the_accessors() -> None:
    code = (
        "from contract.spec import rules\n"
        "import contract.spec.invariants, contract.diagnosis, contract.diagnosis.base as p\n"
        "assert not rules._REGISTRY and not p._PATTERNS, 'importing registered rules'\n"
        "from contract.spec.registry import registry\n"
        "from contract.diagnosis import patterns\n"
        "assert 'cap_respected' in registry() and 'overlap_on_top' in patterns()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_contract_exports_what_its_docstring_offers() -> None:
    for name in ("run", "check", "RunSettings", "invariant"):
        assert name in contract.__all__ and getattr(contract, name) is not None
