"""Whether a MindSpore layer built in graph code starts with constant parameters only.

MS705 reports a parametric cell created inside `construct`: its parameters are built once,
at compile time, and never trained.  That is a bug when they are randomly initialised (a
Dense, a Conv with the default initialiser), but often the intent when every parameter
starts at a constant: a norm layer with its default gamma=1, beta=0 is a plain
normalisation, a Conv given a fixed basis (an STFT window) as weight_init is a fixed
filter.  Those are MS712's (an efficiency hint, not a bug).
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from mslint.project import mindspore_names as msn
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
        has_bias = keyword_value(call, "has_bias")
        no_bias = layer == "Embedding" or (isinstance(has_bias, nodes.Const) and has_bias.value is False)
        bias = keyword_value(call, "bias_init")
        if not no_bias and (bias is None or not _constant_init(ctx, bias, gf)):
            return None
        return f"weight_init={weight.as_string()}" + (" and no bias" if no_bias else f", bias_init={bias.as_string()}")
    return None


def _constant_init(ctx, node, gf) -> bool:
    """'ones'/'zeros', Constant(v)/One()/Zero(), or a tensor or array of constants."""
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and node.value.lower() in _CONSTANT_INITIALISERS
    if isinstance(node, nodes.Call):
        qualname = ctx.qualname(node.func) or ""
        if qualname.rsplit(".", 1)[-1] in _CONSTANT_INITIALISER_CLASSES and "initializer" in qualname:
            return True
    if isinstance(node, nodes.Name):  # BASIS = Tensor(np.hanning(400)) at module level
        values = assigned_values(node)
        if values is not None and len(values) == 1 and isinstance(values[0], nodes.Call):
            qualname = ctx.qualname(values[0].func) or ""
            if qualname in msn.TENSOR_CLASSES or qualname.startswith("numpy."):
                return True
    value = ctx.value(node, gf)
    return value.is_const and bool(value.tags & {"tensor", "ndarray"})
