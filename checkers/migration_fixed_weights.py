"""Whether a MindSpore layer built in graph code starts with constant parameters only.

MS705 reports a parametric cell created inside `construct`: its parameters are built once,
at compile time, and never trained.  That is a bug when they are randomly initialised (a
Dense, a Conv with the default initialiser), but often the intent when every parameter
starts at a constant: a norm layer with its default gamma=1, beta=0 is a plain
normalisation, a Conv given a fixed basis (an STFT window) as weight_init is a fixed
filter.  Those are MS712's (an efficiency hint, not a bug).  A weight_init given as a tensor
(a module constant, an attribute set in `__init__`, `Tensor(np.eye(c))` in construct) is such a
filter; only an initializer that draws (a name such as "normal", `TrueNormal()`) is random.  A
filter computed by MindSpore ops in graph code is a variable: construction fails (checked on
MindSpore 2.10, tests/test_mindspore_claims.py "Issue 26's training-setup decisions").
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from mslint.analysis.literal_values import literal_of
from mslint.project.classes import keyword_value
from mslint.project.resolve import assigned_values

# Norm layers whose every parameter (gamma, beta, moving statistics) defaults to a constant.
NORM_LAYERS = frozenset({"LayerNorm", "LayerNormExt", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm",
                         "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"})
# Layers whose parameters are a weight and an optional bias.
WEIGHT_LAYERS = frozenset({"Dense", "Linear", "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                           "Conv3dTranspose", "Embedding"})
_CONSTANT_INITIALISERS = frozenset({"ones", "zeros"})
_CONSTANT_INITIALISER_CLASSES = frozenset({"Constant", "One", "Zero"})
# has_bias's default per layer (2.10): Dense's is True, the conv layers' False; mint's Linear calls it bias
_BIAS_BY_DEFAULT = frozenset({"Dense", "Linear"})
_OP_MODULES = ("mindspore.ops", "mindspore.mint", "mindspore.numpy")


def constant_parameters(ctx, call: nodes.Call, layer: str, gf) -> Optional[str]:
    """How the layer's parameters are all constant ("gamma=1 and beta=0, the defaults",
    "weight_init=BASIS and no bias"), or None when one of them may be random."""
    if layer in NORM_LAYERS:
        inits = [keyword_value(call, name) for name in ("gamma_init", "beta_init")]
        if all(init is None or _constant_init(ctx, init, gf) for init in inits):
            given = [init for init in inits if init is not None]
            return "gamma and beta at constant initial values" + ("" if given else " (1 and 0, the defaults)")
        return None
    if layer in WEIGHT_LAYERS:
        weight = keyword_value(call, "weight_init") or keyword_value(call, "embedding_table")
        if weight is None or not _constant_init(ctx, weight, gf):
            return None
        has_bias = keyword_value(call, "bias" if layer == "Linear" else "has_bias")
        no_bias = layer == "Embedding" or (isinstance(has_bias, nodes.Const) and has_bias.value is False) \
            or (has_bias is None and layer not in _BIAS_BY_DEFAULT)
        bias = keyword_value(call, "bias_init")
        if not no_bias and (bias is None or not _constant_init(ctx, bias, gf)):
            return None
        return f"weight_init={weight.as_string()}" + (" and no bias" if no_bias else f", bias_init={bias.as_string()}")
    return None


def _constant_init(ctx, node, gf, depth: int = 0) -> bool:
    """Not an initializer that draws: 'ones'/'zeros', a number, Constant(v)/One()/Zero(), or a
    tensor or array given as the values (`Tensor(np.hanning(400))`, `self.kernel`, a name the
    analysis cannot read that is no initializer name)."""
    if isinstance(node, nodes.Const):
        if isinstance(node.value, str):
            return node.value.lower() in _CONSTANT_INITIALISERS
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, nodes.Call):
        qualname = ctx.qualname(node.func) or ""
        if "initializer" in qualname:  # mindspore.common.initializer: Normal(), initializer("normal", ...)
            if qualname.rsplit(".", 1)[-1] == "initializer":
                return bool(node.args) and depth < 4 and _constant_init(ctx, node.args[0], gf, depth + 1)
            return qualname.rsplit(".", 1)[-1] in _CONSTANT_INITIALISER_CLASSES
        helper = ctx.resolver.resolve_callable(node.func)
        if isinstance(helper, nodes.FunctionDef) and depth < 4:  # def weight_variable(): return TruncatedNormal(0.02)
            returned = [r.value for r in helper.nodes_of_class(nodes.Return) if r.value is not None]
            return all(_constant_init(ctx, value, gf, depth + 1) for value in returned)
        return True  # Tensor(...), np.eye(...): the values themselves
    found = literal_of(node, ctx.resolver)
    if found is not None and isinstance(found.value, str):
        return found.value.lower() in _CONSTANT_INITIALISERS
    if isinstance(node, nodes.Name):
        values = assigned_values(node)
        if values is not None and len(values) == 1 and depth < 4:
            return _constant_init(ctx, values[0], gf, depth + 1)
    if node.frame() is not gf.node:
        return True  # (in a helper's return: not a value of this graph function)
    return "str" not in ctx.value(node, gf).tags


def computed_by_ops(ctx, node, depth: int = 0) -> bool:
    """A value MindSpore ops compute in graph code (`ops.eye(c, c, ms.float32).reshape(c, c, 1)`, or
    a name assigned once from one): a variable there, which a layer's constructor rejects."""
    if isinstance(node, nodes.Name) and depth < 4:
        values = assigned_values(node)
        return values is not None and len(values) == 1 and computed_by_ops(ctx, values[0], depth + 1)
    while isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
        qualname = ctx.qualname(node.func) or ""
        if qualname.startswith(_OP_MODULES):
            return True
        node = node.func.expr  # `ops.eye(...).reshape(...)`: the receiver decides
    if isinstance(node, nodes.Call):
        return (ctx.qualname(node.func) or "").startswith(_OP_MODULES)
    return False
