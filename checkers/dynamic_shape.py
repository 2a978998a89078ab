"""MS4xx: dynamic-shape producers in graph scope.

Ops whose output size depends on the data (masked_select, nonzero, unique, boolean-mask
indexing, topk with a computed k, slices with tensor bounds, reductions over a computed
axis) give the graph a dynamic output shape.  MindSpore 2.10 compiles and runs them on
CPU (`ops.isconstant(y.shape)` is False inside construct); its documentation says dynamic
shapes degrade execution performance and prevent parallel slicing and memory-reuse
optimisation, and the migration guide asks to keep shapes fixed with masks instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Set

from astroid import nodes
from astroid.const import Context

from mslint.project import mindspore_names as msn
from mslint.project.classes import call_arguments, keyword_value
from mslint.analysis.context import ModuleContext
from mslint.messages import SNIPPET, compose, quoted, snippet
from mslint.findings import Finding, shown
from mslint.analysis.lattice import Value
from mslint.rules import Rule, implements
from mslint.analysis.scope import GraphFunction, local_bindings

DYNAMIC_SHAPE_OP = Rule(
    "MS401", "dynamic-shape-op", "warning",
    "An op whose output size depends on the data (masked_select, nonzero, argwhere, unique, bincount, "
    "one-argument mint.where, boolean-mask indexing x[mask]) is used in graph code.",
    "Keep the shape fixed and carry a mask instead: y = x * mask.astype(x.dtype) and pass mask on, or "
    "ops.masked_fill / ops.select / ops.where(mask, x, 0); if the elements must be gathered, pad to a fixed "
    "maximum number and mask out the rest.",
)
TOPK_VARIABLE_K = Rule(
    "MS402", "topk-variable-k", "warning",
    "topk / TopK is called with a k that is not a compile-time constant (computed from a tensor).",
    "Sort in descending order and threshold at the k-th value: con_sort, _ = ops.Sort(descending=True)(con); "
    "con_k = con_sort[k - 1]; mask = (con >= con_k).astype(con.dtype), then use con * mask; or take topk with a "
    "fixed maximum k and mask out the extra entries.",
)
VARIABLE_SLICE_BOUND = Rule(
    "MS403", "variable-slice-bound", "warning",
    "A tensor is sliced with a bound computed from a tensor (x[:k], ops.slice with a tensor begin or size).",
    "Keep the full length and mask: keep = ops.arange(n) < k, then x * keep or ops.select; or slice to a fixed "
    "maximum length and mask out the rest.",
)
VARIABLE_AXIS = Rule(
    "MS404", "variable-axis", "info",
    "A reduction or transpose takes its axis / permutation from a tensor value.",
    "Compute the axis from shapes or Python constants (x.ndim - 1, an int attribute set in __init__), so it is "
    "known at compile time.",
    default_enabled=False,
)
SHAPE_DIVERGENT_BRANCHES = Rule(
    "MS405", "shape-divergent-branches", "info",
    "An `if` on a tensor condition binds a name to a dynamic-shape value in one branch and a fixed-shape value in "
    "the other.",
    "Compute both values with fixed shapes and pick with ops.select(cond, a, b) (or mask in both branches and "
    "multiply once) instead of a Python if on a tensor.",
    default_enabled=False,
)
RULES = (DYNAMIC_SHAPE_OP, TOPK_VARIABLE_K, VARIABLE_SLICE_BOUND, VARIABLE_AXIS, SHAPE_DIVERGENT_BRANCHES)

# What a dynamic shape costs, in the words of MindSpore's documentation, and what was observed.
_COST = ("MindSpore 2.10 compiles and runs it (verified on CPU), but per the docs dynamic shapes degrade "
         "execution performance and prevent parallel slicing and memory-reuse optimisation on Ascend/GPU")

_PRODUCERS = frozenset({"masked_select", "nonzero", "argwhere", "unique", "unique_consecutive", "bincount"})
_PRODUCER_PRIMITIVES = frozenset({"MaskedSelect", "NonZero", "Unique", "UniqueConsecutive", "Argwhere", "Bincount"})
# (COOTensor.to_csr is not one: its arrays' shapes follow the COO tensor's shape and nnz, not its values)
_PRODUCER_METHODS = _PRODUCERS | {"to_coo"}
_UNIQUE = frozenset({"unique", "Unique"})
# ops.slice(input_x, begin, size), ops.strided_slice(input_x, begin, end, strides): what bounds the slice
_SLICE_OPS = {
    "slice": (("begin", 1), ("size", 2)), "Slice": (("begin", 1), ("size", 2)),
    "strided_slice": (("begin", 1), ("end", 2), ("strides", 3)),
    "StridedSlice": (("begin", 1), ("end", 2), ("strides", 3)),
}
_REDUCTIONS = frozenset({
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "std", "var",
    "logsumexp", "nansum", "median",
})
_REDUCE_PRIMITIVES = frozenset({
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny", "Transpose",
})
_PERMUTATIONS = frozenset({"transpose", "permute"})
# Tags of values that are not tensors (a method of the same name is something else).
_NOT_TENSOR = frozenset({"ndarray", "scalar", "str", "mutable", "object", "cell", "cell_list", "callable", "self",
                         "primitive", "class"})


@dataclass(frozen=True)
class Detection:
    rule: Rule
    node: nodes.NodeNG
    message: str
    gf: GraphFunction


def _op_named(op: "_Call") -> str:
    """'ops.masked_select', or 'self.select' (MaskedSelect) for a primitive stored on self."""
    spelled = shown(op.call.func, SNIPPET)
    if op.form == "primitive" and not spelled.endswith(f"{op.name}()"):
        return f"'{spelled}' ({op.name})"
    return f"'{spelled}'"


def _tensor_like(value: Value) -> bool:
    if value.tags & _NOT_TENSOR or value.elements is not None:
        return False
    return value.has("tensor") or value.is_var


def _computed_from_tensor(ctx: ModuleContext, node, gf: GraphFunction) -> bool:
    """A VAR size/bound that is known to come from a tensor, not only from a root's un-annotated input.

    A root's parameters are guessed to be tensors, but a cell is usually a sub-cell: its parent
    (often in another module) may pass a Python int such as `bs` from `x.shape`, and MindSpore
    folds an int argument as a compile-time constant.  Integer arithmetic on such inputs
    (`n`, `self.max_len // n`, `(0, 0, n - 1)`) is therefore no evidence of a dynamic shape; a
    tensor op (`x.sum()`, `ops.argmax(x)`), an input annotated as Tensor, or a value passed in
    by a graph caller is; what a call the analysis cannot follow returns (an int from a sub-cell's
    x.shape[0], say) is not."""
    return _data_dependent(ctx.value(node, gf)) and not _guessed_input_arithmetic(ctx, node, gf, 0)


def _data_dependent(value: Value) -> bool:
    """Computed from tensor data: in the graph, or by the interpreter from a converted tensor (an int from
    `.tolist()` bounds a slice just as dynamically); not what an unfollowed call returned."""
    return value.is_var and not value.has("opaque")


def _guessed_input_arithmetic(ctx: ModuleContext, node, gf: GraphFunction, depth: int) -> bool:
    """Constants, un-annotated root inputs, and +-*/ // % on them (through single local assignments)."""
    if ctx.value(node, gf).is_const:
        return True
    if depth > 8:
        return False
    if isinstance(node, nodes.BinOp):
        return all(_guessed_input_arithmetic(ctx, side, gf, depth + 1) for side in (node.left, node.right))
    if isinstance(node, nodes.UnaryOp) and node.op in ("-", "+"):
        return _guessed_input_arithmetic(ctx, node.operand, gf, depth + 1)
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return all(_guessed_input_arithmetic(ctx, element, gf, depth + 1) for element in node.elts)
    if isinstance(node, nodes.Subscript):
        if isinstance(node.value, nodes.Name) and _guessed_input_arithmetic(ctx, node.value, gf, depth + 1) and \
                _guessed_input_arithmetic(ctx, node.slice, gf, depth + 1):
            # an input's part, as `boxes, k = in_args` is: `cache["slen"]`, `sizes[0]`, `sizes[k]` with
            # `for k in sizes`
            return True
        if _counted_in_constants(ctx, node, gf):
            return True
        # a sequence not known to be a tensor indexed by an input: `self.starts[i]`
        return not ctx.value(node.value, gf).is_var and _guessed_input_arithmetic(ctx, node.slice, gf, depth + 1)
    if not isinstance(node, nodes.Name):
        return False
    bindings = local_bindings(node, gf.node)
    return bool(bindings) and all(_guessed_binding(ctx, binding, gf, depth) for binding in bindings)


