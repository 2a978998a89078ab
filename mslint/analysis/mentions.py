"""The places a module spells a name, and which of them neither build nor call anything.

Finding where a class is built or a function called starts from a text search for its name
(mslint.project.index); these are the astroid nodes behind such a hit.
"""
from __future__ import annotations

import ast
import hashlib
from typing import Dict, FrozenSet, List, Optional

from astroid import nodes

from mslint import parsed
from mslint.project import module_files
from mslint.project.module_memo import memo, statement_memo


def mentions(module: nodes.Module, name: str) -> List[nodes.NodeNG]:
    """The Name and Attribute nodes of a module spelled `name` (one walk per module object: every
    cell and every function of every analysis asks).  Each analysis that asks records that it
    read the statements that spell the name (not only the first, whose walk built the table)."""
    module_files.record_spelled(module, name)
    return memo(module, "mentions", lambda: _spelled(module)).get(name, [])


def _spelled(module: nodes.Module) -> Dict[str, List[nodes.NodeNG]]:
    found: Dict[str, List[nodes.NodeNG]] = {}
    for statement in list.__iter__(module.body):  # (what each asker read is recorded by `mentions`)
        for name, spelled in statement_memo(statement, "spelled", lambda: _spelled_in(statement)).items():
            known = found.get(name)
            if known is None:
                found[name] = list(spelled)
            else:
                known.extend(spelled)
    return found


def _spelled_in(statement: nodes.NodeNG) -> Dict[str, List[nodes.NodeNG]]:
    found: Dict[str, List[nodes.NodeNG]] = {}
    for node in statement.nodes_of_class((nodes.Name, nodes.Attribute)):
        found.setdefault(node.name if isinstance(node, nodes.Name) else node.attrname, []).append(node)
    return found


class CodeFacts:
    """What a plain `ast` parse of a source says about the names it spells as code."""

    __slots__ = ("names", "outside_attribute_calls")

    def __init__(self, names: FrozenSet[str], outside_attribute_calls: FrozenSet[str]):
        self.names = names  # every name or attribute spelled as code
        # the attributes called as `<receiver>.<name>(...)` where the receiver may be an object of
        # the project: every such call except `self.<name>(...)` in a class whose bases all come
        # from MindSpore (or that has none), and `<module>.<name>(...)` through an imported name
        # the source binds in no other way (mslint.analysis.cell_uses._outside_calls)
        self.outside_attribute_calls = outside_attribute_calls


def code_names(source: bytes, keep_for: Optional[str] = None) -> Optional[FrozenSet[str]]:
    """The names a source spells as code (a name or an attribute), by a plain `ast` parse; None when
    it does not parse.  A text search for a name also hits strings and comments (`__all__ =
    ["Net"]` in a package __init__); building that module with astroid to find no mention costs
    far more, and a star-importing __init__ builds every module it imports.  When the source
    spells `keep_for`, its tree is kept for the astroid build that follows (mslint.parsed)."""
    facts = code_facts(source, keep_for)
    return facts.names if facts is not None else None


def code_facts(source: bytes, keep_for: Optional[str] = None) -> Optional[CodeFacts]:
    """CodeFacts of a source (see code_names), one parse per content; None when it does not parse."""
    key = hashlib.blake2b(source, digest_size=16).digest()
    found = _CODE_FACTS.get(key, _MISSING)
    if found is _MISSING:
        try:
            text = parsed.decode(source)
            tree = parsed.tree(text)
        except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
            found = None
        else:
            found = _facts_of(tree)
            if keep_for is not None and keep_for in found.names:
                parsed.keep_tree(text, tree)
        _CODE_FACTS[key] = found
        while len(_CODE_FACTS) > _KEPT_CODE_FACTS:
            _CODE_FACTS.pop(next(iter(_CODE_FACTS)))
    return found


_MISSING = object()
_KEPT_CODE_FACTS = 4096  # (files' facts, by content: a run over a large tree asks of many)
_CODE_FACTS: Dict[bytes, Optional[CodeFacts]] = {}


def _facts_of(tree: ast.Module) -> CodeFacts:
    names = set()
    imported: Dict[str, str] = {}  # name -> the module an import binds it from (absolute imports)
    bound_otherwise = set()  # names some other statement, parameter or target binds
    calls = []  # (call of an attribute, the class of the method it is in or None)
    stack = [(tree, None)]
    while stack:
        node, owner = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)
            if type(node.ctx) is not ast.Load:
                bound_otherwise.add(node.id)
            continue
        if kind is ast.Attribute:
            names.add(node.attr)
        elif kind is ast.Call:
            if type(node.func) is ast.Attribute:
                calls.append((node, owner))
        elif kind is ast.ClassDef:
            bound_otherwise.add(node.name)
            for child in ast.iter_child_nodes(node):  # its methods' code runs with it as the class
                stack.append((child, node if type(child) in _FUNCTIONS else owner))
            continue
        elif kind in _FUNCTIONS:
            bound_otherwise.add(node.name)
        elif kind is ast.arg:
            bound_otherwise.add(node.arg)
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                if alias.name == "*":
                    bound_otherwise.add("*")
                    continue
                bound = alias.asname or alias.name.split(".")[0]
                if kind is ast.ImportFrom and node.level:
                    bound_otherwise.add(bound)  # a relative import: a project module
                else:
                    imported.setdefault(bound, alias.name if kind is ast.Import else (node.module or ""))
            continue
        elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
            if node.name:
                bound_otherwise.add(node.name)
        stack.extend((child, owner) for child in ast.iter_child_nodes(node))
    if "*" in bound_otherwise:  # a star import may bind any name
        imported = {}

    def only_imported(name: str) -> Optional[str]:
        return imported.get(name) if name not in bound_otherwise else None

    def from_mindspore(base: ast.AST) -> bool:
        while type(base) is ast.Attribute:
            base = base.value
        source = only_imported(base.id) if type(base) is ast.Name else None
        return source is not None and source.split(".")[0] == "mindspore"

    outside = set()
    for call, owner in calls:
        receiver = call.func.value
        if type(receiver) is ast.Name and receiver.id == "self":
            if owner is not None and not owner.keywords and all(from_mindspore(base) for base in owner.bases):
                continue  # no project class is in its MRO
        else:
            root = receiver
            while type(root) is ast.Attribute:
                root = root.value
            if type(root) is ast.Name and only_imported(root.id) is not None:
                continue  # `np.roll(...)`: a qualified name, not an object's attribute
        outside.add(call.func.attr)
    return CodeFacts(frozenset(names), frozenset(outside))


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def harmless_mention(node) -> bool:
    """A mention that builds or calls nothing: an import, a base class, `isinstance(x, Cell)`."""
    parent = node.parent
    if isinstance(parent, nodes.ClassDef) and node in parent.bases:
        return True
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name) and parent.func.name == "super":
        return True  # super(Loss, self).__init__()
    if isinstance(parent, nodes.Tuple):
        parent = parent.parent
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name) \
            and parent.func.name in ("isinstance", "issubclass") and node is not parent.func:
        return True
    return False
