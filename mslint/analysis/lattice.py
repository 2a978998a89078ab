"""CONST / VAR / UNKNOWN values over a function body: the lattice, its joins and tags, the
values of one body (FunctionValues), and the values parameters start with.

MindSpore's graph compiler folds what it knows at compile time (constants) and
emits graph nodes for what it does not (variables: tensors passed in, Parameters,
anything computed from them).  Rules ask "is this expression a compile-time
constant?" and "is this a boolean tensor?" of the values that `interpreter.Interpreter`
computes over this lattice (its statements, expressions and calls live in the
`interpret_*` modules).
"""
from __future__ import annotations

import ast
import operator as operator_module
from enum import IntEnum
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from astroid import nodes

from mslint.project import mindspore_names as msn
from mslint.project import module_files, resolve
from mslint.findings import COMPILED_ONLY_WHEN
from mslint.project.classes import keyword_value

if TYPE_CHECKING:
    from mslint.analysis.interpreter import Interpreter


class Kind(IntEnum):
    CONST = 0  # known at compile time
    UNKNOWN = 1  # no evidence either way: rules stay quiet
    VAR = 2  # a graph value: depends on inputs


class Value:
    """One abstract value; immutable by convention (shared freely), equal and hashed without `node`.

    A plain class with __slots__ rather than a frozen dataclass: the interpreter makes a few
    hundred thousand of these per project, and a frozen dataclass's __init__ costs several
    object.__setattr__ calls each."""

    __slots__ = ("kind", "tags", "cls", "elements", "node")

    def __init__(self, kind: Kind, tags: FrozenSet[str] = frozenset(), cls: Optional[str] = None,
                 elements: Optional[Tuple["Value", ...]] = None, node: Optional[nodes.NodeNG] = None):
        self.kind = kind
        # bool, tensor, ndarray, object, cell, parameter, callable, str; "host": a Python or NumPy value
        # computed at run time from a tensor by JIT Fallback (after .asnumpy()/.tolist()), not a graph tensor;
        # "opaque": what a call the analysis cannot follow returns from graph values (a tensor, a tuple, an
        # int from x.shape[0]: no evidence which)
        self.tags = tags
        self.cls = cls  # qualified class name of an instance (user class, threading.Lock, ...)
        self.elements = elements  # per element, for tuple displays
        self.node = node  # the project class, if any (not part of equality)

    def _key(self) -> tuple:
        return (self.kind, self.tags, self.cls, self.elements)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, Value):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Value(kind={self.kind!r}, tags={set(self.tags) or {}}, cls={self.cls!r}, elements={self.elements!r})"

    @property
    def is_const(self) -> bool:
        return self.kind == Kind.CONST

    @property
    def is_var(self) -> bool:
        return self.kind == Kind.VAR

    def has(self, tag: str) -> bool:
        return tag in self.tags

    def with_tags(self, *tags: str) -> "Value":
        return Value(self.kind, self.tags | frozenset(tags), self.cls, self.elements, self.node)


CONST = Value(Kind.CONST)
CONST_BOOL_TENSOR = Value(Kind.CONST, frozenset({"tensor", "bool"}))
_FILLING_OPS = frozenset({"ones", "zeros", "fill", "full", "ones_like", "zeros_like", "full_like", "empty"})
_NUMPY_ARRAY_CLASSES = frozenset({"numpy.ndarray", "numpy.generic", "numpy.number"})
_SPREAD_GUESS = 8  # parameters a trailing `*seq` of unknown length is taken to fill
UNKNOWN = Value(Kind.UNKNOWN)
HOST = Value(Kind.VAR, frozenset({"host"}))
OPAQUE = Value(Kind.VAR, frozenset({"opaque"}))
_OPAQUE_BOOL = Value(Kind.VAR, frozenset({"opaque", "bool"}))
VAR_TENSOR = Value(Kind.VAR, frozenset({"tensor"}))
BOOL_TENSOR = Value(Kind.VAR, frozenset({"tensor", "bool"}))
PARAMETER = Value(Kind.VAR, frozenset({"tensor", "parameter"}))


def literal(node: nodes.Const) -> Value:
    """A literal's value; bools, numbers and None carry their truth ("truthy"/"falsy"), and a
    bool or number its value (a "=<repr>" tag: `self.top_p = 1` decides `if self.top_p < 1.0:`
    at compile time, as MindSpore does)."""
    return constant(node.value)


def constant(value) -> Value:
    """A Python literal's value (see literal)."""
    if value is None:
        return _NONE_LITERAL
    if isinstance(value, str):
        return _STR_LITERAL
    if isinstance(value, (bool, int, float)):
        return number_value(value)
    return _OTHER_LITERAL


VALUE_TAG = "="


def number_value(value) -> Value:
    """A compile-time bool or number, with its truth and its value."""
    truth = "truthy" if value else "falsy"
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 10 ** 12) \
            or (isinstance(value, float) and value == value and abs(value) < 1e12):
        return Value(Kind.CONST, frozenset({truth, VALUE_TAG + repr(value)}))
    return _TRUTHY_LITERAL if value else _FALSY_LITERAL


def known_number(value: Value):
    """The bool or number a constant is known to be, or None."""
    if not value.is_const:
        return None
    found = [t for t in value.tags if t.startswith(VALUE_TAG)]
    if len(found) != 1:
        return None
    text = found[0][len(VALUE_TAG):]
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


_NONE_LITERAL = Value(Kind.CONST, frozenset({"none", "falsy"}))
_STR_LITERAL = Value(Kind.CONST, frozenset({"str"}))
_TRUTHY_LITERAL = Value(Kind.CONST, frozenset({"truthy"}))
_FALSY_LITERAL = Value(Kind.CONST, frozenset({"falsy"}))
_OTHER_LITERAL = Value(Kind.CONST, frozenset())  # bytes, complex, Ellipsis


