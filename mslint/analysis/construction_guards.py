"""Whether a statement of a class's `__init__` runs for one construction of it.

`def __init__(self, keep_fp32=True): ... if keep_fp32: self.fc.to_float(ms.float32)` runs the
to_float for `Classifier()` and not for `Classifier(keep_fp32=False)`.  The tracker records
what `__init__` does once per class; a rule that reports it for a given instance asks here
whether the `if` tests around it, read with the literal arguments of that instance's call (or
the parameters' defaults), turn it off.  Anything the call does not spell as a literal (a
variable, `**kwargs`, a test on something else than a parameter) counts as run.
"""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

from astroid import nodes

from mslint.analysis import instances as inst
from mslint.analysis.literal_values import literal_of

_UNKNOWN = object()


def runs_for(statement: nodes.NodeNG, construction: Optional[inst.Instance]) -> bool:
    """False only when the construction's arguments decide that an enclosing `if` skips it."""
    if construction is None or construction.cls is None or construction.tracker is None \
            or not isinstance(construction.node, nodes.Call):
        return True
    init = inst.frame_of(statement)
    if not isinstance(init, nodes.FunctionDef) or init.name != "__init__" \
            or construction.tracker.classes.lookup_method(construction.cls, "__init__") is not init:
        return True  # a base class's __init__ gets its arguments from super().__init__(...), not from here
    for test, wanted in _enclosing_tests(statement, init):
        truth = _truth(test, construction.node, init, construction.tracker.resolver)
        if truth is not None and truth != wanted:
            return False
    return True


def _enclosing_tests(statement: nodes.NodeNG, init: nodes.FunctionDef) -> Iterator[Tuple[nodes.NodeNG, bool]]:
    """(test, the truth it must have for the statement to run) of each `if` around it in init."""
    node = statement
    while node is not init and node.parent is not None:
        parent = node.parent
        if isinstance(parent, nodes.If):
            if node in parent.body:
                yield parent.test, True
            elif node in parent.orelse:
                yield parent.test, False
        node = parent


def _truth(test: nodes.NodeNG, call: nodes.Call, init: nodes.FunctionDef, resolver) -> Optional[bool]:
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _truth(test.operand, call, init, resolver)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp):
        parts = [_truth(value, call, init, resolver) for value in test.values]
        decisive = test.op == "or"  # True decides an `or`, False decides an `and`
        if decisive in parts:
            return decisive
        return None if None in parts else not decisive
    value = _value(test, call, init, resolver)
    if value is not _UNKNOWN:
        return bool(value)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        operator, right = test.ops[0]
        left_value, right_value = _value(test.left, call, init, resolver), _value(right, call, init, resolver)
        if left_value is _UNKNOWN or right_value is _UNKNOWN:
            return None
        if operator == "is":
            return left_value is right_value
        if operator == "is not":
            return left_value is not right_value
        if operator == "==":
            return left_value == right_value
        if operator == "!=":
            return left_value != right_value
    return None


def _value(node: nodes.NodeNG, call: nodes.Call, init: nodes.FunctionDef, resolver) -> object:
    """The literal a parameter of init gets from the call (or its default), or a literal written
    in the test; _UNKNOWN otherwise."""
    if isinstance(node, nodes.Const):
        return node.value
    if not isinstance(node, nodes.Name) or not _is_parameter(node, init):
        return _UNKNOWN
    argument = _argument(call, init, node.name)
    if argument is _UNKNOWN:
        return _UNKNOWN
    if isinstance(argument, nodes.Const):
        return argument.value  # None too, which literal_of leaves out
    if isinstance(argument, nodes.Name) and _names_a_parameter(argument):
        return _UNKNOWN  # `Classifier(keep_fp32=flag)` in a factory: its caller decides, not flag's default
    found = literal_of(argument, resolver)
    return _UNKNOWN if found is None else found.value


def _is_parameter(name: nodes.Name, init: nodes.FunctionDef) -> bool:
    bindings = _bindings(name)
    return len(bindings) == 1 and bindings[0].parent is init.args


def _names_a_parameter(name: nodes.Name) -> bool:
    return any(isinstance(binding.parent, nodes.Arguments) for binding in _bindings(name))


def _bindings(name: nodes.Name) -> list:
    try:
        return list(name.lookup(name.name)[1])
    except Exception:  # noqa: BLE001 - astroid lookup failure: unknown binding
        return []


def _argument(call: nodes.Call, init: nodes.FunctionDef, name: str):
    """The node the call passes for parameter `name`: an argument, else the parameter's default."""
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return keyword.value
    positional = [a.name for a in init.args.args or ()][1:]  # without self
    if name in positional:
        index = positional.index(name)
        if any(isinstance(a, nodes.Starred) for a in call.args[:index + 1]):
            return _UNKNOWN
        if index < len(call.args):
            return call.args[index]
    if any(keyword.arg is None for keyword in call.keywords or ()) \
            or any(isinstance(a, nodes.Starred) for a in call.args):
        return _UNKNOWN  # **kwargs or *args may pass it
    try:
        return init.args.default_value(name)
    except Exception:  # noqa: BLE001 - astroid: the parameter has no default
        return _UNKNOWN