def _counted_in_constants(ctx: ModuleContext, node: nodes.Subscript, gf: GraphFunction) -> bool:
    """`cache["slen"]` where the same function counts that entry up by compile-time ints
    (`cache["slen"] += x.shape[1]`): an int, whatever the container's annotation says
    (HF's `cache: Optional[Dict[str, Tensor]]` in flaubert and xlm)."""
    if not isinstance(node.value, nodes.Name):
        return False
    entry = node.as_string()
    counted = [augment for augment in gf.node.nodes_of_class(nodes.AugAssign)
               if isinstance(augment.target, nodes.Subscript) and augment.target.as_string() == entry]
    return bool(counted) and all(ctx.value(augment.value, gf).is_const for augment in counted)


def _guessed_binding(ctx: ModuleContext, binding, gf: GraphFunction, depth: int) -> bool:
    """`n` a root input, `k = <guessed>`, `k += <guessed>`, `boxes, k = <guessed>` (an input's parts)."""
    if not isinstance(binding, nodes.AssignName):
        return False
    if isinstance(binding.parent, nodes.Arguments):
        if gf.is_root:
            return _unannotated_parameter(binding.parent, binding.name)
        return _guessed_at_every_call(ctx, binding, gf, depth)
    target = binding
    while isinstance(target.parent, (nodes.Tuple, nodes.List, nodes.Starred)):
        target = target.parent
    assign = target.parent
    if isinstance(assign, nodes.For) and assign.target is target:
        return _guessed_iterable(ctx, assign.iter, gf, depth + 1)  # `for k in sizes`: an input's part
    if isinstance(assign, nodes.Assign) and target in assign.targets or \
            isinstance(assign, nodes.AugAssign) and assign.target is binding:
        return _guessed_input_arithmetic(ctx, assign.value, gf, depth + 1)
    return False


