"""MS1xx: non-MindSpore libraries (NumPy, SciPy, math, random, time, ...) in graph scope.

MindSpore interprets standard-library and whitelisted third-party calls with JIT
Fallback: on constants they run once, at compile time; on tensors STRICT rejects them and
LAX runs them in the Python interpreter with a zero gradient.
"""
from __future__ import annotations

import os
from dataclasses import replace

from typing import Dict, Iterator, Optional

from astroid import Context, nodes

from mslint.project import resolve
from mslint.analysis.lattice import is_graph_value, is_self_attribute
from mslint.checkers.concurrency import owns as concurrency_owns
from mslint.checkers.third_party_related import related_by_conversion
from mslint.project.classes import call_arguments
from mslint.analysis.context import ModuleContext
from mslint.data import replacements_for
from mslint.findings import Finding, shown
from mslint.messages import SNIPPET, compose, snippet
from mslint.project.python_reach import reached_calls
from mslint.rules import Rule, implements
from mslint.analysis.scope import Hop, hop_text, local_bindings

TENSOR_TO_NUMPY = Rule(
    "MS101", "tensor-to-numpy-in-graph", "error",
    "A tensor is converted to NumPy (`.asnumpy()`, `.numpy()`, `.tolist()`) in graph code.",
    "Keep the computation in MindSpore (mindspore.ops, mint or mindspore.numpy); move NumPy-only work out of "
    "the graph (dataset pipeline or PyNative), or give the cell a custom bprop if it must stay.",
)
CALL_ON_TENSOR = Rule(
    "MS102", "third-party-call-on-tensor", "error",
    "A NumPy/SciPy/standard-library function is applied to a tensor in graph code, or a NumPy array is mixed with one.",
    "Use the MindSpore function (mindspore.ops, mint, mindspore.numpy, mindspore.scipy) on the tensor; "
    "precompute constants in __init__ and store them as Tensor; on a Python number computed from a tensor "
    "(int(t), t.item()) use Python arithmetic, which the graph compiles ((a + b - 1) // b for a ceiling); "
    "build typing's containers (typing.OrderedDict()) with collections' classes or a plain dict.",
)
CALL_IN_GRAPH = Rule(
    "MS103", "third-party-call-in-graph", "info",
    "A third-party or standard-library function is called on constants in graph code (JIT Fallback at compile time).",
    "Compute the value once in __init__ and keep it as a Python scalar or a Tensor attribute; when its arguments "
    "depend on input shapes, build it in graph with the MindSpore op (ops.zeros, ops.ones, ops.arange, mint.*).",
)
FROZEN_CALL = Rule(
    "MS104", "compile-time-frozen-call", "warning",
    "A random, time or uuid function in graph code runs once at compile time; its value is frozen into the graph.",
    "Use MindSpore's random ops (ops.uniform, ops.standard_normal, ops.randint, mint.rand, mint.randn), which draw "
    "on every call (seed with mindspore.set_seed); measure time outside the compiled code.",
)
RULES = (TENSOR_TO_NUMPY, CALL_ON_TENSOR, CALL_IN_GRAPH, FROZEN_CALL)

