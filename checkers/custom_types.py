"""MS2xx: user-defined classes (plain classes, namedtuples, dataclasses, @jit_class) in graph scope.

MindSpore 2.10 reads custom objects fine in graph code (an object built in `__init__`,
its attributes and methods), but it cannot make one out of graph tensors, hand one back
to the caller, or keep a change to one: those run through JIT Fallback, once, at compile
time, or fail.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Set, Tuple

from astroid import nodes

from mslint.project import mindspore_names as msn
from mslint.project import resolve
from mslint.config import enabled_rules
from mslint.analysis.context import ModuleContext
from mslint.findings import Finding, shown
from mslint.messages import capitalized, compose, quoted, snippet
from mslint.analysis.lattice import is_self_attribute
from mslint.rules import Rule, implements
from mslint.analysis.scope import GraphFunction, local_bindings

OBJECT_FROM_TENSORS = Rule(
    "MS201", "custom-object-created-from-tensors", "error",
    "An instance of a user class (plain class, namedtuple, dataclass) is created in graph code from tensors.",
    "Do not build user-defined types in the graph: pass the tensors as a tuple, list or dict (or as more "
    "function parameters), or build the object in __init__ and hand the tensors to its methods.",
)
JIT_CLASS_FROM_TENSORS = Rule(
    "MS202", "jit-class-created-from-tensors", "error",
    "A @jit_class instance is created in graph code from tensors; its arguments must be constants.",
    "Create the @jit_class instance in __init__ (or from constants) and pass the tensors to its methods.",
)
OBJECT_RETURNED = Rule(
    "MS203", "custom-object-returned-from-graph", "error",
    "A graph function returns an instance of a user class to its Python caller.",
    "Return tensors, or tuples, lists or dicts of them, and rebuild the object outside the compiled code.",
)
OBJECT_MUTATED = Rule(
    "MS204", "custom-object-mutated-in-graph", "error",
    "Graph code assigns an attribute of a user-class object (not a Cell, not a @jit_class instance).",
    "Keep state that changes in a Parameter updated with ops.assign, or return the new value and update the "
    "object outside the compiled code.",
)
CONTAINER_ATTRIBUTE_CHANGED = Rule(
    "MS205", "cell-container-attribute-changed", "warning",
    "Graph code changes a list or dict stored on the Cell; MindSpore does not keep the change (or, under STRICT, fails).",
    "Return the values instead of collecting them on the Cell, or keep running state in a Parameter updated "
    "with ops.assign; build lists locally inside construct.",
)
SET_RETURNED = Rule(
    "MS206", "set-returned-from-graph", "error",
    "STRICT graph code returns a set to its Python caller, which fails to compile.",
    "Return a tuple or a list (`tuple(sorted(s))`), or build the set outside the compiled code.",
)
DICT_RETURNED_STRICT = Rule(
    "MS207", "dict-returned-from-strict-graph", "warning",
    "A STRICT Cell or `@jit(fullgraph=True)` function returns a dict; the caller silently receives a tuple.",
    "Return a tuple (or a namedtuple built outside the graph) and name its fields where it is read, or compile "
    "at the LAX level.",
)
RULES = (OBJECT_FROM_TENSORS, JIT_CLASS_FROM_TENSORS, OBJECT_RETURNED, OBJECT_MUTATED, CONTAINER_ATTRIBUTE_CHANGED,
         SET_RETURNED, DICT_RETURNED_STRICT)

_TUPLE_BASES = frozenset({"builtins.tuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})
_NOT_CUSTOM_BASES = ("enum.", "builtins.BaseException", "builtins.Exception")


# -- what counts as a user class -----------------------------------------------------
def _base_names(ctx: ModuleContext, cls: nodes.ClassDef) -> List[str]:
    """Qualified names of the classes in cls's hierarchy and of the bases outside the project."""
    mro = ctx.classes.mro(cls)
    return [k.qname() for k in mro] + [b for k in mro for b in ctx.classes.base_entries(k) if isinstance(b, str)]


def _outside_project(cls: nodes.ClassDef) -> bool:
    """builtins.dict, a standard-library class: not something the user defined."""
    return resolve.kind_of_top_level(cls.root().name.split(".")[0]) != resolve.UNKNOWN


