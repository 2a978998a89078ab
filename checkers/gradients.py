"""MS5xx: gradients. Cells differentiated in PyNative after a forward call without set_grad(),
and custom `bprop` definitions MindSpore rejects.

MindSpore 2.10, PYNATIVE_MODE: `out = net(x)` then `ops.GradOperation(...)(net)(x)` or
`ms.grad(net)(x)` runs net's forward twice without `net.set_grad()`, once with it (a cell
with or without bprop); `ms.value_and_grad(net)(x)` alone runs it once. GRAPH_MODE compiles
the forward with the backward, so the rule is about programs that may run in PyNative.
"""
from __future__ import annotations

from typing import Iterator, List, Optional

from astroid import nodes

from mslint import fixes
from mslint.analysis import instances as inst
from mslint.project import mindspore_names as msn
from mslint.project.classes import is_instance_method
from mslint.analysis.context import ModuleContext
from mslint.findings import Finding
from mslint.messages import compose, snippet
from mslint.rules import Rule, implements
from mslint.analysis.scope import GRAPH, context_modes

MISSING_SET_GRAD = Rule(
    "MS501", "bprop-cell-missing-set-grad", "warning",
    "A cell with a custom bprop is called forward and then differentiated in PyNative without set_grad(): "
    "its forward runs twice.",
    "Call set_grad() so the backward is built with the forward in PYNATIVE_MODE: `net = MyCell(...).set_grad()` "
    "before the forward pass; or compute output and gradients in one call with mindspore.value_and_grad.",
)
FORWARD_THEN_GRAD = Rule(
    "MS502", "pynative-forward-then-grad", "info",
    "A cell is called forward and then differentiated in PyNative without set_grad(): its forward runs twice.",
    "Call net.set_grad() before the forward pass, or use mindspore.value_and_grad to get the output and the "
    "gradients from one forward pass.",
    default_enabled=False,
)
BPROP_SIGNATURE = Rule(
    "MS503", "bprop-signature-mismatch", "error",
    "A custom bprop does not take construct's inputs plus `out` and `dout`.",
    "The inputs of a user-defined bprop must contain all the inputs of the forward network, `out` and `dout`: "
    "`def bprop(self, x, y, out, dout)` for `def construct(self, x, y)`.",
)
BPROP_NON_TUPLE = Rule(
    "MS504", "bprop-returns-non-tuple", "error",
    "A custom bprop returns a single tensor instead of a tuple of input gradients.",
    "Return a tuple with one gradient per forward input, even for one input: `return (dx,)`.",
)
RULES = (MISSING_SET_GRAD, FORWARD_THEN_GRAD, BPROP_SIGNATURE, BPROP_NON_TUPLE)


def _maybe_pynative(ctx: ModuleContext) -> bool:
    """Not known to run in GRAPH_MODE: no `set_context(mode=GRAPH_MODE)` as the only mode set."""
    if ctx.config.graph_mode == "always":
        return False
    if ctx.config.graph_mode == "never":
        return True
    if "ms5.modes" not in ctx.memo:
        ctx.memo["ms5.modes"] = context_modes(ctx.module, ctx.resolver, ctx.module_nodes(nodes.Call))
    return ctx.memo["ms5.modes"] != {GRAPH}


def _sets_grad_by_wrapper(ctx: ModuleContext, instance: inst.Instance) -> bool:
    """Wrapped (at any depth) by TrainOneStepCell, ForwardValueAndGrad, Model...: they call set_grad()."""
    for _, wrapper in instance.outer():
        if wrapper.ms_name in inst.SET_GRAD_WRAPPERS:
            return True
        if wrapper.cls is not None:
            for klass in ctx.classes.mro(wrapper.cls):
                for base in ctx.classes.base_entries(klass):
                    if isinstance(base, str) and base.rsplit(".", 1)[-1] in inst.SET_GRAD_WRAPPERS:
                        return True
    return False


