"""The project model: where a project starts, its Python files, who imports whom, and the
modes its programs set.

Graph scope is a property of the program, not of a file: a helper in `utils.py` is compiled
when a Cell in `model.py` calls it, and whether a plain `construct` is compiled at all is
decided by `set_context(mode=...)` in `train.py`.  This index answers the two questions
that needs, cheaply (the standard library's `ast`, no astroid tree, never importing the code):

- which project modules may import a file, directly or through others (so linting
  `utils.py` alone also runs the analyses of the modules whose graph code reaches it);
- which modes the project's programs set (`graph-mode = auto` decides per program).
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import stat
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from mslint.project import module_files
from mslint.directories import PROJECT_MARKERS

# Directories never worth descending into: VCS, virtual environments, builds, caches.
SKIPPED_DIRECTORIES = frozenset({
    ".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".mslint_cache",
    ".tox", ".nox", ".eggs", "build", "dist", "node_modules", "site-packages", ".venv", "venv", ".ipynb_checkpoints",
})
MAX_PROJECT_FILES = 20000  # a bound on the walk, so a project root above a huge tree cannot stall a run

GRAPH = "graph"
PYNATIVE = "pynative"
UNKNOWN_MODE = "unknown"  # a mode computed at run time (argparse, a config file)


def project_root(path: str) -> str:
    """The nearest directory at or above `path` holding pyproject.toml, setup.cfg, setup.py or
    .git; without one, the directory that holds the file's top-level package (or the file)."""
    path = os.path.abspath(path)
    start = path if os.path.isdir(path) else os.path.dirname(path)
    return _root_of_directory(start)


_ROOTS: Dict[str, str] = {}


def _root_of_directory(start: str) -> str:
    if start in _ROOTS:
        return _ROOTS[start]
    current = start
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            break
        parent = os.path.dirname(current)
        if parent == current:  # no marker anywhere above: the top of the package chain
            current = start
            while os.path.isfile(os.path.join(current, "__init__.py")) and os.path.dirname(current) != current:
                current = os.path.dirname(current)
            break
        current = parent
    _ROOTS[start] = current
    return current


def skipped_directory(directory: str, name: str) -> bool:
    """Whether a walk of the project leaves out this subdirectory (VCS, environments, builds)."""
    return (name in SKIPPED_DIRECTORIES or name.endswith(".egg-info")
            or os.path.isfile(os.path.join(directory, name, "pyvenv.cfg")))