# Modules MS2 (custom types) owns: not reported here; MS3's are told by concurrency.owns.
_OTHER_FAMILIES = frozenset({"dataclasses", "typing", "typing_extensions", "abc", "enum"})
_NAMEDTUPLE = frozenset({"collections.namedtuple", "typing.NamedTuple"})
# standard-library callables the graph compiler supports itself (no JIT Fallback): functools.partial on
# tensors and bound methods compiles under STRICT and the gradient flows through it (verified on 2.10)
_GRAPH_NATIVE = frozenset({"functools.partial"})
# typing's generic aliases build their object in typing's own Python code (a try statement), which MindSpore
# compiles and rejects in STRICT and LAX: "RuntimeError: Unsupported statement 'Try'" (verified on 2.10)
_TYPING_CONTAINERS = {
    "OrderedDict": "collections.OrderedDict()", "DefaultDict": "collections.defaultdict()",
    "Counter": "collections.Counter()", "Deque": "collections.deque()", "ChainMap": "collections.ChainMap()",
}
_FROZEN_MODULES = frozenset({"random", "numpy.random", "secrets"})
_FROZEN_FUNCTIONS = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic", "time.monotonic_ns",
    "time.process_time", "time.process_time_ns", "time.thread_time", "time.localtime", "time.gmtime", "time.ctime",
    "time.asctime", "time.strftime",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
    "uuid.uuid1", "uuid.uuid4", "os.urandom", "os.getrandom",
})
_NUMPY_SCALAR_TYPES = frozenset({
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
    "float64", "complex64", "complex128", "intc", "intp", "longlong", "single", "double", "half", "dtype",
})
_FROZEN_REPLACEMENTS = {
    "rand": "ops.rand / mint.rand", "random": "ops.uniform / mint.rand", "randn": "ops.standard_normal / mint.randn",
    "normal": "ops.normal / mint.normal", "standard_normal": "ops.standard_normal", "uniform": "ops.uniform",
    "randint": "ops.randint / mint.randint", "choice": "ops.multinomial or ops.shuffle", "shuffle": "ops.shuffle",
    "permutation": "ops.randperm", "gauss": "ops.standard_normal", "beta": "ops.beta (via ops.gamma)",
}
_TENSOR_TO_NUMPY_METHODS = ("numpy", "tolist")
# Called on constants these are harmless: scalar math (the NumPy spelling of the allowed math.sqrt), and
# logging/warnings calls, which MindSpore runs once, at compile time (both levels, verified on 2.10).
_SCALAR_MATH_MODULES = frozenset({"math", "cmath", "operator"})
# reduce(operator.mul, x.shape, 1): Python's spelling of a product of numbers (math.prod)
_SCALAR_MATH_CALLS = frozenset({"functools.reduce"})
_SIDE_EFFECT_MODULES = frozenset({"warnings", "logging"})
# introspection (`inspect.signature(self.construct).parameters`) is folded at compile time into a fact about the
# code, not data: nothing to hoist (STRICT and LAX, verified on 2.10)
_INTROSPECTION_MODULES = frozenset({"inspect"})
# NumPy functions that write into their first argument: an array built in graph code and filled this way is a
# scratch buffer, not a constant to hoist (a buffer built once in __init__ would be shared and mutated)
_NUMPY_IN_PLACE = frozenset({
    "numpy.put_along_axis", "numpy.put", "numpy.copyto", "numpy.fill_diagonal", "numpy.place", "numpy.putmask",
    "numpy.random.shuffle",
})
# ndarray methods that change the array in place
_NDARRAY_IN_PLACE_METHODS = frozenset({"fill", "put", "itemset", "sort", "partition", "resize", "setflags",
                                       "byteswap"})
# the containers graph code may build (what the message for typing.OrderedDict() recommends)
_EMPTY_CONTAINERS = frozenset({"collections.OrderedDict", "collections.defaultdict", "collections.deque",
                               "collections.Counter", "collections.ChainMap"})


def _library(qualname: str) -> str:
    top = qualname.split(".")[0]
    return {"numpy": "NumPy", "scipy": "SciPy"}.get(top, top)


def _spelled(call: nodes.Call) -> str:
    return shown(call.func, SNIPPET)


def _named(call: nodes.Call, qualname: str) -> str:
    spelled = _spelled(call)
    return f"'{spelled}'" if spelled == qualname else f"'{spelled}' ({qualname})"


def _external_calls(ctx: ModuleContext):
    """(call, graph function, qualified name, module kind) for stdlib/third-party calls in graph scope."""
    cached = ctx.memo.get("ms1.calls")
    if cached is None:
        cached = []
        for call, gf in ctx.graph_nodes(nodes.Call):
            qualname = ctx.call_qualname(call, gf)
            if not qualname:
                continue
            kind = ctx.resolver.kind(qualname, call.root().file or ctx.path)
            if kind not in (resolve.STDLIB, resolve.THIRD_PARTY):
                continue
            if qualname.split(".")[0] in _OTHER_FAMILIES and not _typing_container(qualname) \
                    or qualname in _NAMEDTUPLE or qualname in _GRAPH_NATIVE or concurrency_owns(qualname):
                continue
            cached.append((call, gf, qualname))
        ctx.memo["ms1.calls"] = cached
    return cached


def _typing_container(qualname: str) -> bool:
    module, _, name = qualname.rpartition(".")
    return module in ("typing", "typing_extensions") and name in _TYPING_CONTAINERS


def _is_frozen(qualname: str) -> bool:
    module = qualname.rsplit(".", 1)[0]
    return qualname in _FROZEN_FUNCTIONS or module in _FROZEN_MODULES or qualname.split(".")[0] == "secrets"


