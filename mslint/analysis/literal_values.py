"""The literal behind an argument written as a name: what a layer's constructor really gets.

Rules that read constructor arguments (a BatchNorm momentum, a conv padding) see
`momentum=BN_MOMENTUM` or `padding=padding` as often as a number.  `literal_of` follows
such a name to a literal when the code says which one: a local assigned once, a module
constant nothing can rebind, also one imported from the project's `config.py` (`from .config
import BN_MOMENTUM`, `config.BN_MOMENTUM`; mslint.project.module_constants decides), a parameter's
default (the value when the caller leaves it out), or a class attribute read through `self`.
It never guesses between several bindings.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from astroid import nodes

from mslint.project import module_constants
from mslint.project.module_files import module_name_for_file
from mslint.project.resolve import Resolver

Number = Union[int, float]


class Literal(NamedTuple):
    value: object  # int, float, str or bool
    origin: str  # "" when written at the call; else where it comes from, for the message

    @property
    def number(self) -> Optional[Number]:
        value = self.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def literal_of(node: Optional[nodes.NodeNG], resolver: Resolver) -> Optional[Literal]:
    return _Reader(resolver, node.root()).literal(node, 0) if node is not None else None


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


class _Reader:
    """Follows one argument to its literal; origins name another module than the reader's."""

    def __init__(self, resolver: Resolver, reader: nodes.Module):
        self.resolver = resolver
        self.reader = reader

    def literal(self, node, depth: int) -> Optional[Literal]:
        if depth > 4:
            return None
        written = _written_literal(node)
        if written is not None:
            return Literal(written, "")
        if isinstance(node, nodes.Name):
            return self._name(node, depth)
        if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self":
            return _class_attribute_literal(node)
        if isinstance(node, nodes.Attribute):  # `config.BN_MOMENTUM`
            return self._constant(module_constants.attribute_constant(node, self.resolver, _literal_or_name), depth)
        return None

    def _name(self, node: nodes.Name, depth: int) -> Optional[Literal]:
        try:
            scope, bindings = self.resolver.lookup(node, node.name)
        except Exception:  # noqa: BLE001 - astroid lookup failure: unknown binding
            return None
        if len(bindings) != 1 or getattr(scope, "name", None) == "builtins":
            return None
        binding = bindings[0]
        if isinstance(scope, nodes.Module):
            return self._constant(module_constants.sole_constant(binding, node.name, self.resolver, _literal_or_name),
                                  depth)
        if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign):
            value = binding.parent.value  # a local assigned once
            found = self.literal(value, depth + 1)
            if found is None:
                return None
            return Literal(found.value, found.origin or f"{node.name} = {value.as_string()}, line {value.lineno}")
        if isinstance(binding.parent, nodes.Arguments):
            return self._default(node.name, binding.parent.parent, depth)
        return None

    def _constant(self, value, depth: int) -> Optional[Literal]:
        """The literal a module constant's value (the right side of its `NAME = value`, from
        mslint.project.module_constants) comes to."""
        found = self.literal(value, depth + 1) if value is not None else None
        if found is None or found.origin:
            return found
        module = value.root()
        where = f" in {module_name_for_file(module.file)}" if module is not self.reader and module.file else ""
        name = value.parent.targets[0].as_string()
        return Literal(found.value, f"{name} = {value.as_string()}{where}, line {value.lineno}")

    def _default(self, name: str, function, depth: int) -> Optional[Literal]:
        """A parameter's default: the value when the caller leaves the argument out."""
        try:
            default = function.args.default_value(name)
        except Exception:  # noqa: BLE001 - astroid: the parameter has no default
            return None
        found = self.literal(default, depth + 1)
        if found is None or found.value is None:  # None: the layer's own default then applies
            return None
        inner = f": {found.origin}" if found.origin else ""
        return Literal(found.value, f"the default of the parameter '{name}', line {default.lineno}{inner}")


def _literal_or_name(value) -> bool:
    """A module constant's value worth reading on: a literal, or a name (`MOMENTUM = BN_MOMENTUM`)."""
    return _written_literal(value) is not None or isinstance(value, nodes.Name)


def _class_attribute_literal(node: nodes.Attribute) -> Optional[Literal]:
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
