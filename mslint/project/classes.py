"""Class hierarchies across the project's modules: Cell subclassing, method lookup, decorators."""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

from astroid import nodes

from mslint.project.module_memo import subtree_memo
from mslint.project import mindspore_names as msn
from mslint.project.resolve import PROJECT, UNKNOWN, Resolver, absolute_import_name

_MAX_MRO = 32


class ClassIndex:
    """Answers questions about ClassDefs, memoised for one analysis run."""

    def __init__(self, resolver: Resolver, extra_jit_decorators=(), extra_cell_bases=(), libraries=None):
        """`extra_cell_bases`: qualified names of classes to treat as Cells; `libraries`: a
        LibraryClasses to read installed libraries' base classes with (None: do not look)."""
        self.resolver = resolver
        self.jit_decorators = msn.JIT_DECORATORS | msn.LEGACY_JIT_DECORATORS | frozenset(extra_jit_decorators)
        self.extra_cell_bases = frozenset(extra_cell_bases)
        self.libraries = libraries
        self._bases: Dict[nodes.ClassDef, List] = {}
        self._is_cell: Dict[nodes.ClassDef, bool] = {}
        self._assumed: Dict[nodes.ClassDef, Optional[str]] = {}
        self._imports_mindspore: Dict[nodes.Module, bool] = {}
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
            found = self._attribute_stores[node] = subtree_memo(
                node, "attribute stores", lambda: list(node.nodes_of_class(nodes.AssignAttr)))
        return found

    def is_cell(self, cls: nodes.ClassDef) -> bool:
        """An nn.Cell subclass, known (through the project, MindSpore, an installed library or
        `extra-cell-bases`) or assumed (see assumed_cell)."""
        return self.is_known_cell(cls) or self.assumed_cell(cls) is not None

    def is_known_cell(self, cls: nodes.ClassDef) -> bool:
        if cls in self._is_cell:
            return self._is_cell[cls]
        self._is_cell[cls] = False  # cycle guard
        result = any(self._is_cell_base(base) for klass in self.mro(cls) for base in self.base_entries(klass))
        self._is_cell[cls] = result
        return result

    def _is_cell_base(self, base) -> bool:
        if isinstance(base, nodes.ClassDef):
            return base.qname() in self.extra_cell_bases  # (its own bases are in the MRO)
        if not isinstance(base, str):
            return False
        if msn.is_cell_class_name(base) or base in self.extra_cell_bases:
            return True
        return self._library_says(base) is True

    def _library_says(self, qualname: str) -> Optional[bool]:
        """Whether an installed library's class is a Cell; None when it cannot be read."""
        if self.libraries is None or self.resolver.kind(qualname) != UNKNOWN:
            return None  # MindSpore, the standard library and whitelisted packages are known already
        return self.libraries.is_cell(qualname)

    def assumed_cell(self, cls: nodes.ClassDef) -> Optional[str]:
        """Why a class is taken for a Cell ("Net is taken for a Cell: its base PreTrainedModel could
        not be resolved"), or None.

        A class that defines `construct` in a module importing MindSpore, one of whose bases
        cannot be resolved (a library that is not installed, a relative import out of the
        linted tree) or is a conditional expression with a Cell on one side
        (`nn.Cell if AVAILABLE else object`), is compiled by MindSpore as a Cell would be:
        analysing it as one is the way not to miss its graph code."""
        if cls not in self._assumed:
            self._assumed[cls] = None  # cycle guard
            self._assumed[cls] = None if self.is_known_cell(cls) else self._assumption(cls)
        return self._assumed[cls]

    def _assumption(self, cls: nodes.ClassDef) -> Optional[str]:
        construct = self.lookup_method(cls, "construct")
        if construct is None or not self.imports_mindspore(construct.root()):
            return None
        for klass in self.mro(cls):
            for node, entry in zip(klass.bases, self.base_entries(klass)):
                reason = self._base_reason(node, entry)
                if reason is not None:
                    name, why = reason
                    base = f"its base {name}" if klass is cls else f"the base {name} of {klass.name}"
                    return f"{cls.name} is taken for a Cell: {base} {why}"
        return None

    def _base_reason(self, node, entry) -> Optional[Tuple[str, str]]:
        """(the base as the message names it, why it makes the class a Cell), or None."""
        if isinstance(node, nodes.IfExp):
            for arm in (node.body, node.orelse):
                if self._is_cell_expression(arm):
                    return f"'{_short(node)}'", "is a Cell when its condition holds"
            return None
        if not isinstance(node, (nodes.Name, nodes.Attribute)) or isinstance(entry, nodes.ClassDef):
            return None
        if entry is None or self._unresolved(entry, node):
            name = entry.rsplit(".", 1)[-1] if entry else _short(node)  # the class's own name, not an alias
            return name, "could not be resolved"
        return None

    def _unresolved(self, qualname: str, node) -> bool:
        """A base class name whose class neither the project, nor MindSpore, nor an installed
        library defines."""
        kind = self.resolver.kind(qualname, node.root().file)
        if kind == PROJECT:
            return True  # a project name without a definition (resolve_callable found none)
        return kind == UNKNOWN and self._library_says(qualname) is None

    def _is_cell_expression(self, node) -> bool:
        if isinstance(node, nodes.IfExp):
            return self._is_cell_expression(node.body) or self._is_cell_expression(node.orelse)
        if not isinstance(node, (nodes.Name, nodes.Attribute)):
            return False
        definition = self.resolver.resolve_callable(node)
        if isinstance(definition, nodes.ClassDef):
            return self.is_known_cell(definition)
        qualname = self.resolver.qualname(node)
        return qualname is not None and self._is_cell_base(qualname)

    def imports_mindspore(self, module: nodes.Module) -> bool:
        """Whether the module imports MindSpore at its top level (in `if`/`try` blocks too)."""
        if module not in self._imports_mindspore:
            self._imports_mindspore[module] = any(
                msn.is_mindspore(name) for name in top_level_imports(module.body))
        return self._imports_mindspore[module]

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


