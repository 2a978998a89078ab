"""Calls that always raise with the constants they are given.

Ports of Hugging Face libraries guard a deprecated branch with a call such as
`deprecate("output_type=='np'", "0.34.0", message)`, which raises once the library's own
`__version__` has reached that version.  MindSpore compiles such a call with its constant
arguments and stops there (checked on MindSpore 2.10: the ValueError, in STRICT and LAX),
so what follows the call in its block is never compiled, and findings there are false.

`always_raises` runs the called project function on the call's literal arguments with a
deliberately tiny concrete interpreter: literals, tuples, local names, a module constant
(`__version__`, also through `from .. import __version__`), `isinstance`, `len`,
comparisons, `packaging.version.parse` of plain release strings, `if`, `for` over a tuple,
`return` and `raise`.  Anything else, or any value it cannot know, ends the run with no
answer, so a call is taken to raise only when every step that leads to the `raise` is exact.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Optional

from astroid import nodes
from astroid.exceptions import AstroidError

from mslint import resolve
from mslint.module_files import find_project_file, unrecorded

_STEP_LIMIT = 400  # expressions and statements evaluated per call, loops included
_IMPORT_DEPTH = 3  # `from .version import __version__` chains followed


class _GiveUp(Exception):
    """The run reached something it does not evaluate exactly."""


class _Raised(Exception):
    """The run reached a `raise`: the call always raises."""


class _Returned(Exception):
    """The run reached a `return`: the call may return."""


class _Unknown:
    """An argument that is not a literal: reading it ends the run."""


_UNKNOWN = _Unknown()


class _Release:
    """A plain PEP 440 release ("0.35.1"): packaging compares these by their numbers, trailing
    zeros ignored.  Versions with pre, post, dev or local parts are kept only for their
    `base_version`; comparing them ends the run."""

    __slots__ = ("numbers", "plain")

    def __init__(self, numbers: tuple, plain: bool):
        self.numbers = numbers
        self.plain = plain

    @property
    def base_version(self) -> str:
        return ".".join(str(n) for n in self.numbers)

    def key(self) -> tuple:
        if not self.plain:
            raise _GiveUp
        numbers = list(self.numbers)
        while numbers and numbers[-1] == 0:
            numbers.pop()
        return tuple(numbers)


_VERSION = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?P<suffix>(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
    r"(?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?"
    r"(?:[-_.]?dev[-_.]?\d*)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?)\s*$",
    re.IGNORECASE)


def _parse_version(text) -> _Release:
    if not isinstance(text, str):
        raise _GiveUp
    match = _VERSION.match(text)
    if match is None:  # an epoch, or not PEP 440: packaging's answer is not modelled
        raise _GiveUp
    numbers = tuple(int(part) for part in match.group("release").split("."))
    return _Release(numbers, plain=not match.group("suffix"))


_VERSION_PARSERS = frozenset({"packaging.version.parse", "packaging.version.Version"})
_BUILTIN_TYPES = {"builtins.tuple": tuple, "builtins.str": str, "builtins.int": int, "builtins.float": float,
                  "builtins.bool": bool, "builtins.list": list, "builtins.dict": dict}
_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "is": lambda a, b: a is b, "is not": lambda a, b: a is not b,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}
_PLAIN = (str, int, float, bool, type(None), tuple)


def always_raises(call: nodes.Call, resolver: resolve.Resolver) -> bool:
    """True when calling `call`'s project function with the call's literal arguments
    certainly reaches a `raise` before any `return`."""
    target = resolver.resolve_callable(call.func)
    if not isinstance(target, nodes.FunctionDef) or isinstance(target, nodes.AsyncFunctionDef) \
            or target.is_generator() or target.decorators is not None:
        return False  # (calling a coroutine or generator function runs none of its body)
    if isinstance(target.parent, nodes.ClassDef) or not _has_raise(target):
        return False
    try:
        env = _bind(target, call)
        _Run(resolver, target, env).block(target.body)
    except _Raised:
        return True
    except (_GiveUp, _Returned, RecursionError, AstroidError):
        return False
    return False  # fell off the end: returned None


def _has_raise(function: nodes.FunctionDef) -> bool:
    return any(True for _ in function.nodes_of_class(nodes.Raise, skip_klass=(nodes.FunctionDef, nodes.ClassDef)))


def _literal(node) -> object:
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.Tuple):
        return tuple(_literal(element) for element in node.elts)
    if isinstance(node, nodes.UnaryOp) and node.op == "-" and isinstance(node.operand, nodes.Const) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    return _UNKNOWN


def _bind(function: nodes.FunctionDef, call: nodes.Call) -> Dict[str, object]:
    """Parameters to the call's literal arguments (or _UNKNOWN), Python's binding rules."""
    if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
        raise _GiveUp
    args = function.args
    positional = [a.name for a in (args.posonlyargs or []) + (args.args or [])]
    env: Dict[str, object] = {}
    values = [_literal(arg) for arg in call.args]
    for name, value in zip(positional, values):
        env[name] = value
    extra = values[len(positional):]
    if extra and not args.vararg:
        raise _GiveUp  # a TypeError at the call: not the raise this looks for
    if args.vararg:
        env[args.vararg] = tuple(extra)
    keyword_only = [a.name for a in args.kwonlyargs or []]
    by_keyword = [a.name for a in args.args or []] + keyword_only
    for keyword in call.keywords or ():
        if keyword.arg in env or keyword.arg not in by_keyword:
            raise _GiveUp  # a TypeError, or an argument only **kwargs takes
        env[keyword.arg] = _literal(keyword.value)
    for name in positional + keyword_only:
        if name not in env:
            try:
                default = args.default_value(name)
            except Exception:  # noqa: BLE001 - astroid: no default, the call is a TypeError
                raise _GiveUp from None
            env[name] = _literal(default)
    if args.kwarg:
        env[args.kwarg] = {}
    return env


class _Run:
    """One concrete run of a function body."""

    def __init__(self, resolver: resolve.Resolver, function: nodes.FunctionDef, env: Dict[str, object]):
        self.resolver = resolver
        self.function = function
        self.env = env
        self.steps = 0

    def _step(self) -> None:
        self.steps += 1
        if self.steps > _STEP_LIMIT:
            raise _GiveUp

    # -- statements --------------------------------------------------------------------
    def block(self, body) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node) -> None:
        self._step()
        if isinstance(node, nodes.Expr) and isinstance(node.value, nodes.Const):
            return  # a docstring
        if isinstance(node, nodes.Pass):
            return
        if isinstance(node, nodes.Raise):
            raise _Raised  # whatever the exception expression evaluates to, the call raises
        if isinstance(node, nodes.Return):
            raise _Returned
        if isinstance(node, nodes.Assign):
            value = self.value(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, nodes.If):
            self.block(node.body if self.truth(self.value(node.test)) else node.orelse)
        elif isinstance(node, nodes.For) and not node.orelse:
            sequence = self.value(node.iter)
            if not isinstance(sequence, tuple):
                raise _GiveUp
            for element in sequence:
                self.assign(node.target, element)
                self.block(node.body)
        elif isinstance(node, nodes.ImportFrom):
            for name, alias in node.names:
                self.env[alias or name] = _imported_value(node, name, self.resolver, 0)
        else:
            raise _GiveUp

    def assign(self, target, value) -> None:
        if isinstance(target, nodes.AssignName):
            self.env[target.name] = value
        elif isinstance(target, nodes.Tuple) and not any(isinstance(e, nodes.Starred) for e in target.elts):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise _GiveUp
            for element, item in zip(target.elts, value):
                self.assign(element, item)
        else:
            raise _GiveUp

    # -- expressions -------------------------------------------------------------------
    def value(self, node) -> object:
        self._step()
        result = self._compute(node)
        if result is _UNKNOWN:
            raise _GiveUp
        return result

    def _compute(self, node) -> object:
        if isinstance(node, nodes.Const):
            return node.value
        if isinstance(node, nodes.Name):
            return self.name(node)
        if isinstance(node, nodes.Tuple):
            return tuple(self.value(element) for element in node.elts)
        if isinstance(node, nodes.UnaryOp) and node.op == "not":
            return not self.truth(self.value(node.operand))
        if isinstance(node, nodes.BoolOp):
            return self._bool_op(node)
        if isinstance(node, nodes.Compare):
            return self._compare(node)
        if isinstance(node, nodes.Subscript):
            return self._subscript(node)
        if isinstance(node, nodes.Attribute):
            return self._attribute(node)
        if isinstance(node, nodes.Call):
            return self._call(node)
        raise _GiveUp

    def truth(self, value) -> bool:
        if not isinstance(value, _PLAIN):
            raise _GiveUp
        return bool(value)

    def _bool_op(self, node: nodes.BoolOp) -> object:
        result = None
        for operand in node.values:
            result = self.value(operand)
            if self.truth(result) == (node.op == "or"):
                return result
        return result

    def _compare(self, node: nodes.Compare) -> bool:
        left = self.value(node.left)
        for operator, right_node in node.ops:
            right = self.value(right_node)
            if isinstance(left, _Release) and isinstance(right, _Release):
                a, b = left.key(), right.key()
            elif isinstance(left, _PLAIN) and isinstance(right, _PLAIN) and operator in _COMPARE:
                a, b = left, right
            else:
                raise _GiveUp
            try:
                if not _COMPARE[operator](a, b):
                    return False
            except TypeError:  # "0.1" < 1: a TypeError raised here is not the raise looked for
                raise _GiveUp from None
            left = right
        return True

    def _subscript(self, node: nodes.Subscript) -> object:
        container = self.value(node.value)
        index = self.value(node.slice)
        if not isinstance(container, (tuple, str)) or not isinstance(index, int) or isinstance(index, bool):
            raise _GiveUp
        if not -len(container) <= index < len(container):
            raise _GiveUp
        return container[index]

    def _attribute(self, node: nodes.Attribute) -> object:
        base = self.value(node.expr)
        if isinstance(base, _Release) and node.attrname == "base_version":
            return base.base_version
        raise _GiveUp

    def _call(self, node: nodes.Call) -> object:
        if node.keywords:
            raise _GiveUp
        name = self.resolver.qualname(node.func) if isinstance(node.func, (nodes.Name, nodes.Attribute)) else None
        if isinstance(node.func, nodes.Name) and node.func.name in self.env:
            raise _GiveUp  # a local callable
        if name == "builtins.isinstance" and len(node.args) == 2:
            return isinstance(self.value(node.args[0]), _builtin_types(node.args[1], self.resolver))
        args = [self.value(arg) for arg in node.args]
        if name in _VERSION_PARSERS and len(args) == 1 \
                and self.resolver.kind(name, node.root().file) != resolve.PROJECT:  # not a project's own `packaging`
            return _parse_version(args[0])
        if name == "builtins.len" and len(args) == 1 and isinstance(args[0], (tuple, str)):
            return len(args[0])
        raise _GiveUp

    # -- names -------------------------------------------------------------------------
    def name(self, node: nodes.Name) -> object:
        if node.name in self.env:
            return self.env[node.name]
        try:
            scope, bindings = self.resolver.lookup(node, node.name)
        except Exception:  # noqa: BLE001 - astroid lookup failure
            raise _GiveUp from None
        if not isinstance(scope, nodes.Module) or len(bindings) != 1 or scope.name == "builtins":
            raise _GiveUp
        return _module_value(bindings[0], node.name, self.resolver, 0)


def _builtin_types(node, resolver: resolve.Resolver) -> tuple:
    elements = node.elts if isinstance(node, nodes.Tuple) else [node]
    types = []
    for element in elements:
        name = resolver.qualname(element) if isinstance(element, (nodes.Name, nodes.Attribute)) else None
        if name not in _BUILTIN_TYPES:
            raise _GiveUp
        types.append(_BUILTIN_TYPES[name])
    return tuple(types)


def _module_value(binding, name: str, resolver: resolve.Resolver, depth: int) -> object:
    """A module's only binding of `name`: a literal assigned once (and declared `global`
    nowhere), or an import of such a name from another project module."""
    if isinstance(binding, nodes.ImportFrom):
        return _imported_value(binding, name, resolver, depth)
    if not isinstance(binding, nodes.AssignName) or not isinstance(binding.parent, nodes.Assign) \
            or len(binding.parent.targets) != 1:
        raise _GiveUp
    module = binding.root()
    with unrecorded():  # the name was looked up; `global` statements are among what may bind it
        rebound = any(name in statement.names for statement in module.nodes_of_class(nodes.Global))
    value = _literal(binding.parent.value)
    if rebound or value is _UNKNOWN or not isinstance(binding.parent.parent, nodes.Module):
        raise _GiveUp
    return value


def _imported_value(node: nodes.ImportFrom, name: str, resolver: resolve.Resolver, depth: int) -> object:
    if depth > _IMPORT_DEPTH or name == "*" or not node.root().file:
        raise _GiveUp
    module_name = resolve.absolute_import_name(node)
    if not module_name:
        raise _GiveUp
    path = find_project_file(module_name, os.path.dirname(os.path.abspath(node.root().file)))
    if path is None or not os.path.isfile(path):
        raise _GiveUp  # a submodule, a library, or nothing the project has
    module = resolver.module_at(path)
    bindings = module.locals.get(node.real_name(name)) if module is not None else None
    if not bindings or len(bindings) != 1:
        raise _GiveUp
    return _module_value(bindings[0], node.real_name(name), resolver, depth + 1)