def _guessed_at_every_call(ctx: ModuleContext, parameter: nodes.AssignName, gf: GraphFunction, depth: int) -> bool:
    """A helper's parameter that every graph caller fills with a root's input, its part, or arithmetic
    on them (`crop(boxes, num)` after `boxes, num = inputs`, in this module or another): the exemption
    of root inputs follows the value into the helper."""
    callers = ctx.scope.callers(gf)
    if not callers:
        return False
    for call, caller, bound in callers:
        if bound is None:
            return False  # MindSpore calls it (ops.vmap): with tensors
        argument = _argument_for(call, gf.node, parameter.name, bound)
        if argument is _LEFT_AT_DEFAULT:
            continue
        if argument is None or not _guessed_input_arithmetic(ctx, argument, caller, depth + 1):
            return False
    return True


_LEFT_AT_DEFAULT = object()


def _argument_for(call: nodes.Call, function, name: str, bound: bool):
    """The expression a call passes for a named parameter of `function`; _LEFT_AT_DEFAULT when the call
    leaves it at its default; None when it cannot be told (a `*seq` or `**kw` argument, `*args`)."""
    if any(isinstance(argument, nodes.Starred) for argument in call.args) or \
            any(keyword.arg is None for keyword in call.keywords or ()):
        return None
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return keyword.value
    arguments = function.args
    positional = [a.name for a in (arguments.posonlyargs or []) + (arguments.args or [])]
    if bound and positional:
        positional = positional[1:]
    if name not in positional:
        return _LEFT_AT_DEFAULT if name in [a.name for a in arguments.kwonlyargs or []] else None
    index = positional.index(name)
    if index < len(call.args):
        return call.args[index]
    with_default = positional[len(positional) - len(arguments.defaults or []):]
    return _LEFT_AT_DEFAULT if name in with_default else None


