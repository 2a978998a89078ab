"""The interpreter's expressions: the value of each expression node over the lattice (literals,
names and module constants, attributes and sub-cell members, subscripts, operators,
comprehensions); calls are delegated to `interpret_calls`.  A mixin of
`interpreter.Interpreter`."""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from mslint.project import mindspore_names as msn
from mslint.project import resolve
from mslint.analysis.lattice import (BOOL_TENSOR, CONST, CONST_BOOL_TENSOR, DYNAMIC_SCALAR, FunctionValues, HOST, OPAQUE,
                                     Kind, PARAMETER, SHAPE, UNKNOWN, VAR_TENSOR, Value, _ANY_CELL,
                                     _CELL_PARAMETERS, _OPAQUE_BOOL, _SHAPE_NAMES, _SIZE_ATTRIBUTES,
                                     _STATIC_ATTRIBUTES, _all_variables_have, _compare_on_default, _default_params,
                                     _guessed_tensor, _host_tags, _inverted, _module_literal, _negated_default, host_result,
                                     is_self_attribute, iteration_value, join, join_args, known_number, literal, number_value,
                                     truth_value)


class ExpressionInterpreter:
    """Evaluates expressions; calls are CallInterpreter's."""

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
            folded = _folded_compare(node, operands)
            if folded is not None:
                return folded
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
            folded = _folded_arithmetic(node.op, left, right)
            if folded is not None:
                return folded
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
            self._assign(generator.target, iteration_value(iterable), state)
            for condition in generator.ifs:
                self._eval(condition, state)
        if isinstance(node, nodes.DictComp):
            kinds += [self._eval(node.key, state), self._eval(node.value, state)]
        else:
            kinds.append(self._eval(node.elt, state))
        state.env = saved
        return Value(Kind(join_args(kinds)), _host_tags(kinds))


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
        if isinstance(node.slice, nodes.Const) and isinstance(node.slice.value, str) and _guessed_tensor(base) \
                and not _annotated_input(node.value):
            # `img_metas[i]["scale"]`: no tensor takes a string key, so this input is a dict of
            # metadata, and what it holds is unknown (a tensor, a number, a list); an annotation
            # (`cache: Dict[str, Tensor]`) says what it holds
            return OPAQUE
        if base.is_const and index.is_const:
            return (SHAPE if base.has("shape") else CONST) if not base.has("ndarray") else base
        kind = Kind(max(base.kind, index.kind))
        if host_result((base, index)):
            return Value(kind, (base.tags | index.tags) & {"ndarray", "host"})
        tags = base.tags & {"tensor", "ndarray", "bool", "host", "dynamic", "opaque"}
        if index.is_var and index.has("bool") and not index.has("host"):
            tags = tags | {"dynamic"}  # x[mask]: one element per True
        return Value(kind, tags)


def _annotated_input(node) -> bool:
    """Whether the name under `img_metas[i]` or `img_metas` is an annotated parameter."""
    while isinstance(node, (nodes.Subscript, nodes.Attribute)):
        node = node.value if isinstance(node, nodes.Subscript) else node.expr
    function = node.scope() if isinstance(node, nodes.Name) else None
    if not isinstance(function, nodes.FunctionDef):
        return False
    args = function.args
    named = list(zip(args.posonlyargs or [], args.posonlyargs_annotations or [])) + \
        list(zip(args.args or [], args.annotations or [])) + \
        list(zip(args.kwonlyargs or [], args.kwonlyargs_annotations or []))
    return any(arg.name == node.name and annotation is not None for arg, annotation in named)


_COMPARISONS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "//": lambda a, b: a // b, "/": lambda a, b: a / b, "%": lambda a, b: a % b}


def _folded_compare(node: nodes.Compare, operands) -> Optional[Value]:
    """`self.top_p < 1.0` with top_p a known number: the compiler folds it, and so do we."""
    numbers = [known_number(v) for v in operands]
    if any(n is None for n in numbers):
        return None
    result = True
    for (operator, _), left, right in zip(node.ops, numbers, numbers[1:]):
        compare = _COMPARISONS.get(operator)
        if compare is None:
            return None
        result = result and compare(left, right)
    return number_value(bool(result))


def _folded_arithmetic(operator: str, left: Value, right: Value) -> Optional[Value]:
    """`ksize // 2` with ksize a known number: a known number."""
    a, b = known_number(left), known_number(right)
    if a is None or b is None or operator not in _ARITHMETIC or isinstance(a, bool) or isinstance(b, bool):
        return None
    try:
        result = _ARITHMETIC[operator](a, b)
    except (ArithmeticError, ValueError):
        return None
    folded = number_value(result)
    return folded.with_tags("shape") if (left.has("shape") or right.has("shape")) else folded
