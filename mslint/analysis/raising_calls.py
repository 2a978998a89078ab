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

What MindSpore does decides three more limits (an adversarial review found each; checked on
MindSpore 2.10, tests/test_raising_calls.py):
- the `raise` must happen while compiling: an exception that formats a graph value
  (`raise ValueError(f"bad {x}")` with a tensor `x`) is raised at run time, and what follows
  the call is compiled;
- the function called must be the one Python calls: one unconditional top-level definition,
  reached through unconditional imports (not a `try: from lib import f except ImportError:`
  fallback, a definition under `if`, or a module with a star import);
- a module constant must have one binding that nothing else can change: no star import, no
  `global`, no write through `globals()`, and no `module.NAME = ...` anywhere in the project
  (mslint.project.module_constants, which MS704 and MS701 share).
The caller (lattice.py) also keeps what follows a call under a condition on graph values,
which STRICT compiles whatever the call raises.
"""
from __future__ import annotations

import re
from typing import Dict, Optional

from astroid import nodes
from astroid.exceptions import AstroidError

from mslint.project import module_constants, resolve
from mslint.project.module_constants import IMPORT_DEPTH, has_star_import, project_module, top_level

_STEP_LIMIT = 400  # expressions and statements evaluated per call, loops included


class _GiveUp(Exception):
    """The run reached something it does not evaluate exactly."""


class _Raised(Exception):
    """The run reached a `raise`: the call always raises."""


class _Returned(Exception):
    """The run reached a `return`: the call may return."""


class _Unknown:
    """An argument that is not a literal: reading it ends the run."""


_UNKNOWN = _Unknown()  # a compile-time constant whose value is not known here
_VARIABLE = _Unknown()  # a graph value (or of unknown kind): an exception formatting it is raised at run time


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


def always_raises(call: nodes.Call, resolver: resolve.Resolver, constant: Optional[tuple] = None) -> bool:
    """True when calling `call`'s project function with the call's literal arguments
    certainly reaches a `raise` before any `return`, and raises while MindSpore compiles.

    `constant` says, per argument (positional ones, then keywords), whether it is a
    compile-time constant; by default none is."""
    target = resolver.resolve_callable(call.func)
    if not isinstance(target, nodes.FunctionDef) or isinstance(target, nodes.AsyncFunctionDef) \
            or target.is_generator() or target.decorators is not None:
        return False  # (calling a coroutine or generator function runs none of its body)
    if not isinstance(target.parent, nodes.Module) or not _has_raise(target):
        return False  # a method, or a function nested in another
    try:
        if _sole_definition(call.func, resolver) is not target:
            return False
        env = _bind(target, call, constant or ())
        _Run(resolver, target, env).block(target.body)
    except _Raised:
        return True
    except (_GiveUp, _Returned, RecursionError, AstroidError):
        return False
    return False  # fell off the end: returned None


def _sole_definition(func, resolver: resolve.Resolver) -> Optional[nodes.FunctionDef]:
    """The function `func` (a name, or `module.name`) certainly calls: every binding on the way
    is the only one of its name in its module and a top-level statement of it; None when any
    is not (a definition under `if`, a `try`/`except ImportError` fallback, a star import)."""
    if isinstance(func, nodes.Name):
        scope, bindings = resolver.lookup(func, func.name)
        if not isinstance(scope, nodes.Module) or scope.name == "builtins":
            return None
        return _follow(scope, func.name, bindings, resolver, 0)
    if isinstance(func, nodes.Attribute):  # `utils.deprecate(...)`
        module = module_constants.bound_module(func.expr, resolver)
        if module is None:
            return None
        return _follow(module, func.attrname, module.locals.get(func.attrname), resolver, 1)
    return None


def _follow(module: nodes.Module, name: str, bindings, resolver: resolve.Resolver, depth: int):
    if depth > IMPORT_DEPTH or not bindings or len(bindings) != 1 or has_star_import(module):
        return None
    binding = bindings[0]
    if not top_level(binding, module):
        return None
    if isinstance(binding, nodes.FunctionDef):
        return binding
    if isinstance(binding, nodes.ImportFrom):
        source = project_module(binding, resolver)
        if source is None:
            return None
        real = binding.real_name(name)
        return _follow(source, real, source.locals.get(real), resolver, depth + 1)
    return None


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


def _argument(node, constant: bool) -> object:
    value = _literal(node)
    return _VARIABLE if value is _UNKNOWN and not constant else value


def _bind(function: nodes.FunctionDef, call: nodes.Call, constant: tuple) -> Dict[str, object]:
    """Parameters to the call's literal arguments (or _UNKNOWN, _VARIABLE), Python's binding rules."""
    if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
        raise _GiveUp
    args = function.args
    positional = [a.name for a in (args.posonlyargs or []) + (args.args or [])]
    env: Dict[str, object] = {}
    flags = list(constant) + [False] * (len(call.args) + len(call.keywords or ()) - len(constant))
    values = [_argument(arg, flag) for arg, flag in zip(call.args, flags)]
    for name, value in zip(positional, values):
        env[name] = value
    extra = values[len(positional):]
    if extra and not args.vararg:
        raise _GiveUp  # a TypeError at the call: not the raise this looks for
    if args.vararg:
        env[args.vararg] = tuple(extra)
    keyword_only = [a.name for a in args.kwonlyargs or []]
    by_keyword = [a.name for a in args.args or []] + keyword_only
    for keyword, flag in zip(call.keywords or (), flags[len(call.args):]):
        if keyword.arg in env or keyword.arg not in by_keyword:
            raise _GiveUp  # a TypeError, or an argument only **kwargs takes
        env[keyword.arg] = _argument(keyword.value, flag)
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
            # whatever the exception evaluates to, the call raises; MindSpore raises it while
            # compiling unless it formats a graph value, which makes it a raise at run time
            for child in node.get_children():
                for name in child.nodes_of_class(nodes.Name):
                    if _holds(self.env.get(name.name), _VARIABLE):
                        raise _GiveUp
            raise _Raised
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
                self.env[alias or name] = _constant(module_constants.imported_constant(
                    node, alias or name, self.resolver, _is_literal))
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
        if isinstance(result, _Unknown):
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
            if isinstance(left, _Release) and isinstance(right, _Release) and not operator.startswith("is"):
                a, b = left.key(), right.key()
            elif _exact(left) and _exact(right) and operator in _COMPARE:
                a, b = left, right
            else:
                raise _GiveUp
            if operator.startswith("is") and not any(v is None or isinstance(v, bool) for v in (a, b)):
                raise _GiveUp  # `"np" is "np"`: CPython's answer depends on interning
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
        return _module_value(bindings[0], node.name, self.resolver)


def _holds(value, sentinel) -> bool:
    if value is sentinel:
        return True
    return isinstance(value, tuple) and any(_holds(element, sentinel) for element in value)


def _exact(value) -> bool:
    """A plain value Python compares as this interpreter does (no unknown part, no version
    object, which has no equality of its own here)."""
    if isinstance(value, tuple):
        return all(_exact(element) for element in value)
    return isinstance(value, _PLAIN)


def _builtin_types(node, resolver: resolve.Resolver) -> tuple:
    elements = node.elts if isinstance(node, nodes.Tuple) else [node]
    types = []
    for element in elements:
        name = resolver.qualname(element) if isinstance(element, (nodes.Name, nodes.Attribute)) else None
        if name not in _BUILTIN_TYPES:
            raise _GiveUp
        types.append(_BUILTIN_TYPES[name])
    return tuple(types)


def _module_value(binding, name: str, resolver: resolve.Resolver) -> object:
    """A module's only binding of `name`: a literal assigned once that nothing can rebind, or an
    import of such a name from another project module (mslint.project.module_constants)."""
    return _constant(module_constants.sole_constant(binding, name, resolver, _is_literal))


def _is_literal(node) -> bool:
    return _literal(node) is not _UNKNOWN


def _constant(value) -> object:
    if value is None:
        raise _GiveUp
    return _literal(value)
