"""Graph scope: roots in every spelling, the closure over calls, and where it stops.

`np.exp(x)` on a tensor (MS102) marks a line as graph code in these tests."""
from __future__ import annotations

import pytest

from conftest import codes_by_line

MARK = {"select": ["MS102"]}


@pytest.mark.parametrize("decorator_import, decorator", [
    ("import mindspore as ms", "@ms.jit"),
    ("import mindspore", "@mindspore.jit(capture_mode='ast', fullgraph=True)"),
    ("from mindspore import jit", "@jit"),
    ("from mindspore import jit", "@jit(jit_level='O1')"),
    ("from mindspore.common.api import jit", "@jit"),
    ("from mindspore import ms_function", "@ms_function"),
    ("import mindspore as ms", "@ms.ms_function()"),
])
def test_jit_decorator_spellings(project, decorator_import, decorator):
    findings = project.lint_source(f'''
{decorator_import}
import numpy as np

{decorator}
def step(x):
    return np.exp(x)
''', **MARK)
    assert codes_by_line(findings) == {6: ["MS102"]}


def test_bytecode_capture_without_fullgraph_is_not_reported(project):
    findings = project.lint_source('''
import mindspore as ms
import numpy as np

@ms.jit(capture_mode="bytecode")
def eager_fallback(x):
    return np.exp(x)

@ms.jit(capture_mode="bytecode", fullgraph=True)
def strict_bytecode(x):
    return np.exp(x)
''', **MARK)
    assert codes_by_line(findings) == {10: ["MS102"]}


def test_jit_on_a_cell_class_compiles_construct_even_in_pynative(project):
    findings = project.lint_source('''
import mindspore as ms
import numpy as np
from mindspore import nn

ms.set_context(mode=ms.PYNATIVE_MODE)

@ms.jit
class Net(nn.Cell):
    def construct(self, x):
        return np.exp(x)

class Eager(nn.Cell):
    def construct(self, x):
        return np.exp(x)
''', **MARK)
    assert codes_by_line(findings) == {10: ["MS102"]}


def test_jit_call_forms(project):
    findings = project.lint_source('''
import mindspore as ms
import numpy as np
from mindspore import nn

ms.set_context(mode=ms.PYNATIVE_MODE)

class Net(nn.Cell):
    def construct(self, x):
        return np.exp(x)

def loss(x):
    return np.exp(x)

net = Net()
compiled = ms.jit(net)
compiled_loss = ms.jit(function=loss)
''', **MARK)
    assert codes_by_line(findings) == {9: ["MS102"], 12: ["MS102"]}


def test_indirect_cell_subclass_under_an_alias(project):
    findings = project.lint_source('''
import numpy as np
from mindspore.nn import Cell as C

class Base(C):
    pass

class Child(Base):
    def construct(self, x):
        return np.exp(x)
''', **MARK)
    assert codes_by_line(findings) == {9: ["MS102"]}


def test_nested_functions_lambdas_super_and_recursion(project):
    findings = project.lint_source('''
import numpy as np
from mindspore import nn

class Base(nn.Cell):
    def prepare(self, x):
        return np.exp(x)

class Net(Base):
    def prepare(self, x):
        return super().prepare(x)

    def walk(self, x, depth):
        if depth == 0:
            return x
        return self.walk(np.exp(x), depth - 1)

    def construct(self, x):
        def inner(y):
            return np.exp(y)
        square = lambda y: np.exp(y)
        return inner(x) + square(x) + self.prepare(x) + self.walk(x, 3)
''', **MARK)
    assert codes_by_line(findings) == {6: ["MS102"], 15: ["MS102"], 19: ["MS102"], 20: ["MS102"]}
    prepare = [f for f in findings if f.line == 6][0]
    assert "called from Net.construct (line 21) via Net.prepare (line 10)" in prepare.message


def test_stops_at_custom_pyfunc_and_mindspore(project):
    findings = project.lint_source('''
import numpy as np
from mindspore import nn, ops

def numpy_kernel(x):
    return np.exp(x)

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = ops.Custom(numpy_kernel, lambda x: x, lambda x: x, func_type="pyfunc")

    def construct(self, x):
        return self.op(x) + ops.exp(x)
''', **MARK)
    assert findings == []


def test_functions_handed_to_mindspore_higher_order_ops_are_compiled(project):
    findings = project.lint_source('''
import numpy as np
import mindspore as ms
from mindspore import nn, ops

def per_sample(x):
    return np.exp(x)

class Net(nn.Cell):
    def construct(self, x):
        return ops.vmap(per_sample)(x)
''', **MARK)
    assert codes_by_line(findings) == {6: ["MS102"]}


def test_bprop_is_graph_code(project):
    findings = project.lint_source('''
import numpy as np
from mindspore import nn

class Net(nn.Cell):
    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (np.exp(dout),)
''', **MARK)
    assert codes_by_line(findings) == {9: ["MS102"]}


def test_extra_jit_decorators(project):
    source = '''
import numpy as np
from mytools import compiled

@compiled
def step(x):
    return np.exp(x)
'''
    assert project.lint_source(source, **MARK) == []
    findings = project.lint_source(source, extra_jit_decorators=("mytools.compiled",), **MARK)
    assert codes_by_line(findings) == {6: ["MS102"]}


def test_graph_mode_set_anywhere_keeps_constructs_compiled(project):
    findings = project.lint_source('''
import argparse
import numpy as np
import mindspore as ms
from mindspore import nn

class Net(nn.Cell):
    def construct(self, x):
        return np.exp(x)

if __name__ == "__main__":
    args = argparse.ArgumentParser().parse_args()
    mode = ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE
    ms.set_context(mode=mode)
''', **MARK)
    assert codes_by_line(findings) == {8: ["MS102"]}
