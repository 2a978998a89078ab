"""Qualified names through imports, project-module lookup, and module classification.

Everything here works from import statements and name lookup, never by importing
the linted code and never by asking astroid to infer into MindSpore (which is
usually not installed in a lint job, and is C++-backed where it is).
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

import astroid
from astroid import nodes

from mslint.project.module_memo import buffer_statement, memo
from mslint.project.module_files import (  # noqa: F401 - part of this module's interface
    BUILTIN, HOOKS, MINDSPORE, PROJECT, STDLIB, THIRD_PARTY, UNKNOWN, ReadLog, _ancestor, _find_project_file,
    _search_bases, clear_file_caches, find_project_file, kind_of_top_level, module_name_for_file,
    outside_the_project, package_name, unrecorded)

_MAX_ALIAS_DEPTH = 8
# Functions that make a class at run time: `Point = namedtuple("Point", "x y")`.
CLASS_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})


def load_module(path: str) -> Optional[nodes.Module]:
    """An astroid module built from a project file's source (never imported)."""
    if HOOKS.log is not None:
        HOOKS.log.files.add(os.path.abspath(path))
    if HOOKS.loader is not None:
        return HOOKS.loader(path)
    try:
        return astroid.MANAGER.ast_from_file(path, module_name_for_file(path), source=True)
    except Exception:  # unreadable or unparsable: the file's own lint run reports it
        return None