def _module_literal(assign: nodes.AssignName, fallback: Value) -> Value:
    """`DEBUG = False` bound once at module level: the literal, truth included (MindSpore reads
    a global as a constant when it compiles)."""
    value = getattr(assign.parent, "value", None)
    return literal(value) if isinstance(value, nodes.Const) else fallback


def without_truth(value: Value) -> Value:
    tags = frozenset(t for t in value.tags if t not in ("truthy", "falsy") and not t.startswith(VALUE_TAG))
    return Value(value.kind, tags, value.cls, value.elements, value.node)


def truth_value(value: Value) -> Optional[bool]:
    """True/False for a compile-time constant whose truth is known (a literal, an unpassed default)."""
    if not value.is_const:
        return None
    if value.has("truthy") and not value.has("falsy"):
        return True
    if value.has("falsy") and not value.has("truthy"):
        return False
    return None


def is_graph_value(value: Value) -> bool:
    """A value the graph computes at run time (a tensor, a scalar from one): not a constant, not a NumPy
    array or list the interpreter made from a tensor (the conversion is the one problem there), and not
    the result of a call the analysis could not follow (no evidence it is a tensor)."""
    return value.kind == Kind.VAR and not value.tags & _NOT_GRAPH_EVIDENCE


def host_result(values: Iterable[Value]) -> bool:
    """Python or NumPy work on these values yields a host value: some are host, none is a graph value."""
    return _all_variables_have(values, "host")


def _all_variables_have(values: Iterable[Value], tag: str) -> bool:
    """Some values are variables, and every variable carries `tag`."""
    found = False
    for value in values:
        if value.kind == Kind.VAR:
            if tag not in value.tags:
                return False
            found = True
    return found


def _unknown_result(arg_kind: Kind) -> Value:
    """What a call the analysis cannot follow returns: opaque if graph values go in, else unknown."""
    return OPAQUE if arg_kind == Kind.VAR else UNKNOWN


def join(*values: Value) -> Value:
    """The least upper bound: VAR wins, then UNKNOWN; facts survive only if all agree."""
    values = [v for v in values if v is not None]
    if not values:
        return UNKNOWN
    first = values[0]
    if len(values) == 1 or (all(v is first for v in values) and _joins_to_itself(first)):
        return first
    kind = max(v.kind for v in values)
    tags = frozenset.intersection(*(v.tags for v in values))
    if kind == Kind.VAR:
        # `a = arr.sum() if c else 0`: still the interpreter's value; `n = out + 1`: still no evidence
        for tag in ("host", "opaque"):
            if tag not in tags and _all_variables_have(values, tag):
                tags = tags | {tag}
    # `self.head = None` on one path and `self.head = Head()` on another: still a Head when called
    typed = [v for v in values if not v.has("none")] or values
    cls = typed[0].cls if all(v.cls == typed[0].cls for v in typed) else None
    node = typed[0].node if cls is not None else None
    elements = None
    if all(v.elements is not None and len(v.elements) == len(first.elements) for v in values):
        elements = tuple(join(*parts) for parts in zip(*(v.elements for v in values)))
    return Value(kind, tags, cls, elements, node)


def _joins_to_itself(value: Value) -> bool:
    """Whether join(value, value) is value: joining keeps a class node only with its class name."""
    return value.cls is not None or value.node is None


def join_args(values: Iterable[Value]) -> Kind:
    values = list(values)
    return max((v.kind for v in values), default=Kind.CONST)


# Attributes of any tensor or array that are static in graph mode.
_STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "training", "phase"})
_STATIC_METHODS = frozenset({"dim", "ndimension", "numel", "nelement", "dtype", "is_floating_point", "size", "shape"})
# NumPy functions that build arrays (tagged "ndarray"); other NumPy functions on scalars return scalars.
_NUMPY_ARRAY_BUILDERS = frozenset({
    "array", "asarray", "ascontiguousarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "triu",
    "tril", "meshgrid", "mgrid", "ogrid", "stack", "concatenate", "vstack", "hstack", "tile", "repeat", "diag",
    "load", "fromfunction", "frombuffer", "indices", "hanning", "hamming", "blackman", "bartlett", "kaiser",
    "triu_indices", "tril_indices", "outer", "kron", "cumsum", "cumprod", "sort", "argsort", "pad", "diagflat",
    "column_stack", "dstack", "split", "array_split", "broadcast_to", "expand_dims", "reshape", "transpose",
})
# numpy.random functions: how many leading positional parameters describe the distribution (the next
# one is `size`); without a size they draw one scalar. rand/randn take the shape itself.
_RANDOM_DISTRIBUTION_ARITY = {
    "random": 0, "random_sample": 0, "ranf": 0, "sample": 0, "standard_normal": 0, "standard_cauchy": 0,
    "standard_exponential": 0, "choice": 1, "poisson": 1, "exponential": 1, "chisquare": 1, "geometric": 1,
    "rayleigh": 1, "standard_gamma": 1, "standard_t": 1, "zipf": 1, "logseries": 1, "pareto": 1, "power": 1,
    "weibull": 1, "normal": 2, "uniform": 2, "randint": 2, "random_integers": 2, "beta": 2, "binomial": 2,
    "gamma": 2, "lognormal": 2, "laplace": 2, "logistic": 2, "gumbel": 2, "f": 2, "negative_binomial": 2,
    "vonmises": 2, "wald": 2, "triangular": 3, "hypergeometric": 3,
}
_SCALAR_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "std", "var", "item", "any", "all",
                                "argmax", "argmin"})
MAX_INLINE_DEPTH = 2  # how deep return values of project functions are followed