def _is_exception(cls: nodes.ClassDef) -> bool:
    try:
        return cls.is_subtype_of("builtins.BaseException")
    except Exception:  # an ancestor astroid cannot infer: not known to be an exception
        return False


def custom_class(ctx: ModuleContext, cls) -> bool:
    """A class of the user's project (or a namedtuple made in it) that MindSpore treats as a Python object:
    not a Cell or any other MindSpore subclass, not an exception, not an Enum."""
    if not isinstance(cls, nodes.ClassDef) or _outside_project(cls) or ctx.classes.is_cell(cls):
        return False
    bases = _base_names(ctx, cls)
    if any(msn.is_mindspore(b) or b.startswith(_NOT_CUSTOM_BASES) for b in bases):
        return False
    return not _is_exception(cls)


def _is_tuple_class(ctx: ModuleContext, cls: nodes.ClassDef) -> bool:
    return any(b in _TUPLE_BASES for b in _base_names(ctx, cls))


def describe(ctx: ModuleContext, cls: nodes.ClassDef) -> str:
    """"namedtuple 'Point'", "dataclass 'Box'", "@jit_class 'Scaler'" or "class 'Acc'"."""
    if ctx.classes.is_jit_class(cls):
        kind = "@jit_class"
    elif _is_tuple_class(ctx, cls):
        kind = "namedtuple"
    elif any(ctx.classes.decorator_qualname(d) in ("dataclasses.dataclass", "attr.s", "attrs.define")
             for k in ctx.classes.mro(cls) for d in ctx.classes.decorators(k)):
        kind = "dataclass"
    else:
        kind = "class"
    return f"{kind} '{cls.name}'"


# -- MS201 / MS202 -------------------------------------------------------------------
def _first_variable_argument(ctx: ModuleContext, call: nodes.Call, gf) -> Optional[Tuple[Optional[int], str]]:
    """(positional index or None, its source) of the first argument that is a graph value."""
    for index, argument in enumerate(call.args):
        if ctx.value(argument, gf).is_var:
            return (None if isinstance(argument, nodes.Starred) else index), argument.as_string()
    for keyword in call.keywords or ():
        if ctx.value(keyword.value, gf).is_var:
            return None, keyword.value.as_string()
    return None


def _short(text: str, limit: int = 40) -> str:
    return shown(text, limit)


def _custom_calls(ctx: ModuleContext) -> List[Tuple[nodes.Call, GraphFunction, nodes.ClassDef]]:
    """(call, graph function, class) for every call in graph code that builds a user-class object."""
    cached = ctx.memo.get("ms2.custom_calls")
    if cached is None:
        cached = []
        for call, gf in ctx.graph_nodes(nodes.Call):
            cls = ctx.resolver.resolve_callable(call.func)
            if custom_class(ctx, cls):
                cached.append((call, gf, cls))
        ctx.memo["ms2.custom_calls"] = cached
    return cached


def _creations(ctx: ModuleContext):
    """(call, graph function, class, first variable argument) for custom objects built from graph values."""
    cached = ctx.memo.get("ms2.creations")
    if cached is None:
        cached = []
        for call, gf, cls in _custom_calls(ctx):
            variable = _first_variable_argument(ctx, call, gf)
            if variable is not None:
                cached.append((call, gf, cls, variable))
        ctx.memo["ms2.creations"] = cached
    return cached


@implements(OBJECT_FROM_TENSORS)
def check_object_from_tensors(ctx: ModuleContext) -> Iterator[Finding]:
    returned = _returned_creations(ctx)
    for call, gf, cls, (_, argument) in _creations(ctx):
        if ctx.classes.is_jit_class(cls) or call in returned:
            continue  # an object built to be returned: one problem, MS203's finding
        yield ctx.finding(
            OBJECT_FROM_TENSORS, call,
            compose(_built_from(ctx, cls, argument),
                    "STRICT fails (ValueError: When handling script '__call_func_str__(...) in graph mode', the inputs "
                    "should be constant, but found variable ...)",
                    "LAX builds the object in the Python interpreter, and the gradient through it is zero",
                    "Use a tuple or dict of tensors instead of the dataclass" if describe(ctx, cls).startswith(
                        "dataclass") else "Use a tuple or dict of tensors, or build the object in __init__ and hand "
                                          "it the tensors through its methods"),
            gf,
        )