def _forward_then_grad(ctx: ModuleContext, with_bprop: bool) -> Iterator[tuple]:
    """(grad event, forward event, instance, class name) for cells differentiated after a forward call."""
    if not _maybe_pynative(ctx):
        return
    for instance in inst.tracker(ctx).instances:
        grads = [e for e in instance.events if e.kind == "grad" and e.node.root() is ctx.module]
        if not grads:
            continue
        classes = instance.classes()
        holders = {c: _bprop_holder(ctx, c) for c in _classes_inside(instance)}
        bprop = [c for c in holders if holders[c] is not None]
        if with_bprop != bool(bprop):
            continue
        names = [c.name for c in classes] + [q.rsplit(".", 1)[-1] for q in instance.ms_classes()
                                             if msn.is_cell_class_name(q)]
        if not names:
            continue  # not known to be a cell
        set_grads = inst.own_events(instance, "set_grad")
        if any(e.value is not True for e in set_grads) or _sets_grad_by_wrapper(ctx, instance):
            continue  # set_grad(False) toggling (GAN freezing), or a wrapper takes care of it
        forwards = [e for e in instance.events if e.kind == "forward"]
        for grad in grads:
            uses = grad.uses or [grad.node]
            earlier = [f for f in forwards if f.scope is grad.scope
                       and any(f.position < inst.position(u) for u in uses)]
            if not earlier:
                continue
            first = min(earlier, key=lambda f: f.position)
            if any(s.scope is not grad.scope or s.position < first.position for s in set_grads):
                continue
            inner = holders[bprop[0]] if bprop else None
            yield grad, first, instance, names[0], (inner.name if inner is not None and inner not in classes else None)


def _classes_inside(instance: inst.Instance) -> List[nodes.ClassDef]:
    """The project classes of a differentiated cell and of every cell it holds: the network
    inside `nn.WithLossCell(net, loss)` or a TrainOneStepCell, attributes its class stores."""
    found: List[nodes.ClassDef] = []
    for cell in inst.walk_inside(instance):
        for cls in cell.classes():
            if cls not in found:
                found.append(cls)
    return found


_MAX_NESTING = 8


def _bprop_holder(ctx: ModuleContext, cls: nodes.ClassDef) -> Optional[nodes.ClassDef]:
    """The class that defines bprop: the cell's own hierarchy, or a sub-cell it builds in
    `__init__` (at any depth).  Differentiating the outer cell after its forward without
    set_grad() runs the inner forward twice too (checked on MindSpore 2.10: the outer cell
    needs set_grad(); tests/test_mindspore_composition.py)."""
    memo = ctx.memo.setdefault("ms5.bprop-holders", {})
    return _holder(ctx, cls, memo, 0)


def _holder(ctx: ModuleContext, cls: nodes.ClassDef, memo: dict, depth: int) -> Optional[nodes.ClassDef]:
    if cls in memo:
        return memo[cls]
    memo[cls] = None  # a cycle of sub-cells adds nothing
    found = cls if ctx.classes.lookup_method(cls, "bprop") is not None else None
    if found is None and depth < _MAX_NESTING:
        for sub in _sub_cell_classes(ctx, cls):
            found = _holder(ctx, sub, memo, depth + 1)
            if found is not None:
                break
    memo[cls] = found
    return found


def _sub_cell_classes(ctx: ModuleContext, cls: nodes.ClassDef) -> List[nodes.ClassDef]:
    """Project Cell classes instantiated in the `__init__` methods of a cell's hierarchy."""
    found = []
    for klass in ctx.classes.mro(cls):
        for init in (m for m in klass.mymethods() if m.name == "__init__"):
            for call in init.nodes_of_class(nodes.Call):
                made = ctx.resolver.resolve_callable(call.func)
                if isinstance(made, nodes.ClassDef) and made is not cls and ctx.classes.is_cell(made):
                    found.append(made)
    return found


def _api(grad: inst.Event) -> str:
    call = grad.node
    if grad.value == "GradOperation":
        return f"'{call.func.as_string()}'" if len(call.func.as_string()) <= 50 else "GradOperation"
    return f"'{call.func.as_string()}'"


def _message(grad: inst.Event, forward: inst.Event, name: str, bprop: bool, inner: Optional[str] = None,
             elsewhere: Optional[inst.Event] = None) -> str:
    what = f"{name}, which defines bprop" if bprop and inner is None else name
    if inner is not None:
        what = f"{name}, whose sub-cell {inner} defines bprop"
    effect = " (twice the work; BatchNorm moving statistics update twice)" if bprop else ""
    fix = (f"Call set_grad() so the backward is built with the forward in PYNATIVE_MODE (`{name}(...).set_grad()` "
           "before the forward pass)" if bprop else
           "Call set_grad() on it before the forward pass, or get the output and the gradients from one call of "
           "mindspore.value_and_grad")
    cover = None
    if elsewhere is not None:
        cover = (f"set_grad() on '{elsewhere.node.func.expr.as_string()}' (line {elsewhere.node.lineno}) does not "
                 f"cover it: only the cell that is differentiated counts")
    subject = snippet(grad.node.args[0]) if grad.node.args else "The cell"
    return compose(f"{subject} is called forward at line {forward.node.lineno}, then differentiated without set_grad()",
                   f"The cell is {what}; {_api(grad)} differentiates it",
                   f"In PYNATIVE_MODE its forward runs a second time to build the backward{effect}", fix, cover)


