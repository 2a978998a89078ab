"""What one file says about the programs of its project, read cheaply and kept between runs.

For every project file the program model (mslint.project.programs) needs its import
statements, whether it has an `if __name__ == "__main__":` block, whether its top level does
work beyond definitions, and the modes its `set_context(mode=...)` calls set.  Reading that
for an 8,000-file tree takes seconds, so the facts are stored in the cache directory, keyed
by each file's size and modification time: a warm run stats the files and reads none of them.
"""
from __future__ import annotations

import ast
import hashlib
import os
import pickle
import re
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from mslint import __version__, parsed
from mslint.atomic import write_atomically
from mslint.directories import cache_directory

GRAPH = "graph"
PYNATIVE = "pynative"
UNKNOWN_MODE = "unknown"  # a mode computed at run time that the analysis cannot read

# (level, module, names): `from ..a import b, c` is (2, "a", ("b", "c")); `import a.b` is (0, "a.b", ())
RawImport = Tuple[int, str, Tuple[str, ...]]


@dataclass(frozen=True)
class FileFacts:
    imports: Tuple[RawImport, ...]
    main_block: bool
    modes: FrozenSet[str]  # set_context modes outside the __main__ block
    main_modes: FrozenSet[str]  # set_context modes inside it
    # names of what the classes that convert tensors store on self, for a module that defines
    # a construct and converts a tensor (.asnumpy()) in a class: mslint.analysis.parent_cells
    converting_names: FrozenSet[str] = frozenset()
    top_level_work: Optional[bool] = None  # read only when asked (it needs a full parse)


_MAIN_BLOCK = re.compile(rb"^if\s+(?:__name__\s*==\s*['\"]__main__['\"]|['\"]__main__['\"]\s*==\s*__name__)",
                         re.MULTILINE)
# An import statement at the start of a line (any indentation).  Parsing only these is several
# times faster than parsing the whole module.
_IMPORT_STATEMENT = re.compile(
    rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n;#]*)|import[ \t]+[^\n;#]+)", re.MULTILINE)


def read_facts(text: Optional[bytes], path: str) -> FileFacts:
    """The facts of one file's text (an unreadable or unparsable file has none)."""
    if not text:
        return FileFacts((), False, frozenset(), frozenset(), frozenset(), False)
    modes: Set[str] = set()
    main_modes: Set[str] = set()
    tree = None
    if b"set_context" in text:
        tree = parse(text, path)
        if tree is not None:
            modes, main_modes = _context_modes(tree)
    converting: FrozenSet[str] = frozenset()
    if b"def construct" in text and converts_tensors(text):
        converting = _names_of_converting_classes(text, tree if tree is not None else parse(text, path))
    return FileFacts(tuple(_raw_imports(text, path)), _MAIN_BLOCK.search(text) is not None,
                     frozenset(modes), frozenset(main_modes), converting)


def parse(text: Optional[bytes], path: str) -> Optional[ast.Module]:
    """The file's tree (shared with the other readers of the same text: mslint.parsed)."""
    if not text:
        return None
    try:
        return parsed.tree(text)
    except (SyntaxError, ValueError, LookupError, MemoryError, RecursionError):
        return None  # the file's own lint reports it


def import_statements(text: Optional[bytes], path: str) -> List[ast.stmt]:
    """The file's import statements, each parsed on its own (one that is really inside a
    string, or cut by a backslash, is left out)."""
    found: List[ast.stmt] = []
    for match in _IMPORT_STATEMENT.finditer(text or b""):
        try:
            found.extend(ast.parse(match.group(0).strip(), filename=path).body)
        except (SyntaxError, ValueError):
            continue
    return found


def _raw_imports(text: bytes, path: str) -> List[RawImport]:
    found: List[RawImport] = []
    for node in import_statements(text, path):
        if isinstance(node, ast.Import):
            found.extend((0, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level or 0, node.module or "", tuple(alias.name for alias in node.names)))
    return found


# What makes a host value out of a tensor (mslint.analysis.lattice tags its result "host").
_CONVERSIONS = re.compile(rb"\.(?:asnumpy|numpy|tolist)\s*\(")


def converts_tensors(source: bytes) -> bool:
    """Whether source text calls `.asnumpy()`, `.numpy()` or `.tolist()`."""
    return _CONVERSIONS.search(source) is not None


def _names_of_converting_classes(text: bytes, tree: Optional[ast.Module]) -> FrozenSet[str]:
    """The names of what the classes of a module whose own source converts a tensor build and
    store on self (`self.post = NumpyPost(...)`, `self.post = blocks.NumpyPost(...)`)."""
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


# -- top-level work ------------------------------------------------------------------------
# Calls at the top of a library module that set things up rather than run a program.
_SETUP_CALLS = frozenset({"warnings", "logging", "logger", "log", "sys", "os", "np", "numpy", "random",
                          "setattr", "register", "print", "__all__"})


def does_top_level_work(tree: Optional[ast.Module]) -> bool:
    """Whether a module's top level does more than define things: calls such as
    `set_context(...)`, `main()`, a training loop.  Imports, classes, functions, assignments
    (constants, `net = Net()`), docstrings and setup calls (logging, warnings, sys.path) are
    definitions; a block (`if`, `try`) counts by what it holds."""
    if tree is None:
        return False
    return any(_is_work(statement) for statement in tree.body)


def _is_work(statement: ast.stmt) -> bool:
    if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, (ast.Call, ast.Await)):
        call = statement.value
        return not (isinstance(call, ast.Call) and _call_root_name(call.func) in _SETUP_CALLS)
    if isinstance(statement, ast.If):
        return any(_is_work(s) for s in statement.body + statement.orelse)
    if isinstance(statement, ast.Try):
        return any(_is_work(s) for s in statement.body + statement.orelse + statement.finalbody)
    return False


