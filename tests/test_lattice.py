"""The CONST / VAR / UNKNOWN lattice, as rules see it through ModuleContext.value."""
from __future__ import annotations

import pytest

from conftest import values_of
from mslint.analysis.lattice import Kind


NET = '''
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
import numpy as np

RATIO = 0.5

class Net(nn.Cell):
    def __init__(self, k, ratio=0.7):
        super().__init__()
        self.k = k
        self.ratio = ratio
        self.weight = Parameter(Tensor(np.ones(3), ms.float32))
        self.table = Tensor(np.ones(3), ms.float32)
        self.array = np.ones(3)

    def construct(self, x, y, training=False, *rest):
        mask = x > 0
        n = x.shape[0]
        k1 = int(n * self.ratio)
        k2 = ops.maximum(mask.sum() * 0.7, 1).astype(ms.int32)
        count = int(mask.sum())
        item = mask.sum().item()
        if self.k:  # a constant of unknown truth: both branches are compiled in some program
            z = x
        else:
            z = 3
        for i in range(n):
            acc = i * 2
        probe(
            x=x, mask=mask, n=n, k1=k1, k2=k2, count=count, item=item, selfk=self.k,
            weight=self.weight, table=self.table, array=self.array, training=training, z=z, acc=acc,
            length=len(x), size=x.size, ratio=RATIO, rest=rest, inv=~mask, both=mask & (y < 1),
            as_bool=x.astype(ms.bool_), isnan=ops.isnan(x), literal=ops.minimum(3, 5), mutable=ms.mutable(2),
            unknown=self.undefined_attribute, shape_op=ops.shape(x)[0] // 2,
        )
        return x
'''


@pytest.fixture(scope="module")
def net_values(tmp_path_factory):
    return values_of(tmp_path_factory.mktemp("lattice"), NET)


@pytest.mark.parametrize("name", ["n", "k1", "selfk", "table", "training", "length", "size", "ratio", "literal",
                                  "shape_op", "acc", "array"])
def test_constants(net_values, name):
    assert net_values[name].kind == Kind.CONST


@pytest.mark.parametrize("name", ["x", "mask", "k2", "count", "item", "weight", "rest", "inv", "both", "as_bool",
                                  "isnan", "mutable", "z"])
def test_variables(net_values, name):
    assert net_values[name].kind == Kind.VAR


@pytest.mark.parametrize("name", ["mask", "inv", "both", "as_bool", "isnan"])
def test_boolean_tensors(net_values, name):
    assert net_values[name].has("bool")


@pytest.mark.parametrize("name", ["x", "k2", "count", "weight"])
def test_not_boolean(net_values, name):
    assert not net_values[name].has("bool")


def test_unknown_attribute_is_unknown(net_values):
    assert net_values["unknown"].kind == Kind.UNKNOWN


def test_array_attribute_is_tagged_ndarray_and_parameter_is_tagged(net_values):
    assert net_values["array"].has("ndarray")
    assert net_values["weight"].has("parameter")


def test_helper_parameters_take_call_site_values(tmp_path):
    found = values_of(tmp_path, '''
        from mindspore import nn

        class Net(nn.Cell):
            def helper(self, t, k):
                probe(t=t, k=k)
                return t

            def construct(self, x):
                return self.helper(x, 3)
    ''')
    assert found["t"].kind == Kind.VAR
    assert found["k"].kind == Kind.CONST


def test_call_sites_are_joined(tmp_path):
    found = values_of(tmp_path, '''
        from mindspore import nn

        class Net(nn.Cell):
            def helper(self, k):
                probe(k=k)
                return k

            def construct(self, x):
                return self.helper(3) + self.helper(x.sum())
    ''')
    assert found["k"].kind == Kind.VAR


def test_unpassed_none_default_is_a_constant_not_a_tensor(tmp_path):
    found = values_of(tmp_path, '''
        from mindspore import nn

        def make_divisible(v, divisor, min_value=None):
            if not min_value:
                min_value = divisor
            return max(min_value, int(v + divisor / 2) // divisor * divisor)

        class Net(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.head_dim = make_divisible(dim * 0.5, divisor=8)

            def construct(self, x):
                probe(head=self.head_dim)
                return x
    ''')
    assert found["head"].kind == Kind.CONST


def test_shape_primitive_and_init_defined_parameters(tmp_path):
    found = values_of(tmp_path, '''
        import mindspore as ms
        from mindspore import nn, ops, Parameter, Tensor

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.shape = ops.Shape()
                self.updates = Parameter(Tensor(0.0, ms.float32))

            def step(self):
                self.updates += 1

            def construct(self, x):
                batch, length = self.shape(x)
                self.step()
                probe(length=length, updates=self.updates)
                return x
    ''')
    assert found["length"].kind == Kind.CONST
    assert found["updates"].has("parameter")


def test_host_opaque_and_dynamic_values(tmp_path):
    found = values_of(tmp_path, '''
        import numpy as np
        from mindspore import nn, ops

        class Net(nn.Cell):
            def __init__(self, adapter):
                super().__init__()
                self.adapter = adapter

            def construct(self, x):
                arr = x.asnumpy()
                doubled = arr * 2 if x.shape[0] else 0
                items = [v + 1 for v in x.tolist()]
                out = self.adapter(x)
                n = out["count"] + 1
                total = out.sum()
                idx = ops.nonzero(x > 0).squeeze(-1)
                probe(arr=arr, doubled=doubled, items=items, exp=np.exp(x), out=out, n=n, total=total,
                      idx=idx, size=idx.shape[0], static=x.shape[0], tensor=ops.relu(out))
                return x
    ''')
    from mslint.analysis.lattice import is_graph_value
    for name in ("arr", "doubled", "items", "exp"):  # what the interpreter computes from a converted tensor
        assert found[name].kind == Kind.VAR and found[name].has("host") and not is_graph_value(found[name]), name
    for name in ("out", "n"):  # an unfollowed call's result: a graph value of unknown type
        assert found[name].has("opaque") and not is_graph_value(found[name]), name
    for name in ("total", "tensor", "idx", "size"):  # a tensor method or op on it: a tensor
        assert is_graph_value(found[name]), name
    assert found["idx"].has("dynamic")
    assert found["static"].kind == Kind.CONST