def _set_grad_inside(instance: inst.Instance) -> Optional[inst.Event]:
    """A set_grad() call on a cell inside the differentiated one (it does not help: MindSpore
    2.10 runs the forward twice unless the differentiated cell itself has set_grad())."""
    for cell in inst.walk_inside(instance):
        if cell is instance or cell in instance.origins():
            continue
        for event in cell.events:
            if event.kind == "set_grad" and event.value is True and not event.path \
                    and isinstance(event.node.func, nodes.Attribute):
                return event
    return None


@implements(MISSING_SET_GRAD)
def check_missing_set_grad(ctx: ModuleContext) -> Iterator[Finding]:
    for grad, forward, instance, name, inner in _forward_then_grad(ctx, with_bprop=True):
        message = _message(grad, forward, name, bprop=True, inner=inner, elsewhere=_set_grad_inside(instance))
        yield ctx.finding(MISSING_SET_GRAD, grad.node, message,
                          fix=_set_grad_fix(ctx, instance))


def _set_grad_fix(ctx: ModuleContext, instance: inst.Instance) -> Optional[fixes.Fix]:
    """`MySampler(3)` -> `MySampler(3).set_grad()` where the cell is created (set_grad returns the
    cell), so it is set before any forward call.  Unsafe: every later forward call of that cell
    then builds the backward too (evaluation calls included), which costs time and memory."""
    node = instance.node
    if not isinstance(node, nodes.Call) or node.root() is not ctx.module:
        return None
    return fixes.fix(fixes.UNSAFE, "call set_grad() where the cell is created", fixes.insert_after(node, ".set_grad()"))


@implements(FORWARD_THEN_GRAD)
def check_forward_then_grad(ctx: ModuleContext) -> Iterator[Finding]:
    for grad, forward, _, name, _inner in _forward_then_grad(ctx, with_bprop=False):
        yield ctx.finding(FORWARD_THEN_GRAD, grad.node, _message(grad, forward, name, bprop=False))


# -- bprop definitions ------------------------------------------------------------------------
def _positional(function: nodes.FunctionDef) -> List[str]:
    args = function.args
    names = [a.name for a in (args.posonlyargs or []) + (args.args or [])]
    return names[1:] if names and is_instance_method(function) else names


@implements(BPROP_SIGNATURE)
def check_bprop_signature(ctx: ModuleContext) -> Iterator[Finding]:
    for cls in ctx.module_nodes(nodes.ClassDef):
        bprop = next((m for m in cls.mymethods() if m.name == "bprop"), None)
        if bprop is None or not ctx.classes.is_cell(cls):
            continue
        construct = ctx.classes.lookup_method(cls, "construct")
        if construct is None or construct.args.vararg or bprop.args.vararg or construct.args.args is None:
            continue
        inputs = _positional(construct)
        required = len(inputs) - len(construct.args.defaults or ())
        params = _positional(bprop)
        if required + 2 <= len(params) <= len(inputs) + 2:
            continue
        expected = ", ".join(inputs + ["out", "dout"])
        yield ctx.finding(
            BPROP_SIGNATURE, bprop,
            compose(f"'{cls.name}.bprop' takes {len(params)} input(s), not construct's {len(inputs)} plus out and dout",
                    f"It takes ({', '.join(params) or 'none'}); it must take ({expected})",
                    *_signature_errors(cls.name, construct, bprop, inputs, params)),
        )


def _signature_errors(name: str, construct: nodes.FunctionDef, bprop: nodes.FunctionDef, inputs: List[str],
                      params: List[str]) -> List[str]:
    """What GRAPH_MODE and PyNative raise for a bprop with the wrong number of inputs (checked on
    2.10, tests/test_mindspore_claims.py), for the usual instance methods; a staticmethod
    construct fails to parse first, and Python's count then has no `self`."""
    methods = is_instance_method(construct) and is_instance_method(bprop)
    given = len(inputs) + 2  # the inputs, out and dout
    errors = []
    if len(params) < given:
        if methods and len(params) < 2:  # not even out and dout: another check, another error
            errors.append(f"GRAPH_MODE fails with \"RuntimeError: The function 'bprop' of Primitive or Cell requires at "
                          f"least 2 params 'out' and 'dout', but got only {len(params)}.\"")
        elif methods:
            errors.append("GRAPH_MODE fails with \"TypeError: The params of function 'bprop' of Primitive or Cell "
                          "requires the forward inputs as well as the 'out' and 'dout'.\"")
        self = 1 if is_instance_method(bprop) else 0
        taken = len(params) + self
        errors.append(f"PyNative fails with \"TypeError: {name}.bprop() takes {taken} positional "
                      f"argument{'s' if taken != 1 else ''} but {given + self} were given\"")
        return errors
    if methods:
        errors.append(f"GRAPH_MODE fails with \"TypeError: ... The number of parameter of this primal function is "
                      f"{len(inputs)}, but the number of parameters of bprop is {len(params) - 2}\"")
    missing = params[given:]
    if not bprop.args.defaults:
        errors.append(f"PyNative fails with \"TypeError: {name}.bprop() missing {len(missing)} required positional "
                      f"argument{'s' if len(missing) > 1 else ''}: {_python_names(missing)}\"")
    return errors


