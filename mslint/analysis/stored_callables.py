"""Functions a cell stores on itself and calls later: which code `self.act(x)` runs.

Hugging-Face-style ports pick their activation in `__init__` (`self.act = ACT2FN[name]`,
`self.act = np_gelu`, `self.act = get_activation(name)`, a dict of methods) and call it in
`construct`.  The graph compiler compiles whatever the attribute holds, so graph scope must
follow it.  This module reads the stores syntactically: every `self.<name> = <expr>` in the
class and its project bases, and for each expression what calling its value runs:

- a function, lambda or method, by name or attribute (`np_gelu`, `self.first`,
  `activations.gelu`), also through a variable or module constant assigned it once, in this
  module or in another project module (`from .activations import ACT2FN`);
- an item of a dict display: the value under a constant key, or every value when the key is
  not a constant (`ACT2FN[config.hidden_act]`: any entry may be chosen);
- an item of a table whose `__getitem__` instantiates what it holds (Hugging Face's
  `ClassInstantier(ACT2CLS)`, values `Cls` or `(Cls, kwargs)`): an instance, so its class's
  construct (or `__call__`);
- what a project function returns (`get_activation("gelu")` returning `ACT2FN[name]` or
  `Cls()`), its parameters bound to the call's arguments;
- an instance made by calling a class (`ACT2CLS[name]()`): its construct or `__call__`;
- `getattr(self, "name")` with a constant name.

A class held as it is (`self.act = GELU`) is not followed: calling it makes an instance (its
`__init__` runs, not its construct).  Values that are not callables add nothing, and so does a
store this cannot read: it only widens what is followed.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from astroid import nodes

from mslint.project.classes import is_static_method
from mslint.project import mindspore_names as msn

MAX_CANDIDATES = 32  # a registry of more callables than this is not followed (each would be analysed)
MAX_DEPTH = 8  # steps from the stored expression to what it holds (names, tables, factories)

# what an expression's value is, as far as calling it goes
FUNCTION = "function"  # calling it runs the function
CLASS = "class"  # calling it makes an instance
INSTANCE = "instance"  # calling it runs its class's construct / __call__


@dataclass(frozen=True)
class Held:
    """What calling a stored value may run: a function or lambda (`owner`: the class a method
    is bound to), or the class of an instance.  `path` says how the stored expression leads
    there ('ACT2FN[...] in activations.py'); empty when the expression names it directly."""

    definition: nodes.NodeNG
    owner: Optional[nodes.ClassDef]
    path: str = ""


@dataclass(frozen=True)
class _Value:
    kind: str
    node: nodes.NodeNG
    owner: Optional[nodes.ClassDef] = None
    files: Tuple[str, ...] = ()  # the files of the tables and functions followed to reach it


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
                   key: Optional[nodes.NodeNG] = None) -> Iterator[Held]:
    """What calling the value of `expr` (indexed by `key` first, if given) may run."""
    reader = _Reader(resolver, classes, cls)
    values = reader.item(expr, key, {}, 0) if key is not None else reader.values(expr, {}, 0)
    home = _file(expr)
    for value in values:
        if value.kind == CLASS:
            continue  # calling a class makes an instance; its construct is not what runs
        path = _path(expr, key, value.files, home)
        yield Held(value.node, value.owner if value.kind == FUNCTION else None, path)


class _Reader:
    """Follows one stored expression to the values it may hold."""

    def __init__(self, resolver, classes, cls: Optional[nodes.ClassDef]):
        self.resolver = resolver
        self.classes = classes
        self.cls = cls

    def values(self, expr, env: Dict[str, nodes.NodeNG], depth: int) -> Iterator[_Value]:
        """`env`: a factory's parameters bound to its call's arguments."""
        if depth > MAX_DEPTH:
            return
        if isinstance(expr, nodes.Name) and expr.name in env:
            yield from self.values(env[expr.name], {}, depth + 1)
        elif isinstance(expr, nodes.Lambda):
            yield _Value(FUNCTION, expr)
        elif isinstance(expr, nodes.IfExp):
            yield from self.values(expr.body, env, depth + 1)
            yield from self.values(expr.orelse, env, depth + 1)
        elif isinstance(expr, nodes.Subscript):
            yield from self.item(expr.value, expr.slice, env, depth + 1)
        elif isinstance(expr, nodes.Call):
            yield from self.called(expr, env, depth + 1)
        elif _is_self_attribute(expr):
            yield from self.self_attribute(expr.attrname, depth)
        elif isinstance(expr, (nodes.Name, nodes.Attribute)):
            definition = self.resolver.resolve_callable(expr)
            if isinstance(definition, (nodes.FunctionDef, nodes.Lambda)):
                yield _Value(FUNCTION, definition)
            elif isinstance(definition, nodes.ClassDef):
                yield _Value(CLASS, definition)
            else:
                value = self.resolver.assigned_value(expr)  # act = ACT2FN[name]; ACT2FN from another module
                if value is not None:
                    yield from self.values(value, env if value.frame() is expr.frame() else {}, depth + 1)

    def self_attribute(self, name: str, depth: int) -> Iterator[_Value]:
        if self.cls is None:
            return
        method = self.classes.lookup_method(self.cls, name)
        if method is not None:
            yield _Value(FUNCTION, method, self.cls)
            return
        for stored in self_attribute_values(self.classes, self.cls, name):
            yield from self.values(stored, {}, depth + 1)

    def item(self, table_expr, key, env: Dict[str, nodes.NodeNG], depth: int) -> Iterator[_Value]:
        """`table_expr[key]`: the value under a constant key, else every value of the table."""
        key = _constant(key, env)
        for table, instantiates in self.tables(table_expr, env, depth):
            for entry in _entries(table, key)[:MAX_CANDIDATES]:
                if instantiates and isinstance(entry, nodes.Tuple) and entry.elts:
                    entry = entry.elts[0]  # (Cls, kwargs)
                for value in self.values(entry, {}, depth + 1):
                    if instantiates:
                        if value.kind != CLASS:
                            continue
                        value = _Value(INSTANCE, value.node, None, value.files)
                    yield _Value(value.kind, value.node, value.owner, (_file(table),) + value.files)

    def tables(self, expr, env: Dict[str, nodes.NodeNG], depth: int) -> Iterator[Tuple[nodes.Dict, bool]]:
        """The dict displays `expr` may be, each with whether indexing it instantiates the entry."""
        if depth > MAX_DEPTH:
            return
        if isinstance(expr, nodes.Name) and expr.name in env:
            yield from self.tables(env[expr.name], {}, depth + 1)
        elif isinstance(expr, nodes.Dict):
            yield expr, False
        elif isinstance(expr, nodes.Call) and expr.args:
            if self._instantiating_table(expr.func):  # ClassInstantier(ACT2CLS)
                yield from ((table, True) for table, _ in self.tables(expr.args[0], {}, depth + 1))
            elif self.resolver.qualname(expr.func) in _DICT_TYPES:  # OrderedDict({...})
                yield from self.tables(expr.args[0], {}, depth + 1)
        elif _is_self_attribute(expr):
            if self.cls is not None:
                for stored in self_attribute_values(self.classes, self.cls, expr.attrname):
                    yield from self.tables(stored, {}, depth + 1)
        elif isinstance(expr, (nodes.Name, nodes.Attribute)):
            value = self.resolver.assigned_value(expr)
            if value is not None:
                yield from self.tables(value, {}, depth + 1)

    def called(self, call: nodes.Call, env: Dict[str, nodes.NodeNG], depth: int) -> Iterator[_Value]:
        """What `call` returns: an instance of a class it calls, or what a factory returns."""
        if _is_getattr_of_self(call):
            yield from self.self_attribute(call.args[1].value, depth)
            return
        wrapped = self._transformed(call)
        if wrapped is not None:  # grad_fn = value_and_grad(forward_fn, ...): calling it runs forward_fn
            yield from self.values(wrapped, env, depth + 1)
            return
        for value in self.values(call.func, env, depth + 1):
            if value.kind == CLASS:
                yield _Value(INSTANCE, value.node, None, value.files)
            elif value.kind == FUNCTION and isinstance(value.node, nodes.FunctionDef):
                function = value.node
                arguments = _bind(function, call, env, bound=value.owner is not None)
                for returned in function.nodes_of_class(nodes.Return, skip_klass=_NESTED):
                    if returned.value is None:
                        continue
                    for result in self.values(returned.value, arguments, depth + 1):
                        yield _Value(result.kind, result.node, result.owner,
                                     value.files + (_file(function),) + result.files)

    def _transformed(self, call: nodes.Call) -> Optional[nodes.NodeNG]:
        """The function a transform wraps, when calling its result runs that function:
        `value_and_grad(f, ...)`, `grad(f)`, `jit(f)`, `vmap(f)`, `ops.GradOperation(...)(f)`,
        `functools.partial(f, ...)`."""
        func = call.func
        if isinstance(func, nodes.Call):  # ops.GradOperation(get_all=True)(f)
            qualname = self.resolver.qualname(func.func) or ""
            if msn.is_mindspore(qualname) and qualname.rsplit(".", 1)[-1] in _TRANSFORM_CLASSES:
                return _first_argument(call, "fn")
            return None
        qualname = self.resolver.qualname(func) or ""
        last = qualname.rsplit(".", 1)[-1]
        if (msn.is_mindspore(qualname) and last in _TRANSFORMS) or qualname == "functools.partial":
            return _first_argument(call, "fn")
        return None

    def _instantiating_table(self, func) -> bool:
        """A project dict subclass whose `__getitem__` returns a call of what it looks up
        (Hugging Face's `ClassInstantier`: `return cls(**kwargs)`)."""
        definition = self.resolver.resolve_callable(func)
        if not isinstance(definition, nodes.ClassDef):
            return False
        getitem = self.classes.lookup_method(definition, "__getitem__")
        if getitem is None:
            return False
        returns = list(getitem.nodes_of_class(nodes.Return, skip_klass=_NESTED))
        return bool(returns) and all(isinstance(r.value, nodes.Call) and isinstance(r.value.func, nodes.Name)
                                     for r in returns)


_NESTED = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
# MindSpore functions whose result, when called, runs the function they were given
_TRANSFORMS = frozenset({"value_and_grad", "grad", "jit", "ms_function", "vmap", "jvp", "vjp", "shard", "recompute"})
_TRANSFORM_CLASSES = frozenset({"GradOperation", "HyperMap", "Map"})


def _first_argument(call: nodes.Call, keyword: str) -> Optional[nodes.NodeNG]:
    if call.args and not isinstance(call.args[0], nodes.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords or () if k.arg in (keyword, "function", "func")), None)
