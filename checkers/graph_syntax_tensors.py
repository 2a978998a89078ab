"""What MS8xx's tensor rules need to know about a value beyond the lattice: whether it is a tensor for
certain (not only a root's input, guessed to be one), and whether it has more than one element.

The lattice guesses that a root's un-annotated inputs are tensors; a sub-cell's parent may as well
pass a Python int, which MindSpore folds as a constant.  An error-severity claim "on a tensor" needs
evidence: a MindSpore op or a tensor method produced the value, or the input is annotated `Tensor`.
Element counts are known only from what the code itself builds (`Tensor([1, 2, 3])`,
`ops.ones((2, 3))`) and the ops that keep them; inputs' shapes are never known here.
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from mslint.analysis.context import ModuleContext
from mslint.analysis.lattice import is_graph_value
from mslint.analysis.scope import GraphFunction, local_bindings
from mslint.project import mindspore_names as msn

_DEPTH = 8
_NOT_TENSOR = frozenset({"ndarray", "host", "opaque"})


def tensor_valued(ctx: ModuleContext, expr, gf: GraphFunction, constants: bool = False) -> bool:
    """A tensor the graph computes at run time; with `constants`, also one it builds from constants
    (`ops.ones((4,), ms.int32)`, `Tensor(3)`), for the rules where MindSpore rejects both."""
    value = ctx.value(expr, gf)
    if constants and value.is_const:
        return value.has("tensor") and not value.tags & _NOT_TENSOR
    return is_graph_value(value) and value.has("tensor") and not value.tags & _NOT_TENSOR


def definite_tensor(ctx: ModuleContext, expr, gf: GraphFunction, depth: int = 0, constants: bool = False) -> bool:
    """A graph tensor for certain: made by a MindSpore op, a primitive the cell stores or a tensor
    method, or an input annotated Tensor.  `constants`: a tensor built from constants counts too."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, nodes.Name):
        # a helper's parameter holds what its callers pass, joined: look at the callers instead
        bindings = local_bindings(expr, gf.node)
        return bool(bindings) and all(_definite_binding(ctx, b, gf, depth, constants) for b in bindings)
    if isinstance(expr, nodes.Subscript):  # an element or a slice of a tensor is a tensor
        return definite_tensor(ctx, expr.value, gf, depth + 1, constants)
    if not tensor_valued(ctx, expr, gf, constants):
        return False
    if isinstance(expr, nodes.Call):
        if msn.is_mindspore(ctx.call_qualname(expr, gf)):
            return True
        if ctx.value(expr.func, gf).has("primitive"):
            return True  # self.uniform_int(...): a primitive __init__ stored
        # x.sum(), x.max(): only a tensor has these methods in graph code
        return isinstance(expr.func, nodes.Attribute) and tensor_valued(ctx, expr.func.expr, gf, constants)
    if isinstance(expr, nodes.BinOp):
        return any(definite_tensor(ctx, side, gf, depth + 1, constants) for side in (expr.left, expr.right))
    if isinstance(expr, nodes.UnaryOp):
        return definite_tensor(ctx, expr.operand, gf, depth + 1, constants)
    return False


def _definite_binding(ctx: ModuleContext, binding, gf: GraphFunction, depth: int, constants: bool) -> bool:
    if not isinstance(binding, nodes.AssignName):
        return False
    if isinstance(binding.parent, nodes.Arguments):
        annotation = _annotation(binding.parent, binding.name)
        if annotation is not None:
            qualname = ctx.qualname(annotation) or ""
            return qualname.endswith(".Tensor") and msn.is_mindspore(qualname)
        return not gf.is_root and _passed_a_tensor(ctx, binding, gf, depth, constants)
    assign = binding.parent
    if isinstance(assign, nodes.Assign) and binding in assign.targets:
        return definite_tensor(ctx, assign.value, gf, depth + 1, constants)
    return False


def _passed_a_tensor(ctx: ModuleContext, parameter: nodes.AssignName, gf: GraphFunction, depth: int,
                     constants: bool) -> bool:
    """A helper's parameter that some graph caller fills with a definite tensor: that call fails."""
    for call, caller, bound in ctx.scope.callers(gf):
        if bound is None:
            continue
        argument = _argument_for(call, gf.node, parameter.name, bound)
        if argument is not None and definite_tensor(ctx, argument, caller, depth + 1, constants):
            return True
    return False


def _argument_for(call: nodes.Call, function, name: str, bound: bool):
    """The expression a call passes for a parameter of `function` (None when not passed or not told)."""
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return keyword.value
    if any(isinstance(argument, nodes.Starred) for argument in call.args):
        return None
    positional = [a.name for a in (function.args.posonlyargs or []) + (function.args.args or [])]
    if bound and positional:
        positional = positional[1:]
    if name in positional and positional.index(name) < len(call.args):
        return call.args[positional.index(name)]
    return None


def _annotation(arguments: nodes.Arguments, name: str):
    for arg, annotation in zip(arguments.args or [], arguments.annotations or []):
        if arg.name == name:
            return annotation
    return None


# -- element counts ----------------------------------------------------------------------
_TENSOR_CLASSES = frozenset({"mindspore.Tensor", "mindspore.common.tensor.Tensor", "mindspore.Parameter",
                             "mindspore.common.parameter.Parameter"})