class Project:
    """One project root: its files, read once, and the questions asked of them (memoised)."""

    def __init__(self, root: str):
        self.root = root
        self._files: Optional[List[str]] = None
        self._texts: Dict[str, Optional[bytes]] = {}
        self._imports: Dict[str, FrozenSet[str]] = {}
        self._modes: Optional[FrozenSet[str]] = None
        self._importers: Optional[Dict[str, Set[str]]] = None
        self._converting: Optional[Dict[str, FrozenSet[str]]] = None
        self._attribute_writes: Dict[str, bool] = {}

    # -- files -------------------------------------------------------------------------------
    def files(self) -> List[str]:
        """Every Python file of the project (absolute, sorted), up to MAX_PROJECT_FILES."""
        if self._files is None:
            found: List[str] = []
            for directory, subdirectories, names in os.walk(self.root):
                subdirectories[:] = sorted(d for d in subdirectories if not skipped_directory(directory, d))
                found.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
                if len(found) >= MAX_PROJECT_FILES:
                    break
            self._files = sorted(found[:MAX_PROJECT_FILES])
        return self._files

    def text(self, path: str) -> Optional[bytes]:
        """A file's bytes (None when it is not a readable regular file: a FIFO must not hang us)."""
        if path not in self._texts:
            try:
                descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
                with open(descriptor, "rb") as handle:
                    regular = stat.S_ISREG(os.fstat(descriptor).st_mode)
                    self._texts[path] = handle.read() if regular else None
            except OSError:
                self._texts[path] = None
        return self._texts[path]

    def use_text(self, path: str, data: bytes) -> None:
        """Read `path` as `data`, not from its file (an editor's unsaved buffer: mslint server)."""
        self._texts[os.path.abspath(path)] = data

    def writes_attribute(self, name: str) -> bool:
        """Whether some file of the project writes `X.name = ...` (also augmented) or
        `setattr(..., "name", ...)`: a module constant `name` may then change.  A running
        analysis records the question and its answer (the result cache asks it again)."""
        if name not in self._attribute_writes:
            pattern = re.compile(rb"[\w)\]][ \t]*\.[ \t]*" + re.escape(name.encode())
                                 + rb"[ \t]*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=)"
                                 rb"|setattr\s*\([^)]*[\"']" + re.escape(name.encode()) + rb"[\"']")
            self._attribute_writes[name] = any(pattern.search(self.text(file) or b"") for file in self.files())
        found = self._attribute_writes[name]
        if module_files.HOOKS.log is not None:
            module_files.HOOKS.log.searches[(self.root, name)] = found
        return found

    def contains(self, path: str) -> bool:
        path = os.path.abspath(path)
        return path == self.root or path.startswith(self.root.rstrip(os.sep) + os.sep)

    # -- imports -----------------------------------------------------------------------------
    def imports_of(self, path: str) -> FrozenSet[str]:
        """The project files a module imports (anywhere in it: functions too), resolved as the
        analysis resolves names; packages on the way count (importing a.b runs a/__init__)."""
        if path not in self._imports:
            self._imports[path] = frozenset(self._resolved_imports(path))
        return self._imports[path]

    def _resolved_imports(self, path: str) -> Set[str]:
        tree = _import_statements(self.text(path), path)
        if tree is None:
            return set()
        directory = os.path.dirname(path)
        found: Set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.update(self._module_files(alias.name, directory))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    found.update(_relative_files(directory, node.level, node.module, [a.name for a in node.names]))
                elif node.module:
                    found.update(self._module_files(node.module, directory))
                    for alias in node.names:
                        found.update(self._module_files(f"{node.module}.{alias.name}", directory))
        found.discard(path)
        return {f for f in found if self.contains(f)}

    @staticmethod
    def _module_files(dotted: str, directory: str) -> Set[str]:
        parts = dotted.split(".")
        found = set()
        for cut in range(1, len(parts) + 1):
            located = module_files.find_project_file(".".join(parts[:cut]), directory)
            if located is not None and os.path.isfile(located):  # (not a namespace package's directory)
                found.add(os.path.abspath(located))
        return found

    def importers(self, targets: Iterable[str], candidates: Iterable[str], direct: bool = False) -> List[str]:
        """The candidate files that import a target, directly or through other project files
        (sorted; with `direct`, only those that import one themselves).  A file's text must name a target's module before it is parsed: an import
        of `pkg/helpers.py` says `helpers`, and one of a package's `__init__` says the
        package's name or is relative."""
        wanted = {os.path.abspath(t) for t in targets}
        remaining = sorted(set(os.path.abspath(c) for c in candidates) - wanted)
        found: Set[str] = set()
        frontier = set(wanted)
        while frontier and remaining:
            pattern = _names_pattern(frontier)
            reached = set()
            for path in remaining:
                text = self.text(path)
                if text is None or not pattern.search(text):
                    continue
                if self.imports_of(path) & frontier:
                    reached.add(path)
            found |= reached
            remaining = [p for p in remaining if p not in reached]
            frontier = reached if not direct else set()
        return sorted(found)

    def all_importers(self, target: str) -> List[str]:
        """Every project file that imports `target`, directly or through others (sorted), from
        one import graph of the whole project, built once: for a process that asks about
        many files (the pylint plugin)."""
        if self._importers is None:
            reverse: Dict[str, Set[str]] = {}
            for path in self.files():
                for imported in self.imports_of(path):
                    reverse.setdefault(imported, set()).add(path)
            self._importers = reverse
        target = os.path.abspath(target)
        found: Set[str] = set()
        frontier = [target]
        while frontier:
            current = frontier.pop()
            for importer in self._importers.get(current, ()):
                if importer not in found and importer != target:
                    found.add(importer)
                    frontier.append(importer)
        return sorted(found)

    def converting_modules(self) -> Dict[str, FrozenSet[str]]:
        """The project files that define a `construct` and have a class that converts a tensor to
        a host value (`.asnumpy()`, `.numpy()`, `.tolist()`) in its own body, each with the names
        of the classes such classes build and store on self: where a parent cell may hand a NumPy
        array to a sub-cell (mslint.analysis.parent_cells).  Read with `ast`, so that only the few modules
        that may hold such a parent are ever built with astroid."""
        if self._converting is None:
            self._converting = {}
            for path in self.files():
                text = self.text(path) or b""
                if b"def construct" in text and converts_tensors(text):
                    names = _names_of_converting_classes(text, path)
                    if names:
                        self._converting[path] = names
        return self._converting

    # -- modes -------------------------------------------------------------------------------
    def modes(self) -> FrozenSet[str]:
        """Every mode the project's programs set with `set_context(mode=...)`: GRAPH, PYNATIVE or
        UNKNOWN_MODE.  PYNATIVE_MODE counts only in entry scripts (modules no other project
        module imports: `train.py`, `eval.py`): a library module's `if __name__ == "__main__":`
        demo says nothing about the programs that use the library.  (Any other mode can only
        make constructs count as compiled, so it is taken wherever it is set.)"""
        if self._modes is None:
            modes: Set[str] = set()
            files = self.files()
            for path in files:
                text = self.text(path)
                if not (text and b"set_context" in text and b"mindspore" in text):
                    continue
                found = _context_modes(_parse(text, path))
                if PYNATIVE in found and self.importers([path], files, direct=True):
                    found = found - {PYNATIVE}
                modes |= found
            self._modes = frozenset(modes)
        return self._modes

    def runs_only_pynative(self) -> bool:
        """Whether every mode the project sets is PYNATIVE_MODE (so a plain construct is never
        compiled).  A project that never sets a mode keeps the old answer (compiled): under
        MindSpore 1.x that is the default, and under 2.x such code is usually a library whose
        users choose."""
        return self.modes() == frozenset({PYNATIVE})