def _built_from(ctx: ModuleContext, cls: nodes.ClassDef, argument: str) -> str:
    """The problem of MS201 and MS202: "Dataclass 'Box' is built in graph code from 'x * 2', a value
    only known at run time"."""
    return f"{capitalized(describe(ctx, cls))} is built in graph code from {snippet(argument)}, a value only known " \
           "at run time"


@implements(JIT_CLASS_FROM_TENSORS)
def check_jit_class_from_tensors(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, cls, (index, argument) in _creations(ctx):
        if not ctx.classes.is_jit_class(cls):
            continue
        which = f"input {index}" if index is not None else f"'{_short(argument)}'"
        yield ctx.finding(
            JIT_CLASS_FROM_TENSORS, call,
            compose(_built_from(ctx, cls, argument),
                    f"It fails at every syntax level (TypeError: When creating an instance of '{cls.name}', all "
                    f"arguments are required to be constants, but {which} is a variable)",
                    "Create it in __init__ and pass tensors to its methods"),
            gf,
        )


# -- MS203 ---------------------------------------------------------------------------
def _returned_objects(ctx: ModuleContext) -> List[Tuple[nodes.NodeNG, GraphFunction, nodes.ClassDef]]:
    """(returned expression, graph root, class) for every user object a graph root returns."""
    cached = ctx.memo.get("ms2.returned")
    if cached is None:
        cached = []
        for ret, gf in ctx.graph_nodes(nodes.Return):
            if not gf.is_root or ret.value is None or ret.scope() is not gf.node:
                continue
            value = ctx.value(ret.value, gf)
            parts = [(ret.value, value)]
            if isinstance(ret.value, nodes.Tuple) and value.elements and len(value.elements) == len(ret.value.elts):
                parts = list(zip(ret.value.elts, value.elements))
            for node, part in parts:
                cls = part.node
                # a namedtuple of constants comes back as itself; one of tensors is MS201's finding
                if custom_class(ctx, cls) and not ctx.classes.is_jit_class(cls) and not _is_tuple_class(ctx, cls):
                    cached.append((node, gf, cls))
        ctx.memo["ms2.returned"] = cached
    return cached


def _returned_creations(ctx: ModuleContext) -> Set[nodes.Call]:
    """The calls that build the objects MS203 reports: `return Out(x)`, `out = Out(x)` ... `return out`, or
    the same in a helper whose result the root returns (none when MS203 is not selected: then MS201 is the
    only finding there is)."""
    calls: Set[nodes.Call] = set()
    if not enabled_rules(ctx.config, ctx.path).get(OBJECT_RETURNED.code):
        return calls
    for node, gf, _ in _returned_objects(ctx):
        calls |= _building_calls(ctx, node, gf.node, gf.self_class)
    return calls


_RETURN_DEPTH = 4  # helpers followed from a root's return to the call that builds the object


def _building_calls(ctx: ModuleContext, expr, function, self_class, depth: int = 0) -> Set[nodes.Call]:
    """The calls that build the user object `function` returns as `expr`: `Out(x)` itself, the call a local
    name is bound to, or, when that call is to a project helper (`self.head(x)`, `make_output(x)`), the
    calls that build what the helper returns."""
    found: Set[nodes.Call] = set()
    for call in _calls_behind(expr, function):
        target, target_class = _callee(ctx, call, self_class)
        if custom_class(ctx, target):
            found.add(call)
        elif isinstance(target, nodes.FunctionDef) and depth < _RETURN_DEPTH:
            for ret in target.nodes_of_class(nodes.Return):
                if ret.value is not None and ret.scope() is target:
                    found |= _building_calls(ctx, ret.value, target, target_class, depth + 1)
    return found


def _calls_behind(expr, function) -> List[nodes.Call]:
    """`Out(x)` itself, or the calls a local name is bound to (`out = Out(x)`)."""
    if isinstance(expr, nodes.Call):
        return [expr]
    return [binding.parent.value for binding in local_bindings(expr, function)
            if isinstance(binding.parent, nodes.Assign) and isinstance(binding.parent.value, nodes.Call)]


def _callee(ctx: ModuleContext, call: nodes.Call, self_class):
    """(the class or project function a call names, the class `self` is in it): `self.head(x)` is a method of
    the caller's class."""
    func = call.func
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self" \
            and self_class is not None:
        return ctx.classes.lookup_method(self_class, func.attrname), self_class
    return ctx.resolver.resolve_callable(func), None


# What STRICT raises (2.10, docs/rules/MS203.md): building the object from graph values fails
# first; an object of constants gets as far as the graph's output.
_STRICT_BUILT_FROM_GRAPH_VALUES = ("ValueError: When handling script '...' in graph mode, the inputs should be "
                                   "constant, but found variable '...' to be nonconstant")
_STRICT_ILLEGAL_TYPE = "RuntimeError: Illegal type in the graph: AbstractScalar(Type: External, Value: PythonObject(...))"


def _built_from_graph_values(ctx: ModuleContext, node, gf) -> bool:
    return any(_first_variable_argument(ctx, call, gf) is not None for call in _calls_behind(node, gf.node))


@implements(OBJECT_RETURNED)
def check_object_returned(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf, cls in _returned_objects(ctx):
        strict = _STRICT_BUILT_FROM_GRAPH_VALUES if _built_from_graph_values(ctx, node, gf) else _STRICT_ILLEGAL_TYPE
        yield ctx.finding(
            OBJECT_RETURNED, node,
            compose(f"{gf.node.name} returns a {describe(ctx, cls)} object from the graph",
                    f"{gf.display} returns {quoted(node)}", f"STRICT fails ({strict})",
                    "LAX hands the Python object back through JIT Fallback, which STRICT and MindIR export do not "
                    "support", "Return tensors or a tuple or dict of them"),
            gf,
        )


# -- MS204 ---------------------------------------------------------------------------
def _attribute_targets(statement) -> Iterator[nodes.AssignAttr]:
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    stack = list(targets)
    while stack:
        target = stack.pop()
        if isinstance(target, nodes.AssignAttr):
            yield target
        elif isinstance(target, (nodes.Tuple, nodes.List)):
            stack.extend(target.elts)
        elif isinstance(target, nodes.Starred):
            stack.append(target.value)


def _is_self(node, gf: GraphFunction) -> bool:
    return isinstance(node, nodes.Name) and node.name == "self" and gf.self_class is not None


def _made_here(node, gf: GraphFunction) -> bool:
    """A local name bound only to calls in this graph function: an object built during this graph call."""
    assigns = local_bindings(node, gf.node)
    return bool(assigns) and all(isinstance(a, nodes.AssignName) and isinstance(a.parent, nodes.Assign)
                                 and isinstance(a.parent.value, nodes.Call) for a in assigns)


def _mutable_custom(ctx: ModuleContext, cls) -> bool:
    return custom_class(ctx, cls) and not ctx.classes.is_jit_class(cls) and not _is_tuple_class(ctx, cls)


def _mutation_message(ctx: ModuleContext, owner, attribute: str, spelled: str, gf: GraphFunction) -> Optional[str]:
    """What happens when graph code sets `attribute` on `owner` (an expression), or None if nothing bad."""
    if _is_self(owner, gf):
        # a method of a plain object reached from graph code, changing its own state
        if not gf.strict or not _mutable_custom(ctx, gf.self_class):
            return None  # LAX runs such a method in the interpreter on every call
        return compose(f"{snippet(spelled)} changes an attribute of the {describe(ctx, gf.self_class)} in graph code",
                       "STRICT rejects it (TypeError: In JIT strict mode, if need to modify a member attribute of a "
                       f"class with self.{attribute}, the member attribute must be of the Parameter type)")
    cls = ctx.value(owner, gf).node
    if not _mutable_custom(ctx, cls):
        return None
    if _made_here(owner, gf):
        if not gf.strict:
            return None  # a throw-away object built and changed at compile time: consistent in LAX
        return compose(f"{snippet(spelled)} changes an attribute of an instance of {describe(ctx, cls)} in graph code",
                       "STRICT fails as soon as the attribute is used (ValueError: When handling script '... in "
                       "graph mode', the inputs should be constant, but found variable ...)")
    return compose(f"{snippet(spelled)} changes an attribute of an instance of {describe(ctx, cls)} in graph code",
                   "The assignment runs once, while the graph is compiled, so after later calls the attribute still "
                   "holds the first call's value",
                   "STRICT also fails when it is read back (ValueError: ... the inputs should be constant, but found "
                   "variable)")


# A plain object built in graph code and changed by its own methods, such as a Hugging Face KV
# cache (`past_key_values = DynamicCache()`, then `update` in every layer). MindSpore 2.10 under
# LAX does not carry such a change to the object's next use: a second `update` does not see the
# first (through a sub-cell the result is silently wrong; called directly, AttributeError), and
# reading it back fails. One use is fine (`return Cache().update(x)`). Checked on MindSpore by
# tests/test_objects_changed_in_graph.py. (STRICT reports the change itself, in the method, above.)
_CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                                 "popitem", "add", "discard", "sort", "reverse"})


