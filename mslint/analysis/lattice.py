"""CONST / VAR / UNKNOWN values over a function body.

MindSpore's graph compiler folds what it knows at compile time (constants) and
emits graph nodes for what it does not (variables: tensors passed in, Parameters,
anything computed from them).  Rules ask this module "is this expression a compile-time
constant?" and "is this a boolean tensor?".

The interpreter is small and forward: statements in order, both branches of an `if`
joined, loop bodies run twice; every evaluated expression's value is recorded so a rule
can ask for it by node.
"""
from __future__ import annotations

import ast
import operator as operator_module
from enum import IntEnum
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from astroid import nodes

from mslint import data
from mslint.project import mindspore_names as msn
from mslint.analysis import raising_calls
from mslint.project import resolve
from mslint.findings import COMPILED_ONLY_WHEN
from mslint.project.classes import ClassIndex, call_arguments, is_static_method, keyword_value


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
    """A literal's value; bools, numbers and None carry their truth ("truthy"/"falsy")."""
    value = node.value
    if value is None:
        return _NONE_LITERAL
    if isinstance(value, str):
        return _STR_LITERAL
    if isinstance(value, (bool, int, float)):
        return _TRUTHY_LITERAL if value else _FALSY_LITERAL
    return _OTHER_LITERAL


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
    return Value(value.kind, value.tags - {"truthy", "falsy"}, value.cls, value.elements, value.node)


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
    and its importers, and the command each file, reaching the same helpers and base classes."""

    LIMIT = 200_000  # entries; a bound on memory for a long-lived process

    def __init__(self):
        self.returns: Dict[tuple, Value] = {}
        self.facts: Dict[tuple, "ClassFacts"] = {}
        # Off while a run records what each analysis reads for a result cache: an analysis that
        # took another's result would not read what that result was computed from, and its
        # cache entry would miss those dependencies (mslint.run.runner turns it off then).
        self.enabled = True

    def remember(self, table: dict, key: tuple, value) -> None:
        if not self.enabled:
            return
        if len(table) >= self.LIMIT:
            table.clear()
        table[key] = value

    def forget(self) -> None:
        """Trees were dropped or may be rebuilt (a new run, evicted modules): their keys are stale."""
        self.returns.clear()
        self.facts.clear()


SHARED = SharedResults()


def _identity(value: "Value") -> tuple:
    """Everything about a value an evaluation may read (equality leaves out the class node)."""
    elements = None if value.elements is None else tuple(_identity(e) for e in value.elements)
    return (value.kind, value.tags, value.cls, value.node, elements)
_BOOL_METHODS = frozenset({
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or", "logical_not",
    "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater", "less", "greater_equal", "less_equal",
    "equal", "not_equal", "isclose", "bool", "has_nan", "signbit", "all", "any",
})
_STATIC_OPS = frozenset({"shape", "rank", "dtype", "size", "dyn_shape_static", "get_shape"})
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


class Interpreter:
    """Evaluates function bodies over the CONST/VAR/UNKNOWN lattice."""

    def __init__(self, resolver: resolve.Resolver, class_facts: Callable[[Optional[nodes.ClassDef]], ClassFacts],
                 resolve_class: Callable[[nodes.NodeNG], Optional[nodes.ClassDef]], classes: ClassIndex,
                 flavour: tuple = ()):
        self.resolver = resolver
        self.class_facts = class_facts
        self.resolve_class = resolve_class  # a call's function expression -> project ClassDef
        self.classes = classes  # methods through the project hierarchy, decorators
        self._module_constants: Dict[Tuple[int, str], Value] = {}
        self._global_names: Dict[int, FrozenSet[str]] = {}  # per module, the names some `global` declares
        self._returns: Dict[tuple, Tuple[Optional[tuple], Value]] = {}  # key -> (exact key if pure, value)
        self._inline_depth = 0
        self._raising_calls: Dict[tuple, bool] = {}  # (call, which arguments are constants) -> raises
        self.flavour = flavour  # the configuration the results depend on (part of a shared key)
        # How many times a result read something that depends on what ran before (a class-facts
        # recursion guard, or a result that read one): a result computed while this count stays
        # put is the same in any analysis, and is shared with the other analyses (SHARED).
        self.impure = 0

    # -- entry points ------------------------------------------------------------------
    def run(self, function, params: Dict[str, Value], self_class: Optional[nodes.ClassDef]) -> FunctionValues:
        state = FunctionValues(self, function, params, self_class)
        state.self_facts = self.class_facts(self_class)
        if isinstance(function, nodes.Lambda):
            self._eval(function.body, state)
        else:
            self._block(function.body, state)
        return state

    def evaluate_isolated(self, node, state: FunctionValues) -> Value:
        """A node the main pass did not reach (e.g. a default value): evaluate it now."""
        try:
            return self._eval(node, state)
        except RecursionError:
            return UNKNOWN

    # -- statements --------------------------------------------------------------------
    def _block(self, body, state: FunctionValues) -> bool:
        """Run the statements; True if the block always leaves (return/raise), the rest then being dead."""
        for index, statement in enumerate(body):
            if self._statement(statement, state):
                state.dead.update(body[index + 1:])
                return True
        return False

    def _statement(self, node, state: FunctionValues) -> bool:
        if isinstance(node, nodes.Assign):
            value = self._eval(node.value, state)
            for target in node.targets:
                self._assign(target, value, state)
        elif isinstance(node, nodes.AugAssign):
            value = self._eval(node.value, state)
            old = self._eval(node.target, state)
            self._assign(node.target, join(old, value) if not old.is_var else old, state)
        elif isinstance(node, nodes.AnnAssign):
            if node.value is not None:
                self._assign(node.target, self._eval(node.value, state), state)
        elif isinstance(node, nodes.If):
            test = self._eval(node.test, state)
            truth = truth_value(test)
            if truth is None:
                # under a condition on graph values (or values of unknown kind) STRICT compiles
                # both sides in full, so a call that raises does not keep what follows it from
                # being compiled
                on_graph_value = not test.is_const
                state.tensor_branches += on_graph_value
                self._branches(state, node.body, node.orelse)
                state.tensor_branches -= on_graph_value
                _mark_left_out_by_default(node, test, state)
            else:  # a compile-time constant condition: MindSpore compiles only the branch taken
                taken, skipped = (node.body, node.orelse) if truth else (node.orelse, node.body)
                state.dead.update(skipped)
                if _reads_self_attribute(node.test):
                    state.unparsed.update(skipped)
                return self._block(taken, state)
        elif isinstance(node, (nodes.For, nodes.AsyncFor)):
            element = self._iteration_value(self._eval(node.iter, state))
            before = dict(state.env)
            for _ in range(2):
                self._assign(node.target, element, state)
                self._block(node.body, state)
                state.env = _join_envs(before, state.env)
            self._block(node.orelse, state)
        elif isinstance(node, nodes.While):
            before = dict(state.env)
            state.tensor_branches += 1  # (a loop's test is evaluated again: taken as a graph value)
            for _ in range(2):
                self._eval(node.test, state)
                self._block(node.body, state)
                state.env = _join_envs(before, state.env)
            state.tensor_branches -= 1
            self._block(node.orelse, state)
        elif isinstance(node, (nodes.With, nodes.AsyncWith)):
            for item, alias in node.items:
                value = self._eval(item, state)
                if alias is not None:
                    self._assign(alias, value, state)
            self._block(node.body, state)
        elif isinstance(node, nodes.Try):
            self._block(node.body, state)
            for handler in node.handlers:
                self._block(handler.body, state)
            self._block(node.orelse, state)
            self._block(node.finalbody, state)
        elif isinstance(node, (nodes.FunctionDef, nodes.AsyncFunctionDef)):
            # a nested function is analysed on its own, when (and as) it is called
            state.env[node.name] = Value(Kind.CONST, frozenset({"callable"}))
        elif isinstance(node, nodes.Expr):
            self._eval(node.value, state)
            if isinstance(node.value, nodes.Call) and not state.tensor_branches \
                    and self._always_raises(node.value, state):
                return True  # `deprecate(..., "0.34.0")` past that version: MindSpore stops there
        elif isinstance(node, nodes.Return):
            state.returns.append(self._eval(node.value, state) if node.value is not None else CONST)
            return True
        elif isinstance(node, (nodes.Raise, nodes.Assert)):
            for child in node.get_children():
                self._eval(child, state)
            return isinstance(node, nodes.Raise)
        elif hasattr(nodes, "Match") and isinstance(node, nodes.Match):
            self._eval(node.subject, state)
            for case in node.cases:
                self._block(case.body, state)
        elif isinstance(node, nodes.Delete):
            for target in node.targets:
                if isinstance(target, nodes.Name):
                    state.env.pop(target.name, None)
        return False

    def _always_raises(self, call: nodes.Call, state: FunctionValues) -> bool:
        # which arguments are compile-time constants decides whether the raise happens while
        # compiling (MindSpore stops there) or at run time (what follows is compiled too)
        constant = tuple(_is_constant(state.values.get(arg)) for arg in call.args) + \
            tuple(_is_constant(state.values.get(keyword.value)) for keyword in call.keywords or ())
        key = (call, constant)
        found = self._raising_calls.get(key)
        if found is None:
            found = self._raising_calls[key] = raising_calls.always_raises(call, self.resolver, constant)
        return found

    def _branches(self, state: FunctionValues, *bodies) -> None:
        start = state.env
        results = []
        for body in bodies:
            state.env = dict(start)
            self._block(body, state)
            results.append(state.env)
        state.env = _join_envs(*results)

    def _assign(self, target, value: Value, state: FunctionValues) -> None:
        if isinstance(target, nodes.AssignName):
            state.env[target.name] = value
        elif isinstance(target, (nodes.Tuple, nodes.List)):
            elements = value.elements
            for index, element in enumerate(target.elts):
                if isinstance(element, nodes.Starred):
                    self._assign(element.value, Value(value.kind, value.tags - {"bool"}), state)
                elif elements is not None and len(elements) == len(target.elts):
                    self._assign(element, elements[index], state)
                else:
                    self._assign(element, Value(value.kind, value.tags - {"bool"}, None, None), state)
        elif isinstance(target, nodes.AssignAttr):
            if isinstance(target.expr, nodes.Name) and target.expr.name == "self":
                state.env[f"self.{target.attrname}"] = value
            else:
                self._eval(target.expr, state)
        elif isinstance(target, nodes.Subscript):
            container = self._eval(target.value, state)
            self._eval(target.slice, state)
            state.values[target] = UNKNOWN
            self._fill(target.value, container, [value], state)
        elif isinstance(target, nodes.Starred):
            self._assign(target.value, value, state)

    def _fill(self, expr, container: Value, items: List[Value], state: FunctionValues) -> None:
        """`parts.append(t)`, `buf[i] = t`: the container now holds graph values (ops.concat(parts) is one)."""
        if isinstance(expr, nodes.Name):
            key = expr.name
        elif isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
            key = f"self.{expr.attrname}"
        else:
            return
        kind = join_args([container] + items)
        if kind <= container.kind or container.has("self") or container.has("cell"):
            return
        tags = (container.tags & {"tensor", "ndarray"}) | _host_tags([container] + items)
        state.env[key] = Value(kind, tags)

    # -- expressions -------------------------------------------------------------------
    def _eval(self, node, state: FunctionValues) -> Value:
        value = self._compute(node, state)
        state.values[node] = value
        return value

    def _compute(self, node, state: FunctionValues) -> Value:
        if isinstance(node, nodes.Const):
            return literal(node)
        if isinstance(node, nodes.Name):
            return self._name(node, state)
        if isinstance(node, nodes.Attribute):
            return self._attribute(node, state)
        if isinstance(node, nodes.Call):
            return self._call(node, state)
        if isinstance(node, nodes.Subscript):
            return self._subscript(node, state)
        if isinstance(node, nodes.Compare):
            operands = [self._eval(node.left, state)] + [self._eval(right, state) for _, right in node.ops]
            guarded = _compare_on_default(node, operands)
            if guarded is not None:
                return guarded
            kind = join_args(operands)
            if host_result(operands):
                return HOST
            if _all_variables_have(operands, "opaque"):
                return _OPAQUE_BOOL  # `out["opacity"] > 0.5`: a mask if out holds tensors
            if kind == Kind.VAR and any(v.is_var and not v.has("str") for v in operands):
                return BOOL_TENSOR
            if kind == Kind.CONST and any(v.has("tensor") for v in operands):
                return CONST_BOOL_TENSOR  # ops.arange(6) < 3: a mask of constants (still a tensor)
            return Value(kind, frozenset({"bool"}) if kind == Kind.VAR else frozenset())
        if isinstance(node, nodes.BinOp):
            left, right = self._eval(node.left, state), self._eval(node.right, state)
            result = join(left, right)
            if result.is_const and (left.has("shape") or right.has("shape")):
                result = result.with_tags("shape")  # x.shape[0] * 2
            if left.has("ndarray") or right.has("ndarray"):
                result = result.with_tags("ndarray") if not (left.has("tensor") or right.has("tensor")) else result
            return result
        if isinstance(node, nodes.BoolOp):
            operands = [self._eval(v, state) for v in node.values]
            # `a and b` with a constant falsy operand, all before it constants, is falsy at compile
            # time (`isinstance(kw, dict) and len(kw) > 0` with kw=None); `or` likewise with truthy
            decisive = node.op == "or"
            for operand in operands:
                if not operand.is_const:
                    break
                if truth_value(operand) is decisive:
                    return operand
            return join(*operands)
        if isinstance(node, nodes.UnaryOp):
            operand = self._eval(node.operand, state)
            if node.op == "not":
                truth = truth_value(operand)
                if truth is not None:
                    return Value(Kind.CONST, frozenset({"falsy" if truth else "truthy"}))
                if operand.has("host"):
                    return HOST
                negated = frozenset({"bool"}) if operand.is_var else _negated_default(operand)
                return Value(operand.kind, negated)
            if node.op == "~" and (operand.has("tensor") and not operand.tags & {"host", "ndarray", "scalar"}
                                   or operand.is_var and not operand.tags):
                # MindSpore 2.10 (GRAPH_MODE) gives a Bool tensor for ~ on int, uint8, float and bool tensors;
                # a graph value with no tags is an input whose tensor tag a join dropped (Optional[Tensor])
                return Value(operand.kind, operand.tags | {"tensor", "bool"})
            if node.op == "~":
                return _inverted(operand)
            return Value(operand.kind, operand.tags, None, None)  # -x, +x: the same truth
        if isinstance(node, (nodes.Tuple, nodes.List)):
            elements = tuple(self._eval(e, state) for e in node.elts)
            return Value(Kind(join_args(elements)), _host_tags(elements), None,
                         elements if isinstance(node, nodes.Tuple) else None)
        if isinstance(node, nodes.Set):
            elements = [self._eval(e, state) for e in node.elts]
            return Value(Kind(join_args(elements)), _host_tags(elements))
        if isinstance(node, nodes.Dict):
            values = [self._eval(v, state) for _, v in node.items] + [self._eval(k, state) for k, _ in node.items]
            return Value(Kind(join_args(values)), _host_tags(values))
        if isinstance(node, nodes.IfExp):
            truth = truth_value(self._eval(node.test, state))
            if truth is not None:  # a compile-time constant test: only that arm is compiled
                return self._eval(node.body if truth else node.orelse, state)
            return join(self._eval(node.body, state), self._eval(node.orelse, state))
        if isinstance(node, nodes.JoinedStr):
            parts = [self._eval(v, state) for v in node.values]
            return Value(Kind(join_args(parts)), frozenset({"str"}))
        if isinstance(node, nodes.FormattedValue):
            return self._eval(node.value, state)
        if isinstance(node, nodes.Starred):
            return self._eval(node.value, state)
        if isinstance(node, nodes.NamedExpr):
            value = self._eval(node.value, state)
            self._assign(node.target, value, state)
            return value
        if isinstance(node, nodes.Lambda):
            inner = FunctionValues(self, node, {**state.env, **_default_params(node, VAR_TENSOR)}, state.self_class)
            inner.self_facts = state.self_facts
            inner.values = state.values
            self._eval(node.body, inner)
            return Value(Kind.CONST, frozenset({"callable"}))
        if isinstance(node, (nodes.ListComp, nodes.SetComp, nodes.GeneratorExp, nodes.DictComp)):
            return self._comprehension(node, state)
        if isinstance(node, nodes.Slice):
            parts = [self._eval(p, state) for p in (node.lower, node.upper, node.step) if p is not None]
            return Value(Kind(join_args(parts)))
        if isinstance(node, (nodes.Await, nodes.Yield, nodes.YieldFrom)):
            if getattr(node, "value", None) is not None:
                self._eval(node.value, state)
            return UNKNOWN
        for child in node.get_children():
            self._eval(child, state)
        return UNKNOWN

    def _comprehension(self, node, state: FunctionValues) -> Value:
        saved = dict(state.env)
        kinds = []
        for generator in node.generators:
            iterable = self._eval(generator.iter, state)
            kinds.append(iterable)
            self._assign(generator.target, self._iteration_value(iterable), state)
            for condition in generator.ifs:
                self._eval(condition, state)
        if isinstance(node, nodes.DictComp):
            kinds += [self._eval(node.key, state), self._eval(node.value, state)]
        else:
            kinds.append(self._eval(node.elt, state))
        state.env = saved
        return Value(Kind(join_args(kinds)), _host_tags(kinds))

    @staticmethod
    def _iteration_value(iterable: Value) -> Value:
        if iterable.has("pairs") and iterable.elements:  # enumerate()/zip(): each step a tuple
            return Value(join(*iterable.elements).kind, frozenset(), None, iterable.elements)
        if iterable.has("cell_list"):
            return _ANY_CELL
        if iterable.elements:
            return join(*iterable.elements)
        return Value(iterable.kind, iterable.tags - {"bool", "cell_list"})

    def _name(self, node: nodes.Name, state: FunctionValues) -> Value:
        if node.name in state.env:
            return state.env[node.name]
        if node.name == "self":
            return Value(Kind.CONST, frozenset({"self"}))
        qualname = self.resolver.qualname(node)
        if qualname is not None:
            return self._qualified_constant(qualname, node)
        return self._module_constant(node)

    def _qualified_constant(self, qualname: str, node) -> Value:
        if qualname in msn.TENSOR_CLASSES or qualname in msn.PARAMETER_CLASSES:
            return Value(Kind.CONST, frozenset({"callable", "class"}), qualname)
        return Value(Kind.CONST, frozenset({"callable"}), qualname)

    def _module_constant(self, node: nodes.Name) -> Value:
        """A name bound at module level to a literal-ish expression is a compile-time constant."""
        try:
            scope, assigns = node.lookup(node.name)
        except Exception:
            return UNKNOWN
        if not assigns or not isinstance(scope, nodes.Module):
            return UNKNOWN
        key = (id(scope), node.name)
        if key not in self._module_constants:
            self._module_constants[key] = UNKNOWN  # recursion guard
            kinds = []
            for assign in assigns:
                parent = assign.parent
                if isinstance(assign, nodes.AssignName) and isinstance(parent, (nodes.Assign, nodes.AnnAssign)):
                    value = parent.value
                    literal = value is not None and all(
                        isinstance(n, (nodes.Const, nodes.Tuple, nodes.List, nodes.Dict, nodes.BinOp, nodes.UnaryOp,
                                       nodes.Name, nodes.Attribute, nodes.Set))
                        for n in value.nodes_of_class(nodes.NodeNG))
                    kinds.append(Kind.CONST if literal else Kind.UNKNOWN)
                else:
                    kinds.append(Kind.UNKNOWN)
            value = Value(Kind(max(kinds, default=Kind.UNKNOWN)))
            if len(assigns) == 1 and value.is_const and self._never_rebound(scope, node.name):
                value = _module_literal(assigns[0], value)
            self._module_constants[key] = value
        return self._module_constants[key]

    def _never_rebound(self, module: nodes.Module, name: str) -> bool:
        """No function of the module declares `global name` (and so may rebind it)."""
        if id(module) not in self._global_names:
            # (not a read of the whole module for the result cache: a function declaring
            # `global name` counts among the statements that may bind `name`, which the caller
            # looked up in the module)
            with resolve.unrecorded():
                self._global_names[id(module)] = frozenset(
                    n for statement in module.nodes_of_class(nodes.Global) for n in statement.names)
        return name not in self._global_names[id(module)]

    def _attribute(self, node: nodes.Attribute, state: FunctionValues) -> Value:
        if isinstance(node.expr, nodes.Name) and node.expr.name == "self" and "self" not in state.env:
            key = f"self.{node.attrname}"
            if key in state.env:
                return state.env[key]
            facts = getattr(state, "self_facts", None)
            known = facts.get(node.attrname) if facts else None
            if known is not None:
                return known
            state.values[node.expr] = Value(Kind.CONST, frozenset({"self"}))
            return UNKNOWN
        base = self._eval(node.expr, state)
        if base.has("callable") and base.cls:
            return self._qualified_constant(f"{base.cls}.{node.attrname}", node)
        if node.attrname in _STATIC_ATTRIBUTES:
            if base.has("dynamic") and node.attrname in _SIZE_ATTRIBUTES:
                return DYNAMIC_SCALAR
            if node.attrname not in _SHAPE_NAMES or base.has("parameter") or is_self_attribute(node.expr):
                return CONST  # self.pos_embed.shape: fixed once __init__ has run, not an input's
            return SHAPE
        if node.attrname == "T" or node.attrname == "mT":
            return base
        if base.is_var:
            return Value(Kind.VAR, base.tags & {"tensor", "ndarray", "host", "dynamic", "opaque"})
        member = self._sub_cell_member(base, node.attrname)
        return member if member is not None else Value(base.kind)

    def _sub_cell_member(self, cell: Value, name: str) -> Optional[Value]:
        """`self.head.weight`: a Parameter of a sub-cell (what its class stores, or a MindSpore layer's);
        `self.inner.proj`: a sub-cell of a sub-cell, so that `self.inner.proj.weight` is a Parameter too.
        Anything else a sub-cell's class stores (an int, a flag, a plain object) stays unknown here."""
        if isinstance(cell.node, nodes.ClassDef):
            known = self.class_facts(cell.node).get(name)
            if known is not None:
                # what the class itself stores decides (`self.weight = 0.5` is no Parameter)
                return known if known.is_var and known.has("tensor") or self._is_cell_value(known) else None
            if not self.classes.is_cell(cell.node):
                return None
        elif not cell.has("cell"):
            return None
        return PARAMETER if name in _CELL_PARAMETERS else None

    def _is_cell_value(self, value: Value) -> bool:
        """A cell instance: a MindSpore layer (nn.Dense, nn.SequentialCell) or one of a project Cell class."""
        if value.has("cell"):
            return True
        return value.has("object") and isinstance(value.node, nodes.ClassDef) and self.classes.is_cell(value.node)

    def _subscript(self, node: nodes.Subscript, state: FunctionValues) -> Value:
        base = self._eval(node.value, state)
        index = self._eval(node.slice, state)
        if base.elements is not None and isinstance(node.slice, nodes.Const) and isinstance(node.slice.value, int):
            try:
                return base.elements[node.slice.value]
            except IndexError:
                return UNKNOWN
        if base.has("cell_list") and not isinstance(node.slice, nodes.Slice):
            return _ANY_CELL  # `self.blocks[i]`: one of the cells (its Parameters are known by name)
        if base.is_const and index.is_const:
            return (SHAPE if base.has("shape") else CONST) if not base.has("ndarray") else base
        kind = Kind(max(base.kind, index.kind))
        if host_result((base, index)):
            return Value(kind, (base.tags | index.tags) & {"ndarray", "host"})
        tags = base.tags & {"tensor", "ndarray", "bool", "host", "dynamic", "opaque"}
        if index.is_var and index.has("bool") and not index.has("host"):
            tags = tags | {"dynamic"}  # x[mask]: one element per True
        return Value(kind, tags)

    # -- calls -------------------------------------------------------------------------
    def _call(self, node: nodes.Call, state: FunctionValues) -> Value:
        func_value = self._eval(node.func, state)
        args = self._positional_args(node, state)
        kwargs = {k.arg: self._eval(k.value, state) for k in node.keywords or ()}
        arg_kind = join_args(list(args) + list(kwargs.values()))
        qualname = func_value.cls if func_value.has("callable") else None

        if qualname is not None:
            return self._qualified_call(qualname, node, args, kwargs, arg_kind, state)
        if isinstance(func_value.node, nodes.ClassDef):
            # calling an instance of a project class: its construct (a Cell) or __call__ runs
            lookup = self.classes.lookup_method
            method = lookup(func_value.node, "construct") or lookup(func_value.node, "__call__")
            returned = self._return_of(method, args, kwargs, True, func_value.node) if method is not None else None
            if returned is not None:
                return returned
            return _unknown_result(arg_kind)  # a project cell or object not followed: it may return an int
        if func_value.has("primitive"):
            return self._primitive_call(func_value, node, args, arg_kind)
        if func_value.has("cell"):  # a MindSpore cell (nn.Dense, ...): a tensor
            return Value(Kind(arg_kind), frozenset({"tensor"}))
        if isinstance(node.func, nodes.Attribute):
            receiver = state.values.get(node.func.expr, UNKNOWN)
            if node.func.attrname in _FILLING_METHODS and not receiver.has("tensor"):
                self._fill(node.func.expr, receiver, list(args) + list(kwargs.values()), state)
            if node.func.attrname == "keys" and _guessed_tensor(receiver):
                self._not_a_tensor(node.func.expr, receiver, state)
            return self._method_call(node.func.attrname, receiver, node, args, kwargs, arg_kind, state)
        project_class = self.resolve_class(node.func)
        if project_class is not None:
            return Value(Kind(arg_kind), frozenset({"object"}), project_class.qname(), None, project_class)
        returned = self._project_return(node, args, kwargs, state)
        if returned is not None:
            return returned
        return _unknown_result(arg_kind)  # a call the analysis cannot resolve (a callable passed in, an adapter)

    @staticmethod
    def _not_a_tensor(expr, receiver: Value, state: FunctionValues) -> None:
        """`sizes.keys()` on a `sizes` taken for a tensor (a root's `sizes=None`, what a caller passed on):
        it is a dict whose keys the code walks, so what it holds is unknown (`sizes[k]` is no evidence
        of a tensor), here and after."""
        if isinstance(expr, nodes.Name) and state.env.get(expr.name) is receiver:
            state.env[expr.name] = Value(Kind.VAR, _OPAQUE_TAGS, None, receiver.elements)

    @staticmethod
    def _shape_numbers(node, state: FunctionValues) -> bool:
        """`[s.shape[0] for s in seqs]`, `(len(t) for t in ts)`: a comprehension whose elements are
        compile-time constants, over graph values (a loop the compiler unrolls; its length is known
        when it compiles), not over what the interpreter computed at run time (`arr.tolist()`)."""
        if not isinstance(node, (nodes.ListComp, nodes.GeneratorExp, nodes.SetComp)):
            return False
        element = state.values.get(node.elt)
        if element is None or not element.is_const:
            return False
        for generator in node.generators:
            iterable = state.values.get(generator.iter)
            if iterable is None or generator.ifs or iterable.has("dynamic") or \
                    not (iterable.is_const or is_graph_value(iterable)):
                return False
        return True

    def _isinstance_known(self, value: Value, classes: nodes.NodeNG) -> Optional[bool]:
        """isinstance() of a graph value, where the compiler knows the answer: a graph value is a
        tensor or a scalar, never a NumPy array (`elif isinstance(boxes, np.ndarray):` is never
        compiled for a tensor), and a tensor is a Tensor."""
        if isinstance(classes, nodes.Starred):
            return None
        names = classes.elts if isinstance(classes, nodes.Tuple) else [classes]
        qualnames = [self.resolver.qualname(name) for name in names]
        if any(q is None for q in qualnames):
            return None
        if value.is_const and value.has("none"):  # an unpassed `take_from=None`: never a dict or a list
            return None if any(q in ("builtins.object", "builtins.NoneType", "types.NoneType") for q in qualnames) \
                else False
        if not is_graph_value(value):
            return None
        if value.has("tensor") and any(q in msn.TENSOR_CLASSES for q in qualnames):
            return True
        if all(q in _NUMPY_ARRAY_CLASSES for q in qualnames):
            return False
        return None

    def _isinstance_on_default(self, value: Value, classes: nodes.NodeNG) -> Optional[Value]:
        """`isinstance(past_key_values, tuple)` on a root parameter left at its default None:
        false under the default, so the branch it guards says when it is compiled."""
        guard = _default_guard(value) or _none_default(value)
        if guard is None or guard[2] != "None" or isinstance(classes, nodes.Starred):
            return None
        names = classes.elts if isinstance(classes, nodes.Tuple) else [classes]
        qualnames = [self.resolver.qualname(name) for name in names]
        if any(q is None or q in ("builtins.object", "builtins.NoneType", "types.NoneType") for q in qualnames):
            return None
        return _guard_value(guard[1], guard[2], False)

    def _positional_args(self, node: nodes.Call, state: FunctionValues) -> List[Value]:
        return positional_values(node, lambda argument: self._eval(argument, state))

    def _qualified_call(self, qualname: str, node, args, kwargs, arg_kind: Kind, state: FunctionValues) -> Value:
        kind = self.resolver.kind(qualname, node.root().file)
        last = qualname.rsplit(".", 1)[-1]
        if kind == resolve.BUILTIN:
            if last == "isinstance" and len(node.args) == 2 and len(args) == 2 and not kwargs:
                known = self._isinstance_known(args[0], node.args[1])
                if known is not None:
                    return Value(Kind.CONST, frozenset({"truthy" if known else "falsy"}))
                guarded = self._isinstance_on_default(args[0], node.args[1])
                if guarded is not None:
                    return guarded
            if last in _CONST_BUILTINS:
                if last == "len":
                    return DYNAMIC_SCALAR if args and args[0].has("dynamic") else SHAPE
                if last == "range" and any(is_graph_value(a) for a in args):
                    # range(len(neg)) of a dynamic-shape tensor: its bounds are known only at run time
                    return DYNAMIC_SCALAR
                return CONST
            if host_result(list(args) + list(kwargs.values())):
                return HOST  # int(arr.sum()), list(x.asnumpy()): Python work on the interpreter's values
            if last in ("min", "max", "sum") and len(node.args) == 1 and not kwargs and \
                    self._shape_numbers(node.args[0], state):
                return CONST  # max([s.shape[0] for s in seqs]): the longest of compile-time ints
            if last in ("int", "float", "bool", "round", "abs", "min", "max", "sum", "pow", "divmod"):
                if _all_variables_have(list(args) + list(kwargs.values()), "opaque"):
                    return OPAQUE  # int(n) of an n nothing is known about
                if arg_kind == Kind.CONST and any(v.has("shape") for v in args):
                    return SHAPE  # int(x.shape[0] / 2), max(h, w)
                return Value(Kind(arg_kind), frozenset({"scalar"}) if arg_kind == Kind.VAR else frozenset())
            if last in ("enumerate", "zip") and args and not kwargs:
                return _pairs(last, args)
            if last in ("tuple", "list", "zip", "enumerate", "reversed", "sorted", "map", "filter"):
                return Value(Kind(arg_kind), _host_tags(list(args) + list(kwargs.values())))
            return Value(Kind(arg_kind))
        if kind == resolve.MINDSPORE:
            return self._mindspore_call(qualname, last, node, args, kwargs, arg_kind, state)
        if kind in (resolve.STDLIB, resolve.THIRD_PARTY):
            array = qualname.startswith("numpy.") and (
                last in _NUMPY_ARRAY_BUILDERS
                or (".random." in qualname and _draws_an_array(last, node))
                or any(v.has("ndarray") for v in list(args) + list(kwargs.values())))
            tags = frozenset({"ndarray"}) if array else frozenset()
            if arg_kind == Kind.VAR:
                # JIT Fallback runs it in the interpreter: what comes back is a Python/NumPy value
                tags = tags | {"host"}
            return Value(Kind(arg_kind) if arg_kind != Kind.UNKNOWN else Kind.UNKNOWN, tags, qualname)
        if kind == resolve.PROJECT:
            definition = self.resolver.definition(qualname, node.root().file)
            if isinstance(definition, nodes.ClassDef):
                return Value(Kind(arg_kind), frozenset({"object"}), qualname, None, definition)
            returned = self._project_return(node, args, kwargs, state)
            if returned is not None:
                return returned
            return _unknown_result(arg_kind)
        return _unknown_result(arg_kind)

    def _mindspore_call(self, qualname, last, node, args, kwargs, arg_kind: Kind,
                        state: Optional[FunctionValues] = None) -> Value:
        if qualname in msn.MUTABLE:
            return Value(Kind.VAR, frozenset({"mutable"}))
        if qualname in msn.PARAMETER_CLASSES:
            return Value(Kind.VAR, frozenset({"tensor", "parameter"}))
        if qualname in msn.TENSOR_CLASSES:
            boolean = state is not None and _bool_tensor_literal(node, state, self._is_bool_dtype)
            return Value(Kind(arg_kind), frozenset({"tensor", "bool"} if boolean else {"tensor"}))
        if msn.is_cell_class_name(qualname):
            if last in ("CellList", "SequentialCell"):
                return Value(Kind.CONST, frozenset({"cell", "cell_list"}), qualname, _listed_cells(node, state))
            return Value(Kind.CONST, frozenset({"cell"}), qualname)
        if last[:1].isupper():  # a primitive or other MindSpore object: calling it later runs the op
            return Value(Kind.CONST, frozenset({"primitive"}), qualname)
        if last in _STATIC_OPS:
            if args and args[0].has("dynamic"):
                return DYNAMIC_SCALAR
            return SHAPE if last in _SHAPE_NAMES else CONST
        if last in _RANDOM_OPS:
            return VAR_TENSOR
        tags = {"tensor"}
        if last in _BOOL_METHODS or (last == "cast" and len(node.args) > 1 and self._is_bool_dtype(node.args[1])):
            tags.add("bool")
        elif last in _LAYOUT_OPS and args and args[0].has("bool"):
            tags.add("bool")
        elif last in _FILLING_OPS and any(self._is_bool_dtype(a) for a in call_arguments(node)):
            tags.add("bool")  # ops.fill(ms.bool_, shape, True), ops.ones(shape, ms.bool_)
        elif state is not None and _boolean_join_or_pick(qualname, last, node, args, state):
            tags.add("bool")  # mint.cat([m, ~m]), mint.where(c, m, True)
        if arg_kind == Kind.VAR and (last in DYNAMIC_SHAPE_OPS or _keeps_dynamic(last, args)):
            tags.add("dynamic")
        return Value(Kind(arg_kind), frozenset(tags))

    def _primitive_call(self, primitive: Value, node, args, arg_kind: Kind) -> Value:
        """Calling a primitive instance (`ops.Greater()(x, y)`, `self.cast(m, ms.bool_)`) runs the op."""
        tags = {"tensor"}
        last = (primitive.cls or "").rsplit(".", 1)[-1]
        if last in ("Shape", "Rank", "DType", "Size"):
            # static in graph mode, like x.shape, unless the input's length depends on the data
            return DYNAMIC_SCALAR if last != "Rank" and args and args[0].has("dynamic") else CONST
        if arg_kind == Kind.VAR and last in DYNAMIC_SHAPE_PRIMITIVES:
            tags.add("dynamic")
        if last in _BOOL_PRIMITIVES or (last == "Cast" and len(node.args) > 1 and self._is_bool_dtype(node.args[1])):
            tags.add("bool")
        return Value(Kind(arg_kind), frozenset(tags))

    def _project_return(self, call, args, kwargs, state: FunctionValues) -> Optional[Value]:
        """The joined return value of a project function or `self` method at this call site."""
        if self._inline_depth >= MAX_INLINE_DEPTH:
            return None
        func = call.func
        target, bound, self_class = None, False, None
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self":
            if state.self_class is not None:
                target = self.classes.lookup_method(state.self_class, func.attrname)
                bound, self_class = True, state.self_class
        elif isinstance(func, (nodes.Name, nodes.Attribute)):
            target = self.resolver.resolve_callable(func)
        return self._return_of(target, args, kwargs, bound, self_class)

    def _return_of(self, target, args, kwargs, bound: bool, self_class) -> Optional[Value]:
        depth = self._inline_depth
        if depth >= MAX_INLINE_DEPTH:
            return None
        if not isinstance(target, nodes.FunctionDef) or target.is_generator():
            return None
        if self.classes.is_constexpr(target):
            return CONST  # run by Python at compile time; its result is a constant
        if bound and is_static_method(target):
            bound = False
        params = _bind_call(target, args, kwargs, bound, self.resolver)
        # the depth is part of the key: what a call returns depends on how much deeper it may look
        # (and, since it grows along a chain of calls, a call can never wait on itself)
        # This analysis answers calls alike in kind and tags alike (the first one's answer), which
        # keeps it fast; the other analyses get only exact answers: the key with every detail.
        key = (depth, target, self_class, tuple(sorted((k, v.kind, v.tags) for k, v in params.items())))
        exact = (self.flavour, depth, target, self_class,
                 tuple(sorted((name, _identity(value)) for name, value in params.items())))
        if key in self._returns:
            answered_for, result = self._returns[key]
            if answered_for != exact or answered_for is None:
                self.impure += 1  # another call's answer, or a cut-short one: depends on what ran first
            return result
        shared = SHARED.returns.get(exact)
        if shared is not None:
            self._returns[key] = (exact, shared)
            return shared
        before = self.impure
        self._inline_depth += 1
        try:
            inner = self.run(target, params, self_class)
        finally:
            self._inline_depth -= 1
        result = join(*inner.returns) if inner.returns else UNKNOWN
        if self.impure == before:
            SHARED.remember(SHARED.returns, exact, result)
            self._returns[key] = (exact, result)
        else:
            self._returns[key] = (None, result)
        return result

    def _method_call(self, name: str, receiver: Value, node, args, kwargs, arg_kind: Kind,
                     state: FunctionValues) -> Value:
        if receiver.has("self"):
            returned = self._project_return(node, args, kwargs, state)
            # not found or not followed: an object passed to __init__, a sub-cell too deep to follow
            return returned if returned is not None else _unknown_result(arg_kind)
        if name in _STATIC_METHODS:
            if receiver.has("dynamic") and name in _SIZE_METHODS:
                return DYNAMIC_SCALAR
            return SHAPE if name in _SHAPE_NAMES else CONST
        if receiver.has("cell") or receiver.has("primitive"):
            return Value(Kind(arg_kind), frozenset({"tensor"}))
        if isinstance(receiver.node, nodes.ClassDef) and not receiver.has("tensor"):
            return self._object_method(name, receiver, args, kwargs, arg_kind)
        if receiver.is_var and not receiver.tags & {"ndarray", "host", "opaque"} and \
                name not in data.tensor_attributes() and name not in _ENTRY_READS:
            # `cache.get_max_cache_shape()`, `sizes.keys()` on an input guessed to be a tensor (`cache=None`):
            # a Tensor has no such method, so the receiver is something else and so is what it returns
            return OPAQUE
        if receiver.has("opaque"):
            # `out.ne(0)`, `feats.sum()`: only a tensor has such a method; anything else stays unknown
            if name not in _TENSOR_METHODS:
                return OPAQUE
            receiver = VAR_TENSOR
        if receiver.has("host"):
            return Value(Kind.VAR, receiver.tags & {"ndarray", "host"} if name != "tolist" else _HOST_TAGS)
        if receiver.is_var or (arg_kind == Kind.VAR and receiver.tags & {"tensor", "parameter"}):
            tags = set(receiver.tags & {"tensor", "ndarray"}) or {"tensor"}
            if name in _BOOL_METHODS:
                tags.add("bool")
            elif name in ("astype", "to", "cast") and node.args and self._is_bool_dtype(node.args[0]):
                tags.add("bool")
            elif name in ("item", "tolist", "asnumpy", "numpy"):
                tags = {"scalar"} if name == "item" else {"ndarray", "host"} if name in ("asnumpy", "numpy") else {"host"}
            elif receiver.has("bool") and name in _LAYOUT_OPS:
                tags.add("bool")
            if "tensor" in tags and (name in DYNAMIC_SHAPE_OPS or _keeps_dynamic(name, [receiver])):
                tags.add("dynamic")
            return Value(Kind.VAR, frozenset(tags))
        if receiver.is_const and arg_kind == Kind.CONST:
            if name in _SCALAR_REDUCTIONS and not node.args and not node.keywords:
                return CONST  # arr.sum(): a NumPy scalar, which graph code takes as a Python number
            return Value(Kind.CONST, receiver.tags & {"ndarray"})
        return _unknown_result(arg_kind)  # a method of an object the analysis does not know

    def _object_method(self, name: str, receiver: Value, args, kwargs, arg_kind: Kind) -> Value:
        """A method of a project object (a helper object stored on self, a sub-cell): its return value."""
        method = self.classes.lookup_method(receiver.node, name)
        returned = self._return_of(method, args, kwargs, True, receiver.node) if method is not None else None
        return returned if returned is not None else _unknown_result(Kind(max(arg_kind, receiver.kind)))

    def _is_bool_dtype(self, node) -> bool:
        if node is None or node is False or node == []:
            return False
        return self.resolver.qualname(node) in _BOOL_DTYPES


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
            args.extend([Interpreter._iteration_value(spread)] * (_SPREAD_GUESS if last else 1))
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
    if isinstance(default, nodes.Const):  # `past_key_values=None`: a tensor, or None when left out
        return VAR_TENSOR.with_tags(f"{_NONE_DEFAULT_TAG}{name}")
    return VAR_TENSOR


def _pairs(builtin: str, args) -> Value:
    """enumerate(xs) / zip(xs, ys): an iterable whose steps are tuples, (index, x) or (x, y).
    A loop over it is unrolled by the graph compiler, so enumerate's index is a compile-time
    int on every step, whatever xs holds."""
    steps = [Interpreter._iteration_value(a) for a in args]
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