# What makes a host value out of a tensor (mslint.analysis.lattice tags its result "host").
_CONVERSIONS = re.compile(rb"\.(?:asnumpy|numpy|tolist)\s*\(")


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def converts_tensors(source: bytes) -> bool:
    """Whether source text calls `.asnumpy()`, `.numpy()` or `.tolist()`."""
    return _CONVERSIONS.search(source) is not None


def _names_pattern(paths: Iterable[str]) -> "re.Pattern":
    names = set()
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem == "__init__":
            names.add(os.path.basename(os.path.dirname(path)))
            names.add("from .")  # `from . import x`, `from .. import y` reach a package's __init__
        else:
            names.add(stem)
    return re.compile("|".join(re.escape(n) for n in sorted(names)).encode())


def _relative_files(directory: str, level: int, module: Optional[str], names: List[str]) -> Set[str]:
    """The files `from <dots><module> import <names>` may load, found by path from the importing file."""
    base = directory
    for _ in range(level - 1):
        base = os.path.dirname(base)
    parts = module.split(".") if module else []
    found = set()
    current = base
    for part in parts:
        current = os.path.join(current, part)
        found.update(_module_path(current))
    for name in names:
        found.update(_module_path(os.path.join(current, name)))
    found.update(_module_path(current) if not parts else ())
    return {os.path.abspath(f) for f in found}


def _module_path(stem: str) -> List[str]:
    if os.path.isfile(stem + ".py"):
        return [stem + ".py"]
    init = os.path.join(stem, "__init__.py")
    return [init] if os.path.isfile(init) else []