class SharedResults:
    """Results of one analysis that any other analysis in the process would compute the same
    (the project modules' trees are shared): return values of project functions for given
    arguments and depth, and class facts.  Only results that read no recursion guard are kept
    (Interpreter.impure),
    so which analysis ran first never changes a finding; the pylint plugin analyses each module
    and its importers, and the command each file, reaching the same helpers and base classes.

    A run that records what each analysis reads (for the result cache) keeps, with each result,
    the log of the analysis that computed it; an analysis that takes the result takes that log
    too (ReadLog.take).  That log holds everything the result was computed from (a result read
    only what its analysis had read by then), and more: a superset, so a cache entry may be
    invalidated by an edit it did not depend on, never kept past one it did."""

    LIMIT = 200_000  # entries; a bound on memory for a long-lived process

    def __init__(self):
        self.returns: Dict[tuple, tuple] = {}  # key -> (value, the computing analysis's ReadLog or None)
        self.facts: Dict[tuple, tuple] = {}

    def recall(self, table: dict, key: tuple):
        """The result kept under `key` (None if none); the running analysis takes its reads."""
        found = table.get(key)
        if found is None:
            return None
        value, log = found
        if log is not None:
            current = module_files.HOOKS.log
            if current is not None:
                current.take(log)
        return value

    def remember(self, table: dict, key: tuple, value) -> None:
        if len(table) >= self.LIMIT:
            table.clear()
        table[key] = (value, module_files.HOOKS.log)

    def forget(self) -> None:
        """Trees were dropped or may be rebuilt (a new run, evicted modules): their keys are stale."""
        self.returns.clear()
        self.facts.clear()


SHARED = SharedResults()


def _identity(value: "Value") -> tuple:
    """Everything about a value an evaluation may read (equality leaves out the class node)."""
    elements = None if value.elements is None else tuple(_identity(e) for e in value.elements)
    return (value.kind, value.tags, value.cls, value.node, elements)


def params_identity(params: Dict[str, "Value"]) -> tuple:
    """Everything a run may read of its parameters' values (part of an exact key: SHARED's,
    mslint.analysis.kept_runs')."""
    return tuple(sorted((name, _identity(value)) for name, value in params.items()))
_BOOL_METHODS = frozenset({
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or", "logical_not",
    "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater", "less", "greater_equal", "less_equal",
    "equal", "not_equal", "isclose", "bool", "has_nan", "signbit", "all", "any",
})
# Ops that return what the compiler knows of their input (a Python int, tuple or dtype), not a tensor.
_STATIC_OPS = frozenset({"shape", "rank", "dtype", "size", "dyn_shape_static", "get_shape", "tuple_len", "list_len"})
# Ops that move or copy elements without changing them: a boolean input gives a boolean output.
_LAYOUT_OPS = frozenset({
    "squeeze", "unsqueeze", "expand_dims", "reshape", "view", "flatten", "ravel", "copy", "clone", "contiguous",
    "transpose", "permute", "swapaxes", "movedim", "broadcast_to", "expand_as", "expand", "tile", "repeat", "flip",
    "roll", "stop_gradient", "identity", "t",
})
# Primitives (ops.Greater()(x, y), ...) whose output is a boolean tensor.
_BOOL_PRIMITIVES = frozenset({
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "LogicalXor", "IsNan", "IsInf", "IsFinite", "IsClose", "ReduceAll", "ReduceAny",
})
# Ops that join tensors (boolean when every tensor joined is) and that pick between two (boolean when both are).
_JOINING_OPS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack"})
_PICKING_OPS = frozenset({"where", "select"})
_RANDOM_OPS = frozenset({
    "uniform", "standard_normal", "normal", "randint", "rand", "randn", "rand_like", "randn_like", "randint_like",
    "shuffle", "multinomial", "random_categorical", "gamma", "poisson", "standard_laplace", "dropout", "bernoulli",
    "random_gamma", "log_uniform_candidate_sampler", "choice_with_mask", "randperm",
})
_BOOL_DTYPES = frozenset({"mindspore.bool_", "mindspore.bool", "mindspore.common.dtype.bool_", "numpy.bool_"})
# Ops whose output length depends on the data: the result is tagged "dynamic", and its shape, size and
# len() are graph values, not constants (MindSpore's shape of ops.nonzero(x) is (-1, 1) at compile time).
DYNAMIC_SHAPE_OPS = frozenset({"masked_select", "nonzero", "argwhere", "unique", "unique_consecutive", "bincount"})
DYNAMIC_SHAPE_PRIMITIVES = frozenset({"MaskedSelect", "NonZero", "Unique", "UniqueConsecutive", "Argwhere",
                                      "Bincount"})
_SIZE_ATTRIBUTES = frozenset({"shape", "size"})
_SIZE_METHODS = frozenset({"numel", "nelement", "size", "shape"})
DYNAMIC_SCALAR = Value(Kind.VAR, frozenset({"scalar"}))
# a compile-time number read from a shape (x.shape, x.shape[0] * 2, len(x), x.size()): constant per compilation,
# but it changes with the input (MS103 cannot hoist what it shapes to __init__)
SHAPE = Value(Kind.CONST, frozenset({"shape"}))
_SHAPE_NAMES = frozenset({"shape", "size", "ndim", "numel", "nelement", "dim", "ndimension", "rank", "get_shape",
                          "dyn_shape_static"})
# Parameters of MindSpore's layers (nn.Dense, nn.Conv2d, nn.BatchNorm2d, nn.Embedding, nn.LayerNorm ...)
_CELL_PARAMETERS = frozenset({"weight", "bias", "gamma", "beta", "moving_mean", "moving_variance",
                              "embedding_table"})
