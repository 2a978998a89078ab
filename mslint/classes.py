"""Class hierarchies across the project's modules: Cell subclassing, method lookup, decorators."""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from astroid import nodes

from mslint import mindspore_names as msn
from mslint.resolve import Resolver

_MAX_MRO = 32


class ClassIndex:
    """Answers questions about ClassDefs, memoised for one analysis run."""

    def __init__(self, resolver: Resolver, extra_jit_decorators=()):
        self.resolver = resolver
        self.jit_decorators = msn.JIT_DECORATORS | msn.LEGACY_JIT_DECORATORS | frozenset(extra_jit_decorators)
        self._bases: Dict[nodes.ClassDef, List] = {}
        self._is_cell: Dict[nodes.ClassDef, bool] = {}
        self._attribute_stores: Dict[nodes.NodeNG, List[nodes.AssignAttr]] = {}

    # -- hierarchy ---------------------------------------------------------------------
    def base_entries(self, cls: nodes.ClassDef) -> List:
        """Each base as a project ClassDef or, outside the project, its qualified name (or None)."""
        if cls not in self._bases:
            entries = []
            for base in cls.bases:
                qn = self.resolver.qualname(base)
                definition = self.resolver.resolve_callable(base) if not msn.is_mindspore(qn) else None
                entries.append(definition if isinstance(definition, nodes.ClassDef) else qn)
            self._bases[cls] = entries
        return self._bases[cls]

    def mro(self, cls: nodes.ClassDef) -> List[nodes.ClassDef]:
        """The project classes in cls's method resolution order (depth-first, de-duplicated)."""
        order: List[nodes.ClassDef] = []
        stack = [cls]
        while stack and len(order) < _MAX_MRO:
            current = stack.pop(0)
            if current in order:
                continue
            order.append(current)
            stack[0:0] = [b for b in self.base_entries(current) if isinstance(b, nodes.ClassDef)]
        return order

    def attribute_stores(self, node) -> List[nodes.AssignAttr]:
        """Every `<expr>.name = ...` target inside a class or function (several analyses ask
        what a class stores on self, attribute by attribute)."""
        found = self._attribute_stores.get(node)
        if found is None:
            found = self._attribute_stores[node] = list(node.nodes_of_class(nodes.AssignAttr))
        return found

    def is_cell(self, cls: nodes.ClassDef) -> bool:
        if cls in self._is_cell:
            return self._is_cell[cls]
        self._is_cell[cls] = False  # cycle guard
        result = False
        for klass in self.mro(cls):
            for base in self.base_entries(klass):
                if isinstance(base, str) and msn.is_cell_class_name(base):
                    result = True
        self._is_cell[cls] = result
        return result

    def has_decorator(self, node, names) -> bool:
        return any(self.decorator_qualname(d) in names for d in self.decorators(node))

    def is_jit_class(self, cls: nodes.ClassDef) -> bool:
        return any(self.has_decorator(k, msn.JIT_CLASS_DECORATORS) for k in self.mro(cls))

    # -- members -----------------------------------------------------------------------
    def lookup_method(self, cls: nodes.ClassDef, name: str) -> Optional[nodes.FunctionDef]:
        for klass in self.mro(cls):
            for item in klass.locals.get(name, ()):
                if isinstance(item, nodes.FunctionDef):
                    return item
        return None

    def overrides_call_without_super(self, cls: nodes.ClassDef) -> bool:
        """A Cell whose own __call__ never reaches Cell.__call__: construct is never compiled."""
        call = self.lookup_method(cls, "__call__")
        if call is None:
            return False
        for node in call.nodes_of_class(nodes.Attribute):
            if node.attrname == "__call__" and isinstance(node.expr, (nodes.Call, nodes.Name, nodes.Attribute)):
                return False
        return True

    # -- decorators --------------------------------------------------------------------
    @staticmethod
    def decorators(node) -> List:
        decorators = getattr(node, "decorators", None)
        return list(decorators.nodes) if decorators is not None else []

    def decorator_qualname(self, decorator) -> Optional[str]:
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        return self.resolver.qualname(target)

    def jit_decorator(self, node) -> Optional[nodes.NodeNG]:
        """The @jit decorator of a function or class (any spelling), if any."""
        for decorator in self.decorators(node):
            if self.decorator_qualname(decorator) in self.jit_decorators:
                return decorator
        return None

    def is_constexpr(self, node) -> bool:
        return self.has_decorator(node, msn.CONSTEXPR_DECORATORS)


def decorator_names(function) -> Set[str]:
    """The last name of each decorator (`staticmethod`, `jit` for `@ms.jit(...)` is `jit`...)."""
    names = set()
    for decorator in ClassIndex.decorators(function):
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        names.add(target.name if isinstance(target, nodes.Name) else getattr(target, "attrname", ""))
    return names


def is_static_method(function) -> bool:
    return isinstance(function, nodes.FunctionDef) and "staticmethod" in decorator_names(function)


def is_instance_method(function) -> bool:
    """A method whose first parameter is the instance: not a static or class method.
    (By decorator name: astroid's FunctionDef.type infers, which is slow on large projects.)"""
    return isinstance(function.parent, nodes.ClassDef) and not decorator_names(function) & {"staticmethod",
                                                                                              "classmethod"}


def call_arguments(call: nodes.Call) -> List[nodes.NodeNG]:
    """The argument nodes of a call: positional ones, then keyword values (`**kw`'s included)."""
    return list(call.args) + [keyword.value for keyword in call.keywords or ()]


def keyword_value(call: nodes.Call, name: str, position: Optional[int] = None):
    """The argument node passed as `name=` (or at `position`), if any."""
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return keyword.value
    if position is not None and len(call.args) > position and not isinstance(call.args[position], nodes.Starred):
        return call.args[position]
    return None