def _inputs(ctx: ModuleContext, call: nodes.Call, gf) -> list:
    """The values a call works on: its arguments, and the receiver of a method of a third-party object
    built in graph code (np.asarray(x).sum())."""
    values = [ctx.value(a, gf) for a in call_arguments(call)]
    func = call.func
    if isinstance(func, nodes.Attribute) and ctx.qualname(func) is None:
        values.append(ctx.value(func.expr, gf))
    return values


def _has_graph_input(ctx: ModuleContext, call: nodes.Call, gf) -> bool:
    """A graph tensor (or a value computed from one in the graph) goes in; a NumPy array or list that
    .asnumpy()/.tolist() made is MS101's finding, not another one per NumPy call on it."""
    return any(is_graph_value(v) for v in _inputs(ctx, call, gf))


def _has_variable_input(ctx: ModuleContext, call: nodes.Call, gf) -> bool:
    """Anything not known at compile time goes in: the call is not folded to a constant."""
    return any(v.is_var for v in _inputs(ctx, call, gf))


@implements(TENSOR_TO_NUMPY)
def check_tensor_to_numpy(ctx: ModuleContext) -> Iterator[Finding]:
    conversions = list(_conversions(ctx))
    related = related_by_conversion(ctx, conversions, _external_calls(ctx)) if conversions else {}
    for call, gf in conversions:
        func = call.func
        found = ctx.finding(
            TENSOR_TO_NUMPY, call,
            compose(f"'{_spelled(call)}()' converts a tensor to "
                    f"{'a Python list' if func.attrname == 'tolist' else 'NumPy'} in graph code",
                    f"STRICT rejects it (AttributeError: cannot get attributes {func.attrname})",
                    "LAX runs it through JIT Fallback; " + (
                        "the gradient comes from the cell's custom bprop" if _has_bprop(ctx, gf)
                        else "the gradient through it is zero")),
            gf,
        )
        yield replace(found, related=related[call]) if call in related else found


def _has_bprop(ctx: ModuleContext, gf) -> bool:
    """The code is a method of a cell with a custom bprop: differentiating the cell calls bprop,
    not the gradient of construct (checked on 2.10: LAX gives bprop's gradient)."""
    return gf.self_class is not None and ctx.classes.lookup_method(gf.self_class, "bprop") is not None


def _conversions(ctx: ModuleContext):
    """(call, graph function) of each `.asnumpy()` (and `.numpy()`, `.tolist()` of a tensor) in graph code."""
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute) or call.args:
            continue
        if func.attrname == "asnumpy":
            pass
        elif func.attrname in _TENSOR_TO_NUMPY_METHODS:
            receiver = ctx.value(func.expr, gf)
            if receiver.has("host") or not (receiver.is_var and not receiver.has("ndarray")) \
                    and not receiver.has("tensor"):
                continue  # a list or array already: converting it again is no new problem
        else:
            continue
        yield call, gf