def _own_change(method: nodes.FunctionDef) -> Optional[str]:
    """How a method changes its object (`self.keys = ...`, `self.layers.append(...)`), if it does."""
    for node in method.nodes_of_class((nodes.AssignAttr, nodes.Subscript, nodes.Call)):
        if isinstance(node, nodes.AssignAttr) and isinstance(node.expr, nodes.Name) and node.expr.name == "self":
            return f"self.{node.attrname} = ..."
        if isinstance(node, nodes.Subscript) and isinstance(node.parent, nodes.Assign) and node in node.parent.targets \
                and is_self_attribute(node.value):
            return f"{node.value.as_string()}[...] = ..."
        if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                and node.func.attrname in _CONTAINER_MUTATORS and is_self_attribute(node.func.expr):
            return f"{node.func.expr.as_string()}.{node.func.attrname}(...)"
    return None


def _changing_methods(ctx: ModuleContext, cls: nodes.ClassDef) -> dict:
    """Method name -> how it changes the object, over the class's hierarchy (first definition wins)."""
    memo = ctx.memo.setdefault("ms204.changing", {})
    if cls not in memo:
        found: dict = {}
        seen: Set[str] = set()
        for klass in ctx.classes.mro(cls):
            for method in klass.mymethods():
                if method.name in seen or (method.name.startswith("__") and method.name.endswith("__")):
                    continue  # (__init__ builds the object; an override hides its base's method)
                seen.add(method.name)
                change = _own_change(method)
                if change:
                    found[method.name] = change
        memo[cls] = found
    return memo[cls]


