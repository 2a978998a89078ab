"""The literals a parameter gets from the calls of its function in the module.

`def _bn(c, training): return nn.BatchNorm2d(c, momentum=0.1, use_batch_statistics=training)`
with every `_bn(c, False)` in the module: the layer's statistics are frozen for every layer it
builds.  `class Block(nn.Cell): def __init__(self, dim, dropout=0.1)` built as `Block(64)` and
`Block(64, dropout=0.2)`: the dropout rates are 0.1 and 0.2.  The calls are those of the
function (of the class, for `__init__`; `self.method(...)` inside the class, for a method) in
the module that defines it.  With no such call, the parameter's default stands for the value
(the module's own code never chooses another).  Anything the analysis cannot read (an
argument that is no literal, `*args`/`**kwargs` at a call, a parameter without a default left
out) makes the answer unknown: it never guesses between values.
"""
from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from mslint.analysis.literal_values import Literal, literal_of
from mslint.project.resolve import Resolver

_DEPTH = 3  # how many helpers deep an argument that is itself a parameter is followed


def parameter_literals(name: nodes.NodeNG, module_calls: List[nodes.Call], resolver: Resolver,
                       defaults: bool = True, depth: int = 0) -> Optional[List[Literal]]:
    """The literal each call in `module_calls` passes for the parameter `name` reads (its
    default for a call that leaves it out, unless `defaults` is False); the default alone when
    no call is found; None when `name` is not a parameter or some value is unknown."""
    found = _parameter(name)
    if found is None:
        return None
    function, parameter = found
    calls = [call for call in module_calls if _calls(call, function, resolver)]
    if not calls:
        default = _default(function, parameter, resolver)
        return [default] if default is not None and defaults else None
    offset = 1 if isinstance(function.parent, nodes.ClassDef) else 0
    positional = [a.name for a in function.args.args or ()][offset:]
    values = []
    for call in calls:
        if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
            return None
        argument = next((k.value for k in call.keywords or () if k.arg == parameter), None)
        if argument is None and parameter in positional and positional.index(parameter) < len(call.args):
            argument = call.args[positional.index(parameter)]
        if argument is None:
            value = _default(function, parameter, resolver) if defaults else None
        elif depth < _DEPTH and _parameter(argument) is not None:
            passed = parameter_literals(argument, module_calls, resolver, defaults, depth + 1)
            if passed is None:
                return None
            values.extend(passed)
            continue
        elif isinstance(argument, nodes.Const) and argument.value is None:
            value = Literal(None, "")  # (literal_of leaves None out: it means "the layer's default" there)
        else:
            value = literal_of(argument, resolver)
        if value is None:
            return None
        values.append(value)
    return values


def _parameter(name: nodes.NodeNG):
    """(function, parameter name) when `name` is a parameter of its enclosing function."""
    if not isinstance(name, nodes.Name):
        return None
    try:
        scope, bindings = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid lookup failure: not known to be a parameter
        return None
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Arguments) \
            or not isinstance(scope, nodes.FunctionDef):
        return None
    if name.name in (scope.args.vararg, scope.args.kwarg):
        return None
    return scope, name.name


def _calls(call: nodes.Call, function: nodes.FunctionDef, resolver: Resolver) -> bool:
    owner = function.parent
    if isinstance(owner, nodes.ClassDef):
        if function.name == "__init__":  # (the name first: resolving every call of a module is slow)
            called = call.func.name if isinstance(call.func, nodes.Name) else getattr(call.func, "attrname", None)
            return called == owner.name and resolver.resolve_callable(call.func) is owner
        func = call.func  # self.method(...) inside the class
        return isinstance(func, nodes.Attribute) and func.attrname == function.name \
            and isinstance(func.expr, nodes.Name) and func.expr.name == "self" \
            and call.frame().parent is owner
    return isinstance(call.func, nodes.Name) and call.func.name == function.name \
        and resolver.resolve_callable(call.func) is function


def _default(function: nodes.FunctionDef, parameter: str, resolver: Resolver) -> Optional[Literal]:
    try:
        default = function.args.default_value(parameter)
    except Exception:  # noqa: BLE001 - astroid: the parameter has no default
        return None
    found = literal_of(default, resolver)
    return Literal(found.value, f"the default of the parameter '{parameter}'") if found is not None else None