def _python_names(names: List[str]) -> str:
    """Names as Python's "missing arguments" error lists them: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _returns_tuple_output(construct: Optional[nodes.FunctionDef]) -> bool:
    """construct returns a tuple display: then `dout` is itself a tuple."""
    if construct is None:
        return True
    return any(isinstance(r.value, (nodes.Tuple, nodes.List)) for r in construct.nodes_of_class(nodes.Return))


def _arithmetic(value, function) -> bool:
    """`dout * 2`, or a name every assignment of which in the function is arithmetic."""
    if isinstance(value, (nodes.BinOp, nodes.UnaryOp)):
        return not any(isinstance(side, (nodes.Tuple, nodes.List))
                       for side in (getattr(value, "left", None), getattr(value, "right", None)))
    if isinstance(value, nodes.Name):
        assigned = [a.parent.value for a in function.nodes_of_class(nodes.AssignName)
                    if a.name == value.name and isinstance(a.parent, nodes.Assign)]
        return bool(assigned) and len(assigned) == len([a for a in function.nodes_of_class(nodes.AssignName)
                                                        if a.name == value.name]) \
            and all(_arithmetic(v, function) for v in assigned)
    return False


def _opaque_callee(ctx: ModuleContext, value, gf) -> bool:
    """`self.backward(*args)` where `backward` is a function stored on self (not a method, a Cell or a
    primitive): what it returns is unknown, possibly a tuple already."""
    if not isinstance(value, nodes.Call) or not isinstance(value.func, nodes.Attribute):
        return False
    func = value.func
    if not (isinstance(func.expr, nodes.Name) and func.expr.name == "self") or gf.self_class is None:
        return False
    if ctx.classes.lookup_method(gf.self_class, func.attrname) is not None:
        return False
    held = ctx.value(func, gf)
    return not (held.has("cell") or held.has("primitive"))


@implements(BPROP_NON_TUPLE)
def check_bprop_returns_tuple(ctx: ModuleContext) -> Iterator[Finding]:
    for ret, gf in ctx.graph_nodes(nodes.Return):
        if gf.kind != "bprop" or inst.frame_of(ret) is not gf.node or ret.value is None:
            continue
        value = ret.value
        if isinstance(value, (nodes.Tuple, nodes.List)) or _opaque_callee(ctx, value, gf):
            continue
        lattice_value = ctx.value(value, gf)
        if not (lattice_value.is_var and lattice_value.elements is None
                and (lattice_value.has("tensor") or _arithmetic(value, gf.node))):
            continue
        if isinstance(value, nodes.Name) and value.name in _positional(gf.node)[-2:] \
                and _returns_tuple_output(ctx.classes.lookup_method(gf.self_class, "construct")
                                          if gf.self_class is not None else None):
            continue  # `return dout` where dout is the tuple of the outputs' gradients
        yield ctx.finding(
            BPROP_NON_TUPLE, ret,
            compose(f"bprop returns {snippet(value)}, a tensor, not a tuple of input gradients",
                    "GRAPH_MODE fails with \"TypeError: For bprop function, output should be a tuple, but got "
                    "AbstractTensor(...)\" (PyNative accepts it)",
                    f"Return a tuple even for one input: `return ({value.as_string()},)`"),
            fix=_tuple_return_fix(ctx, value, gf),
        )


def _tuple_return_fix(ctx: ModuleContext, value, gf) -> fixes.Fix:
    """`return dx` -> `return (dx,)`, wrapping the expression as written.  Safe when construct takes
    one input (the gradient of that input, as the docs show); with more inputs a 1-tuple may not be
    what the backward computes (unsafe)."""
    construct = ctx.classes.lookup_method(gf.self_class, "construct") if gf.self_class is not None else None
    inputs = len(_positional(construct)) if construct is not None and not construct.args.vararg else None
    applicability = fixes.SAFE if inputs == 1 else fixes.UNSAFE
    return fixes.fix(applicability, "return a tuple of input gradients",
                     fixes.insert_before(value, "("), fixes.insert_after(value, ",)"))