_ITERATING_BUILTINS = frozenset({"builtins.sorted", "builtins.list", "builtins.tuple", "builtins.reversed",
                                 "builtins.enumerate", "builtins.zip"})


def _guessed_iterable(ctx: ModuleContext, node, gf: GraphFunction, depth: int) -> bool:
    """What a loop over an input runs through: the input, `sizes.keys()` / `.values()` / `.items()`,
    `sorted(...)`, `enumerate(...)`, `zip(...)` of such."""
    if depth > 8:
        return False
    if isinstance(node, nodes.Call) and not node.keywords:
        func = node.func
        if isinstance(func, nodes.Attribute) and func.attrname in ("keys", "values", "items") and not node.args:
            return _guessed_iterable(ctx, func.expr, gf, depth + 1)
        if ctx.qualname(func) in _ITERATING_BUILTINS and node.args:
            return all(_guessed_iterable(ctx, argument, gf, depth + 1) for argument in node.args)
        return False
    return _guessed_input_arithmetic(ctx, node, gf, depth)


def _unannotated_parameter(arguments: nodes.Arguments, name: str) -> bool:
    """No annotation, or a bare container one (`pos: list`), which says nothing of what it holds."""
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    annotations = list(arguments.posonlyargs_annotations or []) + list(arguments.annotations or [])
    for index, arg in enumerate(positional):
        if arg.name == name:
            return index >= len(annotations) or _says_nothing_of_elements(annotations[index])
    for index, arg in enumerate(arguments.kwonlyargs or []):
        if arg.name == name:
            annotations = arguments.kwonlyargs_annotations or []
            return index >= len(annotations) or _says_nothing_of_elements(annotations[index])
    return False  # *args / **kwargs


_BARE_CONTAINERS = frozenset({"list", "tuple", "dict", "List", "Tuple", "Dict", "Sequence", "Mapping"})


def _says_nothing_of_elements(annotation) -> bool:
    if annotation is None:
        return True
    name = annotation.attrname if isinstance(annotation, nodes.Attribute) else getattr(annotation, "name", None)
    return isinstance(annotation, (nodes.Name, nodes.Attribute)) and name in _BARE_CONTAINERS


def _tensor_method(qualname: Optional[str]) -> Optional[str]:
    """'nonzero' for mindspore.Tensor.nonzero (the unbound spelling Tensor.nonzero(x))."""
    if qualname and "." in qualname:
        owner, name = qualname.rsplit(".", 1)
        if owner in msn.TENSOR_CLASSES:
            return name
    return None


class _Call:
    """What an op call is, independent of how it is spelled: name, form, and its arguments."""

    def __init__(self, ctx: ModuleContext, call: nodes.Call, gf: GraphFunction):
        self.call = call
        self.name: Optional[str] = None
        self.namespace: Optional[str] = None  # ops, mint, numpy, Tensor, primitive
        self.form: Optional[str] = None  # function (ops./mint./Tensor.x(t)), method (t.x()), primitive (P.X()(t))
        qualname = ctx.call_qualname(call, gf)
        func = call.func
        if qualname is not None and msn.is_mindspore(qualname):
            parts = qualname.split(".")
            if len(parts) >= 3 and parts[1] in ("ops", "mint", "numpy"):
                self.name, self.form = parts[-1], "function"
                self.namespace = parts[1]
            elif _tensor_method(qualname):
                self.name, self.form = _tensor_method(qualname), "function"
                self.namespace = "Tensor"
            return
        func_value = ctx.value(func, gf)
        if func_value.has("primitive") and msn.is_mindspore(func_value.cls):
            self.name, self.form = func_value.cls.rsplit(".", 1)[-1], "primitive"
            self.namespace = "primitive"
        elif isinstance(func, nodes.Attribute) and qualname is None:
            receiver = ctx.value(func.expr, gf)
            if _tensor_like(receiver):
                self.name, self.form = func.attrname, "method"
                self.namespace = "Tensor"

    def argument(self, name: str, position: int):
        """The argument at `position` of the function form (the method form drops the tensor itself)."""
        if self.form == "method":
            position -= 1
        return keyword_value(self.call, name, position) if position >= 0 else keyword_value(self.call, name)

    def arguments(self) -> List[nodes.NodeNG]:
        return call_arguments(self.call)