# Methods only a tensor (or an array) has: calling one on an opaque value is evidence it is a tensor.
_TENSOR_METHODS = _BOOL_METHODS | _LAYOUT_OPS | _SCALAR_REDUCTIONS | frozenset({
    "astype", "to", "float", "half", "int", "long", "double", "masked_fill", "new_zeros", "new_ones", "new_full",
    "new_empty", "fill_", "abs", "exp", "log", "sqrt", "softmax", "matmul", "cumsum", "sigmoid", "tanh", "clamp",
    "clip", "gather", "index_select", "argsort", "sort", "topk", "nonzero", "masked_select", "unique", "asnumpy",
    "numpy", "tolist", "detach", "repeat_interleave", "chunk", "split", "type_as", "norm", "pow", "mul", "add",
    "sub", "div", "bmm", "mm", "unbind", "narrow", "select", "where",
})
_FILLING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
# Reads of a dict's entries: on a value taken for a tensor they hold what its subscript would
# (`e.get("extra")` as `e["extra"]`, an input's part); its keys are no tensor, and show it is a dict.
_ENTRY_READS = frozenset({"get", "values", "items", "pop", "setdefault"})
# Primitive methods that configure the primitive and return it (`P.TopK().shard(...)`; 2.10 returns self).
PRIMITIVE_SETTERS = frozenset({"shard", "add_prim_attr", "del_prim_attr", "set_device", "recompute",
                               "set_prim_instance_name", "set_stage"})
_CONST_BUILTINS = frozenset({"len", "isinstance", "issubclass", "range", "type", "hasattr", "getattr", "callable", "id"})


class ClassFacts:
    """What a class's non-graph methods (`__init__` first) store on `self`."""

    def __init__(self, values: Dict[str, Value]):
        self.values = values

    def get(self, name: str) -> Optional[Value]:
        return self.values.get(name)


def _is_constant(value: Optional["Value"]) -> bool:
    return value is not None and value.kind == Kind.CONST


class FunctionValues:
    """The values of every expression in one function body, for one calling context."""

    def __init__(self, interpreter: "Interpreter", function, params: Dict[str, Value],
                 self_class: Optional[nodes.ClassDef] = None):
        self.function = function
        self.values: Dict[nodes.NodeNG, Value] = {}
        self.interpreter = interpreter
        self.env: Dict[str, Value] = dict(params)
        self.self_class = self_class
        self.self_facts: Optional[ClassFacts] = None
        self.returns: List[Value] = []
        # statements MindSpore does not compile: the untaken side of an `if` on a known constant
        # (`if not return_dict:` with return_dict=False) and what follows a branch that returned
        self.dead: Set[nodes.NodeNG] = set()
        # of those, what MindSpore's parser drops too (so syntax rules skip it): the untaken side
        # of an `if` whose test reads a cell attribute (`if self.training:`, `if self.head is not
        # None:`); on a literal, a global or a default the parser still rejects `try` or `del`
        self.unparsed: Set[nodes.NodeNG] = set()
        # statements a root's parameter left at its default does not compile (the caller may pass
        # another value, so they are analysed), and the condition under which they are compiled
        self.left_out: Dict[nodes.NodeNG, str] = {}
        # how many enclosing `if`/`while` statements test a graph value (MindSpore compiles
        # every side of those, whatever a call in them raises)
        self.tensor_branches = 0

    def left_out_by_default(self, node) -> Optional[str]:
        """'only compiled when the caller passes return_dict other than False' for a node in
        such a statement; None elsewhere."""
        if not self.left_out:
            return None
        current = node
        while current is not None and current is not self.function:
            found = self.left_out.get(current)
            if found is not None:
                return found
            current = current.parent
        return None

    def value(self, node) -> Value:
        found = self.values.get(node)
        if found is not None:
            return found
        return self.interpreter.evaluate_isolated(node, self)


def iteration_value(iterable: Value) -> Value:
    if iterable.has("pairs") and iterable.elements:  # enumerate()/zip(): each step a tuple
        return Value(join(*iterable.elements).kind, frozenset(), None, iterable.elements)
    if iterable.has("cell_list"):
        return _ANY_CELL
    if iterable.elements:
        return join(*iterable.elements)
    return Value(iterable.kind, iterable.tags - {"bool", "cell_list"})


_ANY_CELL = Value(Kind.CONST, frozenset({"cell"}))


def _listed_cells(call: nodes.Call, state: Optional["FunctionValues"]) -> Optional[Tuple[Value, ...]]:
    """The cells of `nn.SequentialCell([nn.Dense(8, 8), nn.ReLU()])` (or `nn.CellList([a, b])`,
    `nn.SequentialCell(a, b)`) written out, one value each, so that `self.seq[0]` is that nn.Dense;
    None when they are not written out (a comprehension, a list or an OrderedDict built elsewhere)."""
    if state is None or call.keywords or not call.args:
        return None
    listed = call.args
    if len(listed) == 1 and isinstance(listed[0], (nodes.List, nodes.Tuple)):
        listed = listed[0].elts
    if not listed or any(isinstance(element, nodes.Starred) for element in listed):
        return None
    cells = tuple(state.values.get(element, UNKNOWN) for element in listed)
    return cells if all(cell.tags & {"cell", "object"} for cell in cells) else None


def _boolean(value: Value) -> bool:
    """A boolean tensor (or a mask built from what the analysis cannot follow, as a comparison of it is)."""
    return value.has("bool") and bool(value.tags & {"tensor", "opaque"}) and not value.tags & {"host", "scalar"}


def _bool_literal(node) -> bool:
    return isinstance(node, nodes.Const) and isinstance(node.value, bool)