_DICT_TYPES = frozenset({"builtins.dict", "collections.OrderedDict", "typing.OrderedDict"})


def _bind(function: nodes.FunctionDef, call: nodes.Call, env: Dict[str, nodes.NodeNG],
          bound: bool) -> Dict[str, nodes.NodeNG]:
    """The factory's parameters: the call's arguments (a name the caller's own parameters
    bind is replaced by their argument), else their default."""
    params = [arg.name for arg in function.args.args or ()]
    if bound and params and not is_static_method(function):
        params = params[1:]
    arguments: Dict[str, nodes.NodeNG] = {}
    defaults = function.args.defaults or []
    for name, default in zip(params[len(params) - len(defaults):], defaults):
        arguments[name] = default
    for kwonly, default in zip(function.args.kwonlyargs or (), function.args.kw_defaults or ()):
        if default is not None:
            arguments[kwonly.name] = default
    for name, argument in zip(params, call.args or ()):
        if isinstance(argument, nodes.Starred):
            break
        arguments[name] = argument
    for keyword in call.keywords or ():
        if keyword.arg is not None:
            arguments[keyword.arg] = keyword.value
    return {name: env.get(node.name, node) if isinstance(node, nodes.Name) else node
            for name, node in arguments.items()}


def _constant(key, env: Dict[str, nodes.NodeNG]) -> Optional[nodes.Const]:
    if isinstance(key, nodes.Name) and key.name in env:
        key = env[key.name]
    return key if isinstance(key, nodes.Const) else None