def _in_loop_without(node, outer, creation) -> bool:
    """Whether `node` sits in a loop of `outer` that does not also hold `creation` (it runs again)."""
    current = node.parent
    while current is not None and current is not outer:
        if isinstance(current, (nodes.For, nodes.While, nodes.Comprehension)) and \
                not any(ancestor is current for ancestor in creation.node_ancestors()):
            return True
        current = current.parent
    return False


def _changed_then_used(ctx: ModuleContext, call: nodes.Call, gf: GraphFunction, changing: dict):
    """(the use that may change the object, the next use) when graph code builds the object into
    a local name, changes it or hands it to a call, and uses it again (later, or in a loop: then
    the next use is the same one); None otherwise.  Of several, the likeliest change: a changing
    method called on it, then a call in a loop, a local callable first (`decoder_layer(h,
    past_key_values=cache)` rather than a `self._checkpointing(...)` branch), then other calls.
    A helper's `return` of it is not a use: its caller may drop it."""
    statement = call.parent
    if not (isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)):
        return None
    name = statement.targets[0].name
    after = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
    uses = sorted((n for n in gf.node.nodes_of_class(nodes.Name)
                   if n.name == name and (n.lineno, n.col_offset) > after
                   and (gf.is_root or not isinstance(n.statement(), nodes.Return))),
                  key=lambda n: (n.lineno, n.col_offset))
    found = []
    for index, use in enumerate(uses):
        parent = use.parent
        in_loop = _in_loop_without(use, gf.node, statement)
        if isinstance(parent, nodes.Attribute) and parent.expr is use and parent.attrname in changing \
                and isinstance(parent.parent, nodes.Call) and parent.parent.func is parent:
            change, rank = parent.parent, 0  # cache.update(k)
        elif isinstance(parent, nodes.Call) and use in parent.args or \
                isinstance(parent, nodes.Keyword) and isinstance(parent.parent, nodes.Call):
            change = parent if isinstance(parent, nodes.Call) else parent.parent  # self.attn(x, cache)
            if ctx.resolver.kind(ctx.call_qualname(change, gf) or "", change.root().file) == resolve.BUILTIN:
                continue  # isinstance(cache, ...), len(cache): reads it
            rank = (1 if in_loop else 3) + (0 if isinstance(change.func, nodes.Name) else 1)
        else:
            continue
        if in_loop:
            found.append((rank, index, change, use))
        elif index + 1 < len(uses):
            found.append((rank, index, change, uses[index + 1]))
    if not found:
        return None
    _, _, change, again = min(found, key=lambda item: item[:2])
    return change, again