@implements(CALL_ON_TENSOR)
def check_call_on_tensor(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, qualname in _external_calls(ctx):
        if _typing_container(qualname):
            yield ctx.finding(
                CALL_ON_TENSOR, call,
                compose(f"'{_spelled(call)}()' runs typing's own Python code, which graph code cannot compile",
                        "It fails in STRICT and LAX (RuntimeError: Unsupported statement 'Try')",
                        f"Use {_TYPING_CONTAINERS[qualname.rsplit('.', 1)[-1]]} or a dict"),
                gf,
            )
            continue
        # a random call on a graph value (np.random.permutation(idx.size) after nonzero) is not frozen:
        # STRICT rejects it like any other, LAX runs it on every call
        if not _has_graph_input(ctx, call, gf):
            continue
        replacement = replacements_for(qualname)
        instead = f"Use {' or '.join(replacement)} instead" if replacement else ""
        function = f"{_library(qualname)} function {_named(call, qualname)}"
        if _is_frozen(qualname):
            message = compose(f"{function} takes a value computed in graph code", _STRICT_FAILS,
                              "LAX runs it in the Python interpreter on every call", instead or _frozen_hint(qualname))
        elif (conversion := _scalar_conversion(ctx, call, gf)) is not None:
            message = compose(f"{function} is applied to a number computed from a tensor ({snippet(conversion)})",
                              _STRICT_FAILS, "LAX falls back to the Python interpreter",
                              _scalar_hint(qualname, replacement))
        elif qualname.split(".")[0] == "torch":
            message = compose(f"{function} is applied to a tensor in graph code", _STRICT_FAILS,
                              "LAX runs it in the Python interpreter, where torch is handed a MindSpore tensor, "
                              "which it does not accept", instead or "Use the MindSpore op (mindspore.ops or mint)")
        else:
            message = compose(f"{function} is applied to a tensor in graph code", _STRICT_FAILS,
                              "LAX falls back to the Python interpreter, and the gradient through it is zero", instead)
        yield ctx.finding(CALL_ON_TENSOR, call, message, gf)
    for binop, gf, _ in _arrays_meeting_tensors(ctx):
        yield ctx.finding(
            CALL_ON_TENSOR, binop,
            compose(f"A NumPy array is combined with a tensor by '{binop.op}' in graph code",
                    "STRICT fails ('the inputs should be constant'); LAX fails in the operator",
                    "Store the array as a Tensor in __init__"),
            gf,
        )


def _arrays_meeting_tensors(ctx: ModuleContext):
    """(operator, graph function, the NumPy call that made the array) for each binary operator that
    combines a constant NumPy array with a graph tensor (the call is None when the array operand is
    not a call, or a name bound once to one, in the same function)."""
    cached = ctx.memo.get("ms1.mixed")
    if cached is None:
        cached = []
        for binop, gf in ctx.graph_nodes(nodes.BinOp):
            left, right = ctx.value(binop.left, gf), ctx.value(binop.right, gf)
            for operand, array, tensor in ((binop.left, left, right), (binop.right, right, left)):
                if array.has("ndarray") and not array.is_var and is_graph_value(tensor) and not tensor.has("ndarray"):
                    cached.append((binop, gf, _array_call(operand, gf)))
                    break
        ctx.memo["ms1.mixed"] = cached
    return cached


def _array_call(operand, gf) -> Optional[nodes.Call]:
    """The call an operand is, or that the one assignment of a local name holds (`m = np.ones(3)`)."""
    if isinstance(operand, nodes.Call):
        return operand
    bindings = local_bindings(operand, gf.node)
    if len(bindings) == 1 and isinstance(bindings[0].parent, nodes.Assign) \
            and isinstance(bindings[0].parent.value, nodes.Call) and bindings[0].parent.targets == [bindings[0]]:
        return bindings[0].parent.value
    return None


def _argument_of(call: nodes.Call) -> Optional[nodes.Call]:
    """The call that takes this call's result as an argument (`np.maximum(x, np.zeros(3))`), directly,
    by keyword or inside a list or tuple display."""
    parent = call.parent
    while isinstance(parent, (nodes.List, nodes.Tuple, nodes.Keyword)):
        parent = parent.parent
    return parent if isinstance(parent, nodes.Call) and parent.func is not call else None


def _given_a_mindspore_dtype(ctx: ModuleContext, call: nodes.Call, gf) -> bool:
    """`np.arange(n, dtype=x.dtype)` with a tensor's dtype, or `dtype=ms.float32`: NumPy cannot read a
    MindSpore dtype, so the call raises when it runs (checked on MindSpore 2.10, STRICT and LAX)."""
    for keyword in call.keywords or ():
        if keyword.arg != "dtype":
            continue
        value = keyword.value
        if isinstance(value, nodes.Attribute) and value.attrname == "dtype":
            owner = ctx.value(value.expr, gf)
            if owner.has("tensor") and not owner.tags & {"ndarray", "host"}:
                return True
        qualname = ctx.qualname(value) or ""
        if qualname.startswith("mindspore.") and qualname.rsplit(".", 1)[-1] in _MINDSPORE_DTYPES:
            return True
    return False


_MINDSPORE_DTYPES = frozenset({
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "bool_", "complex64", "complex128", "float_", "int_", "uint", "half", "single", "double"})


# Debugger entry points: nothing to hoist, the call itself is the mistake (tests/test_third_party.py runs pdb's on 2.10).
DEBUGGER_CALLS = frozenset({"pdb.set_trace", "ipdb.set_trace", "pudb.set_trace"})

_STRICT_FAILS = "STRICT fails ('the inputs should be constant, but found variable')"


@implements(CALL_IN_GRAPH)
def check_call_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    allowed = set(ctx.config.allowed_constant_calls)
    mixed = {operand for _, _, operand in _arrays_meeting_tensors(ctx)}
    on_tensors = {c for c, g, q in _external_calls(ctx) if not _typing_container(q) and _has_graph_input(ctx, c, g)}
    for call, gf, qualname in _external_calls(ctx):
        if _is_frozen(qualname) or _typing_container(qualname) or qualname in allowed \
                or _has_variable_input(ctx, call, gf):
            continue
        if qualname.startswith("numpy.") and qualname.rsplit(".", 1)[-1] in _NUMPY_SCALAR_TYPES:
            continue  # np.float32(1.0): a typed constant
        if _harmless_constant_call(ctx, call, gf, qualname):
            continue
        if qualname.startswith("numpy.") and _given_a_mindspore_dtype(ctx, call, gf):
            continue  # NumPy raises (TypeError: Cannot interpret 'mindspore.float32' as a data type): nothing is folded
        if call in mixed or _argument_of(call) in on_tensors:
            continue  # its result meets a graph tensor: MS102 reports that operator or call, one finding for one problem
        if qualname in DEBUGGER_CALLS:
            yield ctx.finding(
                CALL_IN_GRAPH, call,
                compose(f"{_named(call, qualname)} in graph code stops once, while MindSpore compiles, not when the "
                        "graph runs",
                        "MindSpore calls it during compilation (STRICT and LAX); later calls of the graph never stop "
                        "there", "Remove it; to step through the code, run it in PyNative mode"),
                gf,
            )
            continue
        kind, source = _shape_source(ctx, call, gf)
        op = " / ".join(r for r in replacements_for(qualname) if r.startswith("mindspore.ops.")) or "the MindSpore op"
        if qualname.rsplit(".", 1)[-1] in _MINT_BUILDERS and op != "the MindSpore op":
            op += f" (or mint.{qualname.rsplit('.', 1)[-1]})"
        # a method has a class whose __init__ can hold the value; a @jit function or a plain helper has none
        ahead = "move to __init__" if gf.self_class is not None else "move out of the compiled code"
        if kind == "shape":
            shape = f"the shape '{source}'" if source else "an input shape"
            advice = f"It cannot {ahead}, since it depends on {shape}: build it in graph with {op}"
        elif kind == "passed":
            advice = (f"It cannot {ahead}, since '{source.name}' (an argument of '{source.scope().name}') is "
                      f"an input shape its caller passes: build it in graph with {op}")
        elif gf.self_class is not None:
            advice = "Compute it in __init__"
        else:
            advice = "Compute it outside the compiled function (at module level) and use the result"
        yield ctx.finding(
            CALL_IN_GRAPH, call,
            compose(f"{_library(qualname)} call {_named(call, qualname)} in graph code runs once, at compile time",
                    "JIT Fallback embeds its result in the graph as a constant", advice),
            gf,
        )


def _harmless_constant_call(ctx: ModuleContext, call: nodes.Call, gf, qualname: str) -> bool:
    """np.sqrt(self.dim), math.fabs(t), np.log(2), np.finfo(np.float32), warnings.warn(...), logger.info(...):
    a number, a dtype fact or a side effect, nothing worth hoisting (arrays are: np.ones((3, 3)))."""
    top = qualname.split(".")[0]
    if top in _SCALAR_MATH_MODULES or top in _SIDE_EFFECT_MODULES or top in _INTROSPECTION_MODULES \
            or qualname in _EMPTY_CONTAINERS or qualname in _SCALAR_MATH_CALLS:
        return True
    if qualname in _NUMPY_IN_PLACE or any(k.arg == "out" for k in call.keywords or ()) or _filled_in_place(ctx, call):
        return True  # a scratch buffer and the calls that fill it
    return top == "numpy" and not ctx.value(call, gf).has("ndarray")


# array builders mindspore.mint has under the NumPy name (checked on 2.10)
_MINT_BUILDERS = frozenset({"zeros", "ones", "full", "arange", "eye", "linspace", "zeros_like", "ones_like",
                            "full_like", "empty"})
_SHAPE_ATTRIBUTES = frozenset({"shape", "size", "ndim"})
_SHAPE_METHODS = frozenset({"size", "dim", "numel", "nelement", "ndimension"})
_SCALAR_CONVERSIONS = frozenset({"builtins.int", "builtins.float", "builtins.round", "builtins.bool"})
_DEPTH = 6  # assignments followed back from an argument


def _origins(ctx: ModuleContext, expr, depth: int = 0, in_call: bool = False):
    """The parts an expression is computed from, following local names back to their assignments in the same
    function: (kind, node) with kind "shape" (x.shape, len(x), x.size()), "parameter" (a parameter of the
    function, not only an argument of a call made from it), "conversion" (int(t), float(t), t.item()), "opaque"
    (a dict's .get()) or "leaf" (anything else)."""
    if depth > _DEPTH:
        yield "leaf", expr
        return
    if isinstance(expr, nodes.Attribute) and expr.attrname in _SHAPE_ATTRIBUTES:
        yield ("leaf" if is_self_attribute(expr.expr) else "shape"), expr  # self.pos_embed.shape is fixed once __init__ has run
        return
    if isinstance(expr, nodes.Call):
        func = expr.func
        qualname = ctx.resolver.qualname(func)
        if qualname == "builtins.len" or (isinstance(func, nodes.Attribute) and func.attrname in _SHAPE_METHODS
                                          and qualname is None) or (qualname or "").endswith("ops.shape"):
            yield "shape", expr
            return
        if qualname in _SCALAR_CONVERSIONS or isinstance(func, nodes.Attribute) and func.attrname == "item" \
                and qualname is None:
            yield "conversion", expr
            return
        if isinstance(func, nodes.Attribute) and func.attrname == "get" and qualname is None:
            yield "opaque", expr  # info.get("index"): a dict's value, no evidence of a tensor
            return
        yield "leaf", expr  # what the call returns (x.sum(): a tensor), and what it is computed from
        for arg in list(expr.args) + [k.value for k in expr.keywords or ()]:
            yield from _origins(ctx, arg, depth + 1, True)
        return
    if isinstance(expr, nodes.Name):
        _, bindings = expr.lookup(expr.name)
        if len(bindings) != 1:
            yield "leaf", expr
            return
        binding = bindings[0]
        if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Arguments):
            yield ("leaf" if binding.name in ("self", "cls") or in_call else "parameter"), expr
            return
        value = _assigned_part(binding)
        if value is None or binding.scope() is not expr.scope():
            yield "leaf", expr
            return
        yield from _origins(ctx, value, depth + 1, in_call)
        return
    if isinstance(expr, (nodes.BinOp, nodes.UnaryOp, nodes.Tuple, nodes.List, nodes.Subscript, nodes.IfExp,
                         nodes.BoolOp, nodes.Compare, nodes.Starred)):
        if isinstance(expr, nodes.Subscript):
            children = [expr.value]
        elif isinstance(expr, nodes.IfExp):
            children = [expr.body, expr.orelse]
        else:
            children = list(expr.get_children())
        for child in children:
            yield from _origins(ctx, child, depth + 1, in_call)
        return
    yield "leaf", expr


