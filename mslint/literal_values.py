"""The literal behind an argument written as a name: what a layer's constructor really gets.

Rules that read constructor arguments (a BatchNorm momentum, a conv padding) see
`momentum=BN_MOMENTUM` or `padding=padding` as often as a number.  `literal_of` follows
such a name to a literal when the code says which one: a single assignment (module
constant or local), a parameter's default (the value when the caller leaves it out), or a
class attribute read through `self`.  It never guesses between several bindings.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from astroid import nodes

from mslint.resolve import assigned_values

Number = Union[int, float]


class Literal(NamedTuple):
    value: object  # int, float, str or bool
    origin: str  # "" when written at the call; else where it comes from, for the message

    @property
    def number(self) -> Optional[Number]:
        value = self.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def literal_of(node: Optional[nodes.NodeNG], depth: int = 0) -> Optional[Literal]:
    if node is None or depth > 4:
        return None
    written = _written_literal(node)
    if written is not None:
        return Literal(written, "")
    if isinstance(node, nodes.Name):
        return _name_literal(node, depth)
    if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self":
        return _class_attribute_literal(node, depth)
    return None


def number(node) -> Optional[Number]:
    """The int or float a node spells (`0.1`, `-1`); None for anything else (a bool too)."""
    if isinstance(node, nodes.Const) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        value = number(node.operand)
        return -value if value is not None else None
    return None


def _written_literal(node) -> object:
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.UnaryOp) and node.op == "-" and isinstance(node.operand, nodes.Const) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    return None


def _name_literal(node: nodes.Name, depth: int) -> Optional[Literal]:
    values = assigned_values(node)
    if values is not None:
        if len(values) != 1:
            return None
        found = literal_of(values[0], depth + 1)
        if found is None:
            return None
        return Literal(found.value, found.origin or f"{node.name} = {values[0].as_string()}, line {values[0].lineno}")
    try:
        _, bindings = node.lookup(node.name)
    except Exception:  # noqa: BLE001 - astroid lookup failure: unknown binding
        return None
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Arguments):
        return None
    function = bindings[0].parent.parent
    try:
        default = function.args.default_value(node.name)
    except Exception:  # noqa: BLE001 - astroid: the parameter has no default
        return None
    written = _written_literal(default)
    if written is None:  # no default, an expression, or None (the layer's own default then applies)
        return None
    return Literal(written, f"the default of the parameter '{node.name}', line {default.lineno}")


def _class_attribute_literal(node: nodes.Attribute, depth: int) -> Optional[Literal]:
    cls = node.frame().parent.frame() if isinstance(node.frame(), nodes.FunctionDef) else None
    if not isinstance(cls, nodes.ClassDef):
        return None
    assigned = [n for n in cls.body if isinstance(n, nodes.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], nodes.AssignName) and n.targets[0].name == node.attrname]
    if len(assigned) != 1 or _assigned_on_self(cls, node.attrname):
        return None
    written = _written_literal(assigned[0].value)
    if written is None:
        return None
    return Literal(written, f"{cls.name}.{node.attrname} = {assigned[0].value.as_string()}, line {assigned[0].lineno}")


def _assigned_on_self(cls: nodes.ClassDef, name: str) -> bool:
    """`self.name = ...` anywhere in the class: the class attribute is not the only value."""
    return any(isinstance(n, nodes.AssignAttr) and n.attrname == name and isinstance(n.expr, nodes.Name)
               and n.expr.name == "self" for n in cls.nodes_of_class(nodes.AssignAttr))