# An import statement at the start of a line (any indentation): `import a.b as c, d`,
# `from .x import (y,\n z)`, `from x import y, z`.  Parsing only these is several times faster
# than parsing the whole module, and the whole project is read this way.
_IMPORT_STATEMENT = re.compile(
    rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n;#]*)|import[ \t]+[^\n;#]+)", re.MULTILINE)


def _import_statements(text: Optional[bytes], path: str) -> Optional[ast.Module]:
    """A module made of the file's import statements only (each parsed on its own: one that
    is really inside a string, or cut by a backslash, is left out)."""
    if not text:
        return None
    body: List[ast.stmt] = []
    for match in _IMPORT_STATEMENT.finditer(text):
        statement = match.group(0).strip()
        try:
            body.extend(ast.parse(statement, filename=path).body)
        except (SyntaxError, ValueError):
            continue
    return ast.Module(body=body, type_ignores=[])


def _names_of_converting_classes(text: bytes, path: str) -> FrozenSet[str]:
    """The names of what the classes of a module whose own source converts a tensor build and
    store on self (`self.post = NumpyPost(...)`, `self.post = blocks.NumpyPost(...)`)."""
    tree = _parse(text, path)
    if tree is None:
        return frozenset()
    lines = text.split(b"\n")
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and converts_tensors(b"\n".join(lines[node.lineno - 1:node.end_lineno])):
            for assign in ast.walk(node):
                if isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Call) and any(
                        isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" for target in assign.targets):
                    func = assign.value.func
                    if isinstance(func, ast.Name):
                        names.add(func.id)
                    elif isinstance(func, ast.Attribute):
                        names.add(func.attr)
    return frozenset(names)


def identifiers(source: bytes) -> FrozenSet[str]:
    """The identifier-shaped words of source text."""
    return frozenset(name.decode() for name in _IDENTIFIER.findall(source))


def _parse(text: Optional[bytes], path: str) -> Optional[ast.Module]:
    if not text:
        return None
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # the file's own lint reports it


def _context_modes(tree: Optional[ast.Module]) -> Set[str]:
    modes: Set[str] = set()
    if tree is None:
        return modes
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name != "set_context":
            continue
        for keyword in node.keywords:
            if keyword.arg == "mode":
                modes |= _mode_values(keyword.value)
    return modes


def _mode_values(node: ast.expr) -> Set[str]:
    """The modes an expression may evaluate to: both arms of a conditional, a literal, a constant's name."""
    if isinstance(node, ast.IfExp):
        return _mode_values(node.body) | _mode_values(node.orelse)
    if isinstance(node, ast.Constant):
        return {{0: GRAPH, 1: PYNATIVE}.get(node.value, UNKNOWN_MODE)}
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    if name == "PYNATIVE_MODE":
        return {PYNATIVE}
    if name == "GRAPH_MODE":
        return {GRAPH}
    return {UNKNOWN_MODE}


_PROJECTS: Dict[str, Project] = {}


def project_for(path: str) -> Project:
    """The Project a file belongs to (one object per root for the life of the process run)."""
    root = project_root(path)
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def program_mode(path: str) -> Optional[str]:
    """PYNATIVE when the project of this file only ever sets PYNATIVE_MODE, else None."""
    return PYNATIVE if project_for(path).runs_only_pynative() else None


def analysis_identity(path: str, module_name: str) -> str:
    """What a cached analysis of a file must match besides its content: its module name, the
    program's mode (it decides which constructs are roots), and, for a module that may define a
    construct, which modules convert tensors and the names they mention (one of them may now
    name one of its cells and pass it host values: mslint.analysis.parent_cells; what the
    analysis read of the modules that did name them is recorded as it reads them)."""
    identity = module_name + ("|pynative" if program_mode(path) == PYNATIVE else "")
    model = project_for(path)
    if b"construct" in (model.text(os.path.abspath(path)) or b""):
        digest = hashlib.sha256()
        for converting, names in sorted(model.converting_modules().items()):
            digest.update(converting.encode() + b"\0" + " ".join(sorted(names)).encode() + b"\0")
        identity += "|converting:" + digest.hexdigest()[:16]
    return identity


def project_at(root: str) -> Project:
    """The Project whose root is `root` (the result cache asks it its recorded questions)."""
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def forget_projects() -> None:
    """A new run: the file system may have changed."""
    _PROJECTS.clear()
    _ROOTS.clear()


def projects_of(paths: Iterable[str]) -> Dict[str, Project]:
    """The projects of some files, by root."""
    found: Dict[str, Project] = {}
    for path in paths:
        project = project_for(path)
        found[project.root] = project
    return found
