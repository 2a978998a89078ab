"""Which loss cells a float16 cast really reaches, for MS603 (checked on MindSpore 2.10 in
tests/test_mindspore_claims.py, "Issue 26's training-setup decisions").

- A loss a Cell keeps on `self` but never reads (`self.loss = nn.SoftmaxCrossEntropyWithLogits()`
  in `__init__`, and construct returns the logits) is never computed: casting the Cell to
  float16 computes no loss in float16.
- A project Cell that holds a network beside its loss (`NetWithLoss(nn.Cell)` keeping
  `self.net` and `self.loss`) is a wrapper, whatever its name: the loss inside it is what a
  cells_and_names() loop must set back to float32, not the wrapper.
- A loop that sets the network's Dense cells back to float32 after `net.to_float(ms.float16)`
  makes a classifier's logits float32 (its last layer is a Dense), and a loss given float32
  logits computes in float32.
"""
from __future__ import annotations

from typing import Iterable, Optional

from astroid import nodes

from mslint.analysis import instances as inst
from mslint.checkers import precision_cell_loops as cell_loops

_SINGLE = frozenset({"float32", "single"})
_LOGIT_LAYERS = {"Dense", "Linear"}


def computed(holder: inst.Instance, role: str) -> bool:
    """Whether the cell `holder` keeps under `role` can run: an attribute of a project class
    that some method reads (`self.loss(...)`, or passed on), or an argument of its `__init__`
    that is used other than by storing it in attributes nothing reads.  Anything else counts."""
    cls = holder.cls
    tracker = holder.tracker
    if cls is None or tracker is None or role == "alias":
        return True
    classes = tracker.classes.mro(cls)
    if holder.node is cls:  # what the class stores on self
        return _read(classes, role)
    init = tracker.classes.lookup_method(cls, "__init__")
    if init is None or role not in [a.name for a in init.args.args or ()]:
        return True
    for use in init.nodes_of_class(nodes.Name):
        if use.name != role:
            continue
        store = use.parent
        if not (isinstance(store, nodes.Assign) and store.value is use and all(
                isinstance(t, nodes.AssignAttr) and isinstance(t.expr, nodes.Name) and t.expr.name == "self"
                and not _read(classes, t.attrname) for t in store.targets)):
            return True
    return False


def _read(classes: Iterable[nodes.ClassDef], name: str) -> bool:
    return any(isinstance(node.expr, nodes.Name) and node.expr.name == "self" and node.attrname == name
               for cls in classes for node in cls.nodes_of_class(nodes.Attribute))


def direct_cells(instance: inst.Instance):
    """The cells the instance holds one level down: its constructor's arguments and what its
    class stores on self."""
    holders = [instance] + inst.class_selves(instance)
    return [inner for holder in holders for role, inner in holder.contents if role != "alias"]


def logits_restored(network: inst.Instance, half: inst.Event) -> bool:
    """A cells_and_names() loop over the network, after its float16 cast, that sets its Dense
    (or Linear) cells to float32, or every cell (no guard)."""
    for event in cell_loops.loop_casts(network):
        if event.value in _SINGLE and later(event, half) and cell_loops.admits(event.node, _LOGIT_LAYERS):
            return True
    return False


def later(event: inst.Event, after: Optional[inst.Event]) -> bool:
    """Whether the event runs after `after` (by position in one function; in another function: yes)."""
    return after is None or event.scope is not after.scope or event.position > after.position
