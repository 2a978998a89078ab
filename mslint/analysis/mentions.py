"""The places a module spells a name, and which of them neither build nor call anything.

Finding where a class is built or a function called starts from a text search for its name
(mslint.project.index); these are the astroid nodes behind such a hit.
"""
from __future__ import annotations

import weakref
from typing import List

from astroid import nodes


def mentions(module: nodes.Module, name: str) -> List[nodes.NodeNG]:
    """The Name and Attribute nodes of a module spelled `name` (one walk per module object: every
    cell and every function of every analysis asks)."""
    found = _MENTIONS.get(module)
    if found is None:
        found = {}
        for node in module.nodes_of_class((nodes.Name, nodes.Attribute)):
            found.setdefault(node.name if isinstance(node, nodes.Name) else node.attrname, []).append(node)
        _MENTIONS[module] = found
    return found.get(name, [])


_MENTIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


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
