"""Reusing a buffer's unchanged top-level statements when its next text is built.

In the editor every keystroke builds the buffer's astroid tree again: on a 3,000-line file
about a fifth of an edit's time (some 45 ms), nearly all of it spent on classes and functions
the keystroke did not touch.  Astroid builds a statement from its own syntax, and a top-level
`class` or `def` binds only its own name in the module.  So a top-level definition whose lines
are the same text at the same place as in the buffer's last tree is built as it was: its last
node is moved into the new module (the parsed tree carries a stand-in for it, which the
rebuilder turns back into that node) and the module binds its name, as the builder would have.

The same holds for the statements that bind module names without a body: an import (not a
star import, not `__future__`) and an assignment to names (`x = ...`, `a, b = ...`,
`x: int = ...`).  Reusing these too keeps every binding of an unchanged module name the same
node from one edit to the next, which the interpreter's kept runs rely on
(mslint.analysis.kept_runs).

Built as usual instead:
- a statement whose text changed (a statement whose lines only moved, because lines were
  inserted or removed above it, is reused with its line numbers moved in place);
- one whose text may bind other module names (a `global` statement, or a walrus in a
  decorator, a base, a default or an assigned value): the text is searched, so a string that
  spells them only costs the reuse.

Astroid memoizes `lookup` (and a metaclass search) per node: a reused node's memo may hold the
last module's bindings, so these memos are cleared after a build that reused anything.  mslint
keeps its own per-module facts on the module object (mslint.project.module_memo), which is new.
The last tree must not be used afterwards: its definitions now belong to the new one.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from mslint import reparse

if TYPE_CHECKING:  # (astroid is imported when a tree is built, not with the runner)
    from astroid import nodes

_GLOBAL_STATEMENT = re.compile(r"(?:^|;)[ \t]*global\b", re.MULTILINE)
_AST_REUSABLE = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom, ast.Assign,
                 ast.AnnAssign)
Key = Tuple[int, int, str]  # first line (of the first decorator), last line, the text of those lines


class MslintReused(ast.stmt):
    """Stands in the parsed tree for a definition whose last node is reused (the rebuilder
    visits it with `visit_mslintreused`, after its class name)."""

    _fields = ()

    def __init__(self, node: "nodes.NodeNG"):
        super().__init__()
        self.node = node


def _visit_mslintreused(rebuilder, stand_in: MslintReused, parent: "nodes.Module") -> "nodes.NodeNG":
    from astroid import nodes

    node = stand_in.node
    node.parent = parent
    if isinstance(node, nodes.Import):  # what visit_import ends with
        for name, asname in node.names:
            parent.set_local((asname or name).split(".")[0], node)
    elif isinstance(node, nodes.ImportFrom):  # its names are bound once the module is built
        rebuilder._import_from_nodes.append((node, ()))
    elif isinstance(node, (nodes.Assign, nodes.AnnAssign)):  # what visit_assignname does per target
        for target in node.targets if isinstance(node, nodes.Assign) else [node.target]:
            for bound in _assigned_names(target):
                parent.set_local(bound.name, bound)
    else:
        parent.set_local(node.name, node)  # what visit_classdef / visit_functiondef end with
    return node


def _assigned_names(target: "nodes.NodeNG") -> List["nodes.AssignName"]:
    """The names an assignment target binds, in the order astroid's builder binds them."""
    from astroid import nodes

    if isinstance(target, nodes.AssignName):
        return [target]
    return [bound for element in target.elts for bound in _assigned_names(element)]  # (names only: see _reusable)


def install(rebuilder_class) -> None:
    """Teach astroid's rebuilder the stand-in (a method only these stand-ins reach)."""
    if getattr(rebuilder_class, "visit_mslintreused", None) is not _visit_mslintreused:
        rebuilder_class.visit_mslintreused = _visit_mslintreused


def _key(lines: List[str], first: int, last: int) -> Optional[Key]:
    text = reparse.segment(lines, first, last)
    if ":=" in text or "global" in text and _GLOBAL_STATEMENT.search(text):  # (the search only when it may match)
        return None
    return first, last, text