def _assigned_part(binding):
    """The expression a name is bound to: `n = e` gives e, `b, c, h, w = x.shape` gives x.shape."""
    assign = binding.parent
    if isinstance(assign, (nodes.Assign, nodes.AnnAssign)) and assign.value is not None:
        return assign.value
    if isinstance(assign, nodes.Tuple) and isinstance(assign.parent, nodes.Assign):
        return assign.parent.value
    return None


def _scalar_conversion(ctx: ModuleContext, call: nodes.Call, gf) -> Optional[str]:
    """`math.ceil((end - start) / max_d)` with `max_d = int(grid[0][1]) // 2`: the graph value that goes in is a
    Python number made from a tensor (the conversion's text), not a tensor; None if a tensor goes in."""
    found = None
    for arg in call_arguments(call):
        if not is_graph_value(ctx.value(arg, gf)):
            continue
        for kind, node in _origins(ctx, arg):
            if kind == "conversion":
                found = found or shown(node)
            elif kind in ("leaf", "parameter"):
                value = ctx.value(node, gf) if not isinstance(node, nodes.AssignName) else None
                if value is None or value.has("tensor") or value.has("ndarray"):
                    return None  # a tensor (or an input of unknown kind) goes in too
    return found


def _scalar_hint(qualname: str, replacement: list) -> str:
    if qualname == "math.ceil":
        return "Use integer ceiling division ((a + b - 1) // b), which the graph compiles"
    if qualname == "math.floor":
        return "Use integer division (a // b), which the graph compiles"
    if replacement:
        return f"Keep the value a tensor (no int()/float()/.item()) and use {' or '.join(replacement)}"
    return "Keep the value a tensor (no int()/float()/.item()) and use a MindSpore op"


