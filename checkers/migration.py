"""MS7xx: pitfalls of code migrated from PyTorch, and APIs the migration guide keeps out of construct.

Three rules look at layer constructors anywhere in the module (usually `__init__`):
Conv padding without `pad_mode="pad"`, `nn.Dropout` given a keep probability, BatchNorm
`momentum` written the PyTorch way.  The rest look at graph scope: cells and Parameters
created there, `set_data`, APIs MindSpore's JIT registry forbids, `isinstance` with a
list, and assignments to `self` attributes that are not Parameters.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from astroid import nodes

from mslint import data, fixes
from mslint.checkers import migration_dropout_rates as dropout_rates
from mslint.project import mindspore_names as msn
from mslint.project.classes import call_arguments, keyword_value
from mslint.analysis.context import ModuleContext
from mslint.findings import Finding, shown
from mslint.messages import SNIPPET, compose, snippet
from mslint.analysis.lattice import Kind
from mslint.analysis import caller_values, version_tests
from mslint.checkers.migration_fixed_weights import computed_by_ops, constant_parameters
from mslint.analysis.literal_values import Literal, literal_of, number
from mslint.project.resolve import Resolver, assigned_values
from mslint.rules import Rule, implements

CONV_PADDING = Rule(
    "MS701", "conv-padding-without-pad-mode", "error",
    "An nn.Conv layer is given `padding` without `pad_mode=\"pad\"`: construction fails.",
    "MindSpore's nn.Conv* default to pad_mode='same'; explicit padding needs pad_mode=\"pad\" "
    "(nn.Conv2d(3, 12, 3, pad_mode=\"pad\", padding=1)), or use mint.nn.Conv2d, which takes PyTorch's arguments.",
)
CONV_IMPLICIT_SAME = Rule(
    "MS702", "conv-implicit-same-padding", "info",
    "An nn.Conv layer relies on MindSpore's defaults (pad_mode='same', no bias), which differ from PyTorch's.",
    "When porting, state pad_mode (\"pad\" with padding=..., \"valid\" for PyTorch's padding=0) and has_bias=True "
    "if the PyTorch layer had a bias.",
    default_enabled=False,
)
DROPOUT_KEEP_PROB = Rule(
    "MS703", "dropout-keep-prob", "warning",
    "nn.Dropout is given a keep probability (its first positional parameter is the deprecated keep_prob).",
    "Pass the drop probability by keyword: torch.nn.Dropout(0.1) becomes nn.Dropout(p=0.1); "
    "nn.Dropout(keep_prob=k) becomes nn.Dropout(p=1 - k).",
)
DROPOUT_KEEP_PROB_DEPRECATED = Rule(
    "MS711", "dropout-keep-prob-deprecated", "info",
    "nn.Dropout is given its keep probability through the deprecated keep_prob: right today, removed later.",
    "Pass the drop probability p = 1 - keep_prob by keyword: nn.Dropout(keep_prob=1 - rate) becomes "
    "nn.Dropout(p=rate).",
)
BN_TORCH_MOMENTUM = Rule(
    "MS704", "batchnorm-torch-momentum", "warning",
    "nn.BatchNorm is given PyTorch's momentum; MindSpore's momentum is 1 - PyTorch's.",
    "Convert the value: MindSpore momentum = 1 - PyTorch momentum (PyTorch's 0.1 is MindSpore's default 0.9).",
)
CELL_IN_GRAPH = Rule(
    "MS705", "parametric-cell-in-graph", "error",
    "A cell that owns Parameters (nn.Dense, nn.Conv2d, ...) is created in graph code.",
    "Declare layers and sub-cells in __init__ (self.fc = nn.Dense(3, 2)) and only call them in construct.",
)
FIXED_WEIGHT_CELL = Rule(
    "MS712", "fixed-weight-cell-in-graph", "info",
    "A layer whose parameters all start at constants (a norm layer's gamma=1/beta=0, a fixed weight_init) "
    "is created in graph code: it computes a fixed function, rebuilt at every compilation.",
    "Create the layer in __init__, or call the op with the constant tensors "
    "(ops.LayerNorm(begin_norm_axis, begin_params_axis)(x, gamma, beta) for a LayerNorm).",
)
PARAMETER_IN_GRAPH = Rule(
    "MS706", "parameter-created-in-graph", "error",
    "A Parameter is created in graph code.",
    "Create Parameters in __init__ and update them in construct with ops.assign (or `self.w = value`); a value "
    "whose shape depends on the input (a per-batch state such as ops.zeros((L, batch, H))) needs no Parameter: "
    "use the tensor itself.",
)
SET_DATA_IN_GRAPH = Rule(
    "MS707", "parameter-set-data-in-graph", "error",
    "Parameter.set_data is called in graph code.",
    "Change a Parameter inside the network with ops.assign(self.w, value) (or `self.w = value`); "
    "call set_data outside construct.",
)
FORBIDDEN_API = Rule(
    "MS708", "jit-forbidden-api-in-graph", "error",
    "An API MindSpore forbids in graph code (initializer, set_context, trainable_params, hooks, ...) is called there.",
    "Call it outside the compiled code, for example in __init__ or in the training script, and keep the result.",
)
ISINSTANCE_LIST = Rule(
    "MS709", "isinstance-list-arg", "error",
    "isinstance() is given a list of types.",
    "Pass a tuple of types: isinstance(x, (A, B)).",
)
ATTRIBUTE_ASSIGNMENT = Rule(
    "MS710", "non-parameter-attribute-assignment", "info",
    "Graph code assigns a `self` attribute that is not a Parameter: an error under STRICT, allowed under LAX.",
    "Keep state that graph code changes in a Parameter created in __init__ and update it with ops.assign "
    "(or `self.w = value`), or return the new value instead of storing it.",
)
ARGUMENT_ATTRIBUTE_ASSIGNMENT = Rule(
    "MS713", "argument-attribute-assignment-strict", "warning",
    "STRICT graph code assigns a `self` attribute that `__init__` copied from an argument; it fails unless that is a "
    "Parameter.",
    "Pass a Parameter (and update it with ops.assign), or keep the value in a local variable or return it.",
)
RULES = (CONV_PADDING, CONV_IMPLICIT_SAME, DROPOUT_KEEP_PROB, BN_TORCH_MOMENTUM, CELL_IN_GRAPH,
         PARAMETER_IN_GRAPH, SET_DATA_IN_GRAPH, FORBIDDEN_API, ISINSTANCE_LIST, ATTRIBUTE_ASSIGNMENT,
         DROPOUT_KEEP_PROB_DEPRECATED, FIXED_WEIGHT_CELL, ARGUMENT_ATTRIBUTE_ASSIGNMENT)

# MS704's threshold: below it a momentum reads as PyTorch's (design.md has no config key for it).
BN_MOMENTUM_THRESHOLD = 0.5

# mindspore.nn conv layers: the positions of pad_mode, padding and has_bias in their signatures (2.10).
_CONV_LAYERS: Dict[str, Tuple[int, int, int]] = {
    "Conv1d": (4, 5, 8), "Conv2d": (4, 5, 8), "Conv3d": (4, 5, 8),
    "Conv1dTranspose": (4, 5, 8), "Conv2dTranspose": (4, 5, 9), "Conv3dTranspose": (4, 5, 9),
}
# The primitive each layer's construction error names (2.10).
_CONV_PRIMITIVES = {
    "Conv1d": "Conv2D", "Conv2d": "Conv2D", "Conv3d": "Conv3D", "Conv1dTranspose": "Conv2DBackpropInput",
    "Conv2dTranspose": "Conv2DTranspose", "Conv3dTranspose": "Conv3DTranspose",
}
# What constructing each layer with padding="same" raises (2.10; tests/test_mindspore_composition.py).
STRING_PADDING_ERRORS = {
    "Conv1d": "For 'Conv1d', the type of 'padding' should be 'int', but got type 'str'.",
    "Conv2d": "For 'Conv2d', the type of 'padding' must be int or tuple(int), but got str.",
    "Conv3d": "For 'Conv3d', the type of 'padding' should be one of '['int', 'tuple']', but got type 'str'.",
    "Conv1dTranspose": "For 'Conv1dTranspose', the type of 'padding' should be 'int', but got type 'str'.",
    "Conv2dTranspose": "For 'Conv2dTranspose', the type of 'padding' should be one of '['int', 'tuple']', "
                       "but got type 'str'.",
    "Conv3dTranspose": "For 'Conv3dTranspose', the type of 'padding' should be one of '['int', 'tuple']', "
                       "but got type 'str'.",
}
# How many values a tuple padding of each layer must have (2.10: top, bottom, left, right; 3-D layers add
# head and tail), and what a tuple of another length raises whatever pad_mode is (checked on 2.10:
# test_migration.py). The 1-D layers take an int only.
TUPLE_PADDING_SIZES = {"Conv2d": 4, "Conv2dTranspose": 4, "Conv3d": 6, "Conv3dTranspose": 6,
                       "Conv1d": 1, "Conv1dTranspose": 1}
TUPLE_PADDING_ERRORS = {
    "Conv1d": "TypeError: For 'Conv1d', the type of 'padding' should be 'int', but got type 'tuple'.",
    "Conv2d": "ValueError: For 'Conv2D', the 'pad size' must be int and must = 4, but got '{n}' with type 'int'.",
    "Conv3d": "ValueError: For 'Conv3d', the 'padding size' must be int and must = 6, but got '{n}' with type 'int'.",
    "Conv1dTranspose": "TypeError: For 'Conv1dTranspose', the type of 'padding' should be 'int', but got type "
                       "'tuple'.",
    "Conv2dTranspose": "ValueError: For 'Conv2dTranspose', the 'padding size' must be int and must = 4, but got "
                       "'{n}' with type 'int'.",
    "Conv3dTranspose": "ValueError: For 'Conv3dTranspose', the 'padding size' must be int and must = 6, but got "
                       "'{n}' with type 'int'.",
}
# What each layer raises when PyTorch's positional padding lands in pad_mode (2.10; test_migration.py).
POSITIONAL_PAD_MODE_ERRORS = {
    "Conv1d": "ValueError: For 'Conv1d', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
              "but got '{value}'.",
    "Conv2d": "TypeError: For 'Conv2D', the type of 'pad_mode' should be 'str', but got type '{type}'.",
    "Conv3d": "TypeError: For 'Conv3D', the type of 'pad_mode' should be 'str', but got type '{type}'.",
    "Conv1dTranspose": "ValueError: For 'Conv1dTranspose', the 'pad_mode' must be str and must be in '['valid', "
                       "'same', 'pad']', but got '{value}'.",
    "Conv2dTranspose": "ValueError: For 'Conv2dTranspose', the 'pad_mode' must be str and must be in '['valid', "
                       "'same', 'pad']', but got '{value}'.",
    "Conv3dTranspose": "TypeError: For 'Conv3DTranspose', the type of 'pad_mode' should be 'str', but got type "
                       "'{type}'.",
}
# What each layer raises for a list padding, whatever its size and pad_mode (2.10; test_migration.py).
LIST_PADDING_ERRORS = {
    "Conv1d": "TypeError: For 'Conv1d', the type of 'padding' should be 'int', but got type 'list'.",
    "Conv2d": "TypeError: For 'Conv2d', the type of 'padding' must be int or tuple(int), but got list.",
    "Conv3d": "TypeError: For 'Conv3d', the type of 'padding' should be one of '['int', 'tuple']', but got type "
              "'list'.",
    "Conv1dTranspose": "TypeError: For 'Conv1dTranspose', the type of 'padding' should be 'int', but got type "
                       "'list'.",
    "Conv2dTranspose": "TypeError: For 'Conv2dTranspose', the type of 'padding' should be one of '['int', 'tuple']', "
                       "but got type 'list'.",
    "Conv3dTranspose": "TypeError: For 'Conv3dTranspose', the type of 'padding' should be one of '['int', 'tuple']', "
                       "but got type 'list'.",
}
_BATCHNORM_LAYERS = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d"})
_BN_MOMENTUM_POSITION = 2
# MindSpore cells (mindspore.nn and mindspore.mint.nn) that own Parameters.
_PARAMETRIC_CELLS = frozenset({
    "Dense", "BiDense", "Linear", "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
    "Conv3dTranspose", "ConvTranspose2d", "Conv2dBnAct", "DenseBnAct", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
    "SyncBatchNorm", "LayerNorm", "LayerNormExt", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "Embedding", "EmbeddingExt", "EmbeddingLookup", "MultiFieldEmbeddingLookup", "LSTM",
    "LSTMCell", "GRU", "GRUCell", "RNN", "RNNCell", "PReLU", "PReLUExt", "MultiheadAttention", "Transformer",
    "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
})
# Classes of the forbidden-method registry, and the lattice tag a receiver of that class carries.
_RECEIVER_TAGS = {
    "mindspore.nn.cell.Cell": "cell",
    "mindspore.common.tensor.Tensor": "tensor",
    "mindspore.common.parameter.Parameter": "parameter",
}
_STRICT_ATTRIBUTE_ERROR = ("AttributeError: In JIT strict mode, cannot get attributes {name} or the {type} object "
                           "has no attribute: '{name}'")


# -- constructor calls anywhere in the module -----------------------------------------------
def _nn_layer_calls(ctx: ModuleContext) -> List[Tuple[nodes.Call, str]]:
    """(call, class name) for every call of a mindspore.nn (not mint.nn) class in the module."""
    cached = ctx.memo.get("ms7.nn_calls")
    if cached is None:
        cached = []
        for call in ctx.module_nodes(nodes.Call):
            qualname = ctx.qualname(call.func)
            if not msn.is_mindspore(qualname):
                continue
            parts = qualname.split(".")
            if len(parts) >= 3 and parts[1] == "nn":
                cached.append((call, parts[-1]))
        ctx.memo["ms7.nn_calls"] = cached
    return cached


def _opaque(call: nodes.Call) -> bool:
    """`*args` or `**kwargs` in the call: which parameter gets what is unknown."""
    return any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ())


def _argument(call: nodes.Call, name: str, position: int):
    if any(isinstance(a, nodes.Starred) for a in call.args[:position + 1]):
        return keyword_value(call, name)
    return keyword_value(call, name, position)


def _is_zero(node) -> bool:
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return all(_is_zero(e) for e in node.elts)
    return number(node) == 0


def _may_be_zero(node) -> bool:
    """A padding expression whose value the analysis cannot show to be non-zero."""
    if isinstance(node, nodes.BinOp):
        return False  # `kernel_size // 2`: PyTorch's "same" padding idiom, non-zero for the usual kernels
    if not isinstance(node, nodes.Name):
        return True
    values = assigned_values(node)
    if not values:
        return True  # a parameter, a loop variable, or bound in several ways
    return any(number(v) is None and not isinstance(v, (nodes.Tuple, nodes.List)) or _is_zero(v) for v in values)


def _layer(call: nodes.Call) -> str:
    return shown(call.func, 40, keep_end=True)


def _conv_padding_problem(call: nodes.Call, name: str, resolver: Resolver):
    """(padding node, pad_mode node or None) when a conv layer is padded without pad_mode="pad"."""
    pad_mode_at, padding_at, _ = _CONV_LAYERS[name]
    padding = _argument(call, "padding", padding_at)
    if padding is None or _is_zero(padding):
        return None
    found = literal_of(padding, resolver)
    if found is not None and found.origin:  # a name whose value the code says: judge that value
        if found.number is None or found.number == 0:
            return None  # 0 is fine; a string is MS701's other case (_string_padding)
    elif number(padding) is None and not isinstance(padding, (nodes.Tuple, nodes.List)) and _may_be_zero(padding):
        return None  # e.g. a constructor argument whose default is 0: the analysis cannot tell
    pad_mode = _argument(call, "pad_mode", pad_mode_at)
    if pad_mode is None:
        return None if _opaque(call) else (padding, None)
    if isinstance(pad_mode, nodes.Const) and isinstance(pad_mode.value, str) and pad_mode.value.lower() != "pad":
        return padding, pad_mode
    return None  # pad="pad", or a pad_mode the analysis cannot read


def _positional_pad_mode(call: nodes.Call, name: str):
    """`nn.Conv2d(cin, cout, 3, 1, 1)`: PyTorch's order puts padding fifth, MindSpore's puts pad_mode there."""
    pad_mode_at = _CONV_LAYERS[name][0]
    if len(call.args) <= pad_mode_at or any(isinstance(a, nodes.Starred) for a in call.args[:pad_mode_at + 1]):
        return None
    argument = call.args[pad_mode_at]
    return argument if number(argument) is not None or isinstance(argument, (nodes.Tuple, nodes.List)) else None


def _padding_every_caller_sets(ctx: ModuleContext, call: nodes.Call, name: str):
    """(padding, pad_mode) when padding is a parameter of the enclosing function without a default that every
    call of that function in this module fills with the same non-zero number (`conv_bn(..., padding=1)`)."""
    pad_mode_at, padding_at, _ = _CONV_LAYERS[name]
    padding = _argument(call, "padding", padding_at)
    if _callers_literal(ctx, padding) is None:
        return None
    pad_mode = _argument(call, "pad_mode", pad_mode_at)
    if pad_mode is None:
        return None if _opaque(call) else (padding, None)
    if isinstance(pad_mode, nodes.Const) and isinstance(pad_mode.value, str) and pad_mode.value.lower() != "pad":
        return padding, pad_mode
    return None


def _callers_literal(ctx: ModuleContext, padding) -> Optional[Literal]:
    """The non-zero number every call of the enclosing function passes for the parameter `padding`
    names (mslint.analysis.caller_values; none when a call leaves it out, passes something else, or
    there is no call).  Methods and constructors are left out."""
    found = caller_values.parameter_of(padding)
    if found is None or isinstance(found[0].parent, nodes.ClassDef):
        return None
    passed = caller_values.passed_literals(found[0], found[1], ctx.scope.call_sites, ctx.resolver,
                                           defaults=False, uncalled_default=False)
    numbers = {literal.number for literal in passed or ()}
    if len(numbers) != 1 or None in numbers or 0 in numbers:
        return None
    value = numbers.pop()
    calls = ctx.scope.call_sites.calls_of(found[0]) or []
    where = "in this module" if all(call.root() is padding.root() for call in calls) else "in the project"
    return Literal(value, f"every call of {found[0].name}() {where} passes {padding.name}={value}")


def _zero_for_every_caller(ctx: ModuleContext, padding) -> bool:
    """`padding=ksize // 2` (or `padding=padding`) where `ksize` is a parameter that every call of the
    function, or every construction of the cell, passes as 1 (mslint.analysis.caller_values; the
    default counts where a call leaves it out, and alone where nothing calls it): the padding is 0
    wherever the layer is built."""
    names = list(padding.nodes_of_class(nodes.Name)) if isinstance(padding, (nodes.Name, nodes.BinOp)) else []
    if len({n.name for n in names}) != 1:
        return False
    found = caller_values.parameter_of(names[0])
    if found is None:
        return False
    passed = caller_values.passed_literals(found[0], found[1], ctx.scope.call_sites, ctx.resolver)
    numbers = [literal.number for literal in passed or ()]
    return bool(numbers) and None not in numbers and all(_folded(padding, names[0].name, n) == 0 for n in numbers)


def _folded(node, name: str, value):
    """The number an expression of one name and literals gives for `name` = value (None if unknown)."""
    if isinstance(node, nodes.Name):
        return value if node.name == name else None
    if isinstance(node, nodes.Const) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, nodes.BinOp) and node.op in ("//", "+", "-", "*"):
        left, right = _folded(node.left, name, value), _folded(node.right, name, value)
        if left is None or right is None or (node.op == "//" and right == 0):
            return None
        return {"//": lambda a, b: a // b, "+": lambda a, b: a + b, "-": lambda a, b: a - b,
                "*": lambda a, b: a * b}[node.op](left, right)
    return None


def _string_padding(call: nodes.Call, name: str, resolver: Resolver):
    """(padding node, its literal) when a conv layer gets a string padding ("same", "valid")."""
    padding = _argument(call, "padding", _CONV_LAYERS[name][1])
    found = literal_of(padding, resolver)
    if found is not None and isinstance(found.value, str):
        return padding, found
    return None


@implements(CONV_PADDING)
def check_conv_padding(ctx: ModuleContext) -> Iterator[Finding]:
    for call, name in _nn_layer_calls(ctx):
        if name not in _CONV_LAYERS:
            continue
        string = _string_padding(call, name, ctx.resolver)
        if string is not None:
            padding, found = string
            yield ctx.finding(
                CONV_PADDING, call,
                compose(f"'{_layer(call)}' gets padding={found.value!r}, PyTorch's spelling of a padding mode",
                        f"The value comes from {found.origin}" if found.origin else None,
                        f"Construction fails (TypeError: {STRING_PADDING_ERRORS[name]})",
                        f"Write pad_mode={found.value!r} without padding, or use the mint.nn layer, which takes "
                        "PyTorch's arguments"),
            )
            continue
        positional = _positional_pad_mode(call, name)
        if positional is not None:
            yield ctx.finding(
                CONV_PADDING, call,
                compose(f"'{_layer(call)}' gets {shown(positional, 30)} as its fifth positional argument, which is "
                        "pad_mode, not padding",
                        f"Construction fails ({_positional_pad_mode_error(name, positional)})",
                        f"Write padding={positional.as_string()}, pad_mode=\"pad\""),
            )
            continue
        listed = _argument(call, "padding", _CONV_LAYERS[name][1])
        if isinstance(listed, nodes.List) and not any(isinstance(e, nodes.Starred) for e in listed.elts):
            yield ctx.finding(CONV_PADDING, call, _list_padding_message(call, name, listed))
            continue
        wrong_size = _tuple_padding_of_wrong_size(call, name)
        if wrong_size is not None:
            yield ctx.finding(CONV_PADDING, call, _tuple_padding_message(call, name, wrong_size))
            continue
        problem = _conv_padding_problem(call, name, ctx.resolver) or _padding_every_caller_sets(ctx, call, name)
        if problem is None or _zero_for_every_caller(ctx, problem[0]):
            continue
        padding, pad_mode = problem
        mode = pad_mode.value if pad_mode is not None else "same"
        given = "pad_mode='{}'".format(mode) if pad_mode is not None else "no pad_mode (default 'same')"
        found = literal_of(padding, ctx.resolver) or _callers_literal(ctx, padding)
        if found is not None and found.origin.startswith("the default"):
            hedge = f" when the caller leaves it at {found.number} ({found.origin})"
        elif found is not None and found.origin:
            hedge = f" (padding is {found.number}: {found.origin})"
        elif number(padding) is not None or isinstance(padding, (nodes.Tuple, nodes.List)):
            hedge = ""
        else:
            hedge = " unless it is 0"
        yield ctx.finding(
            CONV_PADDING, call,
            compose(f"'{_layer(call)}' gets padding={shown(padding, 30)} with {given}",
                    f"Construction fails{hedge} (ValueError: For '{_CONV_PRIMITIVES[name]}', the 'pad' must be zero "
                    f"... when 'pad_mode' is not 'pad', but got 'pad' ... 'pad_mode' ... {mode})",
                    "Add pad_mode=\"pad\""),
            fix=_pad_mode_fix(ctx, call, pad_mode),
        )


def _tuple_padding_of_wrong_size(call: nodes.Call, name: str) -> Optional[nodes.Tuple]:
    """A literal tuple padding whose length the layer rejects (PyTorch's per-dimension `(1, 0)`)."""
    padding = _argument(call, "padding", _CONV_LAYERS[name][1])
    if not isinstance(padding, nodes.Tuple) or any(isinstance(e, nodes.Starred) for e in padding.elts):
        return None
    wanted = TUPLE_PADDING_SIZES[name]
    return padding if wanted == 1 or len(padding.elts) != wanted else None


def _positional_pad_mode_error(name: str, value) -> str:
    """The error for this layer and this literal (a number, or a tuple or list of them)."""
    if isinstance(value, nodes.Const):
        shown_value, kind = value.value, type(value.value).__name__
    else:
        shown_value = value.as_string() if isinstance(value, nodes.Tuple) else "..."
        kind = "tuple" if isinstance(value, nodes.Tuple) else "list" if isinstance(value, nodes.List) else "int"
    return POSITIONAL_PAD_MODE_ERRORS[name].format(value=shown_value, type=kind)


def _list_padding_message(call: nodes.Call, name: str, padding: nodes.List) -> str:
    wanted, given = TUPLE_PADDING_SIZES[name], len(padding.elts)
    takes = "an int" if wanted == 1 else "an int or a tuple"
    if wanted != 1 and given == wanted and not _is_zero(padding):
        values = ", ".join(e.as_string() for e in padding.elts)
        hint = f"Write padding=({values}){_with_pad_mode(call, name)}"
    else:
        hint = _padding_hint(call, name, padding)
    return compose(f"'{_layer(call)}' gets padding={shown(padding, 30)}, a list; it takes {takes}",
                   f"Construction fails whatever pad_mode is ({LIST_PADDING_ERRORS[name]})", hint)


def _with_pad_mode(call: nodes.Call, name: str) -> str:
    """', pad_mode="pad"' unless the call already says so."""
    pad_mode = _argument(call, "pad_mode", _CONV_LAYERS[name][0])
    return "" if isinstance(pad_mode, nodes.Const) and str(pad_mode.value).lower() == "pad" else ', pad_mode="pad"'


def _tuple_padding_message(call: nodes.Call, name: str, padding: nodes.Tuple) -> str:
    wanted, given = TUPLE_PADDING_SIZES[name], len(padding.elts)
    if wanted == 1:
        takes = f"'{_layer(call)}' gets padding={shown(padding, 30)}, a tuple; the 1-D layers take an int"
    else:
        takes = f"'{_layer(call)}' gets padding={shown(padding, 30)}, {given} values; it takes {wanted}"
    return compose(takes, f"Construction fails whatever pad_mode is "
                          f"({TUPLE_PADDING_ERRORS[name].format(n=given)})", _padding_hint(call, name, padding))


def _padding_hint(call: nodes.Call, name: str, padding) -> str:
    """A padding this layer builds with, for a tuple or list of `padding`'s values."""
    wanted, given = TUPLE_PADDING_SIZES[name], len(padding.elts)
    with_mode = _with_pad_mode(call, name)
    values = [e.as_string() for e in padding.elts]
    if wanted == 1:
        hint = f"Write padding={values[0]}{with_mode}" if given == 1 else \
            "Give one int" + (' and pad_mode="pad"' if with_mode else "")
    else:
        sides = "top, bottom, left, right" if wanted == 4 else "head, tail, top, bottom, left, right"
        if _is_zero(padding):
            hint = "Leave padding out: it is all zero"
        elif given * 2 == wanted:  # PyTorch's one value per dimension: each side of that dimension
            doubled = ", ".join(v for value in values for v in (value, value))
            hint = (f"Write padding=({doubled}){with_mode}, which pads as PyTorch's {shown(padding, 30)} does "
                    f"(MindSpore's order: {sides})")
        else:
            hint = f"Give {wanted} values ({sides})" + (' and pad_mode="pad"' if with_mode else "")
    return hint


def _pad_mode_fix(ctx: ModuleContext, call: nodes.Call, pad_mode) -> fixes.Fix:
    """Without pad_mode the layer cannot be built with that padding, so `pad_mode="pad"` only
    restores what the explicit padding says (safe); an explicit other pad_mode ('same') is a
    choice between two paddings a human makes (unsafe)."""
    if pad_mode is not None:
        return fixes.fix(fixes.UNSAFE, f"replace pad_mode={pad_mode.as_string()} with pad_mode=\"pad\"",
                         fixes.replace_node(pad_mode, '"pad"'))
    last = max(list(call.args) + [k for k in call.keywords or ()], key=lambda n: (n.end_lineno, n.end_col_offset))
    return fixes.fix(fixes.SAFE, 'add pad_mode="pad"', _own_line_argument(ctx, last, 'pad_mode="pad"')
                     or fixes.insert_after(last, ', pad_mode="pad"'))


def _own_line_argument(ctx: ModuleContext, last, text: str) -> Optional[fixes.Edit]:
    """In a call written one argument per line with a trailing comma, a new last line
    `    text,` after the line of `last` (its comment stays with it); else None."""
    lines = fixes.source_lines(ctx)
    if lines is None or last.lineno != last.end_lineno or last.end_lineno > len(lines):
        return None
    line = lines[last.end_lineno - 1].encode("utf-8", "surrogatepass")
    indent, rest = line[:last.col_offset], line[last.end_col_offset:].strip()
    if indent.strip() or not (rest == b"," or rest.startswith(b",") and rest[1:].strip().startswith(b"#")):
        return None
    end = len(line)
    return fixes.Edit(last.end_lineno, end, last.end_lineno, end, "\n" + indent.decode() + text + ",")


@implements(CONV_IMPLICIT_SAME)
def check_conv_implicit_same(ctx: ModuleContext) -> Iterator[Finding]:
    for call, name in _nn_layer_calls(ctx):
        if name not in _CONV_LAYERS or _opaque(call):
            continue
        pad_mode_at, _, has_bias_at = _CONV_LAYERS[name]
        if _argument(call, "pad_mode", pad_mode_at) is not None or _conv_padding_problem(call, name, ctx.resolver):
            continue
        bias = None if _argument(call, "has_bias", has_bias_at) is not None else \
            "It also has no bias (has_bias=False; PyTorch's default is bias=True)"
        yield ctx.finding(
            CONV_IMPLICIT_SAME, call,
            compose(f"'{_layer(call)}' has no pad_mode, so it pads to keep the size (pad_mode='same')",
                    "PyTorch pads nothing by default", bias, "State pad_mode and has_bias when porting"),
        )


DROPOUT_P_SINCE = "2.0"
_DEPRECATION = "'For Dropout, this parameter keep_prob will be deprecated, please use p instead'"


def _dropout_keep_prob(ctx: ModuleContext):
    """(call, value, given by keyword) for each nn.Dropout given keep_prob."""
    for call, name in _nn_layer_calls(ctx):
        if name != "Dropout":
            continue
        keyword = keyword_value(call, "keep_prob")
        positional = call.args[0] if call.args and not isinstance(call.args[0], nodes.Starred) else None
        value = keyword if keyword is not None else positional
        if value is not None:
            yield call, value, keyword is not None


def _right_keep_rate(ctx: ModuleContext, value, by_keyword: bool) -> bool:
    """Whether the value is not known to be a drop rate (MS711 then, not MS703).  A drop rate is
    known when the value comes to numbers below 0.5 only: a literal or constant, the values every
    call of the enclosing function (or class) in the module passes, a parameter's default when
    nothing there calls it, or a conditional with such an arm and no keep-rate arm.  A name that
    says "drop" whose values the analysis cannot read proves nothing: configurations set
    `dropout` to 0.9 or 1.0 as keep rates as often as to 0.1 (issue 26), so only the deprecation,
    which holds either way, is reported."""
    return _drop_rate(ctx, value) is not True


def _drop_rate(ctx: ModuleContext, value) -> Optional[bool]:
    """True: every value is below 0.5; False: a value is a keep rate (0.5 or more, `1 - x`, a
    name with "keep"); None: unknown."""
    if isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and value.func.name in ("float", "int") \
            and len(value.args) == 1 and not value.keywords:
        return _drop_rate(ctx, value.args[0])  # float(dropout) is what it converts
    numbers = _rate_numbers(ctx, value)
    if numbers is not None:
        return all(rate < 0.5 for rate in numbers)
    if isinstance(value, nodes.IfExp):
        arms = {_drop_rate(ctx, value.body), _drop_rate(ctx, value.orelse)}
        if arms == {False}:
            return False  # keep rates in both arms
        return True if arms == {True, None} or arms == {True} else None
    return False if dropout_rates.rate_kind(value) == dropout_rates.KEEP else None


def _rate_numbers(ctx: ModuleContext, value) -> Optional[List[float]]:
    passed = caller_values.parameter_literals(value, ctx.scope.call_sites, ctx.resolver)
    found = passed if passed is not None else [literal_of(value, ctx.resolver)]
    numbers = [literal.number for literal in found if literal is not None]
    return numbers if len(numbers) == len(found) and all(n is not None for n in numbers) else None


@implements(DROPOUT_KEEP_PROB)
def check_dropout_keep_prob(ctx: ModuleContext) -> Iterator[Finding]:
    for call, value, by_keyword in _dropout_keep_prob(ctx):
        if _right_keep_rate(ctx, value, by_keyword):
            continue  # MS711: only the keyword is deprecated
        keep = number(value)
        written = f"keep_prob={value.as_string()}" if by_keyword else value.as_string()
        effect = (f"It keeps {keep:.0%} and zeroes {1 - keep:.0%} of the activations in training"
                  if keep is not None and 0 < keep <= 1 else "keep_prob is the probability of KEEPING an activation")
        problem = "passes a value named as a drop rate as keep_prob" if by_keyword else \
            "passes keep_prob, not PyTorch's drop probability"
        if _p_exists(ctx, call):
            advice = (f"keep_prob is deprecated ('please use p instead'): pass the value as p if it is the drop rate, "
                      f"or p={dropout_rates.one_minus(value)} if it is the keep rate")
            fix = _keyword_dropout_fix(call, value, force_unsafe=True) if by_keyword else \
                _positional_dropout_fix(call, value)
        else:  # before 2.0 nn.Dropout has no p: neither the advice nor the fix may write it
            advice = f"If the value is the drop rate, write keep_prob={dropout_rates.one_minus(value)}"
            fix = None
        yield ctx.finding(DROPOUT_KEEP_PROB, call,
                          compose(f"{snippet(f'{_layer(call)}({written})')} {problem}", effect, advice), fix=fix)


@implements(DROPOUT_KEEP_PROB_DEPRECATED)
def check_dropout_keep_prob_deprecated(ctx: ModuleContext) -> Iterator[Finding]:
    for call, value, by_keyword in _dropout_keep_prob(ctx):
        if not _right_keep_rate(ctx, value, by_keyword):
            continue  # MS703: the value reads as a drop rate
        if not _p_exists(ctx, call):
            continue  # p= does not exist there: keep_prob is the only spelling
        written = f"keep_prob={value.as_string()}" if by_keyword else value.as_string()
        # a keep rate by its value or spelling: right today; else only the deprecation is known
        right = "the behaviour is right; " if _drop_rate(ctx, value) is False or by_keyword else ""
        yield ctx.finding(
            DROPOUT_KEEP_PROB_DEPRECATED, call,
            compose(f"{snippet(f'{_layer(call)}({written})')} gives the keep probability through the deprecated "
                    "keep_prob",
                    f"MindSpore logs {_DEPRECATION} and 2.10 still accepts it" + (": the behaviour is right" if right else ""),
                    f"Write p={dropout_rates.one_minus(value)}"),
            fix=_keyword_dropout_fix(call, value) if by_keyword else _keep_rate_fix(call, value),
        )


def _p_exists(ctx: ModuleContext, call: nodes.Call) -> bool:
    """nn.Dropout has p from 2.0 on: not on a target-version before it, nor in the branch of a version
    test taken before it (`if MS_VERSION <= "1.10.1": nn.Dropout(keep_prob=...)` `else:
    mint.nn.Dropout(p=...)`), the code's own compatibility path, which p= would break."""
    return version_tests.holds_from(call, DROPOUT_P_SINCE, ctx.config.target_version)


def _keep_rate_fix(call: nodes.Call, value) -> Optional[fixes.Fix]:
    """A positional keep rate (MS711): p=1 - k does what the code does today (safe)."""
    if len(call.args) > 1 or keyword_value(call, "p") is not None:
        return None  # a second positional would bind p, or p is given too: a human sorts it out
    return fixes.fix(fixes.SAFE, "use p, the drop probability",
                     fixes.replace_node(value, f"p={dropout_rates.one_minus(value)}"))


# -- MS703's fix ---------------------------------------------------------------------------
def _keyword_dropout_fix(call: nodes.Call, value, force_unsafe: bool = False) -> Optional[fixes.Fix]:
    """keep_prob=k is a keep rate by its name: p=1 - k is the documented equivalent (safe); when
    k is spelled like a drop rate (keep_prob=dropout), p=1 - k keeps what the code does, which a
    human should confirm (unsafe)."""
    keyword = next((k for k in call.keywords if k.arg == "keep_prob"), None)
    if keyword is None or keyword_value(call, "p") is not None or keyword.lineno is None:
        return None
    return fixes.fix(fixes.UNSAFE if force_unsafe else fixes.SAFE, "use p, the drop probability",
                     fixes.replace_node(keyword, f"p={dropout_rates.one_minus(value)}"))


def _positional_dropout_fix(call: nodes.Call, value) -> Optional[fixes.Fix]:
    """A positional keep_prob that may be PyTorch's drop rate (MS703, the page's Example): a number
    below 0.5 or a name with 'drop' becomes p=k, the PyTorch meaning; anything else p=1 - k; both
    need a look (unsafe)."""
    if len(call.args) > 1 or keyword_value(call, "p") is not None:
        return None  # a second positional would bind p, or p is given too: a human sorts it out
    torch_style = dropout_rates.rate_kind(value) == dropout_rates.DROP
    new = f"p={dropout_rates.spelled(value)}" if torch_style else f"p={dropout_rates.one_minus(value)}"
    reading = "as PyTorch's drop probability" if torch_style else "as the keep probability MindSpore reads"
    return fixes.fix(fixes.UNSAFE, f"use p, reading {dropout_rates.spelled(value)} {reading}",
                     fixes.replace_node(value, new))


@implements(BN_TORCH_MOMENTUM)
def check_batchnorm_momentum(ctx: ModuleContext) -> Iterator[Finding]:
    for call, name in _nn_layer_calls(ctx):
        if name not in _BATCHNORM_LAYERS:
            continue
        argument = _argument(call, "momentum", _BN_MOMENTUM_POSITION)
        found = _momentum_value(ctx, argument)
        momentum = found.number if found is not None else None
        if momentum is None or not 0 <= momentum < BN_MOMENTUM_THRESHOLD:
            continue
        if _frozen_statistics(ctx, call):
            continue  # the moving statistics are never updated: momentum has no effect
        origin = f"momentum={argument.as_string()} is {momentum} ({found.origin})" if found.origin else None
        # the edit replaces a number written at the call; a name's value is changed where it is set
        fix = None if found.origin else fixes.fix(
            fixes.UNSAFE, f"momentum={round(1 - momentum, 6)} (PyTorch's {momentum} in MindSpore's terms)",
            fixes.replace_node(argument, repr(round(1.0 - momentum, 6))))
        yield ctx.finding(
            BN_TORCH_MOMENTUM, call,
            compose(f"'{_layer(call)}(..., momentum={momentum})' looks like PyTorch's momentum", origin,
                    "MindSpore updates moving = momentum * moving + (1 - momentum) * batch, so the running statistics "
                    f"keep only {momentum * 100:g}% of their history per step",
                    f"PyTorch's {momentum} is MindSpore's momentum={round(1 - momentum, 6)}"),
            fix=fix,
        )


def _momentum_value(ctx: ModuleContext, argument) -> Optional[Literal]:
    """The momentum a BatchNorm gets: a literal or constant; for a parameter of the enclosing
    function, the one value every call passes (its default where a call leaves it out, or when
    nothing calls it); None when the calls are unknown (the class or function is passed around,
    `block(...)` in a ResNet builder) or disagree."""
    parameter = caller_values.parameter_of(argument) if argument is not None else None
    if parameter is None:
        return literal_of(argument, ctx.resolver) if argument is not None else None
    passed = caller_values.passed_literals(*parameter, ctx.scope.call_sites, ctx.resolver)
    if not passed or len({value.value for value in passed}) != 1:
        return None
    default = literal_of(argument, ctx.resolver)  # the default, with where it is written
    return default if default is not None and default.value == passed[0].value else passed[0]


_BN_USE_BATCH_STATISTICS_POSITION = 8  # nn.BatchNorm2d(num_features, eps, momentum, affine, 4 inits, use_batch_statistics)


def _frozen_statistics(ctx: ModuleContext, call: nodes.Call) -> bool:
    """`use_batch_statistics=False` (written, a name that is False, or a parameter every call in
    the module passes False, or whose default is False when nothing calls it): the layer
    normalises with its moving statistics and never updates them (checked on 2.10)."""
    argument = _argument(call, "use_batch_statistics", _BN_USE_BATCH_STATISTICS_POSITION)
    passed = caller_values.parameter_literals(argument, ctx.scope.call_sites, ctx.resolver)
    if passed is not None:
        return all(flag.value is False for flag in passed)
    flag = literal_of(argument, ctx.resolver)
    return flag is not None and flag.value is False


# -- graph scope ---------------------------------------------------------------------------
def _owns_parameters(ctx: ModuleContext, cls: nodes.ClassDef, seen=None) -> bool:
    """A project Cell whose non-graph methods store a Parameter or a parametric cell on self."""
    seen = set() if seen is None else seen
    if cls in seen:
        return False
    seen.add(cls)
    for value in ctx.class_facts(cls).values.values():
        if value.has("parameter"):
            return True
        if value.has("cell") and value.cls and _is_parametric_mindspore(value.cls):
            return True
        if isinstance(value.node, nodes.ClassDef) and ctx.classes.is_cell(value.node) and \
                _owns_parameters(ctx, value.node, seen):
            return True
    return False


def _is_parametric_mindspore(qualname: str) -> bool:
    return msn.is_cell_class_name(qualname) and qualname.rsplit(".", 1)[-1] in _PARAMETRIC_CELLS


def _cells_built_in_graph(ctx: ModuleContext):
    """(call, graph function, layer name, MindSpore qualname or None) for each cell with parameters
    created in graph code, MindSpore's or the project's."""
    for call, gf in ctx.graph_nodes(nodes.Call):
        qualname = ctx.qualname(call.func)
        if qualname and msn.is_mindspore(qualname):
            if not _is_parametric_mindspore(qualname):
                continue
        else:
            definition = ctx.resolver.resolve_callable(call.func)
            if not (isinstance(definition, nodes.ClassDef) and ctx.classes.is_cell(definition)
                    and _owns_parameters(ctx, definition)):
                continue
            qualname = None
        yield call, gf, call.func.as_string().rsplit(".", 1)[-1], qualname


def _variable_argument(ctx: ModuleContext, call: nodes.Call, gf) -> Optional[int]:
    """The index MindSpore names for the first argument that is a variable in graph code: a graph
    value, or a tensor MindSpore ops compute there (`weight_init=ops.eye(c, c, ms.float32)`)."""
    return next((i for i, a in enumerate(call_arguments(call))
                 if ctx.value(a, gf).is_var or computed_by_ops(ctx, a)), None)


@implements(CELL_IN_GRAPH)
def check_cell_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, layer, qualname in _cells_built_in_graph(ctx):
        variable = _variable_argument(ctx, call, gf)
        stored = _stored_on_self(call)
        if variable is not None:
            consequence = (f"Compilation fails (TypeError: When creating an instance of "
                           f"'{layer}', all arguments are required to be constants, but input "
                           f"{variable} is a variable)")
        elif stored is not None:  # checked on 2.10: tests/test_mindspore_claims.py
            consequence = (f"Storing it on 'self.{stored}' fails under STRICT (TypeError: ... the member attribute "
                           f"must be of the Parameter type) and under LAX (when __init__ set a cell there: "
                           f"TypeError: Sub cell '{stored}' already exists in network, can not assign ...)")
        elif qualname is not None and constant_parameters(ctx, call, layer, gf):
            continue  # a fixed function: MS712
        else:
            consequence = ("It is built once, at compile time: its randomly initialised parameters are frozen "
                           "into the graph and never trained (they are not in trainable_params())")
        yield ctx.finding(
            CELL_IN_GRAPH, call,
            compose(f"'{shown(call.func, SNIPPET)}(...)' creates a cell with parameters in graph code", consequence,
                    "Create it in __init__"),
            gf,
        )


def _stored_on_self(call: nodes.Call) -> Optional[str]:
    """The attribute name in `self.name = <call>`, or None."""
    assign = call.parent
    if not isinstance(assign, nodes.Assign) or assign.value is not call:
        return None
    return next((target.attrname for target in assign.targets if isinstance(target, nodes.AssignAttr)
                 and isinstance(target.expr, nodes.Name) and target.expr.name == "self"), None)


@implements(FIXED_WEIGHT_CELL)
def check_fixed_weight_cell(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, layer, qualname in _cells_built_in_graph(ctx):
        if qualname is None or _variable_argument(ctx, call, gf) is not None:
            continue
        constants = constant_parameters(ctx, call, layer, gf)
        if not constants:
            continue
        yield ctx.finding(
            FIXED_WEIGHT_CELL, call,
            compose(f"'{shown(call.func, SNIPPET)}(...)' in graph code computes a fixed function, rebuilt at every "
                    "compilation",
                    f"It is built with {constants}: its parameters stay there (they are not in trainable_params()), "
                    "as intended if that is the point",
                    "Create it in __init__ (excluded from training if it must stay fixed), or call the op with the "
                    "constant tensors" + (" (ops.LayerNorm(begin_norm_axis, begin_params_axis)(x, gamma, beta))"
                                          if "LayerNorm" in layer else "")),
            gf,
        )


@implements(PARAMETER_IN_GRAPH)
def check_parameter_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in ctx.graph_nodes(nodes.Call):
        if ctx.qualname(call.func) not in msn.PARAMETER_CLASSES:
            continue
        data = call.args[0] if call.args else keyword_value(call, "default_input")
        yield ctx.finding(
            PARAMETER_IN_GRAPH, call,
            compose(f"'{shown(call.func, SNIPPET)}(...)' creates a Parameter in graph code, which fails to compile",
                    "ValueError: Failed to compile in GRAPH_MODE because creating class "
                    "'mindspore.common.parameter.Parameter' instances is not supported in 'construct' or @jit "
                    "decorated function",
                    "Its value depends on this call's inputs (a per-call state, such as a batch-sized zeros): use "
                    "the tensor itself, without Parameter(...)" if data is not None and _per_call(ctx, data, gf)
                    else "Create it in __init__"),
            gf,
        )


def _per_call(ctx: ModuleContext, data, gf) -> bool:
    """The data of a Parameter depends on the call: a value not known at compile time, or a shape read from an
    input (`ops.zeros((L, x.shape[0], H))`), directly or through a name."""
    for node in [data] + list(data.nodes_of_class((nodes.Name, nodes.Attribute))):
        if isinstance(node, nodes.Attribute) and node.attrname == "shape":
            return True
        value = ctx.value(node, gf)
        if value.is_var or value.has("shape"):
            return True
    return False


def _project_class_of(ctx: ModuleContext, receiver, gf) -> Optional[nodes.ClassDef]:
    """The project class of a method call's receiver (`self`, or an object the lattice knows), if any."""
    if isinstance(receiver, nodes.Name) and receiver.name == "self":
        return gf.self_class
    node = ctx.value(receiver, gf).node
    return node if isinstance(node, nodes.ClassDef) else None


def _user_method(ctx: ModuleContext, receiver, gf, name: str) -> bool:
    """The receiver's own (project) class defines the method: it is not MindSpore's."""
    cls = _project_class_of(ctx, receiver, gf)
    return cls is not None and ctx.classes.lookup_method(cls, name) is not None


@implements(SET_DATA_IN_GRAPH)
def check_set_data_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute) or func.attrname != "set_data":
            continue
        receiver = ctx.value(func.expr, gf)
        if _user_method(ctx, func.expr, gf, "set_data") or receiver.has("object") or receiver.has("cell"):
            continue
        if gf.strict:
            error = _STRICT_ATTRIBUTE_ERROR.format(name="set_data", type="Ref[Tensor[...]]")
        else:
            error = ("RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter' object's method "
                     "'set_data' is not supported in 'construct' or function with @jit decorator")
        yield ctx.finding(
            SET_DATA_IN_GRAPH, call,
            compose(f"'{shown(func, SNIPPET)}(...)' in graph code fails to compile", error,
                    f"Use ops.assign({func.expr.as_string()}, value)"),
            gf,
        )


def _forbidden_methods() -> Dict[str, List[Tuple[str, str]]]:
    """method name -> [(receiver tag, name MindSpore reports)] from the shipped registry table."""
    table: Dict[str, List[Tuple[str, str]]] = {}
    for entry in sorted(data.jit_forbidden_methods()):
        owner, _, method = entry.rpartition(".")
        tag = _RECEIVER_TAGS.get(owner)
        if tag is not None and entry != "mindspore.common.parameter.Parameter.set_data":  # MS707's
            table.setdefault(method, []).append((tag, entry))
    return table


def _receiver_is(ctx: ModuleContext, receiver, gf, tag: str) -> bool:
    if tag == "cell":
        if isinstance(receiver, nodes.Call) and isinstance(receiver.func, nodes.Name) and receiver.func.name == "super":
            return gf.self_class is not None and ctx.classes.is_cell(gf.self_class)
        cls = _project_class_of(ctx, receiver, gf)
        if cls is not None:
            return ctx.classes.is_cell(cls)
        return ctx.value(receiver, gf).has("cell")
    value = ctx.value(receiver, gf)
    if tag == "parameter":
        return value.has("parameter")
    return value.has("tensor") or value.has("parameter") or (value.is_var and not value.tags & {"ndarray", "object"})


def _forbidden_message(reported: str, kind: str, strict: bool, receiver_tag: Optional[str] = None) -> str:
    if receiver_tag in ("tensor", "parameter"):
        owner, _, method = reported.rpartition(".")
        short = owner.rsplit(".", 1)[-1]
        if strict:
            return _STRICT_ATTRIBUTE_ERROR.format(name=method, type=f"{short}[...]")
        return (f"RuntimeError: Failed to compile in GRAPH_MODE because the '{short}' object's method '{method}' "
                "is not supported in 'construct' or function with @jit decorator")
    return (f"RuntimeError: Failed to compile in GRAPH_MODE because the {kind} '{reported}' is not supported in "
            "'construct' or function with @jit decorator")


@implements(FORBIDDEN_API)
def check_forbidden_api(ctx: ModuleContext) -> Iterator[Finding]:
    methods = _forbidden_methods()
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        qualname = ctx.call_qualname(call, gf)
        reported = data.jit_forbidden_name(qualname) if msn.is_mindspore(qualname) else None
        if reported is not None:
            last = reported.rsplit(".", 1)[-1]
            kind = "class" if last[:1].isupper() or last.startswith("saved_tensors") else "method or function"
            yield ctx.finding(
                FORBIDDEN_API, call,
                compose(f"'{shown(func, SNIPPET)}(...)' is forbidden in graph code",
                        _forbidden_message(reported, kind, gf.strict),
                        "Call it outside the compiled code (e.g. in __init__)"),
                gf,
            )
            continue
        if not isinstance(func, nodes.Attribute) or func.attrname not in methods or qualname:
            continue
        for tag, entry in methods[func.attrname]:
            if not _receiver_is(ctx, func.expr, gf, tag) or _user_method(ctx, func.expr, gf, func.attrname):
                continue
            yield ctx.finding(
                FORBIDDEN_API, call,
                compose(f"'{shown(func, SNIPPET)}(...)' is forbidden in graph code",
                        _forbidden_message(entry, 'method or function', gf.strict, tag),
                        "Call it outside the compiled code (e.g. in __init__) and keep the result"),
                gf,
            )
            break


@implements(ISINSTANCE_LIST)
def check_isinstance_list(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in ctx.graph_nodes(nodes.Call):
        if len(call.args) < 2 or not isinstance(call.args[1], (nodes.List, nodes.ListComp)):
            continue
        if ctx.qualname(call.func) != "builtins.isinstance":
            continue
        types = call.args[1]
        if isinstance(types, nodes.List):
            elements = ", ".join(e.as_string() for e in types.elts)
            fixed = f"the tuple ({elements}{',' if len(types.elts) == 1 else ''})"
        else:
            fixed = "a tuple of types"
        yield ctx.finding(
            ISINSTANCE_LIST, types,
            compose("isinstance() with a list of types fails in graph code, as in Python",
                    "TypeError: isinstance() arg 2 must be a type or tuple of types.", f"Pass {fixed}"),
            gf,
            # the call failed with a list and takes the same types as a tuple: safe
            fix=fixes.display_to_tuple(ctx, types, fixes.SAFE, "pass a tuple of types")
            if isinstance(types, nodes.List) else None,
        )


def _self_attribute_targets(statement) -> Iterator[nodes.AssignAttr]:
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    stack = list(targets)
    while stack:
        target = stack.pop(0)
        if isinstance(target, (nodes.Tuple, nodes.List)):
            stack[0:0] = target.elts
        elif isinstance(target, nodes.Starred):
            stack.insert(0, target.value)
        elif isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) \
                and target.expr.name == "self":
            yield target


def _set_from_argument(ctx: ModuleContext, cls: nodes.ClassDef, name: str) -> bool:
    """`self.name = arg` in __init__ (or another non-graph method) with `arg` one of its parameters:
    the attribute's type (a Parameter?) is unknown."""
    for klass in ctx.classes.mro(cls):
        for method in klass.mymethods():
            if method.name in ("construct", "bprop") or ctx.classes.jit_decorator(method) is not None:
                continue
            arguments = {a.name for a in method.args.arguments or ()}
            for target in ctx.classes.attribute_stores(method):
                value = getattr(target.parent, "value", None)
                if target.attrname == name and isinstance(value, nodes.Name) and value.name in arguments:
                    return True
    return False


def _set_outside_graph(ctx: ModuleContext, cls: nodes.ClassDef, name: str) -> bool:
    """Whether a method that graph code does not reach (`__init__`, a setup method) stores
    `self.name`: one only graph code calls (`clear_cache()` from construct) does not set it
    before the graph first runs."""
    in_graph = {gf.node for gf in ctx.graph_functions()}
    return any(target.attrname == name
               for klass in ctx.classes.mro(cls) for method in klass.mymethods() if method not in in_graph
               for target in ctx.classes.attribute_stores(method))


@implements(ATTRIBUTE_ASSIGNMENT)
def check_attribute_assignment(ctx: ModuleContext) -> Iterator[Finding]:
    for statement, gf in ctx.graph_nodes(nodes.Assign, nodes.AugAssign, nodes.AnnAssign):
        cls = gf.self_class
        if cls is None or not ctx.classes.is_cell(cls):
            continue
        for target in _self_attribute_targets(statement):
            name = target.attrname
            fact = ctx.class_facts(cls).get(name)
            if fact is not None and (fact.has("parameter") or fact.kind == Kind.UNKNOWN
                                     or _set_from_argument(ctx, cls, name)):
                continue  # a Parameter, or nothing known about it
            if fact is None or not _set_outside_graph(ctx, cls, name):
                strict_error = f"AttributeError: The '{cls.name}' object has no attribute '{name}'."
                what = "it is not set in __init__"
            else:
                strict_error = (f"TypeError: In JIT strict mode, if need to modify a member attribute of a class "
                                f"with self.{name}, the member attribute must be of the Parameter type.")
                what = "__init__ does not make it a Parameter"
            if gf.strict:
                level = f"This fails under STRICT ({strict_error})"
            else:
                level = (f"LAX allows it (the attribute holds the new value after the call), but it is an error "
                         f"under syntax-level STRICT and @jit(fullgraph=True) ({strict_error})")
            yield ctx.finding(
                ATTRIBUTE_ASSIGNMENT, target,
                compose(f"'self.{name}' is assigned in graph code and {what}", level,
                        "Keep such state in a Parameter updated with ops.assign, or return the value"),
                gf,
            )


# -- MS713 -------------------------------------------------------------------------------
# MS710 leaves out attributes __init__ copies from an argument (the caller may pass a Parameter). 2.10,
# STRICT: `self.a = x` on such an attribute fails when the caller passed a tensor or an int ("TypeError: In
# JIT strict mode, if need to modify a member attribute of a class with self.a, the member attribute must be
# of the Parameter type. But got '1' with type 'int'."), and runs when it passed a Parameter; LAX runs both.
def _argument_declared_parameter(ctx: ModuleContext, cls: nodes.ClassDef, name: str) -> bool:
    """`def __init__(self, w: Parameter)` ... `self.w = w`: the signature promises a Parameter."""
    for klass in ctx.classes.mro(cls):
        for method in klass.mymethods():
            arguments = method.args
            annotations = dict(zip([a.name for a in arguments.args or ()], arguments.annotations or ()))
            for target in ctx.classes.attribute_stores(method):
                value = getattr(target.parent, "value", None)
                if target.attrname == name and isinstance(value, nodes.Name):
                    annotation = annotations.get(value.name)
                    if annotation is not None and (ctx.qualname(annotation) or "").endswith("Parameter"):
                        return True
    return False


@implements(ARGUMENT_ATTRIBUTE_ASSIGNMENT)
def check_argument_attribute_assignment(ctx: ModuleContext) -> Iterator[Finding]:
    for statement, gf in ctx.graph_nodes(nodes.Assign, nodes.AugAssign, nodes.AnnAssign):
        cls = gf.self_class
        if not gf.strict or cls is None or not ctx.classes.is_cell(cls):
            continue
        for target in _self_attribute_targets(statement):
            name = target.attrname
            fact = ctx.class_facts(cls).get(name)
            if fact is not None and fact.has("parameter") or not _set_from_argument(ctx, cls, name) or \
                    _argument_declared_parameter(ctx, cls, name):
                continue
            yield ctx.finding(
                ARGUMENT_ATTRIBUTE_ASSIGNMENT, target,
                compose(f"'self.{name}' is assigned in STRICT graph code but __init__ copied it from an argument",
                        "That fails unless it is a Parameter",
                        "MindSpore 2.10, STRICT: TypeError: In JIT strict mode, if need to modify a member attribute "
                        f"of a class with self.{name}, the member attribute must be of the Parameter type (LAX runs "
                        "it)", "Pass a Parameter, or keep the value local"),
                gf,
            )