def _entries(table: nodes.Dict, key: Optional[nodes.Const]) -> List[nodes.NodeNG]:
    """The values `table[key]` may be: the one under a constant key (none if it is missing),
    every value when the key is not a constant."""
    if key is None:
        return [value for _, value in table.items]
    return [value for k, value in table.items if isinstance(k, nodes.Const) and k.value == key.value]


def _is_self_attribute(node) -> bool:
    return isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self"


def _is_getattr_of_self(call: nodes.Call) -> bool:
    return isinstance(call.func, nodes.Name) and call.func.name == "getattr" and len(call.args) >= 2 \
        and isinstance(call.args[0], nodes.Name) and call.args[0].name == "self" \
        and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str)


def _file(node) -> str:
    return os.path.abspath(node.root().file or "")


# -- the path a reach chain shows ----------------------------------------------------------
PATH_LIMIT = 60


def _path(expr, key, files: Tuple[str, ...], home: str) -> str:
    """'ACT2FN[...] in activations.py': the stored expression, and the other files its tables
    and factories are in; empty for a name of the function itself or a table written in place."""
    if key is None and isinstance(expr, (nodes.Name, nodes.Attribute)) and not files:
        return ""
    if key is not None and isinstance(expr, nodes.Dict):
        return ""
    text = _render(expr) if key is None else f"{_render(expr)}[{_render_key(key)}]"
    elsewhere = []
    for file in files:
        name = os.path.basename(file)
        if file != home and name not in elsewhere:
            elsewhere.append(name)
    return text + (f" in {', '.join(elsewhere)}" if elsewhere else "")


def _render(node) -> str:
    """The expression as written, a key or argument that is not a constant shown as '...'."""
    if isinstance(node, nodes.Subscript):
        text = f"{_render(node.value)}[{_render_key(node.slice)}]"
    elif isinstance(node, nodes.Call):
        arguments = [_render_argument(a) for a in node.args] + [f"{k.arg}={_render_argument(k.value)}"
                                                                for k in node.keywords or () if k.arg]
        text = f"{_render(node.func)}({', '.join(arguments)})"
    elif isinstance(node, (nodes.Name, nodes.Attribute)):
        text = node.as_string()
    elif isinstance(node, nodes.Dict):
        text = "{...}"
    else:
        text = "..."
    return text if len(text) <= PATH_LIMIT else text[:PATH_LIMIT - 3] + "..."


def _render_key(node) -> str:
    return repr(node.value) if isinstance(node, nodes.Const) else "..."


def _render_argument(node) -> str:
    """A call's argument: a constant, or a plain name (`value_and_grad(forward_fn, ...)`)."""
    return node.name if isinstance(node, nodes.Name) else _render_key(node)
