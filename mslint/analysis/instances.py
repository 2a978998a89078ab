"""Cell instances in training code: what class they are, what is done to them, what wraps them.

Rules about how a network is trained (set_grad before a PyNative gradient, to_float next to
amp_level) follow Cell *instances* through ordinary Python code rather than graph scope.
An Instance is a cell the analysis can name: created by a call of a Cell class (project or
MindSpore) or of a project factory function that returns one, a function parameter, or an
attribute `self.x`. Names are bound flow-sensitively inside one function (the last assignment
before the use) and flow-insensitively across functions.

For each instance the tracker records events in source order:
  set_grad (value True/False/None), to_float (dtype), forward (it is called),
  grad (passed to a differentiation API; `uses` are where the gradient is computed),
  amp (amp.auto_mixed_precision / custom_mixed_precision),
and the wrappers it is passed to (nn.WithLossCell, nn.TrainOneStepCell, Model, a project
Cell...). Events inside graph code (construct, bprop, @jit) are not recorded: they are not
run as Python in GRAPH_MODE. Nothing here imports or runs the linted code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple

from astroid import nodes

from mslint.project import mindspore_names as msn
from mslint.project.classes import ClassIndex, call_arguments, enclosing_class, is_instance_method, keyword_value
from mslint.project.resolve import Resolver, assigned_values
from mslint.analysis.scope import NodeIndex

Ref = Tuple["Instance", Tuple[str, ...]]  # an instance and a sub-cell path ("head",), ("*",) for "every cell"

RETURNS_SELF = frozenset({"set_grad", "to_float", "set_train", "add_flags", "add_flags_recursive"})
CELL_ITERATORS = frozenset({"cells_and_names", "cells", "name_cells"})
AMP_CONVERTERS = frozenset({"auto_mixed_precision", "custom_mixed_precision"})  # return the network they convert
GRAD_FUNCTIONS = frozenset({"grad", "vjp", "jvp"})
VALUE_AND_GRAD = frozenset({"value_and_grad"})
# MindSpore wrappers that call network.set_grad() themselves (SRC-2.10 nn/wrap, train/model.py, amp.py)
SET_GRAD_WRAPPERS = frozenset({
    "TrainOneStepCell", "TrainOneStepWithLossScaleCell", "ForwardValueAndGrad", "Model", "build_train_network",
    "BoostTrainOneStepCell", "BoostTrainOneStepWithLossScaleCell", "PipelineCell", "MicroBatchInterleaved",
})
# trainers: (name of the precision-level argument, its position, parameter names in order)
TRAINERS = {
    "Model": ("amp_level", 6, ("network", "loss_fn", "optimizer", "metrics", "eval_network", "eval_indexes")),
    "build_train_network": ("level", 3, ("network", "optimizer", "loss_fn")),
}
# parameter names of MindSpore wrappers (the role each argument plays)
WRAPPER_PARAMETERS = {
    "WithLossCell": ("backbone", "loss_fn"),
    "WithEvalCell": ("network", "loss_fn", "add_cast_fp32"),
    "WithGradCell": ("network", "loss_fn", "sens"),
    "TrainOneStepCell": ("network", "optimizer", "sens"),
    "TrainOneStepWithLossScaleCell": ("network", "optimizer", "scale_sense"),
    "ForwardValueAndGrad": ("network", "weights", "get_all", "get_by_list", "sens_param"),
}
_MAX_FACTORY_DEPTH = 4


@dataclass
class Event:
    kind: str  # set_grad, to_float, forward, grad, amp
    node: nodes.Call
    path: Tuple[str, ...]
    scope: nodes.NodeNG  # the FunctionDef or Module it happens in
    value: object = None  # set_grad: True/False/None (unknown); to_float: dtype name; grad/amp: API name
    uses: List[nodes.NodeNG] = field(default_factory=list)  # grad: where the gradient is computed

    @property
    def position(self) -> Tuple[int, int]:
        return position(self.node)


class Instance:
    """One cell the analysis can name, and everything done to it."""

    def __init__(self, display: str, node, cls: Optional[nodes.ClassDef] = None, ms_class: Optional[str] = None):
        self.display = display
        self.node = node  # the creating Call, the parameter, or None
        self.cls = cls  # project ClassDef
        self.ms_class = ms_class  # MindSpore class (or trainer function) qualified name
        self.events: List[Event] = []
        self.contents: List[Tuple[str, "Instance"]] = []  # (role, instance passed to it / stored on it)
        self.wrappers: List[Tuple[str, "Instance"]] = []  # (role, instance it is passed to)
        self.sources: List["Instance"] = []  # what a factory returned, arguments bound to a parameter
        self.level = None  # trainers: the amp_level/level argument node, or None when absent
        self.tracker: Optional["InstanceTracker"] = None  # the tracker of the module it was found in

    def __repr__(self):
        return f"<Instance {self.display}>"

    @property
    def ms_name(self) -> str:
        return self.ms_class.rsplit(".", 1)[-1] if self.ms_class else ""

    @property
    def is_trainer(self) -> bool:
        return self.ms_name in TRAINERS

    def role(self, name: str) -> Optional["Instance"]:
        for role, inner in self.contents:
            if role == name:
                return inner
        return None

    def origins(self) -> Iterator["Instance"]:
        """This instance and what it stands for (factory results, arguments of a parameter)."""
        seen: Set[int] = set()
        stack = [self]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            yield current
            stack.extend(current.sources)

    def classes(self) -> List[nodes.ClassDef]:
        return [o.cls for o in self.origins() if o.cls is not None]

    def ms_classes(self) -> List[str]:
        return [o.ms_class for o in self.origins() if o.ms_class]

    def outer(self) -> Iterator[Tuple[str, "Instance"]]:
        """Every wrapper around this instance, transitively, with the role it was passed in."""
        seen: Set[int] = set()
        stack = [w for o in self.origins() for w in o.wrappers]
        while stack:
            role, wrapper = stack.pop()
            if id(wrapper) in seen:
                continue
            seen.add(id(wrapper))
            yield role, wrapper
            stack.extend(wrapper.wrappers)


def position(node) -> Tuple[int, int]:
    return (node.lineno or 0, node.col_offset or 0)


def frame_of(node) -> nodes.NodeNG:
    """The FunctionDef or Module a node runs in (lambdas and comprehensions belong to it)."""
    current = node.parent
    while current is not None and not isinstance(current, (nodes.FunctionDef, nodes.Module)):
        current = current.parent
    return current if current is not None else node.root()


def const_str(node) -> Optional[str]:
    """A string literal, directly or through a name assigned once to one."""
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return node.value
    if isinstance(node, nodes.Name):
        values = assigned_values(node)
        if values and len(values) == 1 and isinstance(values[0], nodes.Const):
            return values[0].value if isinstance(values[0].value, str) else None
    return None


class InstanceTracker:
    """The cell instances of one module, built once (see the module docstring)."""

    def __init__(self, module: nodes.Module, resolver: Resolver, classes: ClassIndex,
                 _trackers: Optional[Dict[nodes.Module, "InstanceTracker"]] = None, visit: bool = True,
                 index: Optional[NodeIndex] = None):
        self.module = module
        self.resolver = resolver
        self.classes = classes
        self._trackers = _trackers if _trackers is not None else {}
        self._trackers[module] = self
        self.instances: List[Instance] = []
        self._created: Dict[nodes.NodeNG, Optional[Instance]] = {}
        self._bindings: Dict[object, Optional[Ref]] = {}
        self._graph_code: Dict[nodes.NodeNG, bool] = {}
        self._in_progress: Set[nodes.NodeNG] = set()
        self._index = index if index is not None else NodeIndex(module)
        if visit:
            self._visit()

    # -- queries ---------------------------------------------------------------------------
    def ref(self, expr) -> Optional[Ref]:
        """The instance (and sub-cell path) an expression denotes, if the analysis knows it."""
        if isinstance(expr, nodes.Name):
            return self._ref_name(expr)
        if isinstance(expr, nodes.Attribute):
            if self._is_self(expr.expr):
                return self._ref_self_attribute(expr)
            base = self.ref(expr.expr)
            return (base[0], base[1] + (expr.attrname,)) if base else None
        if isinstance(expr, nodes.Call):
            func = expr.func
            if isinstance(func, nodes.Attribute) and func.attrname in RETURNS_SELF:
                return self.ref(func.expr)
            qualname = self.resolver.qualname(func)
            if msn.is_mindspore(qualname) and qualname.rsplit(".", 1)[-1] in AMP_CONVERTERS and expr.args:
                return self.ref(expr.args[0])
            created = self._create(expr)
            return (created, ()) if created else None
        return None

    def instance(self, expr) -> Optional[Instance]:
        """The instance an expression denotes as a whole (no sub-cell path)."""
        found = self.ref(expr)
        return found[0] if found and not found[1] else None

    def class_self(self, cls: nodes.ClassDef) -> Instance:
        """`self` inside the methods of a project class: what the class does to its own instances."""
        key = ("self", cls)
        if key not in self._bindings:
            owner = self._tracker_for(cls.root())
            if owner is not self:
                self._bindings[key] = (owner.class_self(cls), ())
            else:
                self._bindings[key] = (self._new(f"self ({cls.name})", cls, cls=cls), ())
        return self._bindings[key][0]

    def is_graph_code(self, node) -> bool:
        """Inside construct/bprop of a class, or a @jit function: not run as Python in GRAPH_MODE."""
        current = frame_of(node)
        while isinstance(current, nodes.FunctionDef):
            if current not in self._graph_code:
                in_class = isinstance(current.parent, nodes.ClassDef)
                self._graph_code[current] = bool((in_class and current.name in ("construct", "bprop"))
                                                 or self.classes.jit_decorator(current) is not None)
            if self._graph_code[current]:
                return True
            current = frame_of(current)
        return False

    # -- the pass over the module ----------------------------------------------------------
    def _visit(self, calls: bool = True) -> None:
        """The pass over the module: its calls (when `calls`), then the cells its classes store on self."""
        for call in sorted(self._index.of(nodes.Call), key=position) if calls else ():
            if not self.is_graph_code(call):
                self._visit_call(call)
        for assign in self._index.of(nodes.AssignAttr):
            if self._is_self(assign.expr) and isinstance(assign.parent, nodes.Assign) \
                    and not self.is_graph_code(assign):
                inner = self.instance(assign.parent.value)
                cls = enclosing_class(assign)
                if inner is not None and cls is not None:
                    _link(self.class_self(cls), assign.attrname, inner)

    def _visit_call(self, call: nodes.Call) -> None:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in ("set_grad", "to_float"):
            target = self.ref(func.expr)
            if target is not None:
                if func.attrname == "set_grad":
                    value = keyword_value(call, "requires_grad", 0)
                    flag = True if value is None else (value.value if isinstance(value, nodes.Const) else None)
                    self._event("set_grad", call, target, flag)
                else:
                    dtype = keyword_value(call, "dst_type", 0)
                    self._event("to_float", call, target, self._dtype(dtype))
            return
        qualname = self.resolver.qualname(func)
        last = qualname.rsplit(".", 1)[-1] if msn.is_mindspore(qualname) else None
        if last in GRAD_FUNCTIONS or last in VALUE_AND_GRAD:
            self._grad_event(call, call.args[0] if call.args else keyword_value(call, "fn"), last)
            return
        if last in AMP_CONVERTERS:
            target = self.ref(call.args[0]) if call.args else None
            if target is not None:
                level = keyword_value(call, "amp_level", 1) if last == "auto_mixed_precision" else None
                event = self._event("amp", call, target, last)
                event.uses = [level] if level is not None else []
            return
        if self._is_grad_operation(func) and call.args:
            self._grad_event(call, call.args[0], "GradOperation")
            return
        if isinstance(func, (nodes.Name, nodes.Attribute)):
            target = self.ref(func)
            if target is not None and not target[1]:
                self._event("forward", call, target)
                return
        definition = self.resolver.resolve_callable(func) or self._partial_target(func)
        if isinstance(definition, nodes.ClassDef) or msn.is_mindspore(qualname):
            self._create(call)
        elif isinstance(definition, nodes.FunctionDef):
            self._create(call)
            # a helper that returns the network it prepares is a factory and still acts on its argument
            self._bind_parameters(call, definition)

    def _event(self, kind: str, call: nodes.Call, target: Ref, value=None) -> Event:
        event = Event(kind, call, target[1], frame_of(call), value)
        target[0].events.append(event)
        return event

    def _grad_event(self, call: nodes.Call, argument, api: str) -> None:
        target = self.ref(argument) if argument is not None else None
        if target is None or target[1]:
            return
        event = self._event("grad", call, target, api)
        # where the gradient is computed: `grad(net)(x)` here, or later calls of the name it is bound to
        parent = call.parent
        if isinstance(parent, nodes.Call) and parent.func is call:
            event.uses.append(parent)
        elif isinstance(parent, nodes.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], (nodes.AssignName, nodes.AssignAttr)):
            bound = parent.targets[0]
            for use in frame_of(call).nodes_of_class(nodes.Call):
                if _same_target(use.func, bound) and position(use) > position(call):
                    event.uses.append(use)

    # -- creation ----------------------------------------------------------------------------
    def _new(self, display: str, node, cls=None, ms_class=None) -> Instance:
        instance = Instance(display, node, cls=cls, ms_class=ms_class)
        instance.tracker = self
        self.instances.append(instance)
        return instance

    def _create(self, call: nodes.Call) -> Optional[Instance]:
        if call in self._created:
            return self._created[call]
        self._created[call] = None  # recursion guard
        created = None
        qualname = self.resolver.qualname(call.func)
        if msn.is_mindspore(qualname):
            last = qualname.rsplit(".", 1)[-1]
            if last in TRAINERS or msn.is_cell_class_name(qualname):
                created = self._new(_display(call), call, ms_class=qualname)
                self._wrap(created, call, TRAINERS[last][2] if last in TRAINERS else WRAPPER_PARAMETERS.get(last, ()))
                if last in TRAINERS:
                    name, index, _ = TRAINERS[last]
                    created.level = keyword_value(call, name, index)
        else:
            definition = self.resolver.resolve_callable(call.func) or self._partial_target(call.func)
            if isinstance(definition, nodes.ClassDef) and self.classes.is_cell(definition):
                created = self._new(_display(call), call, cls=definition)
                self._wrap(created, call, _parameter_names(self.classes.lookup_method(definition, "__init__")))
            elif isinstance(definition, nodes.FunctionDef) and definition not in self._in_progress \
                    and len(self._in_progress) < _MAX_FACTORY_DEPTH:
                created = self._from_factory(call, definition)
        self._created[call] = created
        return created

    def _partial_target(self, func):
        """The project class or function behind `functools.partial(f, ...)`, called directly or through a
        name bound once to it (`make = partial(ghostnet, width=1.3)`; `net = make()`)."""
        if isinstance(func, nodes.Name):
            values = assigned_values(func) or []
            func = values[0] if len(values) == 1 else None
        if not isinstance(func, nodes.Call) or not func.args or \
                self.resolver.qualname(func.func) != "functools.partial":
            return None
        target = self.resolver.resolve_callable(func.args[0])
        return target if isinstance(target, (nodes.ClassDef, nodes.FunctionDef)) else None

    def _wrap(self, wrapper: Instance, call: nodes.Call, names) -> None:
        names = [n for n in names if n != "self"]
        for index, argument in enumerate(call.args):
            inner = self.instance(argument)
            if inner is not None:
                _link(wrapper, names[index] if index < len(names) else f"arg{index}", inner)
        for keyword in call.keywords or ():
            inner = self.instance(keyword.value) if keyword.arg else None
            if inner is not None:
                _link(wrapper, keyword.arg, inner)

    def _from_factory(self, call: nodes.Call, function: nodes.FunctionDef) -> Optional[Instance]:
        """A project function whose return value is a cell: the call stands for what it returns."""
        owner = self._tracker_for(function.root())
        self._in_progress.add(function)
        try:
            returned = [owner.instance(r.value) for r in function.nodes_of_class(nodes.Return)
                        if r.value is not None and frame_of(r) is function]
        finally:
            self._in_progress.discard(function)
        returned = [r for r in returned if r is not None]
        if not returned:
            return None
        created = self._new(_display(call), call)
        created.sources.extend(returned)
        return created

    def _bind_parameters(self, call: nodes.Call, function: nodes.FunctionDef) -> None:
        """Cells passed to a project function (this module or another): its parameters stand for them."""
        names = _parameter_names(function)
        offset = 1 if names[:1] in (["self"], ["cls"]) and isinstance(function.parent, nodes.ClassDef) else 0
        for index, argument in enumerate(call.args):
            if index + offset < len(names):
                self._bind_one(function, names[index + offset], argument)
        for keyword in call.keywords or ():
            if keyword.arg in names:
                self._bind_one(function, keyword.arg, keyword.value)

    def _bind_one(self, function: nodes.FunctionDef, name: str, argument) -> None:
        inner = self.instance(argument)
        if inner is None:
            return
        owner = self._tracker_for(function.root())  # the parameter's instance lives in its module's tracker
        for param in function.args.args + function.args.kwonlyargs:
            if param.name == name:
                found = owner._ref_binding(param)
                if found is not None and inner not in found[0].sources:
                    found[0].sources.append(inner)
                    inner.contents.append(("alias", found[0]))  # what the function does to it

    # -- names ---------------------------------------------------------------------------------
    def _ref_name(self, name: nodes.Name) -> Optional[Ref]:
        try:
            _, assigns = name.lookup(name.name)
        except Exception:
            return None
        bindings = [a for a in assigns if isinstance(a, nodes.AssignName)]
        if not bindings or len(bindings) != len(assigns):
            return None
        frame = frame_of(name)
        local = [b for b in bindings if frame_of(b) is frame]
        if local:
            before = [b for b in local if position(b) < position(name)]
            binding = max(before or local, key=position)
        else:
            binding = max(bindings, key=position)
        return self._ref_binding(binding)

    def _ref_binding(self, binding: nodes.AssignName) -> Optional[Ref]:
        if binding in self._bindings:
            return self._bindings[binding]
        self._bindings[binding] = None  # recursion guard
        found: Optional[Ref] = None
        parent = binding.parent
        if isinstance(parent, nodes.Arguments):
            function = parent.parent
            if isinstance(function, nodes.FunctionDef) and isinstance(function.parent, nodes.ClassDef) \
                    and function.args.args and function.args.args[0] is binding \
                    and is_instance_method(function):
                found = (self.class_self(function.parent), ())
            else:
                found = (self._new(binding.name, binding), ())
        elif isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is not None:
            targets = parent.targets if isinstance(parent, nodes.Assign) else [parent.target]
            if binding in targets:
                found = self.ref(parent.value)
        elif isinstance(parent, (nodes.For, nodes.Tuple)):
            loop = parent if isinstance(parent, nodes.For) else parent.parent
            if isinstance(loop, (nodes.For, nodes.Comprehension)):
                found = self._ref_cell_loop(loop.iter)
        elif isinstance(parent, nodes.Comprehension):
            found = self._ref_cell_loop(parent.iter)
        self._bindings[binding] = found
        return found

    def _ref_cell_loop(self, iterable) -> Optional[Ref]:
        """`for name, cell in net.cells_and_names()`: the loop variable is every sub-cell of net."""
        if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
                and iterable.func.attrname in ("items", "values") and isinstance(iterable.func.expr, nodes.Call):
            iterable = iterable.func.expr
        if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
                and iterable.func.attrname in CELL_ITERATORS:
            base = self.ref(iterable.func.expr)
            if base is not None:
                return (base[0], base[1] + ("*",))
        return None

    def _ref_self_attribute(self, attribute: nodes.Attribute) -> Optional[Ref]:
        cls = enclosing_class(attribute)
        if cls is None:
            return None
        key = (cls, attribute.attrname)
        if key in self._bindings:
            return self._bindings[key]
        self._bindings[key] = None
        values = []
        for klass in self.classes.mro(cls):
            for assign in self.classes.attribute_stores(klass):
                if assign.attrname == attribute.attrname and self._is_self(assign.expr) \
                        and isinstance(assign.parent, nodes.Assign):
                    values.append(assign.parent.value)
        found = None
        if len(values) == 1:
            found = self._tracker_for(values[0].root()).ref(values[0])
        if found is None:
            found = (self.class_self(cls), (attribute.attrname,))
        self._bindings[key] = found
        return found

    # -- helpers ---------------------------------------------------------------------------------
    def _tracker_for(self, module: nodes.Module) -> "InstanceTracker":
        if module not in self._trackers:
            # Another module's calls matter here only through the events they record (set_grad,
            # to_float, a gradient, an amp conversion, a trainer or wrapper: calls by those names;
            # forward calls count only beside the gradient, in the module analysed).  Without such
            # calls only the cells its classes store on self are visited: the cells its other calls
            # make are made when a reference asks for them.  (Visiting every call of every module a
            # factory or a class led to was half of MS501/MS6xx's time on an 8,000-file tree.)
            index = NodeIndex(module)
            owner = InstanceTracker(module, self.resolver, self.classes, self._trackers, visit=False, index=index)
            owner._visit(calls=has_training_calls(index.of(nodes.Call)))
        return self._trackers[module]

    @staticmethod
    def _is_self(expr) -> bool:
        if not isinstance(expr, nodes.Name):
            return False
        frame = frame_of(expr)
        while isinstance(frame, nodes.FunctionDef):
            if isinstance(frame.parent, nodes.ClassDef):
                params = frame.args.args or []
                return bool(params) and params[0].name == expr.name and is_instance_method(frame)
            frame = frame_of(frame)
        return False

    def _is_grad_operation(self, expr) -> bool:
        """`ops.GradOperation(...)`, or a name / self attribute bound to one."""
        if isinstance(expr, nodes.Call):
            qualname = self.resolver.qualname(expr.func)
            return msn.is_mindspore(qualname) and qualname.rsplit(".", 1)[-1] == "GradOperation"
        values = []
        if isinstance(expr, nodes.Name):
            values = assigned_values(expr) or []
        elif isinstance(expr, nodes.Attribute) and self._is_self(expr.expr):
            cls = enclosing_class(expr)
            values = [a.parent.value for a in (self.classes.attribute_stores(cls) if cls else ())
                      if a.attrname == expr.attrname and isinstance(a.parent, nodes.Assign)]
        return bool(values) and all(isinstance(v, nodes.Call) and self._is_grad_operation(v) for v in values)

    def _dtype(self, node) -> Optional[str]:
        qualname = self.resolver.qualname(node) if node is not None else None
        if msn.is_mindspore(qualname):
            return qualname.rsplit(".", 1)[-1]
        return None


def _link(wrapper: Instance, role: str, inner: Instance) -> None:
    if wrapper is inner or (role, inner) in wrapper.contents:
        return
    wrapper.contents.append((role, inner))
    inner.wrappers.append((role, wrapper))


def _same_target(func, bound) -> bool:
    if isinstance(bound, nodes.AssignName):
        return isinstance(func, nodes.Name) and func.name == bound.name
    return isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) \
        and func.attrname == bound.attrname and func.expr.name == getattr(bound.expr, "name", None)


def _parameter_names(function) -> List[str]:
    if function is None:
        return []
    return [a.name for a in function.args.args or ()]


def _display(call: nodes.Call) -> str:
    parent = call.parent
    while isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
            and parent.func.attrname in RETURNS_SELF:
        parent = parent.parent
    if isinstance(parent, nodes.Assign) and len(parent.targets) == 1:
        return parent.targets[0].as_string()
    text = call.func.as_string()
    return f"{text}(...)"


# Call names without which a module holds no training setup to report on: every MS5/MS6
# finding sits at a grad call, a to_float / set_grad, an amp conversion or a trainer.
_TRAINING_CALLS = (GRAD_FUNCTIONS | VALUE_AND_GRAD | AMP_CONVERTERS | SET_GRAD_WRAPPERS | set(TRAINERS)
                   | set(WRAPPER_PARAMETERS) | {"set_grad", "to_float", "GradOperation"})


def has_training_calls(calls) -> bool:
    """A cheap test by name (no resolution) that lets most model files skip the tracker."""
    for call in calls:
        func = call.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        if name in _TRAINING_CALLS:
            return True
        if any(keyword.arg == "amp_level" for keyword in call.keywords or ()):
            return True  # a project helper that builds the trainer: create_trainer(net, ..., amp_level="O2")
    return False


def tracker(ctx) -> InstanceTracker:
    """The module's tracker, shared by every rule that asks (kept in ctx.memo); empty for a
    module with no training calls at all."""
    found = ctx.memo.get("instances")
    if found is None:
        found = InstanceTracker(ctx.module, ctx.resolver, ctx.classes,
                                visit=has_training_calls(ctx.module_nodes(nodes.Call)), index=ctx.index)
        ctx.memo["instances"] = found
    return found


def walk_inside(instance: Instance, held=None) -> Iterator[Instance]:
    """The instance, what it stands for, and every cell inside it (wrapped cells, attributes
    set in the class, parameters it was passed to), each once.  `held(holder, role)`, when
    given, says whether to go into what `holder` keeps under `role`."""
    seen: Set[int] = set()
    for cell, _ in walk_cells(instance, held):
        if id(cell) not in seen:
            seen.add(id(cell))
            yield cell


def walk_cells(instance: Instance, held=None) -> Iterator[Tuple[Instance, Optional[Instance]]]:
    """walk_inside with, for what a class does to `self`, the instance whose construction ran it
    (None for the other cells): `Classifier(keep_fp32=False)` decides which branches of its
    `__init__` ran.  A class self reached from two constructions is yielded for each."""
    seen: Set[Tuple[int, int]] = set()
    stack: List[Tuple[Instance, bool, Optional[Instance]]] = [(instance, True, None)]
    while stack:
        current, follow_sources, construction = stack.pop()
        key = (id(current), id(construction))
        if key in seen:
            continue
        seen.add(key)
        yield current, construction
        if follow_sources:  # not back from a parameter to the other arguments bound to it
            stack.extend((source, True, None) for source in current.sources)
        is_class_self = current.node is current.cls
        # the cells a class stores on self get what its __init__ does to them under the same construction
        stack.extend((inner, role != "alias", construction if is_class_self else None)
                     for role, inner in current.contents if held is None or held(current, role))
        stack.extend((klass, False, construction if is_class_self else current) for klass in class_selves(current))


def same_object(instance: Instance) -> List[Instance]:
    """Every instance that names the same cell object: the instance, what it stands for, and the
    parameters of the helpers it was passed to (transitively, this module or another)."""
    found: List[Instance] = []
    seen: Set[int] = set()
    stack = list(instance.origins())
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        stack.extend(inner for role, inner in current.contents if role == "alias")
    return found


def class_selves(instance: Instance) -> List[Instance]:
    """What the instance's class hierarchy does to `self` (to_float in __init__, cells it stores)."""
    if instance.cls is None or instance.tracker is None:
        return []
    return [instance.tracker.class_self(klass) for klass in instance.tracker.classes.mro(instance.cls)
            if instance.tracker.class_self(klass) is not instance]


def own_events(instance: Instance, kind: str) -> List[Event]:
    """Events on the instance as a whole: its own, its origins', its class's on `self`."""
    found = []
    for origin in instance.origins():
        found.extend(e for e in origin.events if e.kind == kind and not e.path)
        for klass in class_selves(origin):
            found.extend(e for e in klass.events if e.kind == kind and not e.path)
    return found


def argument_for(call: nodes.Call, tracker_: InstanceTracker, target: Instance):
    """The argument node of `call` that denotes `target`."""
    for argument in call_arguments(call):
        if tracker_.instance(argument) is target:
            return argument
    return None