def _rebuilt_per_use(ctx: ModuleContext, call: nodes.Call, gf: GraphFunction, cls) -> Optional[str]:
    if gf.strict or not _mutable_custom(ctx, cls):
        return None
    changing = _changing_methods(ctx, cls)
    if not changing:
        return None
    found = _changed_then_used(ctx, call, gf, changing)
    if found is None:
        return None
    change, again = found
    called = change.func.attrname if isinstance(change.func, nodes.Attribute) and change.func.attrname in changing \
        and isinstance(change.func.expr, nodes.Name) and change.func.expr.name == call.parent.targets[0].name else None
    in_loop = any(ancestor is change for ancestor in again.node_ancestors())
    again_text = "in a loop" if in_loop else f"at line {again.lineno}"
    built = capitalized(describe(ctx, cls))
    if called:  # the method it calls, and what that method changes
        problem = f"{built}, built in graph code, is changed by its {called}() and used again {again_text}"
        how = f"{quoted(call)} builds it; {quoted(change)} changes it ({changing[called]})"
    else:  # handed on: which method the callee uses is not followed
        names = sorted(changing, key=lambda method: (method != "update", method))[:3]
        problem = f"{built}, built in graph code, is handed to a call that may change it and used again {again_text}"
        how = (f"{quoted(call)} builds it; its methods change it "
               f"({', '.join(f'{method}()' for method in names)}); it is passed to {quoted(change)}")
    return compose(problem, how,
                   "Under LAX, MindSpore does not carry the object's changes to its later uses (a wrong result, an "
                   "error such as AttributeError, or an object handed back empty or stale), and STRICT rejects the "
                   "change (TypeError: ... the member attribute must be of the Parameter type)",
                   "Keep the state in tensors that each call takes and returns, or build the object outside the "
                   "compiled code")