class LastTree:
    """A buffer's last module and the text it was built from, to reuse its definitions."""

    def __init__(self, module: "nodes.Module", text: str):
        self.module = module
        self.text = text
        self.reused = 0  # definitions the last `mark` handed over

    def _definitions(self) -> Dict[Key, "nodes.NodeNG"]:
        lines = reparse.source_lines(self.text)
        found = {}
        for node in list.__iter__(self.module.body):  # (not an analysis's read: see module_files.RecordingBody)
            if _reusable(node) and node.end_lineno is not None:
                decorators = getattr(node, "decorators", None)
                first = decorators.nodes[0].lineno if decorators and decorators.nodes else node.lineno
                key = _key(lines, first, node.end_lineno)
                if key is not None:
                    found[key] = node
        return found

    def mark(self, tree: ast.Module, text: str, lines: Optional[List[str]] = None) -> ast.Module:
        """The new text's parsed tree, each unchanged definition replaced by its stand-in
        (`lines`: the text's source_lines, when the caller has them)."""
        self.reused = 0
        if text == self.text:
            return tree  # (built again for another reason: nothing to gain)
        last = self._definitions()
        if not last:
            return tree
        lines = reparse.source_lines(text) if lines is None else lines
        moved: Dict[str, List[Key]] = {}  # text -> the keys of the last statements of that text, in order
        for key in last:
            moved.setdefault(key[2], []).append(key)
        for index, statement in enumerate(tree.body):
            if not isinstance(statement, _AST_REUSABLE) or statement.end_lineno is None:
                continue
            first = reparse.first_line(statement)
            key = _key(lines, first, statement.end_lineno)
            if key is None:
                continue
            node, lines_moved = last.pop(key, None), 0
            if node is None:  # the same text elsewhere: lines were inserted or removed above it
                old = next((old for old in moved.get(key[2], ()) if old in last), None)
                if old is not None:
                    node, lines_moved = last.pop(old), first - old[0]
            if node is None or not _same_kind(node, statement):
                continue
            if lines_moved:
                _shift(node, lines_moved)
            tree.body[index] = MslintReused(node)
            self.reused += 1
        return tree


def _shift(statement: "nodes.NodeNG", lines: int) -> None:
    """Move a reused statement's nodes down by `lines` (up if negative), as a build of the
    new text would have placed them: line numbers, a definition's name position and its
    docstring, and the line numbers astroid caches on a node."""
    from astroid import nodes

    for node in statement.nodes_of_class(nodes.NodeNG):
        _shift_node(node, lines)
        doc = getattr(node, "doc_node", None)  # (not among a definition's children)
        if doc is not None:
            _shift_node(doc, lines)
        position = getattr(node, "position", None)
        if position is not None:
            node.position = position._replace(lineno=position.lineno + lines, end_lineno=position.end_lineno + lines)


def _shift_node(node: "nodes.NodeNG", lines: int) -> None:
    if node.lineno is not None:
        node.lineno += lines
    if node.end_lineno is not None:
        node.end_lineno += lines
    for cached in _CACHED_LINES:
        node.__dict__.pop(cached, None)


_CACHED_LINES = ("fromlineno", "tolineno", "blockstart_tolineno")  # astroid's cached properties of a node's lines


def _reusable(node: "nodes.NodeNG") -> bool:
    """A top-level statement whose reuse the stand-in knows how to bind (see above)."""
    from astroid import nodes

    if isinstance(node, (nodes.ClassDef, nodes.FunctionDef, nodes.Import)):
        return True
    if isinstance(node, nodes.ImportFrom):
        return node.modname != "__future__" and all(name != "*" for name, _ in node.names)
    if isinstance(node, nodes.Assign):
        return all(_names_only(target) for target in node.targets)
    if isinstance(node, nodes.AnnAssign):
        return _names_only(node.target)
    return False


def _names_only(target: "nodes.NodeNG") -> bool:
    from astroid import nodes

    if isinstance(target, nodes.AssignName):
        return True
    return isinstance(target, (nodes.Tuple, nodes.List)) and all(_names_only(element) for element in target.elts)


def _same_kind(node: "nodes.NodeNG", statement: ast.stmt) -> bool:
    """(The same text is the same statement; this only guards the stand-in's assumptions.)"""
    from astroid import nodes

    kind = {ast.ClassDef: nodes.ClassDef, ast.FunctionDef: nodes.FunctionDef,
            ast.AsyncFunctionDef: nodes.AsyncFunctionDef, ast.Import: nodes.Import, ast.ImportFrom: nodes.ImportFrom,
            ast.Assign: nodes.Assign, ast.AnnAssign: nodes.AnnAssign}[type(statement)]
    return type(node) is kind and getattr(node, "name", None) == getattr(statement, "name", None)


def forget_node_memos() -> None:
    """Clear astroid's per-node memos that may hold the last module's nodes (see above)."""
    from astroid import nodes
    from astroid.nodes import _base_nodes

    for memoized in (getattr(_base_nodes.LookupMixIn, "lookup", None),
                     getattr(nodes.ClassDef, "_metaclass_lookup_attribute", None)):
        clear = getattr(memoized, "cache_clear", None)
        if clear is not None:
            clear()