def _shape_source(ctx: ModuleContext, call: nodes.Call, gf):
    """Why the arguments of a constant call change from one compilation to the next, or (None, None):
    ("shape", its text) for a shape read in this function (x.shape, len(x)), ("passed", the parameter's name) for
    a parameter its callers pass a shape, ("shape", None) for another number read from a shape."""
    arguments = call_arguments(call)
    origins = [origin for arg in arguments for origin in _origins(ctx, arg)]
    for kind, node in origins:
        if kind == "shape":
            return kind, shown(node)
    for kind, node in origins:
        if kind == "parameter" and _from_shape(ctx.value(node, gf)):
            return "passed", node
    if any(_from_shape(ctx.value(arg, gf)) for arg in arguments):
        return "shape", None
    return None, None


def _from_shape(value, depth: int = 0) -> bool:
    """A value read from a shape (lattice.SHAPE), or a tuple holding one."""
    if value.has("shape"):
        return True
    return depth < 3 and value.elements is not None and any(_from_shape(e, depth + 1) for e in value.elements)


def _filled_in_place(ctx: ModuleContext, call: nodes.Call) -> bool:
    """`m = np.zeros(shape)` that the same function then writes into: `m[i] = ...`, `m[i] += ...`,
    `np.put_along_axis(m, ...)`, `m.fill(0)`, `np.add(a, b, out=m)`."""
    assign = call.parent
    if not isinstance(assign, (nodes.Assign, nodes.AnnAssign)) or assign.value is not call:
        return False
    targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
    if len(targets) != 1 or not isinstance(targets[0], nodes.AssignName):
        return False
    binding = targets[0]
    scope = binding.scope()
    for name in scope.nodes_of_class(nodes.Name):
        if name.name != binding.name or name.scope() is not scope or name.lineno < binding.lineno \
                or binding not in name.lookup(name.name)[1]:
            continue
        parent = name.parent
        if isinstance(parent, nodes.Subscript) and parent.value is name and parent.ctx == Context.Store:
            return True  # m[...] = v, m[...] += v
        if isinstance(parent, nodes.Attribute) and parent.expr is name and parent.attrname in _NDARRAY_IN_PLACE_METHODS \
                and isinstance(parent.parent, nodes.Call) and parent.parent.func is parent:
            return True  # m.fill(0)
        if isinstance(parent, nodes.Call) and parent.args and parent.args[0] is name \
                and ctx.resolver.qualname(parent.func) in _NUMPY_IN_PLACE:
            return True  # np.put_along_axis(m, idx, 1, -1)
        if isinstance(parent, nodes.Keyword) and parent.arg == "out":
            return True  # np.add(a, b, out=m)
    return False