def _detections(ctx: ModuleContext) -> List[Detection]:
    cached = ctx.memo.get("ms4.detections")
    if cached is None:
        cached = []
        masks: Dict[nodes.NodeNG, Set[str]] = {}
        for call, gf in ctx.graph_nodes(nodes.Call):
            op = _Call(ctx, call, gf)
            cached.extend(_call_detections(ctx, op, gf))
            masks.setdefault(gf.node, set()).update(_mask_arguments(op))
        for subscript, gf in ctx.graph_nodes(nodes.Subscript):
            cached.extend(_subscript_detections(ctx, subscript, gf, masks.get(gf.node, set())))
        ctx.memo["ms4.detections"] = cached
    return cached


# Ops that take a boolean mask: {name: (keyword, position)} of the mask argument (function form).
_MASK_ARGUMENTS = {
    "masked_fill": ("mask", 1), "MaskedFill": ("mask", 1), "masked_select": ("mask", 1),
    "MaskedSelect": ("mask", 1), "select": ("cond", 0), "Select": ("cond", 0), "where": ("condition", 0),
}
_LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not", "LogicalAnd", "LogicalOr",
                      "LogicalNot"})


def _mask_arguments(op: "_Call") -> Iterator[str]:
    """Names this call uses as a boolean mask (`ops.masked_fill(x, m, 0)`, `ops.where(m, a, b)`, `m.logical_not()`)."""
    if op.name in _LOGICAL:
        candidates = op.arguments() + ([op.call.func.expr] if op.form == "method" else [])
    elif op.name in _MASK_ARGUMENTS and not (op.name == "where" and len(op.arguments()) != 3):
        candidates = [op.argument(*_MASK_ARGUMENTS[op.name])]
    else:
        return
    for candidate in candidates:
        if isinstance(candidate, nodes.Name):
            yield candidate.name


def _call_detections(ctx: ModuleContext, op: _Call, gf: GraphFunction) -> Iterator[Detection]:
    if op.name is None:
        return
    call = op.call
    if _is_producer(ctx, op, gf):
        constants = "Its input is built from constants, but MindSpore does not fold it" \
            if ctx.value(call, gf).is_const else ""
        yield Detection(
            DYNAMIC_SHAPE_OP, call,
            compose(f"{_op_named(op)} has a dynamic output shape: its length depends on the values of its input",
                    constants, _COST),
            gf,
        )
    elif op.name in ("topk", "TopK"):
        k = op.argument("k", 1)
        if k is not None and _computed_from_tensor(ctx, k, gf):
            yield Detection(
                TOPK_VARIABLE_K, call,
                compose(f"topk's k, {snippet(k)}, is computed from a tensor, not a compile-time constant",
                        "The result has a dynamic output shape and k is range-checked only at run time", _COST),
                gf,
            )
    elif op.name in _SLICE_OPS and op.namespace in ("ops", "primitive"):
        bounds = [op.argument(name, position) for name, position in _SLICE_OPS[op.name]]
        variable = [b for b in bounds if b is not None and _computed_from_tensor(ctx, b, gf)]
        if variable:
            yield Detection(
                VARIABLE_SLICE_BOUND, call,
                compose(f"{_op_named(op)} takes its begin/size from {snippet(variable[0])}, a tensor value",
                        "The slice has a dynamic output shape", _COST),
                gf,
            )
    axis = _variable_axis(ctx, op, gf)
    if axis is not None:
        yield Detection(
            VARIABLE_AXIS, call,
            compose(f"{_op_named(op)} takes its axis from {snippet(axis)}, a tensor value",
                    "The result has a dynamic output shape (which dimensions remain is unknown at compile time)",
                    _COST),
            gf,
        )