class Resolver:
    """Names to qualified names, and qualified names to project definitions."""

    def __init__(self):
        self._qualnames: Dict[nodes.NodeNG, Optional[str]] = {}
        self._modules: Dict[str, nodes.Module] = {}  # absolute path -> the module object to use
        self._factory_classes: Dict[nodes.Call, Optional[nodes.ClassDef]] = {}
        self._outer_lookups: Dict[Tuple[nodes.NodeNG, str], tuple] = {}
        self._resolving: set = set()  # definitions being looked up (import cycles end here)

    def register_module(self, module: nodes.Module) -> None:
        """Use this very module object when resolution leads back to its file (the file being linted)."""
        if module.file:
            self._modules[os.path.abspath(module.file)] = module

    def has_module(self, path: str) -> bool:
        """Whether `module_at(path)` answers without building anything."""
        key = os.path.abspath(path)
        return key in self._modules or (HOOKS.built is not None and HOOKS.built(key))

    def module_at(self, path: str) -> Optional[nodes.Module]:
        key = os.path.abspath(path)
        if key not in self._modules:
            loaded = load_module(path)
            if loaded is None:
                return None
            self._modules[key] = loaded
        return self._modules[key]

    # -- names -----------------------------------------------------------------------
    def qualname(self, node, _depth: int = 0) -> Optional[str]:
        """'numpy.where' for `np.where` after `import numpy as np`; None if unknown."""
        if _depth > _MAX_ALIAS_DEPTH or not isinstance(node, (nodes.Name, nodes.Attribute)):
            return None
        if _depth == 0:  # every rule asks about the same few thousand names: answer each once
            if node not in self._qualnames:
                self._qualnames[node] = self._qualname(node, 0)
            return self._qualnames[node]
        return self._qualname(node, _depth)

    def _qualname(self, node, depth: int) -> Optional[str]:
        if isinstance(node, nodes.Name):
            return self._name_qualname(node, node.name, depth)
        base = self.qualname(node.expr, depth + 1)
        return f"{base}.{node.attrname}" if base else None

    def lookup(self, node, name: str) -> tuple:
        """`node.lookup(name)`, answered once per function (or once per module) for names bound
        outside the function.

        astroid filters assignments by the looking node's position only within the node's
        own frame; a name a function does not bind (`ops`, `nn`, `np`) has the same answer
        everywhere in that function, and graph code asks about such names thousands of times.
        When the name is bound only by plain top-level statements of the module, the answer is
        the same in every function of the module."""
        scope = node.scope()
        if (not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)) or name in scope.locals
                or _is_default(node, scope) or node.statement() is scope):
            return inner_lookup(node, name)  # a local name, or a default, decorator or annotation
        key = (scope, name)
        found = self._outer_lookups.get(key)
        if found is None:
            module_key = _module_wide_key(scope, name)
            found = self._outer_lookups.get(module_key) if module_key is not None else None
            if found is None:
                found = node.lookup(name)
                if module_key is not None:
                    self._outer_lookups[module_key] = found
            # `global x` in the function puts its own assignments among the module's, and
            # those are filtered by position: such a name is looked up every time
            if module_key is not None or not any(scope.parent_of(a) for a in scope.root().locals.get(name, ())):
                self._outer_lookups[key] = found
        return found

    def _name_qualname(self, node, name: str, depth: int) -> Optional[str]:
        if _only_a_parameter_or_value(node, name):
            return None  # what every lookup of it would end in, without the lookup
        try:
            scope, assigns = self.lookup(node, name)
        except Exception:
            return None
        if not assigns:
            return None
        if isinstance(scope, nodes.Module) and scope.name == "builtins":
            return f"builtins.{name}"
        assign = assigns[-1]
        if isinstance(assign, (nodes.Import, nodes.ImportFrom)):
            return imported_qualname(assign, name)
        if isinstance(assign, (nodes.ClassDef, nodes.FunctionDef)):
            return assign.qname()
        if isinstance(assign, nodes.AssignName) and len(assigns) == 1:
            # a module- or function-level alias: `P = ops.operations`, `Cell = nn.Cell`
            parent = assign.parent
            if isinstance(parent, nodes.Assign) and isinstance(parent.value, (nodes.Name, nodes.Attribute)):
                if len(parent.targets) == 1 and isinstance(parent.targets[0], nodes.AssignName):
                    return self.qualname(parent.value, depth + 1)
        return None

    # -- definitions -------------------------------------------------------------------
    def definition(self, qualname: str, from_file: Optional[str], _depth: int = 0):
        """The ClassDef/FunctionDef a project qualified name names, following re-exports."""
        if not qualname or _depth > _MAX_ALIAS_DEPTH or not from_file:
            return None
        directory = os.path.dirname(os.path.abspath(from_file))
        key = (qualname, directory)
        if key in self._resolving:
            return None  # an import cycle: the name is defined, if anywhere, by another binding
        self._resolving.add(key)
        try:
            return self._project_definition(qualname.split("."), directory, _depth)
        finally:
            self._resolving.discard(key)

    def _project_definition(self, parts: List[str], directory: str, depth: int, member=None):
        # the longest prefix that is a project module
        for cut in range(len(parts) - 1, 0, -1):
            path = find_project_file(".".join(parts[:cut]), directory)
            if path is None or not os.path.isfile(path):  # (a namespace package has no members of its own)
                continue
            module = self.module_at(path)
            if module is None:
                return None
            return (member or self._member)(module, parts[cut:], depth)
        return None

    def assigned_value(self, expr) -> Optional[nodes.NodeNG]:
        """The one value a name is assigned: a local or module-level `name = value`, or a
        project module's top-level one reached through imports and re-exports (`ACT2FN` after
        `from .activations import ACT2FN`, `activations.ACT2FN`); None when the name has
        another binding, or more than one."""
        if isinstance(expr, nodes.Name):
            values = assigned_values(expr)
            if values is not None:
                return values[0] if len(values) == 1 else None
        qn = self.qualname(expr)
        file = expr.root().file
        if qn is None or self.kind(qn, file) != PROJECT:
            return None
        return self._value(qn, file, 0)

    def _value(self, qualname: str, from_file: Optional[str], depth: int) -> Optional[nodes.NodeNG]:
        if depth > _MAX_ALIAS_DEPTH or not from_file:
            return None
        directory = os.path.dirname(os.path.abspath(from_file))
        key = ("value", qualname, directory)
        if key in self._resolving:
            return None  # an import cycle
        self._resolving.add(key)
        try:
            return self._project_definition(qualname.split("."), directory, depth, self._member_value)
        finally:
            self._resolving.discard(key)

    def _member_value(self, module: nodes.Module, names: List[str], depth: int) -> Optional[nodes.NodeNG]:
        bindings = module.locals.get(names[0]) if len(names) == 1 else None
        if not bindings or len(bindings) != 1:
            return None
        binding = bindings[0]
        if isinstance(binding, (nodes.Import, nodes.ImportFrom)):
            qn = imported_qualname(binding, names[0])
            return self._value(qn, binding.root().file, depth + 1) if qn else None
        parent = binding.parent
        if isinstance(binding, nodes.AssignName) and isinstance(parent, nodes.Assign) \
                and len(parent.targets) == 1:
            return parent.value
        return None

    def member(self, scope, names: List[str]):
        """The ClassDef/FunctionDef `names` (a dotted path) names inside a module."""
        return self._member(scope, names, 0)

    def _member(self, scope, names: List[str], depth: int):
        current = scope
        for name in names:
            current = self._bound_definition(current, name, depth)
            if current is None:
                return None
        return current if isinstance(current, (nodes.ClassDef, nodes.FunctionDef)) else None

    def _bound_definition(self, scope, name: str, depth: int):
        """What `name` names in a module or class body, following imports and aliases.

        The last binding wins, except a star import that leads nowhere (the star-imported
        module does not define the name, or only re-imports it from here: a package
        `__init__` doing `from .common import *` then `from .layers import *`, where layers
        imports the name back from the package): then the binding before it is the one Python
        ends up with."""
        found = scope.locals.get(name) if hasattr(scope, "locals") else None
        if not found and isinstance(scope, nodes.Module):
            found = _star_imports(scope)  # the names astroid could not list (a namespace package's module)
        for target in reversed(found or ()):
            definition = self._binding_definition(target, name, depth)
            if definition is not None or not _is_star_import(target):
                return definition
        return None

    def _binding_definition(self, target, name: str, depth: int):
        file = target.root().file
        if isinstance(target, (nodes.Import, nodes.ImportFrom)):
            qn = imported_qualname(target, name)
            return self.definition(qn, file, depth + 1) if qn else None
        if isinstance(target, nodes.AssignName):
            parent = target.parent
            made = self.factory_class(target)
            if made is not None:
                return made
            if isinstance(parent, nodes.Assign) and isinstance(parent.value, (nodes.Name, nodes.Attribute)):
                qn = self.qualname(parent.value, depth + 1)
                return self.definition(qn, file, depth + 1) if qn else None
            return None
        return target

    def resolve_callable(self, func_expr):
        """The project FunctionDef/ClassDef a call's function expression names, if any."""
        if isinstance(func_expr, nodes.Name):
            try:
                _, assigns = self.lookup(func_expr, func_expr.name)
            except Exception:
                return None
            if assigns:
                target = assigns[-1]
                if isinstance(target, (nodes.FunctionDef, nodes.ClassDef)):
                    return target
                if isinstance(target, nodes.AssignName) and len(assigns) == 1:
                    value = getattr(target.parent, "value", None)
                    if isinstance(value, nodes.Lambda):
                        return value
                    made = self.factory_class(target)
                    if made is not None:
                        return made
        qn = self.qualname(func_expr)
        if qn is None or self.kind(qn, func_expr.root().file) != PROJECT:
            return None
        return self.definition(qn, func_expr.root().file)

    def factory_class(self, assign_name) -> Optional[nodes.ClassDef]:
        """The class `P = namedtuple("P", ...)` (or typing.NamedTuple's call form) binds to P.

        astroid builds that class from the factory's arguments (inference into the
        standard library only); the same ClassDef is returned for every use."""
        parent = getattr(assign_name, "parent", None)
        if not (isinstance(parent, nodes.Assign) and isinstance(parent.value, nodes.Call)):
            return None
        call = parent.value
        if call not in self._factory_classes:
            made = None
            factory = self.qualname(call.func)
            if factory in CLASS_FACTORIES:
                # astroid's own namedtuple builders, called directly: the command builds its
                # trees without astroid's transforms, so inference tips are not registered
                from astroid.brain import brain_namedtuple_enum as brain

                build = brain.infer_named_tuple if factory == "collections.namedtuple" else \
                    brain.infer_typing_namedtuple
                try:
                    made = next(iter(build(call)), None)
                except Exception:  # the factory's arguments are not literal: the class stays unknown
                    made = None
            self._factory_classes[call] = made if isinstance(made, nodes.ClassDef) else None
        return self._factory_classes[call]

    # -- classification ----------------------------------------------------------------
    def kind(self, qualname: str, from_file: Optional[str] = None) -> str:
        top = qualname.split(".")[0]
        kind = kind_of_top_level(top)
        if kind != UNKNOWN:
            return kind
        if from_file and find_project_file(top, os.path.dirname(os.path.abspath(from_file))):
            return PROJECT
        return UNKNOWN


