"""Composition in training code: a custom-bprop cell nested inside the differentiated network
(MS501), and a plain object's method that changes its own state, reached from construct in
another module (MS204).  Each program is linted by mslint and, when the `mindspore` extra is
installed, run by MindSpore to check what the finding claims."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import only

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None

NESTED_BPROP = '''
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
FORWARDS = [0]


class Inner(nn.Cell):
    def construct(self, x):
        FORWARDS[0] += 1
        return x * 2

    def bprop(self, x, out, dout):
        return (dout * 2,)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.inner(x) + 1


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell([Block()])

    def construct(self, x):
        return self.blocks(x)


net = Outer()
SET_GRAD
x = Tensor(np.ones(3, np.float32))
out = net(x)
grads = ops.GradOperation()(net)(x)
print(FORWARDS[0])
'''


def _program(set_grad: bool) -> str:
    return NESTED_BPROP.replace("SET_GRAD", "net.set_grad()" if set_grad else "")


def _line(source: str, text: str) -> int:
    """The line of `text` in the file the project writes (dedented, leading newline dropped)."""
    return textwrap.dedent(source).lstrip("\n").splitlines().index(text) + 1


def test_ms501_reports_a_network_whose_nested_sub_cell_defines_bprop(project):
    source = _program(set_grad=False)
    findings = only(project.lint_source(source, relative="train.py"), "MS501")
    assert [f.line for f in findings] == [_line(source, "grads = ops.GradOperation()(net)(x)")]
    forward = _line(source, "out = net(x)")
    assert f"'net' is called forward at line {forward}, then differentiated without set_grad(). The cell is Outer, " \
        "whose sub-cell Inner defines bprop; " \
        in findings[0].message
    assert "`Outer(...).set_grad()`" in findings[0].message


def test_ms501_quiet_when_the_outer_network_sets_grad(project):
    assert only(project.lint_source(_program(set_grad=True), relative="train.py"), "MS501") == []


@pytest.mark.mindspore
@pytest.mark.skipif(not HAS_MINDSPORE, reason="needs the mindspore extra")
@pytest.mark.parametrize("set_grad, forwards", [(False, "2"), (True, "1")])
def test_mindspore_runs_the_nested_forward_twice_without_the_outer_set_grad(tmp_path, set_grad, forwards):
    script = tmp_path / "train.py"
    script.write_text(_program(set_grad))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-1] == forwards


COUNTER = '''
class Counter:
    def __init__(self):
        self.count = 0

    def bump(self, x):
        self.count = self.count + 1
        return x
'''
MODEL = '''
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

from counter import Counter


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.counter = Counter()

    def construct(self, x):
        return self.counter.bump(x) * 2


if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LEVEL)
    net = Net()
    for i in range(3):
        net(Tensor(np.ones(2, np.float32)) * i)
    print("count", net.counter.count)
'''


def test_ms204_a_plain_objects_method_in_another_module_under_strict(project):
    project.write("counter.py", COUNTER)
    project.write("model.py", MODEL)
    findings = only(project.lint("counter.py", syntax_level="strict"), "MS204")
    assert [(f.path.rsplit(os.sep, 1)[-1], f.line) for f in findings] == [
        ("counter.py", _line(COUNTER, "        self.count = self.count + 1"))]
    call = _line(MODEL, "        return self.counter.bump(x) * 2")
    assert findings[0].message.endswith(f"In Counter.bump, called from Net.construct (model.py, line {call}).")
    assert only(project.lint("counter.py"), "MS204") == []  # LAX runs the method on every call


@pytest.mark.mindspore
@pytest.mark.skipif(not HAS_MINDSPORE, reason="needs the mindspore extra")
@pytest.mark.parametrize("level, outcome", [("LAX", "count 3"), ("STRICT", "TypeError")])
def test_mindspore_runs_a_plain_objects_method_per_call_in_lax_and_rejects_it_in_strict(tmp_path, level, outcome):
    (tmp_path / "counter.py").write_text(textwrap.dedent(COUNTER))
    (tmp_path / "model.py").write_text(MODEL.replace("ms.LEVEL", f"ms.{level}"))
    result = subprocess.run([sys.executable, "model.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert outcome in (result.stdout + result.stderr)
    if level == "STRICT":
        assert "if need to modify a member attribute of a class with self.count" in result.stderr


# -- the differentiated cell is a wrapper around the network -----------------------------------
# (how the gradient is taken, where set_grad() is called) -> (MS501 reported, forwards of Inner
# per step on MindSpore 2.10: the forward call plus the gradient call)
WRAPPED_TAIL = {
    "withloss": ("loss_net = nn.WithLossCell(net, nn.MSELoss())\nSET_GRAD\n"
                 "x = Tensor(np.ones(3, np.float32))\nout = loss_net(x, x)\n"
                 "grads = ops.GradOperation()(loss_net)(x, x)\nprint(FORWARDS[0])\n"),
    "value_and_grad": ("loss_net = nn.WithLossCell(net, nn.MSELoss())\nSET_GRAD\n"
                       "x = Tensor(np.ones(3, np.float32))\nout = loss_net(x, x)\n"
                       "grads = ms.value_and_grad(loss_net)(x, x)\nprint(FORWARDS[0])\n"),
}
WRAPPED_CASES = [
    ("withloss", "", True, "2"),
    ("withloss", "net.set_grad()", True, "2"),  # set_grad on the inner network does not help
    ("withloss", "loss_net.set_grad()", False, "1"),
    ("value_and_grad", "", True, "2"),
    ("value_and_grad", "loss_net.set_grad()", False, "1"),
]


def _wrapped_program(how: str, set_grad: str) -> str:
    head = NESTED_BPROP[:NESTED_BPROP.index("net = Outer()")]
    return head + "net = Outer()\n" + WRAPPED_TAIL[how].replace("SET_GRAD", set_grad)


@pytest.mark.parametrize("how, set_grad, reported, _forwards", WRAPPED_CASES)
def test_ms501_asks_for_set_grad_on_the_differentiated_wrapper(project, how, set_grad, reported, _forwards):
    source = _wrapped_program(how, set_grad)
    findings = only(project.lint_source(source, relative="train.py"), "MS501")
    assert bool(findings) is reported
    if reported:
        message = findings[0].message
        assert "The cell is WithLossCell, whose sub-cell Inner defines bprop; " in message
        assert "`WithLossCell(...).set_grad()`" in message
        assert ("set_grad() on 'net'" in message) is (set_grad == "net.set_grad()")


def test_ms501_on_a_train_one_step_cell_that_is_differentiated(project):
    source = NESTED_BPROP[:NESTED_BPROP.index("net = Outer()")] + textwrap.dedent('''
        net = Outer()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
        x = Tensor(np.ones(3, np.float32))
        loss = step(x, x)
        grads = ops.GradOperation()(step)(x, x)
    ''')
    findings = only(project.lint_source(source, relative="train.py"), "MS501")
    assert len(findings) == 1 and "The cell is TrainOneStepCell, whose sub-cell Inner defines bprop; " in \
        findings[0].message


@pytest.mark.mindspore
@pytest.mark.skipif(not HAS_MINDSPORE, reason="needs the mindspore extra")
@pytest.mark.parametrize("how, set_grad, _reported, forwards", WRAPPED_CASES)
def test_mindspore_runs_the_forward_twice_unless_the_differentiated_cell_sets_grad(tmp_path, how, set_grad,
                                                                                  _reported, forwards):
    script = tmp_path / "train.py"
    script.write_text(_wrapped_program(how, set_grad))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-1] == forwards