@implements(OBJECT_MUTATED)
def check_object_mutated(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf, cls in _custom_calls(ctx):
        message = _rebuilt_per_use(ctx, call, gf, cls)
        if message:
            yield ctx.finding(OBJECT_MUTATED, call, message, gf)
    for statement, gf in ctx.graph_nodes(nodes.Assign, nodes.AugAssign, nodes.AnnAssign):
        for target in _attribute_targets(statement):
            spelled = target.as_string() + (f" {statement.op}" if isinstance(statement, nodes.AugAssign)
                                                         else " =") + " ..."
            message = _mutation_message(ctx, target.expr, target.attrname, spelled, gf)
            if message:
                yield ctx.finding(OBJECT_MUTATED, target, message, gf)
    for call, gf in ctx.graph_nodes(nodes.Call):
        if ctx.call_qualname(call, gf) != "builtins.setattr" or len(call.args) < 2:
            continue
        name = call.args[1]
        attribute = name.value if isinstance(name, nodes.Const) and isinstance(name.value, str) else "..."
        message = _mutation_message(ctx, call.args[0], attribute, call.as_string(), gf)
        if message:
            yield ctx.finding(OBJECT_MUTATED, call, message, gf)


# -- MS205 ---------------------------------------------------------------------------
# What MindSpore 2.10 does with each change to a list or dict that __init__ stored on a Cell, after the
# graph ran (both levels checked): "lost" = the attribute is unchanged, "kept" = it changed.
_LOST = "lost"
_KEPT = "kept"
_STRICT_SUBSCRIPT = ("TypeError: When JIT_SYNTAX_LEVEL is not set to LAX self.{name} should be initialized as a "
                     "'Parameter' in the '__init__' function to perform assign subscript")
_STRICT_NO_METHOD = "AttributeError: In JIT strict mode, cannot get attributes {method}"
# method -> (LAX, STRICT)
_LIST_METHODS = {
    "append": (_LOST, _LOST), "clear": (_LOST, _LOST), "reverse": (_LOST, _LOST),
    "remove": (_LOST, _STRICT_NO_METHOD), "extend": (_KEPT, _LOST), "insert": (_KEPT, _LOST), "pop": (_KEPT, _LOST),
}
_DICT_METHODS = {
    "update": (_LOST, _LOST), "clear": (_LOST, _LOST),
    "pop": (_LOST, _STRICT_NO_METHOD), "setdefault": (_LOST, _STRICT_NO_METHOD),
}
_LIST_BUILDERS = frozenset({"builtins.list"})
_DICT_BUILDERS = frozenset({"builtins.dict", "collections.OrderedDict", "collections.defaultdict"})


def _container_kind(ctx: ModuleContext, value) -> Optional[str]:
    if isinstance(value, (nodes.List, nodes.ListComp)):
        return "list"
    if isinstance(value, (nodes.Dict, nodes.DictComp)):
        return "dict"
    if isinstance(value, nodes.Call):
        qualname = ctx.qualname(value.func)
        if qualname in _LIST_BUILDERS:
            return "list"
        if qualname in _DICT_BUILDERS:
            return "dict"
    return None


def _stored_container(ctx: ModuleContext, cls: nodes.ClassDef, name: str) -> Optional[str]:
    """'list' or 'dict' when every store of `self.name` in the class hierarchy is in a method graph code does
    not run (__init__, setup) and puts a list (dict) there."""
    in_graph = ctx.memo.get("ms205.in_graph")
    if in_graph is None:
        in_graph = ctx.memo["ms205.in_graph"] = {gf.node for gf in ctx.graph_functions()}
    kinds = set()
    for klass in ctx.classes.mro(cls):
        for method in klass.mymethods():
            for target in ctx.classes.attribute_stores(method):
                if target.attrname != name or not isinstance(target.expr, nodes.Name) or target.expr.name != "self":
                    continue
                if method in in_graph:
                    return None  # set in graph code too: MS710's
                assign = target.parent
                value = assign.value if isinstance(assign, (nodes.Assign, nodes.AnnAssign)) else None
                kinds.add(_container_kind(ctx, value) if value is not None else None)
    return kinds.pop() if len(kinds) == 1 else None


def _cell_attribute(ctx: ModuleContext, expr, gf: GraphFunction) -> Optional[Tuple[str, str]]:
    """(attribute name, 'list' | 'dict') when `expr` is `self.name` (or a local bound only to it) of a Cell
    whose __init__ stored a list or dict there."""
    if isinstance(expr, nodes.Name):
        bindings = local_bindings(expr, gf.node)
        if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Assign):
            return None
        expr = bindings[0].parent.value
    cls = gf.self_class
    if not (isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self"
            and cls is not None and ctx.classes.is_cell(cls)):
        return None
    kind = _stored_container(ctx, cls, expr.attrname)
    return (expr.attrname, kind) if kind else None


def _outcome_text(outcome: str, name: str, method: str, kind: str) -> str:
    if outcome == _LOST:
        return f"the {kind} is unchanged after the call"
    if outcome == _KEPT:
        return f"the {kind} changes"
    return outcome.format(name=name, method=method)