def _short(node, limit: int = 60) -> str:
    text = node.as_string()
    return text if len(text) <= limit else text[:limit - 3] + "..."


_BLOCKS = (nodes.If, nodes.Try, nodes.With)


def top_level_imports(body) -> Iterator[str]:
    """The module names a block's import statements import, descending into if/try/with."""
    for statement in body:
        if isinstance(statement, nodes.Import):
            yield from (name for name, _ in statement.names)
        elif isinstance(statement, nodes.ImportFrom):
            yield absolute_import_name(statement) or ""
        elif isinstance(statement, _BLOCKS):
            for block in _child_blocks(statement):
                yield from top_level_imports(block)


def _child_blocks(statement) -> Iterator[list]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if block:
            yield block
    for handler in getattr(statement, "handlers", None) or ():
        yield handler.body


def decorator_names(function) -> Set[str]:
    """The last name of each decorator (`staticmethod`, `jit` for `@ms.jit(...)` is `jit`...)."""
    names = set()
    for decorator in ClassIndex.decorators(function):
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        names.add(target.name if isinstance(target, nodes.Name) else getattr(target, "attrname", ""))
    return names


def is_static_method(function) -> bool:
    return isinstance(function, nodes.FunctionDef) and "staticmethod" in decorator_names(function)


def enclosing_class(node) -> Optional[nodes.ClassDef]:
    """The class whose method holds `node` (also inside a lambda, comprehension or function
    nested in that method); None at module level or in a plain function."""
    current = node.parent
    while current is not None and not isinstance(current, nodes.Module):
        if isinstance(current, nodes.FunctionDef) and isinstance(current.parent, nodes.ClassDef):
            return current.parent
        current = current.parent
    return None


def is_class_method(function) -> bool:
    """(By decorator name, as is_instance_method.)"""
    return isinstance(function, nodes.FunctionDef) and "classmethod" in decorator_names(function)


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
