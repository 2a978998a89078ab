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
from mslint.analysis.module_memo import memo


def mentions(module: nodes.Module, name: str) -> List[nodes.NodeNG]:
    """The Name and Attribute nodes of a module spelled `name` (one walk per module object: every
    cell and every function of every analysis asks)."""
    return memo(module, "mentions", lambda: _spelled(module)).get(name, [])


def _spelled(module: nodes.Module) -> Dict[str, List[nodes.NodeNG]]:
    found: Dict[str, List[nodes.NodeNG]] = {}
    for node in module.nodes_of_class((nodes.Name, nodes.Attribute)):
        found.setdefault(node.name if isinstance(node, nodes.Name) else node.attrname, []).append(node)
    return found


def code_names(source: bytes, keep_for: Optional[str] = None) -> Optional[FrozenSet[str]]:
    """The names a source spells as code (a name or an attribute), by a plain `ast` parse; None when
    it does not parse.  A text search for a name also hits strings and comments (`__all__ =
    ["Net"]` in a package __init__); building that module with astroid to find no mention costs
    far more, and a star-importing __init__ builds every module it imports.  When the source
    spells `keep_for`, its tree is kept for the astroid build that follows (mslint.parsed)."""
    key = hashlib.blake2b(source, digest_size=16).digest()
    found = _CODE_NAMES.get(key, _MISSING)
    if found is _MISSING:
        try:
            text = parsed.decode(source)
            tree = parsed.tree(text)
        except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
            found = None
        else:
            found = frozenset(node.id if isinstance(node, ast.Name) else node.attr
                              for node in ast.walk(tree) if isinstance(node, (ast.Name, ast.Attribute)))
            if keep_for is not None and keep_for in found:
                parsed.keep_tree(text, tree)
        _CODE_NAMES[key] = found
        while len(_CODE_NAMES) > _KEPT_CODE_NAMES:
            _CODE_NAMES.pop(next(iter(_CODE_NAMES)))
    return found


_MISSING = object()
_KEPT_CODE_NAMES = 4096  # (files' name sets, by content: a run over a large tree asks of many)
_CODE_NAMES: Dict[bytes, Optional[FrozenSet[str]]] = {}


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
