"""The interpreter's statements: a function body run in order, assignments (also into
containers), both sides of an `if` joined unless a compile-time constant decides it (MindSpore
compiles only the branch taken), loops run twice, and what a `return`, a `raise` or a call that
surely raises leaves dead.  A mixin of `interpreter.Interpreter`."""
from __future__ import annotations

from typing import List

from astroid import nodes

from mslint.analysis import raising_calls
from mslint.analysis.lattice import (CONST, FunctionValues, Kind, UNKNOWN, Value, _host_tags, _is_constant,
                                     _join_envs, _mark_left_out_by_default, _reads_self_attribute, iteration_value,
                                     join, join_args, truth_value)


class StatementInterpreter:
    """Runs statements; expressions are ExpressionInterpreter's."""

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
            element = iteration_value(self._eval(node.iter, state))
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
