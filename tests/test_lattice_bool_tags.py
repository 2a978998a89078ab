"""The lattice knows which graph values are boolean tensors (what boolean-mask indexing needs)."""
from __future__ import annotations

import textwrap

import astroid
from astroid import nodes

from mslint.config import Config
from mslint.context import ModuleContext


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