# Top-level statements whose bindings astroid's lookup keeps or drops the same way from
# anywhere inside a function (no branch, loop or handler for it to be inside or outside of).
_PLAIN_BINDINGS = (nodes.Import, nodes.ImportFrom, nodes.Assign, nodes.AnnAssign, nodes.ClassDef, nodes.FunctionDef)


def _module_wide_key(function, name: str) -> Optional[tuple]:
    """(module, name) when a name used inside `function` (and not bound there) resolves the same
    from every function of the module: no enclosing function binds it and the module binds it
    only in plain top-level statements (or not at all: a builtin)."""
    scope = function.parent.scope() if function.parent is not None else None
    while scope is not None and not isinstance(scope, nodes.Module):
        if not isinstance(scope, nodes.ClassDef) and name in scope.locals:
            return None  # a closure variable: filtered by the inner function's position
        scope = scope.parent.scope() if scope.parent is not None else None
    if scope is None:
        return None
    for binding in scope.locals.get(name, ()):
        statement = binding.statement() if isinstance(binding, nodes.AssignName) else binding
        if not isinstance(statement, _PLAIN_BINDINGS) or statement.parent is not scope:
            return None
        if isinstance(binding, nodes.AssignName) and binding.parent is not statement:
            return None  # `a, b = ...` or `x: int = ...` nested targets: keep astroid's answer
    return (scope, name)


