"""Which `to_float(float32)` calls are still in effect on a network when a level converts it.

MindSpore 2.10 (checked: tests/test_precision.py): `Cell.to_float` sets its flags on the cell
and every cell inside it, and a later call overwrites an earlier one.  So a sub-cell kept in
float32 (in the class's `__init__`, in the script, in a helper or a cells_and_names() loop)
stops being float32 when a later `to_float(float16)` reaches it: on the same cell, on a cell
around it, or from a loop whose guard lets it through.  A to_float in `__init__` under an `if`
that the construction's arguments turn off (`Classifier(keep_fp32=False)`) never ran.  Only
what is left is something a level (O2, O3) can override.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Set, Tuple

from astroid import nodes

from mslint.checkers import precision_cell_loops as cell_loops
from mslint.analysis import instances as inst
from mslint.analysis.construction_guards import runs_for

HALF = frozenset({"float16", "half", "bfloat16"})


def float32_in_effect(network: inst.Instance, conversion: nodes.Call,
                      ordered=None) -> Iterator[Tuple[inst.Event, inst.Instance]]:
    """(to_float event asking for float32 or a dtype the analysis cannot read, the cell it is on)
    for the calls that ran on the network's cells and still hold at `conversion`.
    `ordered(event)` says whether the event ran before the conversion (default: always)."""
    cells = list(inst.walk_cells(network))
    casts = [(event, cell) for cell, construction in cells for event in cell.events
             if event.kind == "to_float" and runs_for(event.node, construction)]
    later_half = [(event, cell) for event, cell in casts
                  if event.value in HALF and runs_before(event.node, conversion) is True]
    for event, cell in casts:
        if event.value in HALF or (ordered is not None and not ordered(event)):
            continue
        if any(runs_before(event.node, half.node) is True and _covers(half, half_cell, event, cell)
               for half, half_cell in later_half):
            continue
        yield event, cell


def runs_before(first: nodes.NodeNG, second: nodes.NodeNG) -> Optional[bool]:
    """Whether `first` runs before `second`: by position in one function; what a class's
    `__init__` does to its cells runs at construction, before anything done to the network
    outside it; None when the analysis cannot tell (two other functions; `second` in some
    `__init__`, which may be a wrapper's, built after `first`)."""
    first_frame, second_frame = inst.frame_of(first), inst.frame_of(second)
    if first_frame is second_frame:
        return inst.position(first) < inst.position(second)
    if _is_init(first_frame):
        return True
    return None


def _is_init(frame) -> bool:
    return isinstance(frame, nodes.FunctionDef) and frame.name == "__init__" and isinstance(frame.parent, nodes.ClassDef)


def _covers(half: inst.Event, half_cell: inst.Instance, event: inst.Event, cell: inst.Instance) -> bool:
    """Whether the half to_float reaches the cell the float32 one set."""
    half_target, half_path = _resolve(half_cell, half.path)
    target, path = _resolve(cell, event.path)
    if half_path[-1:] == ("*",):
        half_path = half_path[:-1]
        if not cell_loops.admits(half.node, _class_names(target) if not path else set()):
            return False
    if not half_path:
        return any(inside is target for inside in inst.walk_inside(half_target))
    same = _group(half_target)
    return any(member is target for member in same) and path[:len(half_path)] == half_path


def _resolve(instance: inst.Instance, path: Tuple[str, ...]) -> Tuple[inst.Instance, Tuple[str, ...]]:
    """Follow a sub-cell path (`net.head.fc`) through the cells stored under those names."""
    while path and path[0] != "*":
        inner = _attribute_cell(instance, path[0])
        if inner is None:
            break
        instance, path = inner, path[1:]
    return instance, path


def _attribute_cell(instance: inst.Instance, name: str) -> Optional[inst.Instance]:
    found = {id(inner): inner for holder in _group(instance) for role, inner in holder.contents if role == name}
    return next(iter(found.values())) if len(found) == 1 else None


def _group(instance: inst.Instance) -> List[inst.Instance]:
    """The instances naming the same cell, with what its class does to `self`."""
    same = inst.same_object(instance)
    return same + [klass for member in same for klass in inst.class_selves(member)]


def _class_names(instance: inst.Instance) -> Set[str]:
    names = {qualname.rsplit(".", 1)[-1] for qualname in instance.ms_classes()}
    names.update(cls.name for cls in instance.classes())
    return names
