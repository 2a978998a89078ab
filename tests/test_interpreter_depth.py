"""What a project function returns is followed MAX_INLINE_DEPTH calls deep: a call's answer
depends on the depth it is asked at, except for a function that follows no call, whose
answer is shared across depths (interpret_calls._return_of) without changing any value."""
from __future__ import annotations

from conftest import values_of
from mslint.analysis import interpreter
from mslint.analysis.lattice import Kind

SOURCE = '''
from mindspore import nn


def leaf(x):
    return x.shape[0]


def middle(x):
    return leaf(x)


def outer(x):
    return middle(x)


class Net(nn.Cell):
    def construct(self, x):
        a = leaf(x)
        b = middle(x)
        c = outer(x)
        probe(a=a, b=b, c=c)
        return x
'''


def test_a_leaf_answer_is_shared_across_depths_and_a_cut_one_is_not(tmp_path, monkeypatch):
    runs = []
    run = interpreter.Interpreter.run

    def counting(self, function, params, self_class):
        runs.append((function.name, self._inline_depth))
        return run(self, function, params, self_class)
    monkeypatch.setattr(interpreter.Interpreter, "run", counting)
    found = values_of(tmp_path, SOURCE)
    # leaf(x) at depth 1 and middle -> leaf at depth 2: the same answer, from one run of leaf
    assert found["a"].kind == found["b"].kind == Kind.CONST
    assert [depth for name, depth in runs if name == "leaf" and depth > 0] == [1]  # (depth 0: as a graph function)
    # outer -> middle at depth 2 may not follow leaf: middle's answer there is not its depth-1 one
    assert found["c"].kind != Kind.CONST
    assert sorted(depth for name, depth in runs if name == "middle" and depth > 0) == [1, 2]
