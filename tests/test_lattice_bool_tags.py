"""The lattice knows which graph values are boolean tensors (what boolean-mask indexing needs)."""
from __future__ import annotations

import textwrap

import astroid
from astroid import nodes

from mslint.config import Config
from mslint.analysis.context import ModuleContext


def values_of_assigned(source: str, tmp_path):
    """{name: Value} for every `name = ...` in graph scope of the source."""
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source))
    module = astroid.MANAGER.ast_from_file(str(path), modname="m")
    ctx = ModuleContext(module, str(path), Config(root=str(tmp_path)))
    found = {}
    for assign, gf in ctx.graph_nodes(nodes.Assign):
        for target in assign.targets:
            if isinstance(target, nodes.AssignName):
                found[target.name] = ctx.value(assign.value, gf)
    return found


def test_boolean_primitives_and_bool_cast_primitive_give_boolean_tensors(tmp_path):
    found = values_of_assigned("""
        import mindspore as ms
        from mindspore import nn, ops
        from mindspore.ops import operations as P

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.greater = P.Greater()
                self.cast = ops.Cast()
                self.mul = ops.Mul()

            def construct(self, x):
                a = self.greater(x, 0.0)
                b = ops.IsNan()(x)
                c = self.cast(x, ms.bool_)
                d = self.cast(x, ms.float32)
                e = self.mul(x, x)
                return a, b, c, d, e
    """, tmp_path)
    assert found["a"].is_var and found["a"].has("bool") and found["a"].has("tensor")
    assert found["b"].has("bool")
    assert found["c"].has("bool")
    assert not found["d"].has("bool") and found["d"].has("tensor")
    assert not found["e"].has("bool") and found["e"].is_var


def test_layout_ops_keep_a_boolean_input_boolean(tmp_path):
    found = values_of_assigned("""
        from mindspore import nn, ops

        class Net(nn.Cell):
            def construct(self, x):
                m = x > 0
                a = ops.reshape(m, (-1,))
                b = ops.expand_dims(m, 1)
                c = m.permute(1, 0)
                d = ops.reshape(x, (-1,))
                e = ops.stop_gradient(m)
                return a, b, c, d, e
    """, tmp_path)
    assert found["a"].has("bool") and found["b"].has("bool") and found["c"].has("bool")
    assert found["e"].has("bool")
    assert not found["d"].has("bool") and found["d"].is_var


def test_reductions_inversion_joins_picks_and_literals_that_are_boolean(tmp_path):
    found = values_of_assigned("""
        import mindspore as ms
        from mindspore import mint, nn, ops, tensor

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.reduce_any = ops.ReduceAny(keep_dims=False)

            def construct(self, x, m, idx: ms.Tensor, n: int):
                p = x > 0
                a = (x == 0).all(-1)
                b = self.reduce_any(x, 1)
                c = ~m
                d = ~n
                e = mint.cat([p, ~p], dim=1)
                f = mint.where(p.any(), p, tensor([True]))
                g = ms.tensor([True], dtype=p.dtype)
                h = ops.select(p, p, False)
                pair = (p, ~p)
                i = ops.stack(pair)
                s = (x == 0).sum(-1)
                j = mint.cat([p, idx])
                k = mint.where(p, idx, p)
                l = tensor([1, 0])
                o = tensor([True], dtype=ms.int32)
                return a, b, c, d, e, f, g, h, i, s, j, k, l, o
    """, tmp_path)
    for name in ("a", "b", "c", "e", "f", "h", "i"):
        assert found[name].is_var and found[name].has("bool") and found[name].has("tensor"), name
    assert found["g"].is_const and found["g"].has("bool") and found["g"].has("tensor")
    for name in ("d", "s", "j", "k", "l", "o"):
        assert not found[name].has("bool"), name
