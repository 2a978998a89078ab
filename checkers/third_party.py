"""MS1xx: non-MindSpore libraries (NumPy, SciPy, math, random, time, ...) in graph scope.

MindSpore interprets standard-library and whitelisted third-party calls with JIT
Fallback: on constants they run once, at compile time; on tensors STRICT rejects them and
LAX runs them in the Python interpreter with a zero gradient.
"""
from __future__ import annotations

from typing import Iterator

from astroid import nodes

from mslint import resolve
from mslint.checkers.concurrency import owns as concurrency_owns
from mslint.classes import call_arguments
from mslint.context import ModuleContext
from mslint.data import replacements_for
from mslint.findings import Finding, shown
from mslint.rules import Rule, implements

TENSOR_TO_NUMPY = Rule(
    "MS101", "tensor-to-numpy-in-graph", "error",
    "A tensor is converted to NumPy (`.asnumpy()`, `.numpy()`, `.tolist()`) in graph code.",
    "Keep the computation in MindSpore (mindspore.ops, mint or mindspore.numpy); move NumPy-only work out of "
    "the graph (dataset pipeline or PyNative), or give the cell a custom bprop if it must stay.",
)
CALL_ON_TENSOR = Rule(
    "MS102", "third-party-call-on-tensor", "error",
    "A NumPy/SciPy/standard-library function is applied to a graph tensor, or a NumPy array is mixed with one.",
    "Use the MindSpore function (mindspore.ops, mint, mindspore.numpy, mindspore.scipy) on the tensor; "
    "precompute constants in __init__ and store them as Tensor.",
)
CALL_IN_GRAPH = Rule(
    "MS103", "third-party-call-in-graph", "info",
    "A third-party or standard-library function is called on constants in graph code (JIT Fallback at compile time).",
    "Compute the value once in __init__ and keep it as a Python scalar or a Tensor attribute.",
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


def _library(qualname: str) -> str:
    top = qualname.split(".")[0]
    return {"numpy": "NumPy", "scipy": "SciPy"}.get(top, top)


def _spelled(call: nodes.Call) -> str:
    return shown(call.func)


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
            if qualname.split(".")[0] in _OTHER_FAMILIES or qualname in _NAMEDTUPLE or concurrency_owns(qualname):
                continue
            cached.append((call, gf, qualname))
        ctx.memo["ms1.calls"] = cached
    return cached


def _is_frozen(qualname: str) -> bool:
    module = qualname.rsplit(".", 1)[0]
    return qualname in _FROZEN_FUNCTIONS or module in _FROZEN_MODULES or qualname.split(".")[0] == "secrets"


def _has_var_input(ctx: ModuleContext, call: nodes.Call, gf) -> bool:
    arguments = call_arguments(call)
    if any(ctx.value(a, gf).is_var for a in arguments):
        return True
    # a method of a third-party object built from a tensor, e.g. np.asarray(x).sum()
    func = call.func
    return isinstance(func, nodes.Attribute) and ctx.value(func.expr, gf).is_var and ctx.qualname(func) is None


@implements(TENSOR_TO_NUMPY)
def check_tensor_to_numpy(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute) or call.args:
            continue
        if func.attrname == "asnumpy":
            pass
        elif func.attrname in _TENSOR_TO_NUMPY_METHODS:
            receiver = ctx.value(func.expr, gf)
            if not (receiver.is_var and not receiver.has("ndarray")) and not receiver.has("tensor"):
                continue
        else:
            continue
        yield ctx.finding(
            TENSOR_TO_NUMPY, call,
            f"'{_spelled(call)}()' converts a tensor to NumPy in graph code: STRICT rejects it (AttributeError: "
            f"cannot get attributes {func.attrname}), LAX runs it through JIT Fallback and the gradient through it "
            "is zero",
            gf,
        )


@implements(CALL_ON_TENSOR)
def check_call_on_tensor(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, qualname in _external_calls(ctx):
        if _is_frozen(qualname) or not _has_var_input(ctx, call, gf):
            continue
        replacement = replacements_for(qualname)
        instead = f"; use {' or '.join(replacement)} instead" if replacement else ""
        yield ctx.finding(
            CALL_ON_TENSOR, call,
            f"{_library(qualname)} function {_named(call, qualname)} is applied to a graph tensor: STRICT fails "
            "('the inputs should be constant, but found variable'), LAX falls back to the Python interpreter "
            f"and the gradient through it is zero{instead}",
            gf,
        )
    for binop, gf in ctx.graph_nodes(nodes.BinOp):
        left, right = ctx.value(binop.left, gf), ctx.value(binop.right, gf)
        for array, tensor in ((left, right), (right, left)):
            if array.has("ndarray") and not array.is_var and tensor.is_var and not tensor.has("ndarray"):
                yield ctx.finding(
                    CALL_ON_TENSOR, binop,
                    f"a NumPy array is combined with a graph tensor ('{binop.op}'): STRICT fails ('the inputs should "
                    "be constant'), LAX fails in the operator; store the array as a Tensor in __init__",
                    gf,
                )
                break


@implements(CALL_IN_GRAPH)
def check_call_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    allowed = set(ctx.config.allowed_constant_calls)
    for call, gf, qualname in _external_calls(ctx):
        if _is_frozen(qualname) or qualname in allowed or _has_var_input(ctx, call, gf):
            continue
        if qualname.startswith("numpy.") and qualname.rsplit(".", 1)[-1] in _NUMPY_SCALAR_TYPES:
            continue  # np.float32(1.0): a typed constant
        yield ctx.finding(
            CALL_IN_GRAPH, call,
            f"{_library(qualname)} call {_named(call, qualname)} in graph code is run by JIT Fallback once, at "
            "compile time, and its result embedded as a constant; compute it in __init__",
            gf,
        )


@implements(FROZEN_CALL)
def check_frozen_call(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, qualname in _external_calls(ctx):
        if not _is_frozen(qualname):
            continue
        last = qualname.rsplit(".", 1)[-1]
        instead = _FROZEN_REPLACEMENTS.get(last)
        hint = f"; use {instead}, which draws on every call" if instead else ""
        yield ctx.finding(
            FROZEN_CALL, call,
            f"{_named(call, qualname)} runs once, at compile time: every run of the compiled graph sees the "
            f"same value{hint}",
            gf,
        )
