"""What qualified MindSpore names mean to the analysis (roots, stops, value facts)."""
from __future__ import annotations

from typing import Optional

from mslint import data

JIT_DECORATORS = frozenset({
    "mindspore.jit",
    "mindspore.graph.api.jit",
    "mindspore.graph.jit",
    "mindspore.common.api.jit",
    "mindspore.common.jit",
})
LEGACY_JIT_DECORATORS = frozenset({
    "mindspore.ms_function",
    "mindspore.common.api.ms_function",
    "mindspore.common.ms_function",
})
CONSTEXPR_DECORATORS = frozenset({
    "mindspore.ops.constexpr",
    "mindspore.ops.primitive.constexpr",
    "mindspore.ops.operations.constexpr",
    "mindspore.ops.primitive._primexpr",
})
JIT_CLASS_DECORATORS = frozenset({
    "mindspore.jit_class",
    "mindspore.common.jit_class",
    "mindspore.graph.api.jit_class",
    "mindspore.common.api.jit_class",
    "mindspore.ms_class",
    "mindspore.common.api.ms_class",
})
_NON_CELL_NN_NAMES = frozenset({
    "Metric", "Accuracy", "F1", "Fbeta", "Precision", "Recall", "Loss", "MAE", "MSE", "ROC", "Dice",
    "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "ConfusionMatrix",
    "ConfusionMatrixMetric", "BleuScore", "CosineSimilarity", "HausdorffDistance", "MeanSurfaceDistance",
    "OcclusionSensitivity", "Perplexity", "RootMeanSquareDistance",
})
TENSOR_CLASSES = frozenset({
    "mindspore.Tensor", "mindspore.tensor", "mindspore.common.Tensor", "mindspore.common.tensor.Tensor",
    "mindspore.common.tensor", "mindspore.numpy.array", "mindspore.numpy.asarray",
})
PARAMETER_CLASSES = frozenset({
    "mindspore.Parameter", "mindspore.common.Parameter", "mindspore.common.parameter.Parameter",
})
MUTABLE = frozenset({"mindspore.mutable", "mindspore.common.mutable", "mindspore.common.mutable.mutable"})


def is_mindspore(qualname: Optional[str]) -> bool:
    return bool(qualname) and (qualname == "mindspore" or qualname.startswith("mindspore."))


def is_cell_class_name(qualname: str) -> bool:
    """A MindSpore class that is an nn.Cell (nn.Cell itself, layers, losses, wrappers)."""
    if qualname in data.cell_classes():
        return True
    last = qualname.rsplit(".", 1)[-1]
    for prefix in ("mindspore.nn.", "mindspore.mint.nn."):
        if qualname.startswith(prefix) and last[:1].isupper() and last not in _NON_CELL_NN_NAMES:
            return True
    return False
