"""The package's layers, checked from its imports (docs/architecture.md is the map).

Imports run one way: a module may import its own layer and the layers below it, never one
above.  Every import counts, also one inside a function (a lazy import is still a
dependency).  The two upward edges the design needs are listed in SANCTIONED with their
reason; any other one fails here, and so does an import cycle between modules.
"""
from __future__ import annotations

import ast
import os
from typing import Dict, List, Set

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# bottom to top; a module's layer is the sub-package it sits in (top-level modules are the core)
LAYERS = ("core", "project", "analysis", "checkers", "run", "reporters", "fix", "frontends", "entry")
SUB_PACKAGES = {"mslint.project": "project", "mslint.analysis": "analysis", "mslint.checkers": "checkers",
                "mslint.run": "run", "mslint.reporters": "reporters", "mslint.fix": "fix",
                "mslint.frontends": "frontends"}
ENTRY_MODULES = {"mslint.__main__": "entry"}

SANCTIONED = {
    # the registration: the rule registry imports the families on first use (design.md: "nothing in
    # mslint/ imports a checker except the registration")
    ("mslint.rules", "mslint.checkers"),
    # pylint loads the package named in --load-plugins and calls its register(); the front-end does the work
    ("mslint", "mslint.frontends.pylint_plugin"),
}


def package_modules() -> Dict[str, str]:
    """Dotted module name -> file, for mslint/ and checkers/ (installed as mslint.checkers)."""
    found = {}
    for directory, package in (("mslint", "mslint"), ("checkers", "mslint.checkers")):
        base = os.path.join(ROOT, directory)
        for folder, subfolders, files in os.walk(base):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            for name in files:
                if not name.endswith(".py"):
                    continue
                relative = os.path.relpath(os.path.join(folder, name), base)[:-3].replace(os.sep, ".")
                parts = [package] + [p for p in relative.split(".") if p != "__init__"]
                found[".".join(parts)] = os.path.join(folder, name)
    return found


def layer_of(module: str) -> str:
    if module in ENTRY_MODULES:
        return ENTRY_MODULES[module]
    for package, layer in SUB_PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return layer
    return "core"  # mslint itself, mslint.<module> and mslint.data


def imports_of(module: str, path: str, modules: Dict[str, str]) -> Set[str]:
    """The project modules a module's import statements name (at any depth; not those under
    `if TYPE_CHECKING:`, which never run)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    is_package = path.endswith("__init__.py")
    type_checking = {id(inner) for node in tree.body
                     if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test)
                     for inner in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_checking:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:  # `import mslint.run.cache` names the module itself
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def import_graph() -> Dict[str, Set[str]]:
    modules = package_modules()
    return {module: imports_of(module, path, modules) for module, path in modules.items()}


def test_the_layers_cover_the_package():
    modules = package_modules()
    assert "mslint.frontends.cli" in modules and "mslint.checkers.third_party" in modules
    layers = {layer_of(m) for m in modules}
    assert layers == set(LAYERS), f"a layer without modules, or an unknown one: {sorted(layers)}"


def test_no_module_imports_a_layer_above_its_own():
    upward = []
    for module, targets in sorted(import_graph().items()):
        for target in sorted(targets):
            if LAYERS.index(layer_of(target)) > LAYERS.index(layer_of(module)) and \
                    (module, target) not in SANCTIONED:
                upward.append(f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})")
    assert upward == []


def test_the_sanctioned_upward_imports_still_exist():
    """An exception nobody needs any more is removed from the list, not kept as a loophole."""
    graph = import_graph()
    assert all(target in graph[module] for module, target in SANCTIONED)


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _without_packages(graph: Dict[str, Set[str]]) -> Dict[str, Set[str]]:
    # `from mslint.checkers import third_party` imports the package first: an edge from a
    # family to its package __init__ (which lists the families) is Python's, not a design cycle
    return {module: {t for t in targets if not module.startswith(t + ".")} for module, targets in graph.items()}


def test_no_import_cycles_between_modules():
    graph = _without_packages(import_graph())
    for module, target in SANCTIONED:
        graph[module].discard(target)
    assert _cycles(graph) == []


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_cycles(graph, expected):
    assert _cycles(graph) == expected


def test_layer_of_places_modules_by_their_package():
    assert layer_of("mslint") == "core"
    assert layer_of("mslint.rules") == "core"
    assert layer_of("mslint.data") == "core"
    assert layer_of("mslint.project.index") == "project"
    assert layer_of("mslint.checkers.precision_to_float") == "checkers"
    assert layer_of("mslint.frontends.cli") == "frontends"
    assert layer_of("mslint.__main__") == "entry"
