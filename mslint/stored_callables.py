"""Functions a cell stores on itself and calls later: which code `self.act(x)` runs.

Hugging-Face-style ports pick their activation in `__init__` (`self.act = ACT2FN[name]`,
`self.act = np_gelu`, a dict of methods) and call it in `construct`.  The graph compiler
compiles whatever the attribute holds, so graph scope must follow it.  This module reads
the stores syntactically: every `self.<name> = <expr>` in the class and its project bases,
and for each expression the functions or classes it may hold:

- a function or class, by name or attribute (`np_gelu`, `self.first`, `activations.gelu`);
- an item of a dict display, written in place or bound to a module-level name: the value
  under a constant key, or every value when the key is not a constant (`ACT2FN[name]`);
- `getattr(self, "name")` with a constant name.

It only widens what is followed: a store it cannot read adds nothing.
"""
from __future__ import annotations

from typing import Iterator, List, Optional

from astroid import nodes

from mslint.resolve import assigned_values

MAX_CANDIDATES = 32  # a registry of more callables than this is not followed (each would be analysed)


def self_attribute_values(classes, cls: nodes.ClassDef, name: str) -> List[nodes.NodeNG]:
    """The expressions assigned to `self.<name>` in the class and its project bases."""
    found = []
    for klass in classes.mro(cls):
        for store in classes.attribute_stores(klass):
            if store.attrname == name and isinstance(store.expr, nodes.Name) and store.expr.name == "self" \
                    and isinstance(store.parent, nodes.Assign):
                found.append(store.parent.value)
    return found


def held_callables(expr: nodes.NodeNG, resolver, classes, cls: Optional[nodes.ClassDef],
                   key: Optional[nodes.NodeNG] = None, depth: int = 0) -> Iterator[tuple]:
    """(definition, owner class or None) of what `expr` may hold; `key` indexes it first."""
    if depth > 3:
        return
    if key is not None:
        table = _dict_display(expr)
        if table is None:
            return
        for value in _dict_values(table, key)[:MAX_CANDIDATES]:
            yield from held_callables(value, resolver, classes, cls, None, depth + 1)
        return
    if isinstance(expr, nodes.Subscript):
        yield from held_callables(expr.value, resolver, classes, cls, expr.slice, depth + 1)
        return
    if isinstance(expr, nodes.Call) and _is_getattr_of_self(expr):
        name = expr.args[1].value
        if cls is not None:
            method = classes.lookup_method(cls, name)
            if method is not None:
                yield method, cls
        return
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
        if cls is not None:
            method = classes.lookup_method(cls, expr.attrname)
            if method is not None:
                yield method, cls
        return
    if isinstance(expr, (nodes.Name, nodes.Attribute)):
        definition = resolver.resolve_callable(expr)
        if isinstance(definition, (nodes.FunctionDef, nodes.ClassDef)):
            yield definition, None


def _is_getattr_of_self(call: nodes.Call) -> bool:
    return isinstance(call.func, nodes.Name) and call.func.name == "getattr" and len(call.args) >= 2 \
        and isinstance(call.args[0], nodes.Name) and call.args[0].name == "self" \
        and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str)


def _dict_display(expr: nodes.NodeNG) -> Optional[nodes.Dict]:
    if isinstance(expr, nodes.Dict):
        return expr
    if isinstance(expr, nodes.Name):
        values = assigned_values(expr)
        if values is not None and len(values) == 1 and isinstance(values[0], nodes.Dict):
            return values[0]
    return None


def _dict_values(table: nodes.Dict, key: nodes.NodeNG) -> List[nodes.NodeNG]:
    if isinstance(key, nodes.Const):
        chosen = [value for k, value in table.items if isinstance(k, nodes.Const) and k.value == key.value]
        if chosen:
            return chosen
    return [value for _, value in table.items]
