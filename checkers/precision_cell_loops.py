"""`for _, cell in net.cells_and_names(): if isinstance(cell, nn.BatchNorm2d): cell.to_float(...)`.

The migration guide sets chosen cells of a network to another precision with this loop, written
in place or in a helper function the network is passed to (in the same module or another).
The tracker records the loop's `cell.to_float(...)` as an event with the path ("*",) on the
instance the loop iterates: the network itself, or the helper's parameter bound to it.
MS601 (which cells a level overrides) and MS603 (whether the loss was set back to float32)
both ask here which loops apply to a network and which cells their guards let through.
"""
from __future__ import annotations

from typing import Iterator, List, Set

from astroid import nodes

from mslint.analysis import instances as inst


def loop_casts(network: inst.Instance) -> Iterator[inst.Event]:
    """The to_float calls of cells_and_names() loops over the network, inline or in helpers."""
    for same in inst.same_object(network):
        for event in same.events:
            if is_loop_cast(event):
                yield event


def is_loop_cast(event: inst.Event) -> bool:
    return event.kind == "to_float" and event.path[-1:] == ("*",)


def guard_classes(call: nodes.Call) -> List[Set[str]]:
    """The class names (last parts) of each `if isinstance(cell, ...)` around a loop's
    `cell.to_float(...)`: the cells of the loop it applies to."""
    receiver = call.func.expr if isinstance(call.func, nodes.Attribute) else None
    found: List[Set[str]] = []
    node = call
    while node is not None and not isinstance(node, (nodes.For, nodes.FunctionDef, nodes.Module)):
        parent = node.parent
        if isinstance(parent, nodes.If) and node in parent.body:
            test = parent.test
            if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "isinstance" \
                    and len(test.args) == 2 and isinstance(receiver, nodes.Name) \
                    and isinstance(test.args[0], nodes.Name) and test.args[0].name == receiver.name:
                names = test.args[1].elts if isinstance(test.args[1], nodes.Tuple) else [test.args[1]]
                found.append({n.as_string().rsplit(".", 1)[-1] for n in names})
        node = parent
    return found


def admits(call: nodes.Call, class_names: Set[str]) -> bool:
    """Whether every isinstance() guard around the loop's call names one of the classes (the
    cell's own class or a base of it); a loop with no guard applies to every cell."""
    return all(spelled & class_names for spelled in guard_classes(call))