# builders whose first argument is a shape: numpy's and MindSpore's
_SHAPE_BUILDERS = frozenset({"ones", "zeros", "empty", "full", "fill", "rand", "randn", "standard_normal"})
# ops that keep the element count of their first argument (elementwise, casts, layout)
_KEEP_COUNT = frozenset({
    "abs", "neg", "exp", "log", "sqrt", "square", "sigmoid", "relu", "tanh", "sin", "cos", "floor", "ceil", "round",
    "cast", "astype", "float", "half", "int", "bool", "reshape", "view", "squeeze", "expand_dims", "unsqueeze",
    "transpose", "permute", "flatten", "ravel", "clone", "copy", "ones_like", "zeros_like", "full_like",
    "logical_not", "logical_and", "logical_or", "equal", "not_equal", "greater", "greater_equal", "less",
    "less_equal", "gt", "ge", "lt", "le", "eq", "ne", "isnan", "isinf", "isfinite", "add", "sub", "mul", "div",
    "maximum", "minimum", "clip", "clamp", "pow", "sign",
})
_ELEMENTWISE_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


def multi_element(ctx: ModuleContext, expr, function, depth: int = 0) -> bool:
    """`expr` is a tensor with more than one element, as far as the code in view shows (quiet when not told)."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, nodes.Call):
        return _multi_call(ctx, expr, function, depth)
    if isinstance(expr, nodes.Compare):
        if len(expr.ops) != 1 or expr.ops[0][0] not in _ELEMENTWISE_COMPARISONS:
            return False
        return any(multi_element(ctx, side, function, depth + 1) for side in (expr.left, expr.ops[0][1]))
    if isinstance(expr, nodes.BinOp):
        return expr.op != "@" and any(multi_element(ctx, side, function, depth + 1)
                                      for side in (expr.left, expr.right))
    if isinstance(expr, nodes.UnaryOp):
        return expr.op in ("-", "+", "~") and multi_element(ctx, expr.operand, function, depth + 1)
    if isinstance(expr, nodes.Name):
        bindings = local_bindings(expr, function)
        return bool(bindings) and all(_multi_binding(ctx, b, function, depth) for b in bindings)
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
        return _multi_attribute(ctx, expr, function, depth)
    return False


def _multi_binding(ctx: ModuleContext, binding, function, depth: int) -> bool:
    assign = getattr(binding, "parent", None)
    return isinstance(binding, nodes.AssignName) and isinstance(assign, nodes.Assign) and \
        binding in assign.targets and multi_element(ctx, assign.value, function, depth + 1)


def _multi_attribute(ctx: ModuleContext, expr: nodes.Attribute, function, depth: int) -> bool:
    """`self.w` that every store of the class (in __init__, outside graph code) makes multi-element."""
    cls = function.parent.frame() if isinstance(function.parent, nodes.ClassDef) else None
    if cls is None:
        return False
    stores = [target for method in cls.mymethods() for target in ctx.classes.attribute_stores(method)
              if target.attrname == expr.attrname]
    if not stores or any(store.scope().name != "__init__" for store in stores):
        return False
    return all(isinstance(store.parent, nodes.Assign) and store in store.parent.targets and
               multi_element(ctx, store.parent.value, store.scope(), depth + 1) for store in stores)


def _multi_call(ctx: ModuleContext, call: nodes.Call, function, depth: int) -> bool:
    qualname = ctx.qualname(call.func) or ""
    name = qualname.rsplit(".", 1)[-1] if qualname else (
        call.func.attrname if isinstance(call.func, nodes.Attribute) else "")
    first = call.args[0] if call.args else None
    if isinstance(call.func, nodes.Attribute) and call.func.attrname in _KEEP_COUNT and \
            multi_element(ctx, call.func.expr, function, depth + 1):
        return True  # x.astype(...), mask.float(): a method of a multi-element tensor
    if qualname in _TENSOR_CLASSES or qualname in ("numpy.array", "numpy.asarray"):
        return first is not None and (_literal_count(first) or 0) > 1 or \
            first is not None and multi_element(ctx, first, function, depth + 1)
    known_library = qualname.startswith("numpy.") or msn.is_mindspore(qualname)
    if known_library and name in _SHAPE_BUILDERS:
        return first is not None and (_shape_count(first) or 0) > 1
    if known_library and name in _KEEP_COUNT:
        return first is not None and multi_element(ctx, first, function, depth + 1)
    return False


def _literal_count(expr) -> Optional[int]:
    """Elements of a nested list/tuple display of numbers."""
    if isinstance(expr, nodes.Const) and isinstance(expr.value, (bool, int, float)):
        return 1
    if isinstance(expr, (nodes.List, nodes.Tuple)):
        counts = [_literal_count(e) for e in expr.elts]
        return None if any(c is None for c in counts) else sum(counts)
    return None


def _shape_count(expr) -> Optional[int]:
    if isinstance(expr, nodes.Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, (nodes.List, nodes.Tuple)):
        count = 1
        for element in expr.elts:
            size = _shape_count(element)
            if size is None:
                return None
            count *= size
        return count
    return None
