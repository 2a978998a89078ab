"""The analysis's shortcuts give exactly the answers of the slow paths they replace.

Each shortcut exists for speed (issue 7): a name lookup answered once per function, the
qualified name of a parameter answered without a lookup, the module walk done by
recursion.  These tests compare each with what astroid itself answers."""
from __future__ import annotations

import sys

import astroid
import pytest
from astroid import nodes

from mslint.project.resolve import Resolver
from mslint.analysis.scope import _LEAVES, FunctionBody, NodeIndex

SOURCE = '''
import numpy as np
from mindspore import ops
P = ops.operations

if P:
    def first():
        return mode, np
    mode = 1
else:
    mode = 2


def second():
    return mode, np, a  # no `a` here: a builtin lookup that finds nothing

try:
    import scipy as sp
except ImportError:
    sp = None

counter = 0


def bump(flag):
    global counter
    if flag:
        counter = 1
        seen = counter
    else:
        seen = counter
    return seen


class Net:
    scale = 2
    x = ops.relu

    def construct(self, x, y=scale, z=x, *rest, **options):
        a = np.exp(x)
        b = ops.relu(a) + P.ReLU()(x)
        alias = ops.relu
        c = alias(b)
        for i in range(3):
            if i:
                d = later
            later = i
        f = lambda t, u=np: np.abs(t) + u.abs(t)
        g = [np.sum(v) for v in (a, b)]
        h = lambda k=a: k + a
        a = a * 2
        x = x + 1
        return sp, c, d, f, g, x, y, rest, options, scale
'''


def _names(module):
    return list(module.nodes_of_class(nodes.Name))


def _as_comparable(found):
    scope, assigns = found
    return scope, list(assigns)


def test_the_memoized_lookup_answers_what_astroid_answers_for_every_name():
    module = astroid.parse(SOURCE)
    resolver = Resolver()
    for _ in range(2):  # the second round is answered from the memo
        for name in _names(module):
            assert _as_comparable(resolver.lookup(name, name.name)) == _as_comparable(name.lookup(name.name)), \
                (name.name, name.lineno)


def test_qualified_names_are_those_of_a_resolver_without_shortcuts(monkeypatch):
    module = astroid.parse(SOURCE)
    fast = {(n.lineno, n.col_offset): Resolver().qualname(n) for n in _names(module)}
    import mslint.project.resolve as resolve
    monkeypatch.setattr(resolve, "_only_a_parameter_or_value", lambda node, name: False)
    monkeypatch.setattr(Resolver, "lookup", lambda self, node, name: node.lookup(name))
    slow = {(n.lineno, n.col_offset): Resolver().qualname(n) for n in _names(module)}
    assert fast == slow
    by_text = {(n.lineno, n.name): fast[(n.lineno, n.col_offset)] for n in _names(module)}
    assert by_text[(40, "np")] == "numpy"
    assert by_text[(41, "P")] == "mindspore.ops.operations"
    assert by_text[(43, "alias")] == "mindspore.ops.relu"
    assert by_text[(40, "x")] is None  # a parameter
    assert by_text[(39, "x")] == "mindspore.ops.relu"  # the default `z=x` is the class's x


def test_a_name_bound_in_a_branch_is_looked_up_per_function():
    module = astroid.parse(SOURCE)
    uses = [n for n in module.nodes_of_class(nodes.Name) if n.name == "mode"]
    assert len({tuple(use.lookup("mode")[1]) for use in uses}) == 2  # first() sees only `mode = 1`
    resolver = Resolver()
    for use in uses + uses:
        assert _as_comparable(resolver.lookup(use, "mode")) == _as_comparable(use.lookup("mode"))


def test_a_global_declaration_keeps_the_lookup_positional():
    module = astroid.parse(SOURCE)
    resolver = Resolver()
    bump = module.body[7]
    uses = [n for n in bump.nodes_of_class(nodes.Name) if n.name == "counter"]
    assert len({tuple(use.lookup("counter")[1]) for use in uses}) == 2  # the branches see different bindings
    for use in uses:
        assert _as_comparable(resolver.lookup(use, "counter")) == _as_comparable(use.lookup("counter"))


def test_the_node_index_lists_nodes_as_astroid_does():
    module = astroid.parse(SOURCE)
    index = NodeIndex(module)
    for kinds in [(nodes.Call,), (nodes.Name,), (nodes.FunctionDef,), (nodes.Import, nodes.ImportFrom, nodes.Attribute)]:
        assert index.of(*kinds) == list(module.nodes_of_class(kinds))


def test_the_node_types_the_walk_treats_as_leaves_have_no_children():
    module = astroid.parse(SOURCE + "\nfor i in range(2):\n    del x\n    if i:\n        continue\n    break\n"
                                    "def g():\n    nonlocal_ = 1\n    pass\n")
    found = {type(node) for node in module.nodes_of_class(nodes.NodeNG)}
    assert _LEAVES - {nodes.Nonlocal} <= found  # (nonlocal needs an enclosing function: checked by its fields)
    for node in module.nodes_of_class(tuple(_LEAVES)):
        assert list(node.get_children()) == []
    for kind in _LEAVES:
        assert kind._astroid_fields == ()
    index = NodeIndex(module)
    assert index.of(nodes.NodeNG) == list(module.nodes_of_class(nodes.NodeNG))


def test_the_node_index_walks_a_tree_deeper_than_the_recursion_limit():
    module = astroid.parse("def f(x):\n    return " + " + ".join(["x"] * 400) + "\n")
    expected = 400
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # far below the tree's depth: the index falls back to its own stack
    try:
        names = NodeIndex(module).of(nodes.Name)
        body = FunctionBody(module.body[0]).nodes
    finally:
        sys.setrecursionlimit(limit)
    assert len(names) == expected
    assert [n.lineno for n in names] == [2] * expected
    assert body == list(_reference_walk(module.body[0], False, ()))


BODY = '''
def construct(self, x, flag=False):
    y = self.a(x)
    if flag:
        z = self.b(y)
        return z
    class Local:
        def method(self):
            return helper(1)
    def inner(t):
        return self.c(t)
    f = lambda u=self.d(0): self.e(u)
    return f(inner(y)) if x else self.g(y)
'''


def _reference_walk(function, nested_defs, skip):
    """The documented order, written plainly: statements in order, each node before its children."""
    def walk(node):
        if isinstance(node, nodes.ClassDef) or node in skip:
            return
        yield node
        if isinstance(node, nodes.FunctionDef) and not nested_defs:
            return
        for child in node.get_children():
            if isinstance(node, (nodes.Lambda, nodes.FunctionDef)) and isinstance(child, (nodes.Arguments, nodes.Decorators)):
                continue
            yield from walk(child)
    for statement in function.body:
        yield from walk(statement)


@pytest.mark.parametrize("nested_defs", [False, True])
def test_a_function_body_lists_what_a_plain_walk_yields(nested_defs):
    function = astroid.extract_node(BODY)
    if_statement = function.body[1]
    for skip in [(), {if_statement}, {if_statement.body[0]}, {function.body[-1]}]:
        body = FunctionBody(function, nested_defs)
        expected = list(_reference_walk(function, nested_defs, skip))
        assert body.iter(skip) == expected
        assert body.calls(skip) == [n for n in expected if isinstance(n, nodes.Call)]
    calls = [call.func.attrname for call in FunctionBody(function).calls() if isinstance(call.func, nodes.Attribute)]
    assert calls == ["a", "b", "e", "g"]  # not c (an uncalled def), helper (a class), d (a lambda default)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