def _container_changes(ctx: ModuleContext):
    """(node, gf, attribute, kind, what, LAX outcome, STRICT outcome) for each change graph code makes."""
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute):
            continue
        found = _cell_attribute(ctx, func.expr, gf)
        if found is None:
            continue
        name, kind = found
        table = _LIST_METHODS if kind == "list" else _DICT_METHODS
        if func.attrname in table:
            lax, strict = table[func.attrname]
            yield call, gf, name, kind, f"'.{func.attrname}()'", lax, strict
    for statement, gf in ctx.graph_nodes(nodes.Assign, nodes.AugAssign):
        targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
        for target in targets:
            if not isinstance(target, nodes.Subscript):
                continue
            found = _cell_attribute(ctx, target.value, gf)
            if found is None:
                continue
            name, kind = found
            # 2.10 LAX keeps a dict item store (`self.d["k"] = x`, a constant or a tensor, a new key or not) and
            # drops every list item store (tests/test_mindspore_syntax_suite.py); STRICT rejects both
            lax = _LOST if kind == "list" else _KEPT
            yield target, gf, name, kind, "an item assignment", lax, _STRICT_SUBSCRIPT


@implements(CONTAINER_ATTRIBUTE_CHANGED)
def check_container_attribute_changed(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf, name, kind, what, lax, strict in _container_changes(ctx):
        outcome = strict if gf.strict else lax
        if outcome == _KEPT:
            continue
        method = what.strip("'.()")
        happens = _outcome_text(outcome, name, method, kind)
        if gf.strict:
            detail = f"STRICT: {happens}"
        else:
            detail = f"LAX: {happens}; STRICT: {_outcome_text(strict, name, method, kind)}"
        yield ctx.finding(
            CONTAINER_ATTRIBUTE_CHANGED, node,
            compose(f"{capitalized(what)} changes the {kind} 'self.{name}' in graph code; "
                    f"{'the change is not kept' if outcome == _LOST else 'STRICT refuses it'}",
                    f"MindSpore 2.10, {detail}", "Return the values, or keep state in a Parameter"), gf)


# -- MS206 / MS207 -------------------------------------------------------------------
_SET_BUILDERS = frozenset({"builtins.set", "builtins.frozenset"})


def _returned_parts(ret: nodes.Return, function):
    """The returned expression, its tuple elements, and what a local returned name was bound to."""
    stack = [ret.value]
    while stack:
        expr = stack.pop()
        if isinstance(expr, nodes.Tuple):
            stack.extend(expr.elts)
            continue
        bindings = local_bindings(expr, function) if isinstance(expr, nodes.Name) else []
        if len(bindings) == 1 and isinstance(bindings[0].parent, nodes.Assign) and \
                bindings[0] in bindings[0].parent.targets:
            yield expr, bindings[0].parent.value
        else:
            yield expr, expr


def _strict_root_returns(ctx: ModuleContext):
    for ret, gf in ctx.graph_nodes(nodes.Return):
        if gf.is_root and gf.strict and ret.value is not None and ret.scope() is gf.node:
            for shown_expr, value in _returned_parts(ret, gf.node):
                yield ret, gf, shown_expr, value


@implements(SET_RETURNED)
def check_set_returned(ctx: ModuleContext) -> Iterator[Finding]:
    for _, gf, shown_expr, value in _strict_root_returns(ctx):
        if isinstance(value, nodes.Call) and ctx.qualname(value.func) in _SET_BUILDERS:
            kind = ctx.qualname(value.func).rsplit(".", 1)[1]
            yield ctx.finding(
                SET_RETURNED, shown_expr,
                compose(f"{gf.display} returns a {kind}, which STRICT graph code cannot hand back",
                        f"The returned value is {quoted(shown_expr)}",
                        f"MindSpore 2.10, STRICT: RuntimeError: Illegal type in the graph: ... <class '{kind}'> "
                        "(LAX returns it)", "Return a tuple"), gf)


@implements(DICT_RETURNED_STRICT)
def check_dict_returned_strict(ctx: ModuleContext) -> Iterator[Finding]:
    for _, gf, shown_expr, value in _strict_root_returns(ctx):
        if isinstance(value, (nodes.Dict, nodes.DictComp)):
            yield ctx.finding(
                DICT_RETURNED_STRICT, shown_expr,
                compose(f"{gf.display} returns a dict, and under STRICT the caller gets a tuple of its values instead",
                        f"The returned value is {quoted(shown_expr)}",
                        "MindSpore 2.10: a Cell compiled STRICT and a @jit(fullgraph=True) function hand back a tuple "
                        "(LAX keeps the dict)", "Return a tuple and unpack it by position"), gf)