def _boolean_join_or_pick(qualname: str, last: str, node: nodes.Call, args: List[Value],
                          state: "FunctionValues") -> bool:
    """`mint.cat([m, ~m], dim=1)`, `ops.stack((a, b))` of boolean tensors; `mint.where(c, m, True)`,
    `ops.select(c, a, b)` whose two branches are boolean (a tensor or a Python bool)."""
    if last in _JOINING_OPS:
        sequence = node.args[0] if node.args else None
        for name in ("tensors", "input_x", "x", "arrays", "input"):
            sequence = sequence if sequence is not None else keyword_value(node, name)
        if isinstance(sequence, (nodes.List, nodes.Tuple)):
            if any(isinstance(e, nodes.Starred) for e in sequence.elts):
                return False
            elements = [state.values.get(e, UNKNOWN) for e in sequence.elts]
        else:
            elements = list(args[0].elements or ()) if args and not isinstance(sequence, nodes.Starred) else []
        return bool(elements) and all(_boolean(e) for e in elements)
    if last in _PICKING_OPS and (last == "where" or qualname.startswith("mindspore.ops.")):
        if len(node.args) == 3:
            branches = node.args[1:]
        else:
            branches = [node.args[1] if len(node.args) > 1 else keyword_value(node, "input") or keyword_value(node, "x"),
                        keyword_value(node, "other") or keyword_value(node, "y")]
        if any(b is None or isinstance(b, nodes.Starred) for b in branches) or len(node.args) > 3:
            return False
        return all(_bool_literal(b) or _boolean(state.values.get(b, UNKNOWN)) for b in branches)
    return False


def _bool_tensor_literal(node: nodes.Call, state: "FunctionValues",
                         is_bool_dtype: Callable[[nodes.NodeNG], bool]) -> bool:
    """`ms.tensor([True])`, `Tensor(False)`, `ms.tensor([True], dtype=m.dtype)` with m boolean."""
    data = node.args[0] if node.args else keyword_value(node, "input_data") or keyword_value(node, "data")
    dtype = node.args[1] if len(node.args) > 1 else keyword_value(node, "dtype")
    if isinstance(data, (nodes.List, nodes.Tuple)):
        literal_data = bool(data.elts) and all(_bool_literal(e) for e in data.elts)
    else:
        literal_data = _bool_literal(data)
    if not literal_data:
        return False
    if dtype is None or (isinstance(dtype, nodes.Const) and dtype.value is None):
        return True
    if isinstance(dtype, nodes.Attribute) and dtype.attrname == "dtype":
        return _boolean(state.values.get(dtype.expr, UNKNOWN))
    return is_bool_dtype(dtype)


def positional_values(call: nodes.Call, value_of: Callable[[nodes.NodeNG], Value]) -> List[Value]:
    """The values of a call's positional arguments, `*seq` spread: its elements when they are
    known, else its element value for each parameter left (`resize(t, *x.shape[2:])`)."""
    args: List[Value] = []
    for index, argument in enumerate(call.args):
        if not isinstance(argument, nodes.Starred):
            args.append(value_of(argument))
            continue
        spread = value_of(argument.value)
        if spread.elements is not None and not spread.has("pairs"):
            args.extend(spread.elements)
        else:
            last = index == len(call.args) - 1
            args.extend([iteration_value(spread)] * (_SPREAD_GUESS if last else 1))
    return args


def _bind_call(target, args: List[Value], kwargs: Dict[str, Value], bound: bool,
               resolver: resolve.Resolver) -> Dict[str, Value]:
    """Parameter values of `target` for a call with these argument values."""
    params = bind_positional(target, args, bound)
    params.update({k: v for k, v in kwargs.items() if k is not None})
    return with_unpassed_defaults(target, params, resolver)


def bind_positional(target, args: List[Value], bound: bool) -> Dict[str, Value]:
    """The named parameters the positional argument values fill, and `*args` as the tuple of
    the rest (`deprecate("name", "1.0", "message")`: args holds three strings, not tensors)."""
    positional = [a.name for a in (target.args.posonlyargs or []) + (target.args.args or [])]
    if bound and positional:
        positional = positional[1:]
    params = dict(zip(positional, args))
    if getattr(target.args, "vararg", None):
        rest = tuple(args[len(positional):])
        params[target.args.vararg] = Value(join(*rest).kind if rest else Kind.CONST, frozenset(), None, rest)
    return params


def with_unpassed_defaults(target, params: Dict[str, Value], resolver: resolve.Resolver) -> Dict[str, Value]:
    """Add the parameters a call leaves out: they hold their default, a constant evaluated at
    definition time (`min_value=None`, `k=3`); *args and **kwargs guess graph values."""
    args = target.args
    positional = [a.name for a in (args.posonlyargs or []) + (args.args or [])]
    with_default = positional[len(positional) - len(args.defaults or []):]
    keyword_defaults = [a.name for a, d in zip(args.kwonlyargs or [], args.kw_defaults or []) if d is not None]
    for name in with_default + keyword_defaults:
        params.setdefault(name, _default_value(target, name))
    for name, value in root_params(target, resolver).items():
        params.setdefault(name, value)
    return params


def _default_value(function, name: str) -> Value:
    try:
        default = function.args.default_value(name)
    except Exception:  # astroid: no default for this name
        return CONST
    return literal(default) if isinstance(default, nodes.Const) else CONST


_DEFAULT_TAG = "default:"  # "default:<truthy|falsy>:<parameter>=<its default, as written>"
_NONE_DEFAULT_TAG = "none-default:"  # "none-default:<parameter>": a root input that defaults to None


def unknown_default(value: Value, name: str, default: nodes.NodeNG) -> Value:
    """A root parameter's default: a constant whose value the caller chooses. It keeps, as a
    tag, which branch the default itself would select, so that findings there can say so."""
    truth = truth_value(value)
    if truth is None and isinstance(default, nodes.Const) and isinstance(default.value, str):
        truth = bool(default.value)  # `mode="ms"`: `mode == "np"` says when its branch is compiled
    value = without_truth(value)
    if truth is None:
        return value
    return value.with_tags(_default_tag(truth, name, default.as_string()))


def _default_tag(truth: bool, name: str, default: str) -> str:
    """The tag of a condition on a parameter's default: its truth under the default, the
    parameter as messages name it, the default as written (read back by _default_guard)."""
    return f"{_DEFAULT_TAG}{'truthy' if truth else 'falsy'}:{name}={default}"