@implements(FROZEN_CALL)
def check_frozen_call(ctx: ModuleContext) -> Iterator[Finding]:
    seeds = _constant_seeds(ctx)
    for call, gf, qualname in _external_calls(ctx):
        if not _is_frozen(qualname) or _has_variable_input(ctx, call, gf):
            continue  # data-dependent: MS102 (a graph value goes in) or MS101 (a converted one)
        if qualname in _SEEDS or _reseeded(call, gf, qualname, seeds):
            continue  # the same draws on every call, compiled or not
        yield ctx.finding(
            FROZEN_CALL, call,
            compose(f"{_named(call, qualname)} in graph code runs once, at compile time",
                    "Every run of the compiled graph sees the same value", _frozen_hint(qualname)),
            gf,
        )
    yield from _frozen_in_constexpr(ctx)


_SEEDS = {"numpy.random.seed": "numpy.random.", "random.seed": "random."}


def _constant_seeds(ctx: ModuleContext) -> list:
    """(RNG prefix, function, file, line) of each `np.random.seed(<constant>)` / `random.seed(...)` in
    graph code.  A function that seeds with a constant before drawing draws the same numbers on
    every call (BigBird's block-sparse masks): freezing them at compile time changes nothing."""
    return [(_SEEDS[qualname], call.scope(), call.root().file, call.lineno)
            for call, gf, qualname in _external_calls(ctx)
            if qualname in _SEEDS and not _has_variable_input(ctx, call, gf)]