def _is_producer(ctx: ModuleContext, op: _Call, gf: GraphFunction) -> bool:
    call = op.call
    if op.form == "primitive":
        if op.name not in _PRODUCER_PRIMITIVES:
            return False
    elif op.name == "where":
        # mint.where(condition) is nonzero(condition, as_tuple=True); ops.where(c, a, b) keeps the shape
        if op.form != "function" or op.namespace != "mint" or len(op.arguments()) != 1:
            return False
    elif op.name not in (_PRODUCER_METHODS if op.form == "method" or op.namespace == "Tensor" else _PRODUCERS):
        return False
    if op.name in ("bincount", "Bincount") and ctx.value(call, gf).is_const:
        # checked on MindSpore 2.10: bincount of constants has a static shape; nonzero, unique,
        # masked_select, argwhere, unique_consecutive of constants are not folded (dynamic)
        return False
    if op.name in _UNIQUE and _only_inverse_used(ctx, call, gf):
        return False
    return True


def _only_inverse_used(ctx: ModuleContext, call: nodes.Call, gf: GraphFunction) -> bool:
    """`_, idx = ops.unique(x)` or `ops.unique(x)[1]`: the inverse indices have the input's shape."""
    parent = call.parent
    if isinstance(parent, nodes.Subscript) and parent.value is call:
        return isinstance(parent.slice, nodes.Const) and parent.slice.value == 1
    if isinstance(parent, nodes.Assign) and len(parent.targets) == 1 and \
            isinstance(parent.targets[0], (nodes.Tuple, nodes.List)) and parent.targets[0].elts:
        first = parent.targets[0].elts[0]
        if not isinstance(first, nodes.AssignName):
            return False
        return first.name == "_" or not any(
            isinstance(n, nodes.Name) and n.name == first.name for n in ctx.scope.body(gf.node).nodes)
    return False


def _variable_axis(ctx: ModuleContext, op: _Call, gf: GraphFunction) -> Optional[nodes.NodeNG]:
    if op.form == "primitive":
        candidates = [op.argument("axis", 1)] if op.name in _REDUCE_PRIMITIVES else []
    elif op.name in _PERMUTATIONS and op.form == "method":
        candidates = op.arguments()
    elif op.name in _PERMUTATIONS and op.namespace in ("ops", "mint", "Tensor"):
        candidates = [op.argument("input_perm", 1) or op.argument("dims", 1)]
    elif op.name in _REDUCTIONS and op.namespace in ("ops", "mint", "Tensor"):
        candidates = [op.argument("axis", 1) or op.argument("dim", 1)]
    else:
        return None
    for candidate in candidates:
        if candidate is None:
            continue
        value = ctx.value(candidate, gf)
        if _data_dependent(value) and not (op.name in ("max", "min") and value.has("tensor")):  # max(x, other): elementwise
            return candidate
    return None