def constructor_params(init: nodes.FunctionDef, class_name: str) -> Dict[str, Value]:
    """Values of a class's own `__init__` parameters, for the facts it stores on `self`: each a
    constant of unknown value; one with a literal default keeps, as a root's parameter does,
    which branch its default selects (`if self.prefix_bucket:` with `prefix_bucket=False` is
    compiled only when the class is built with another value, and a finding there says so)."""
    params: Dict[str, Value] = {}
    args = init.args
    positional = list(args.posonlyargs or []) + list(args.args or [])
    defaults = [None] * (len(positional) - len(args.defaults or [])) + list(args.defaults or [])
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs or [], args.kw_defaults or []))
    for arg, default in pairs:
        if arg.name in ("self", "cls"):
            continue
        if isinstance(default, nodes.Const) and default.value is not None:
            params[arg.name] = unknown_default(literal(default), f"{arg.name} to {class_name}()", default)
        else:
            params[arg.name] = CONST
    for name in (args.vararg, args.kwarg):
        if name:
            params[name] = CONST
    return params


def without_default(value: Value) -> Value:
    tags = frozenset(t for t in value.tags if not t.startswith((_DEFAULT_TAG, _NONE_DEFAULT_TAG)))
    return value if tags == value.tags else Value(value.kind, tags, value.cls, value.elements, value.node)


def _default_guard(value: Value) -> Optional[Tuple[bool, str, str]]:
    """(truth under the default, parameter, default) of a condition on a root default."""
    for tag in value.tags:
        if tag.startswith(_DEFAULT_TAG):
            truth, spelled = tag[len(_DEFAULT_TAG):].split(":", 1)
            name, default = spelled.split("=", 1)
            return truth == "truthy", name, default
    return None


def _inverted(value: Value) -> Value:
    """`~x` on a Python number: `~0` and `~False` are -1 (truthy), `~-1` is 0, `~True` is -2, so
    its truth is not x's: known for a falsy x, and for a default, computed from the default."""
    tags = without_default(without_truth(value)).tags
    if truth_value(value) is False:
        tags |= {"truthy"}
    guard = _default_guard(value)
    if guard is not None:
        _, name, default = guard
        try:
            number = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            number = None
        if isinstance(number, int):  # (bool included)
            tags |= {_default_tag(bool(~number), name, default)}
    return Value(value.kind, tags)


def _reads_self_attribute(test: nodes.NodeNG) -> bool:
    return any(is_self_attribute(n) for n in test.nodes_of_class(nodes.Attribute))


def _guard_value(name: str, default: str, truth: bool) -> Value:
    """A constant condition whose value the caller chooses; `truth` is its value under the default."""
    return Value(Kind.CONST, frozenset({_default_tag(truth, name, default)}))


def _compare_on_default(node: nodes.Compare, operands: List[Value]) -> Optional[Value]:
    """`past_key_values is None`, `mode == "np"` with one side a root parameter left at its
    default and the other a literal: the value under the default is known, so the branch the
    default leaves out says when it is compiled."""
    if len(node.ops) != 1:
        return None
    operator, right = node.ops[0]
    for parameter, other, value in ((operands[0], right, operands[1]), (operands[1], node.left, operands[0])):
        guard = _default_guard(parameter) or _none_default(parameter)
        if guard is None or not isinstance(other, nodes.Const) or not value.is_const:
            continue
        try:
            default = ast.literal_eval(guard[2])
        except (ValueError, SyntaxError):
            return None
        compare = {"is": operator_module.is_, "is not": operator_module.is_not,
                   "==": operator_module.eq, "!=": operator_module.ne}.get(operator)
        if compare is None or not isinstance(default, (type(None), bool, int, float, str)):
            return None
        return _guard_value(guard[1], guard[2], bool(compare(default, other.value)))
    if operator in ("is", "is not"):  # identity is decided when the graph is compiled, never a tensor
        for value, other in ((operands[0], right), (operands[1], node.left)):
            # `self.head = None` and nothing else sets it (another method's store drops "falsy")
            if isinstance(other, nodes.Const) and other.value is None and value.is_const and value.has("none") \
                    and value.has("falsy"):
                return _TRUTHY_LITERAL if operator == "is" else _FALSY_LITERAL
        return CONST
    return None


def _none_default(value: Value) -> Optional[Tuple[bool, str, str]]:
    """(False, parameter, "None") for a root input that defaults to None (see _default_guard)."""
    for tag in value.tags:
        if tag.startswith(_NONE_DEFAULT_TAG):
            return False, tag[len(_NONE_DEFAULT_TAG):], "None"
    return None


def _negated_default(value: Value) -> FrozenSet[str]:
    guard = _default_guard(value)
    if guard is None:
        return frozenset()
    truth, name, default = guard
    return frozenset({_default_tag(not truth, name, default)})


def _mark_left_out_by_default(node: nodes.If, test: Value, state: FunctionValues) -> None:
    """`if not return_dict: return (h,)` with `return_dict=False`: the default compiles only the
    early return; what the other branch (and, after a branch that always returns, the rest of
    the block) holds is compiled only for a caller that passes another value."""
    guard = _default_guard(test)
    if guard is None:
        return
    truth, name, default = guard
    taken, left_out = (node.body, node.orelse) if truth else (node.orelse, node.body)
    condition = f"{COMPILED_ONLY_WHEN}{name} other than its default {default}"
    statements = list(left_out)
    if taken and isinstance(taken[-1], (nodes.Return, nodes.Raise)):
        sibling = node.next_sibling()
        while sibling is not None:
            statements.append(sibling)
            sibling = sibling.next_sibling()
    for statement in statements:
        state.left_out.setdefault(statement, condition)


def _join_envs(*envs: Dict[str, Value]) -> Dict[str, Value]:
    # a name bound on only some paths is undefined on the others, where using it would fail
    # anyway: its value is the join of the paths that bind it
    if len(envs) == 2:  # both sides of an if, a loop body with what came before: the usual case
        first, second = envs
        joined = dict(second)
        for key, value in first.items():
            other = joined.get(key)
            if other is None:
                joined[key] = value
            elif other is not value or not _joins_to_itself(value):
                joined[key] = join(value, other)
        return joined
    keys = set().union(*envs)
    return {key: join(*[env[key] for env in envs if key in env]) for key in keys}