def _reseeded(call: nodes.Call, gf, qualname: str, seeds: list) -> bool:
    """Whether a constant seed of this draw's generator comes before it: earlier in its own
    function, or in a function on its way from the root, before the call that leads to it."""
    for prefix, function, path, line in seeds:
        if not qualname.startswith(prefix):
            continue
        if function is call.scope() and line < call.lineno:
            return True
        for hop in gf.reach:
            if path and os.path.abspath(hop.path) == os.path.abspath(path) and \
                    function.fromlineno <= hop.line <= (function.tolineno or hop.line) and line < hop.line:
                return True
    return False


def _constexpr_frozen_calls(ctx: ModuleContext):
    """(random/time call, its chain of helper calls, the @constexpr function, the graph call of that function,
    graph function, qualified name): MindSpore runs a @constexpr function in Python while it compiles, so
    what it draws is frozen too, and so is what the project helpers it calls draw."""
    in_graph = {call for call, _, _ in _external_calls(ctx)}  # the graph path reports these
    seen = set()
    for call, gf in ctx.graph_nodes(nodes.Call):
        helper = ctx.resolver.resolve_callable(call.func)
        if not isinstance(helper, nodes.FunctionDef) or not ctx.classes.is_constexpr(helper):
            continue
        for inner, chain in reached_calls(ctx.resolver, helper):
            qualname = ctx.resolver.qualname(inner.func)
            if inner in seen or inner in in_graph or not qualname or not _is_frozen(qualname):
                continue
            if ctx.resolver.kind(qualname, inner.root().file or ctx.path) in (resolve.STDLIB, resolve.THIRD_PARTY):
                seen.add(inner)
                yield inner, chain, helper, call, gf, qualname


def _frozen_in_constexpr(ctx: ModuleContext) -> Iterator[Finding]:
    # one finding per place: the draws of a helper in another module are all reported at the graph
    # call, which names the first of them (in source order) and counts the others
    by_place: Dict[nodes.NodeNG, list] = {}
    for found in _constexpr_frozen_calls(ctx):
        inner, chain, helper, call = found[:4]
        here = helper.root() is ctx.module
        # in this module, the deepest place on the way to the draw (the draw, or the call that leaves the
        # module); none when the whole way lies in another module (a helper file reached from this one)
        shown_at = next((node for node in [inner] + [hop for hop, _ in reversed(chain)] + [call]
                         if node.root() is ctx.module), call)
        by_place.setdefault(shown_at if here else call, []).append(found)
    for place, draws in by_place.items():
        draws.sort(key=lambda found: (found[0].root().file or "", found[0].lineno, found[0].col_offset))
        yield _frozen_in_constexpr_finding(ctx, place, draws[0], len(draws) - 1)


def _frozen_in_constexpr_finding(ctx: ModuleContext, place, found, others: int) -> Finding:
    inner, chain, helper, call, gf, qualname = found
    here = helper.root() is ctx.module
    where = f"line {call.lineno}" if here else f"{gf.display}, line {call.lineno}"
    if chain:  # in a project helper the @constexpr function calls
        hops = " -> ".join([helper.name] + [_hop_text(ctx, hop, callee) for hop, callee in chain])
        found_in = f"in '{chain[-1][1].name}', which the @constexpr function '{helper.name}' calls,"
        reach = f"Reach: {hops}; called from graph code, {where}"
    else:
        found_in = f"in the @constexpr function '{helper.name}'"
        reach = f"Called from graph code, {where}"
    more = f" ({others} more draw{'s' if others > 1 else ''} there too)" if others else ""
    return ctx.finding(
        FROZEN_CALL, place,
        compose(f"{_named(inner, qualname)} {found_in}{more} runs once, at compile time",
                "MindSpore evaluates the function while it compiles: every run of the compiled graph sees the "
                "same value", _frozen_hint(qualname), reach),
        None if here else gf,
    )


def _hop_text(ctx: ModuleContext, call: nodes.Call, callee: nodes.FunctionDef) -> str:
    """'draw (line 8)', or 'draw (utils.py, line 8)' for a call in another file."""
    return hop_text(Hop(callee.name, call.lineno, call.root().file or ctx.path), ctx.path)


def _frozen_hint(qualname: str) -> str:
    instead = _FROZEN_REPLACEMENTS.get(qualname.rsplit(".", 1)[-1])
    return f"Use {instead}, which draws on every call" if instead else ""
