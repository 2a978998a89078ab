"""The interpreter's calls: what a call returns over the lattice (MindSpore ops and primitives,
NumPy and the standard library, builtins, methods of tensors and of project objects, and the
return values of project functions, followed a bounded depth and shared between analyses).
A mixin of `interpreter.Interpreter`."""
from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from mslint import data
from mslint.project import mindspore_names as msn
from mslint.project import resolve
from mslint.project.classes import call_arguments, is_static_method
from mslint.analysis.lattice import (CONST, DYNAMIC_SCALAR, DYNAMIC_SHAPE_OPS, DYNAMIC_SHAPE_PRIMITIVES,
                                     FunctionValues, HOST, Kind, MAX_INLINE_DEPTH, OPAQUE, PRIMITIVE_SETTERS, SHAPE,
                                     SHARED, UNKNOWN, VAR_TENSOR, Value, _BOOL_DTYPES, _BOOL_METHODS, _BOOL_PRIMITIVES,
                                     _CONST_BUILTINS, _ENTRY_READS, _FILLING_METHODS, _FILLING_OPS, _HOST_TAGS,
                                     _LAYOUT_OPS, _NUMPY_ARRAY_BUILDERS, _NUMPY_ARRAY_CLASSES, _OPAQUE_TAGS,
                                     _RANDOM_OPS, _SCALAR_REDUCTIONS, _SHAPE_NAMES, _SIZE_METHODS, _STATIC_METHODS,
                                     _STATIC_OPS, _TENSOR_METHODS, _all_variables_have, _bind_call,
                                     _bool_tensor_literal, _boolean_join_or_pick, _default_guard, _draws_an_array,
                                     _guard_value, _guessed_tensor, _host_tags, _keeps_dynamic,
                                     _listed_cells, _none_default, _pairs, _unknown_result, host_result,
                                     is_graph_value, join, join_args, params_identity, positional_values)


class CallInterpreter:
    """Evaluates calls."""

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
                    if args and args[0].is_var and args[0].has("host"):
                        return HOST  # len(pos.tolist()): counted at run time, by the interpreter
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
            self._follows += 1  # (cut without looking: counted as a call that depth decides)
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
            self._follows += 1
            return None
        if not isinstance(target, nodes.FunctionDef) or target.is_generator():
            return None
        if self.classes.is_constexpr(target):
            return CONST  # run by Python at compile time; its result is a constant
        self._follows += 1  # what this call returns depends on the depth it is followed at
        if bound and is_static_method(target):
            bound = False
        params = _bind_call(target, args, kwargs, bound, self.resolver)
        # the depth is part of the key: what a call returns depends on how much deeper it may look
        # (and, since it grows along a chain of calls, a call can never wait on itself)
        # This analysis answers calls alike in kind and tags alike (the first one's answer), which
        # keeps it fast; the other analyses get only exact answers: the key with every detail.
        key = (depth, target, self_class, tuple(sorted((k, v.kind, v.tags) for k, v in params.items())))
        exact = (self.flavour, depth, target, self_class, params_identity(params))
        # A run that followed no call (nor had one cut) returns the same at any depth: its
        # answer is kept under a key without the depth too (exact keys compared without it).
        leaf_key = key[1:]
        if key not in self._returns and leaf_key in self._leaf_returns:
            answered_for, result = self._leaf_returns[leaf_key]
            self._answered(self._returns, key, (answered_for and answered_for[:1] + (depth,) + answered_for[2:], result))
        if key in self._returns:
            answered_for, result = self._returns[key]
            if answered_for != exact or answered_for is None:
                self.impure += 1  # another call's answer, or a cut-short one: depends on what ran first
            return result
        shared = SHARED.recall(SHARED.returns, exact)
        if shared is not None:
            self._answered(self._returns, key, (exact, shared))
            return shared
        before, follows = self.impure, self._follows
        self._inline_depth += 1
        try:
            inner = self.run(target, params, self_class)
        finally:
            self._inline_depth -= 1
        result = join(*inner.returns) if inner.returns else UNKNOWN
        if self.impure == before:
            SHARED.remember(SHARED.returns, exact, result)
            self._answered(self._returns, key, (exact, result))
        else:
            self._answered(self._returns, key, (None, result))
        if self._follows == follows:
            self._answered(self._leaf_returns, leaf_key, self._returns[key])
        return result

    def _answered(self, table: dict, key: tuple, answer: tuple) -> None:
        """Keep a call's answer for this analysis, and note it in the journal a kept run
        carries (the answers it left are put back when it is used: mslint.analysis.kept_runs)."""
        table[key] = answer
        self._journal.append((table is self._leaf_returns, key, answer))

    def replay(self, journal) -> None:
        """The answers a kept run left in the analysis that computed it, left in this one too
        (a later call alike answers as it would have); the exact ones are shared too."""
        for leaf, key, answer in journal:
            table = self._leaf_returns if leaf else self._returns
            if key not in table:
                self._answered(table, key, answer)
                if not leaf and answer[0] is not None and answer[0] not in SHARED.returns:
                    SHARED.remember(SHARED.returns, answer[0], answer[1])

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
        if receiver.has("primitive") and name in PRIMITIVE_SETTERS:
            return receiver  # the same primitive, configured
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