def _call_root_name(func: ast.expr) -> str:
    while isinstance(func, ast.Attribute):
        if func.attr.startswith("register") or func.attr in ("append", "insert", "extend", "setdefault",
                                                              "filterwarnings", "simplefilter", "setLevel"):
            return "register"
        func = func.value
    if isinstance(func, ast.Call):
        return _call_root_name(func.func)
    return func.id if isinstance(func, ast.Name) else ""


# -- modes ---------------------------------------------------------------------------------
def _context_modes(tree: ast.Module) -> Tuple[Set[str], Set[str]]:
    """(modes set outside the __main__ block, modes set inside it)."""
    reader = _ModeReader(tree)
    outside: Set[str] = set()
    inside: Set[str] = set()
    main_lines = [(s.lineno, s.end_lineno or s.lineno) for s in tree.body
                  if isinstance(s, ast.If) and _is_main_test(s.test)]
    for call in reader.set_context_calls:
        in_main = any(first <= call.lineno <= last for first, last in main_lines)
        for keyword in call.keywords:
            if keyword.arg == "mode":
                (inside if in_main else outside).update(reader.values(keyword.value))
    return outside, inside


def _called_name(func: ast.expr) -> Optional[str]:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


class _ModeReader:
    """The modes an expression may evaluate to: literals, MindSpore's constants, both arms of a
    conditional (one, when its test compares an argparse option whose default is known), a
    name assigned once, and argparse defaults (`args.mode` with `default="GRAPH"`)."""

    def __init__(self, tree: ast.Module):
        self.defaults: Dict[str, ast.expr] = {}
        self.assigned: Dict[str, List[ast.expr]] = {}
        self.set_context_calls: List[ast.Call] = []  # (collected in the same walk: one pass per file)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called_name(node.func) == "set_context":
                self.set_context_calls.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "add_argument":
                dest = _argparse_dest(node)
                default = next((k.value for k in node.keywords if k.arg == "default"), None)
                if dest and default is not None:
                    self.defaults[dest] = default
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)

    def values(self, node: ast.expr, depth: int = 0) -> Set[str]:
        if depth > 8:
            return {UNKNOWN_MODE}
        if isinstance(node, ast.IfExp):
            chosen = self._decided(node.test)
            if chosen is not None:
                return self.values(node.body if chosen else node.orelse, depth + 1)
            return self.values(node.body, depth + 1) | self.values(node.orelse, depth + 1)
        if isinstance(node, ast.Constant):
            return {_literal_mode(node.value)}
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
            key = self._literal(node.slice)
            chosen = [v for k, v in zip(node.value.keys, node.value.values)
                      if key is not None and isinstance(k, ast.Constant) and k.value == key]
            return set().union(*(self.values(v, depth + 1) for v in (chosen or node.value.values)))
        if isinstance(node, ast.Name) and len(self.assigned.get(node.id, ())) == 1:
            return self.values(self.assigned[node.id][0], depth + 1)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in self.defaults \
                and node.attr not in ("PYNATIVE_MODE", "GRAPH_MODE"):
            return self.values(self.defaults[node.attr], depth + 1)
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if name == "PYNATIVE_MODE":
            return {PYNATIVE}
        if name == "GRAPH_MODE":
            return {GRAPH}
        return {UNKNOWN_MODE}

    def _literal(self, node: ast.expr):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in self.defaults:
            default = self.defaults[node.attr]
            return default.value if isinstance(default, ast.Constant) else None
        return None

    def _decided(self, test: ast.expr) -> Optional[bool]:
        """The truth of `args.mode == "graph"` (or `!=`) from argparse's default, else None."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
            return None
        left, right = test.left, test.comparators[0]
        if not (isinstance(left, ast.Attribute) and left.attr in self.defaults):
            return None
        known, other = self._literal(left), self._literal(right)
        if known is None or other is None:
            return None
        return (known == other) == isinstance(test.ops[0], ast.Eq)


def _argparse_dest(call: ast.Call) -> Optional[str]:
    dest = next((k.value for k in call.keywords if k.arg == "dest"), None)
    if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
        return dest.value
    for argument in call.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and argument.value.startswith("--"):
            return argument.value[2:].replace("-", "_")
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and not first.value.startswith("-"):
        return first.value
    return None


def _literal_mode(value) -> str:
    if isinstance(value, bool):
        return UNKNOWN_MODE
    if value == 0:
        return GRAPH
    if value == 1:
        return PYNATIVE
    if isinstance(value, str):
        word = value.strip().upper()
        if word in ("GRAPH", "GRAPH_MODE", "0"):
            return GRAPH
        if word in ("PYNATIVE", "PYNATIVE_MODE", "1"):
            return PYNATIVE
    return UNKNOWN_MODE


# -- the store -------------------------------------------------------------------------------
class FactStore:
    """Facts by file, reused while a file's size and modification time are unchanged."""

    def __init__(self, root: str, enabled: bool):
        self.root = root
        self.enabled = enabled
        self._entries: Dict[str, Tuple[int, int, FileFacts]] = {}
        self._resolved: Dict[str, FrozenSet[str]] = {}  # valid for self._layout's project layout
        self._layout: Optional[str] = None
        self._unchanged: Set[str] = set()  # files whose stored facts were reused in this run
        self._bypassed: Set[str] = set()  # files read from other text than the file's (unsaved buffers)
        self._changed = False
        if enabled:
            self._load()

    def _location(self) -> str:
        digest = hashlib.sha256(self.root.encode()).hexdigest()[:16]
        return os.path.join(cache_directory(self.root), f"programs-{digest}.pickle")

    def _load(self) -> None:
        try:
            with open(self._location(), "rb") as handle:
                version, root, entries, layout, resolved = pickle.load(handle)
        except Exception:  # noqa: BLE001 - a missing, old or damaged store is rebuilt
            return
        if version == __version__ + _FORMAT and root == self.root and isinstance(entries, dict):
            self._entries = entries
            self._layout, self._resolved = layout, resolved

    def bypass(self, path: str) -> None:
        """Read `path`'s facts from its text every time, and keep none of them."""
        self._bypassed.add(path)
        self._unchanged.discard(path)

    def facts(self, path: str, read_text) -> FileFacts:
        """The facts of `path`; `read_text(path)` gives its bytes when they must be read."""
        if path in self._bypassed:
            return read_facts(read_text(path), path)
        signature = _signature(path)
        entry = self._entries.get(path)
        if entry is not None and signature is not None and entry[:2] == signature:
            self._unchanged.add(path)
            return entry[2]
        self._unchanged.discard(path)
        self._resolved.pop(path, None)  # (resolved from the text before: the next ask matches the new entry)
        facts = read_facts(read_text(path), path)
        if signature is not None:
            self._entries[path] = signature + (facts,)
            self._changed = True
        return facts

    def unread(self, paths: List[str]) -> List[str]:
        """The paths whose facts `facts` would read from their text (none stored for their
        size and modification time)."""
        found = []
        for path in paths:
            entry = self._entries.get(path)
            if path in self._bypassed or entry is None or entry[:2] != _signature(path):
                found.append(path)
        return found

    def install(self, path: str, signature: Optional[Tuple[int, int]], facts: FileFacts,
                layout: str, resolved: FrozenSet[str]) -> None:
        """Facts another process read from the file (its size and modification time taken
        first, as `facts` takes them), and the project files it imports under `layout`."""
        if signature is None or path in self._bypassed:
            return
        self._entries[path] = signature + (facts,)
        if layout != self._layout:
            self._layout, self._resolved = layout, {}
        self._resolved[path] = resolved
        self._changed = True

    def resolved_imports(self, path: str, layout: str, resolve) -> FrozenSet[str]:
        """The project files `path` imports: kept while its text and the project's layout (its
        files, where its markers are) are unchanged; else `resolve()`."""
        if layout != self._layout:
            self._layout, self._resolved = layout, {}
        if path in self._bypassed:
            return frozenset(resolve())
        if path in self._unchanged and path in self._resolved:
            return self._resolved[path]
        found = frozenset(resolve())
        self._resolved[path] = found
        self._changed = True
        return found

    def top_level_work(self, path: str, read_text) -> bool:
        if path in self._bypassed:
            return does_top_level_work(parse(read_text(path), path))
        facts = self.facts(path, read_text)
        if facts.top_level_work is None:
            text = read_text(path)
            works = does_top_level_work(parse(text, path))
            signature = _signature(path)
            if signature is not None:
                self._entries[path] = signature + (replace(facts, top_level_work=works),)
                self._changed = True
            return works
        return facts.top_level_work

    def save(self, keep: FrozenSet[str]) -> None:
        """Write the store (only the files still in the project)."""
        if not (self.enabled and self._changed):
            return
        entries = {path: entry for path, entry in self._entries.items() if path in keep}
        try:
            location = self._location()
            os.makedirs(os.path.dirname(location), exist_ok=True)
            resolved = {path: found for path, found in self._resolved.items() if path in keep}
            write_atomically(location, pickle.dumps((__version__ + _FORMAT, self.root, entries, self._layout,
                                                     resolved), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass  # a read-only cache directory: the next run reads the files again
        self._changed = False


_FORMAT = "|programs-2"


def _signature(path: str) -> Optional[Tuple[int, int]]:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns)