def _default_params(function, default: Value) -> Dict[str, Value]:
    args = function.args
    names = [a.name for a in (args.posonlyargs or []) + (args.args or []) + (args.kwonlyargs or [])]
    if args.vararg:
        names.append(args.vararg)
    if args.kwarg:
        names.append(args.kwarg)
    return {name: default for name in names if name not in ("self", "cls")}


def root_params(function, resolver: resolve.Resolver) -> Dict[str, Value]:
    """Values of a graph root's parameters: tensors unless annotated or defaulted as Python scalars.

    A default is a constant of unknown value: whoever calls the root chooses it (`net(x,
    use_cache=True)` compiles the `if use_cache:` branch), so no branch is pruned on it.
    (A helper called without the argument gets the default itself: see with_unpassed_defaults.)"""
    args = function.args
    positional = list(args.posonlyargs or []) + list(args.args or [])
    defaults = [None] * (len(positional) - len(args.defaults or [])) + list(args.defaults or [])
    annotations = list(args.posonlyargs_annotations or []) + list(args.annotations or [])
    annotations += [None] * (len(positional) - len(annotations))
    params: Dict[str, Value] = {}
    for arg, default, annotation in zip(positional, defaults, annotations):
        if arg.name in ("self", "cls"):
            continue
        params[arg.name] = _param_value(arg.name, default, annotation, resolver)
    kw_defaults = list(args.kw_defaults or [])
    kw_annotations = list(args.kwonlyargs_annotations or [])
    for index, arg in enumerate(args.kwonlyargs or []):
        default = kw_defaults[index] if index < len(kw_defaults) else None
        annotation = kw_annotations[index] if index < len(kw_annotations) else None
        params[arg.name] = _param_value(arg.name, default, annotation, resolver)
    if args.vararg:
        params[args.vararg] = Value(Kind.VAR, frozenset({"tensor"}))
    if args.kwarg:
        params[args.kwarg] = Value(Kind.VAR)
    return params


_SCALAR_ANNOTATIONS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.str"})


def _optional_of(annotation, resolver: resolve.Resolver):
    """`int` for `Optional[int]` and `int | None` (`text_seq_len: Optional[int] = None` is an
    int, not a tensor); the annotation itself otherwise."""
    if isinstance(annotation, nodes.Subscript) and resolver.qualname(annotation.value) in _OPTIONAL:
        return annotation.slice
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        sides = [annotation.left, annotation.right]
        others = [side for side in sides if not (isinstance(side, nodes.Const) and side.value is None)]
        if len(others) == 1:
            return others[0]
    return annotation


_OPTIONAL = frozenset({"typing.Optional", "typing_extensions.Optional"})
# Generic containers and unions whose arguments say what they hold (`Tuple[int, int]`, `List[int]`).
_ANNOTATION_CONTAINERS = frozenset({
    "typing.Tuple", "typing.List", "typing.Sequence", "typing.MutableSequence", "typing.Iterable",
    "typing.Dict", "typing.Mapping", "typing.MutableMapping", "typing.Set", "typing.FrozenSet",
    "typing.Optional", "typing.Union", "typing_extensions.Optional", "typing_extensions.Union",
    "builtins.tuple", "builtins.list", "builtins.dict", "builtins.set", "builtins.frozenset",
    "collections.abc.Sequence", "collections.abc.Iterable", "collections.abc.Mapping",
    "collections.abc.MutableMapping", "collections.abc.MutableSequence",
})


def _scalars_only(annotation, resolver: resolve.Resolver, depth: int) -> bool:
    """An annotation that holds Python scalars only: `Tuple[int, int]`, `Tuple[int, ...]`, `List[int]`,
    `Optional[Tuple[int, int]]`, `Mapping[str, int]`, `int | None`, and a module-level alias of one
    (`ModalitySizeType = Mapping[str, int]`).  A bare `tuple` or `list` says nothing about its elements."""
    if depth > 6 or annotation is None:
        return False
    if isinstance(annotation, nodes.Const):
        return annotation.value is None or annotation.value is Ellipsis  # `Optional`'s None, `Tuple[int, ...]`
    if isinstance(annotation, nodes.Subscript):
        if resolver.qualname(annotation.value) not in _ANNOTATION_CONTAINERS:
            return False
        arguments = annotation.slice.elts if isinstance(annotation.slice, nodes.Tuple) else [annotation.slice]
        return bool(arguments) and all(_scalars_only(a, resolver, depth + 1) for a in arguments)
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        return _scalars_only(annotation.left, resolver, depth + 1) and \
            _scalars_only(annotation.right, resolver, depth + 1)
    if not isinstance(annotation, (nodes.Name, nodes.Attribute)):
        return False
    qualname = resolver.qualname(annotation)
    if qualname in _SCALAR_ANNOTATIONS or qualname == "builtins.None":
        return True
    if qualname is None and isinstance(annotation, nodes.Name):  # a type alias bound once in this module
        try:
            scope, assigns = resolver.lookup(annotation, annotation.name)
        except Exception:
            return False
        if isinstance(scope, nodes.Module) and len(assigns) == 1 and isinstance(assigns[0], nodes.AssignName) \
                and isinstance(assigns[0].parent, nodes.Assign) and len(assigns[0].parent.targets) == 1:
            return _scalars_only(assigns[0].parent.value, resolver, depth + 1)
    return False