def _subscript_detections(ctx: ModuleContext, subscript: nodes.Subscript, gf: GraphFunction,
                          masks: Set[str]) -> Iterator[Detection]:
    if subscript.ctx != Context.Load:
        return  # x[mask] = v and x[:k] = v keep x's shape
    base = ctx.value(subscript.value, gf)
    if not _tensor_like(base):
        return
    index = subscript.slice
    parts = index.elts if isinstance(index, nodes.Tuple) else [index]
    for part in parts:
        if isinstance(part, nodes.Slice):
            bounds = [b for b in (part.lower, part.upper, part.step) if b is not None]
            variable = [b for b in bounds if _computed_from_tensor(ctx, b, gf)]
            if variable:
                # a Python number made from a tensor (`.tolist()`, `.item()`, arithmetic on them) is not a tensor
                what = "a tensor value" if ctx.value(variable[0], gf).has("tensor") \
                    else "a number computed from tensor data"
                yield Detection(
                    VARIABLE_SLICE_BOUND, subscript,
                    compose(f"{snippet(subscript)} slices with the bound {snippet(variable[0])}, {what}",
                            "The slice has a dynamic output shape", _COST),
                    gf,
                )
                return
        else:
            value = ctx.value(part, gf)
            if value.is_const and value.has("bool") and value.has("tensor"):
                # checked on MindSpore 2.10 (tests/test_dynamic_shape.py): a mask built from
                # constants (ops.ones(...) > 0, ops.arange(n) < k) is not folded
                why = "The mask is built from constants, but MindSpore does not fold it"
            elif not value.is_var or value.has("scalar"):
                continue
            elif value.has("bool"):
                why = ""
            elif isinstance(part, nodes.Name) and part.name in masks and _tensor_like(value):
                why = f"This function also uses {quoted(part)} as a boolean mask"
            else:
                continue
            yield Detection(
                DYNAMIC_SHAPE_OP, subscript,
                compose(f"Boolean-mask indexing {snippet(subscript)} has a dynamic output shape",
                        f"It has one element per True in {quoted(part)}", why, _COST),
                gf,
            )
            return


def _reporter(rule: Rule):
    """MS401-MS404 share one pass over the graph code; each rule reports its own detections."""

    @implements(rule)
    def check(ctx: ModuleContext) -> Iterator[Finding]:
        for detection in _detections(ctx):
            if detection.rule is rule:
                yield ctx.finding(rule, detection.node, detection.message, detection.gf)

    return check


for _rule in (DYNAMIC_SHAPE_OP, TOPK_VARIABLE_K, VARIABLE_SLICE_BOUND, VARIABLE_AXIS):
    _reporter(_rule)


# -- MS405: branches that bind one name to shapes that differ --------------------------------------------------

def _branch_bindings(body) -> Dict[str, nodes.NodeNG]:
    """name -> the expression last assigned to it by the branch's own statements."""
    bound: Dict[str, nodes.NodeNG] = {}
    for statement in body:
        if isinstance(statement, (nodes.Assign, nodes.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, nodes.AssignName):
                    bound[target.name] = statement.value
    return bound


def _bound_before(ctx: ModuleContext, if_node: nodes.If, name: str, gf: GraphFunction) -> bool:
    for node in ctx.scope.body(gf.node).nodes:
        if isinstance(node, nodes.AssignName) and node.name == name and (node.lineno or 0) < if_node.lineno:
            return True
    args = getattr(gf.node, "args", None)
    return bool(args) and any(a.name == name for a in (args.args or []) + (args.posonlyargs or []))


@implements(SHAPE_DIVERGENT_BRANCHES)
def check_shape_divergent_branches(ctx: ModuleContext) -> Iterator[Finding]:
    dynamic = {d.node for d in _detections(ctx)}

    def is_dynamic(expr) -> bool:
        return expr in dynamic or any(n in dynamic for n in expr.nodes_of_class(nodes.NodeNG))

    for if_node, gf in ctx.graph_nodes(nodes.If):
        if not ctx.value(if_node.test, gf).is_var:
            continue  # a constant condition is resolved at compile time: only one branch is compiled
        then, orelse = _branch_bindings(if_node.body), _branch_bindings(if_node.orelse)
        for name in sorted(set(then) | set(orelse)):
            if name in then and name in orelse:
                differs = is_dynamic(then[name]) != is_dynamic(orelse[name])
            else:
                only = then.get(name, orelse.get(name))
                differs = is_dynamic(only) and _bound_before(ctx, if_node, name, gf)
            if differs:
                yield ctx.finding(
                    SHAPE_DIVERGENT_BRANCHES, if_node.test,
                    compose(f"{snippet('if ' + if_node.test.as_string())} binds '{name}' to a dynamic shape in one "
                            "branch and a fixed shape in the other",
                            f"The condition depends on a tensor, so after the if '{name}' has a dynamic output shape",
                            _COST, "Compute both and pick with ops.select(cond, a, b)"),
                    gf,
                )
                break