def inner_lookup(node, name: str) -> tuple:
    """`node.lookup(name)`.  In a buffer (mslint.project.module_memo), an answer found inside
    the node's top-level statement (a local of its function, class or comprehension) is kept on
    that statement: it depends on nothing else, and the next build may reuse the statement."""
    statement = buffer_statement(node)
    if statement is None:
        return node.lookup(name)
    answers = memo(statement, "lookups", dict)
    key = (node, name)
    found = answers.get(key)
    if found is None:
        found = node.lookup(name)
        if not isinstance(found[0], nodes.Module):  # (the module's bindings may change under it)
            answers[key] = found
    return found


def _is_default(node, function) -> bool:
    """A parameter's default value itself: astroid looks it up from the enclosing scope."""
    return node in function.args.defaults or node in (function.args.kw_defaults or ())


def _only_a_parameter_or_value(node, name: str) -> bool:
    """Whether a name is local to its function and bound only by parameters (at least one) and
    assignments that are not aliases: its qualified name is then None wherever it is used.

    (A parameter binding means astroid's lookup never comes back empty and never leaves the
    function; graph code asks about `x` in `x.sum()` thousands of times.)"""
    scope = node.scope()
    if not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        return False
    bindings = scope.locals.get(name)
    if not bindings or _is_default(node, scope):
        return False
    parameter = False
    for binding in bindings:
        if not isinstance(binding, nodes.AssignName):
            return False
        parent = binding.parent
        if isinstance(parent, nodes.Arguments):
            parameter = True
        elif isinstance(parent, nodes.Assign) and isinstance(parent.value, (nodes.Name, nodes.Attribute)):
            return False  # maybe an alias (`P = ops.operations`)
    return parameter


def assigned_values(name: nodes.Name) -> Optional[List[nodes.NodeNG]]:
    """The values bound to a name by plain `name = value` statements, in source order;
    None when some binding is anything else (a parameter, a loop target, an import) or
    the name cannot be looked up."""
    try:
        _, assigns = name.lookup(name.name)
    except Exception:  # astroid lookup failure: unknown binding
        return None
    values = []
    for assign in assigns:
        parent = assign.parent
        if not (isinstance(assign, nodes.AssignName) and isinstance(parent, nodes.Assign)):
            return None
        values.append(parent.value)
    return values


def imported_qualname(node, name: str) -> Optional[str]:
    """The qualified name an import statement binds to `name`."""
    if isinstance(node, nodes.Import):
        for modname, asname in node.names:
            if asname == name:
                return modname
            if asname is None and modname.split(".")[0] == name:
                return name
        return None
    try:
        real = node.real_name(name)
    except Exception:
        real = name
    module = absolute_import_name(node)
    return f"{module}.{real}" if module else None


def absolute_import_name(node: nodes.ImportFrom) -> Optional[str]:
    """The absolute module name of an ImportFrom. A relative import is resolved from the
    importing file's place on disk, not from the module name a front-end gave the file (the
    command and pylint name a module of a namespace package differently, and astroid cannot
    resolve `from .base import X` in a module it named `net`)."""
    if not node.level:
        return node.modname
    file = node.root().file
    if not file:
        try:
            return node.root().relative_to_absolute_name(node.modname, node.level)
        except Exception:  # too many levels for the module's name
            return None
    package = package_name(_ancestor(os.path.dirname(os.path.abspath(file)), node.level - 1))
    if package is None:
        return None
    return f"{package}.{node.modname}" if node.modname else package


def _is_star_import(node) -> bool:
    return isinstance(node, nodes.ImportFrom) and any(name == "*" for name, _ in node.names)


def _star_imports(module: nodes.Module) -> List[nodes.ImportFrom]:
    return [statement for statement in module.body if _is_star_import(statement)]