# `index_dims: List[int]`, `shape: Tuple[int, ...]`: a container of Python numbers (callers pass shapes), not a tensor
_SEQUENCE_ANNOTATIONS = frozenset({
    "typing.List", "typing.Tuple", "typing.Sequence", "typing.Iterable", "typing.MutableSequence", "builtins.list",
    "builtins.tuple", "collections.abc.Sequence", "collections.abc.Iterable", "typing_extensions.List",
    "typing_extensions.Tuple", "typing_extensions.Sequence",
})
_NUMBER_ANNOTATIONS = frozenset({"builtins.int", "builtins.float", "builtins.bool"})


def _number_sequence(annotation, resolver: resolve.Resolver) -> bool:
    """List[int], Tuple[int, ...], Tuple[int, int], Sequence[float], list[int]: Python numbers only."""
    if not isinstance(annotation, nodes.Subscript) or resolver.qualname(annotation.value) not in _SEQUENCE_ANNOTATIONS:
        return False
    items = annotation.slice.elts if isinstance(annotation.slice, nodes.Tuple) else [annotation.slice]
    numbers = [i for i in items if not (isinstance(i, nodes.Const) and i.value is Ellipsis)]
    return bool(numbers) and all(resolver.qualname(i) in _NUMBER_ANNOTATIONS for i in numbers)


def is_self_attribute(node) -> bool:
    """`self.table`: an attribute of the cell."""
    return isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self"


def _param_value(name: str, default, annotation, resolver: resolve.Resolver) -> Value:
    if annotation is not None:
        qualname = resolver.qualname(_optional_of(annotation, resolver))
        if qualname in _SCALAR_ANNOTATIONS or _number_sequence(_optional_of(annotation, resolver), resolver):
            return unknown_default(literal(default), name, default) if isinstance(default, nodes.Const) else CONST
        if qualname in msn.TENSOR_CLASSES or qualname in msn.PARAMETER_CLASSES:
            return VAR_TENSOR
        if _scalars_only(annotation, resolver, 0):
            return CONST  # `dims: Tuple[int, int]`, `sizes: Mapping[str, int]`: Python numbers, folded when compiled
    if isinstance(default, nodes.Const) and default.value is not None:
        return unknown_default(literal(default), name, default)  # `training=False`, `k=3`: chosen by the caller
    if _constant_tensor(default, resolver):
        # `w=Tensor(1.0)`: a constant tensor when the caller leaves it out (`net(x)`), which is how a
        # program calls a top cell; its shape and `w.asnumpy().item()` are then compile-time constants
        return CONST_TENSOR
    if isinstance(default, nodes.Const):  # `past_key_values=None`: a tensor, or None when left out
        return VAR_TENSOR.with_tags(f"{_NONE_DEFAULT_TAG}{name}")
    return VAR_TENSOR


CONST_TENSOR = Value(Kind.CONST, frozenset({"tensor"}))


def _constant_tensor(node, resolver: resolve.Resolver) -> bool:
    """`Tensor(1.0)`, `ms.Tensor([1, 2], ms.float32)`: a MindSpore tensor built from literals only."""
    if not isinstance(node, nodes.Call) or resolver.qualname(node.func) not in msn.TENSOR_CLASSES:
        return False
    return bool(node.args or node.keywords) and all(
        _literal_data(argument, resolver) for argument in list(node.args) + [k.value for k in node.keywords or ()])


def _literal_data(node, resolver: resolve.Resolver) -> bool:
    """A literal, a list or tuple of them, or a dtype named from MindSpore or NumPy."""
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        return isinstance(node.operand, nodes.Const)
    if isinstance(node, (nodes.List, nodes.Tuple)):
        return all(_literal_data(element, resolver) for element in node.elts)
    if isinstance(node, (nodes.Attribute, nodes.Name)):
        return (resolver.qualname(node) or "").split(".")[0] in ("mindspore", "numpy")
    return False


def _pairs(builtin: str, args) -> Value:
    """enumerate(xs) / zip(xs, ys): an iterable whose steps are tuples, (index, x) or (x, y).
    A loop over it is unrolled by the graph compiler, so enumerate's index is a compile-time
    int on every step, whatever xs holds."""
    steps = [iteration_value(a) for a in args]
    if builtin == "enumerate":
        steps = [CONST] + steps[:1]
    kind = join(*args).kind
    return Value(kind, _host_tags(list(args)) | {"pairs"}, None, tuple(steps))


def _host_tags(values) -> FrozenSet[str]:
    """{"host"} ({"opaque"}) for a container or comprehension built only from host (opaque) values and
    constants."""
    values = list(values)
    if host_result(values):
        return _HOST_TAGS
    return _OPAQUE_TAGS if _all_variables_have(values, "opaque") else _NO_TAGS


_HOST_TAGS = frozenset({"host"})
_OPAQUE_TAGS = frozenset({"opaque"})
_NO_TAGS = frozenset()
_NOT_GRAPH_EVIDENCE = frozenset({"host", "opaque"})


def _draws_an_array(name: str, call: nodes.Call) -> bool:
    """np.random.normal() is one number; np.random.normal(0, 1, (3,)), np.random.rand(3) are arrays."""
    if name in ("rand", "randn"):
        return bool(call.args)
    arity = _RANDOM_DISTRIBUTION_ARITY.get(name)
    if arity is None:
        return True  # permutation, shuffle, multivariate_normal, dirichlet ...: arrays
    has_size = any(k.arg == "size" and not (isinstance(k.value, nodes.Const) and k.value.value is None)
                   for k in call.keywords or ())
    return has_size or len(call.args) > arity


def _guessed_tensor(value: Value) -> bool:
    """A graph value taken for a tensor (no NumPy array, host value or unresolved result)."""
    return value.is_var and value.has("tensor") and not value.tags & {"ndarray", "host", "opaque", "parameter"}


def _keeps_dynamic(name: str, args) -> bool:
    """A layout op (squeeze, reshape, transpose, ...) of a dynamic-length tensor is dynamic too."""
    return name in _LAYOUT_OPS and bool(args) and args[0].has("dynamic")
