"""The layered layout: the package's import graph, function-level imports included, has no
cycle, and every import runs down the layer order of ARCHITECTURE.md, never back up.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import chunk_contract

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chunk_contract"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (JavaScript dependencies left out)."""
    files = (p for p in PACKAGE.rglob("*.py") if "node_modules" not in p.parts)
    return {_module_name(p): p for p in sorted(files)}


#: Modules that must load without Hypothesis (reporters, result types, the pytest plugin).
LIGHT = [
    "chunk_contract.reporting",
    *(f"chunk_contract.reporting.{p.stem}"
      for p in sorted((PACKAGE / "reporting").glob("[!_]*.py"))),
    "chunk_contract.engine.results",
    "chunk_contract.engine.events",
    "chunk_contract.config.settings",
    "chunk_contract.pytest.plugin",
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
        "import sys, chunk_contract.engine.runner\n"
        "assert not any(m.startswith('hypothesis') for m in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode != 0


def test_importing_the_package_reads_no_distribution_metadata() -> None:
    """``importlib.metadata`` (tens of milliseconds at every start) is imported only where an
    entry point or a version is looked up: importing the package, the target loader or the
    fresh interpreter's module (every process of a run imports them) does not."""
    code = (
        "import sys, chunk_contract\n"
        "from chunk_contract.transport.targets import load_here\n"
        "from chunk_contract.engine import crossrun\n"
        "assert 'importlib.metadata' not in sys.modules\n"
        "assert chunk_contract.__version__\n"
        "assert 'importlib.metadata' in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


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


#: The layers, lowest first (ARCHITECTURE.md): a module may import its own layer and the layers
#: below it, never one above. Keys are dotted prefixes; the longest that matches decides.
LAYERS: dict[str, int] = {
    "chunk_contract.errors": 0, "chunk_contract.exactjson": 0, "chunk_contract._platform": 0,
    "chunk_contract._version": 0, "chunk_contract.tokenizers": 0, "chunk_contract._files": 0,
    "chunk_contract._extensions": 0,
    "chunk_contract.spec": 1,
    "chunk_contract.generation": 2,
    "chunk_contract.diagnosis": 3,
    "chunk_contract.containment": 4,
    "chunk_contract.store": 5,
    "chunk_contract.transport": 6,
    "chunk_contract.engine": 7,
    "chunk_contract.reporting": 8,
    "chunk_contract.config": 9,
    "chunk_contract.integrations": 10,
    "chunk_contract.cli": 11, "chunk_contract.pytest": 11, "chunk_contract": 11,
    "chunk_contract.__main__": 11,
    "chunk_contract.strategies": 11,
}


def layer_of(module: str, layers: dict[str, int] = LAYERS) -> int:
    """The rank of ``module``: that of the longest prefix of LAYERS it lies under."""
    matches = [p for p in layers if module == p or module.startswith(p + ".")]
    return layers[max(matches, key=len)]


def upward_arrows(graph: dict[str, set[str]], layers: dict[str, int] = LAYERS) -> list[str]:
    """Each import that runs from a layer to a higher one, as ``a -> b``."""
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if layer_of(b, layers) > layer_of(a, layers))


def test_every_import_runs_down_the_layers() -> None:
    arrows = upward_arrows(import_graph(package_modules()))
    assert not arrows, "imports that run back up a layer:\n" + "\n".join(arrows)


def test_every_package_has_a_layer() -> None:
    """A new top-level package or module must be given its place in LAYERS."""
    tops = {".".join(name.split(".")[:2]) for name in package_modules()}
    assert sorted(t for t in tops if t not in LAYERS) == []


def test_the_layer_check_catches_an_arrow_back_up_in_a_function(tmp_path: Path) -> None:
    low, high = tmp_path / "low.py", tmp_path / "high.py"
    high.write_text("import pkg.low\n")
    low.write_text("def f():\n    from pkg import high  # lazy: a test\n")
    graph = import_graph({"pkg.low": low, "pkg.high": high})
    layers = {"pkg": 0, "pkg.low": 0, "pkg.high": 1}
    assert upward_arrows(graph, layers) == ["pkg.low -> pkg.high"]


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
        "from chunk_contract.spec import rules\n"
        "import chunk_contract.spec.invariants, chunk_contract.diagnosis\n"
        "import chunk_contract.diagnosis.base as p\n"
        "assert not rules._REGISTRY and not p._PATTERNS, 'importing registered rules'\n"
        "from chunk_contract.spec.registry import registry\n"
        "from chunk_contract.diagnosis import patterns\n"
        "assert 'cap_respected' in registry() and 'overlap_on_top' in patterns()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_contract_exports_what_its_docstring_offers() -> None:
    for name in ("run", "check", "RunSettings", "invariant"):
        assert name in chunk_contract.__all__ and getattr(chunk_contract, name) is not None
