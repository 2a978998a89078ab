"""MS5xx: set_grad before a PyNative gradient, and custom bprop definitions."""
from __future__ import annotations

from conftest import only

SAMPLER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops


class MySampler(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k

    def bprop(self, x, out, dout):
        return (dout * self.k,)


class Plain(nn.Cell):
    def construct(self, x):
        return x * 2

"""


def _lint(project, body, select=("MS501",), prefix=SAMPLER, **settings):
    return only(project.lint_source(prefix + body, select=list(select), **settings), select[0])


def _line(source, fragment):
    lines = (SAMPLER + source).lstrip("\n").splitlines()
    return next(i for i, text in enumerate(lines, 1) if fragment in text)


# -- MS501 --------------------------------------------------------------------------------------
MIGRATION_GUIDE_BAD = """
ms.set_context(mode=ms.PYNATIVE_MODE)
x = ms.Tensor(np.ones(3, np.float32))
sampler = MySampler(3)
out = sampler(x)
grad = ops.GradOperation(get_all=True)(sampler)(x)
"""


def test_migration_guide_sampler_without_set_grad_is_flagged(project):
    findings = _lint(project, MIGRATION_GUIDE_BAD)
    assert [f.line for f in findings] == [_line(MIGRATION_GUIDE_BAD, "GradOperation")]
    message = findings[0].message
    assert message.startswith("'sampler' is called forward at line ")
    assert ", then differentiated without set_grad(). The cell is MySampler, which defines bprop; " in message
    assert f"called forward at line {_line(MIGRATION_GUIDE_BAD, 'out = sampler(x)')}" in message
    assert "Call set_grad() so the backward is built with the forward in PYNATIVE_MODE" in message


def test_migration_guide_sampler_with_set_grad_is_clean(project):
    assert _lint(project, MIGRATION_GUIDE_BAD.replace("MySampler(3)", "MySampler(3).set_grad()")) == []


def test_set_grad_statement_before_forward_is_clean_after_is_flagged(project):
    before = MIGRATION_GUIDE_BAD.replace("out = sampler(x)", "sampler.set_grad(True)\nout = sampler(x)")
    after = MIGRATION_GUIDE_BAD.replace("out = sampler(x)", "out = sampler(x)\nsampler.set_grad()")
    assert _lint(project, before) == []
    assert [f.line for f in _lint(project, after)] == [_line(after, "GradOperation")]


def test_set_grad_false_toggling_is_not_flagged(project):
    src = MIGRATION_GUIDE_BAD + "sampler.set_grad(False)\n"
    assert _lint(project, src) == []


def test_grad_function_created_before_the_loop_is_flagged(project):
    src = """
x = ms.Tensor(np.ones(3, np.float32))
net = MySampler(2)
grad_fn = ms.grad(net)
for step in range(3):
    y = net(x)
    g = grad_fn(x)
"""
    findings = _lint(project, src)
    assert [f.line for f in findings] == [_line(src, "grad_fn = ms.grad(net)")]
    assert "'ms.grad'" in findings[0].message


def test_any_spelling_of_grad_and_grad_operation(project):
    src = """
import mindspore
from mindspore.ops import composite as C
x = ms.Tensor(np.ones(3, np.float32))
a = MySampler(2)
a(x)
g1 = mindspore.grad(a)(x)
grad_all = C.GradOperation(get_all=True)
b = MySampler(2)
b(x)
g2 = grad_all(b)(x)
c = MySampler(2)
c(x)
g3 = ops.grad(c)(x)
"""
    lines = sorted(f.line for f in _lint(project, src))
    assert lines == [_line(src, "mindspore.grad(a)"), _line(src, "grad_all(b)"), _line(src, "ops.grad(c)")]


def test_value_and_grad_only_is_clean(project):
    src = """
x = ms.Tensor(np.ones(3, np.float32))
sampler = MySampler(3)
loss, grads = ms.value_and_grad(sampler)(x)
"""
    assert _lint(project, src) == []


def test_grad_without_forward_call_is_clean(project):
    src = """
x = ms.Tensor(np.ones(3, np.float32))
sampler = MySampler(3)
grads = ops.GradOperation(get_all=True)(sampler)(x)
out = sampler(x)
"""
    assert _lint(project, src) == []


def test_wrapped_by_train_one_step_cell_is_clean(project):
    src = """
x = ms.Tensor(np.ones(3, np.float32))
net = MySampler(3)
loss_net = nn.WithLossCell(net, nn.MSELoss())
train_net = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params()))
out = net(x)
grads = ms.grad(net)(x)
"""
    assert _lint(project, src) == []


def test_graph_mode_program_is_clean_and_graph_mode_option_is_respected(project):
    graph = "ms.set_context(mode=ms.GRAPH_MODE)\n" + MIGRATION_GUIDE_BAD.replace(
        "ms.set_context(mode=ms.PYNATIVE_MODE)\n", "")
    assert _lint(project, graph) == []
    no_mode = MIGRATION_GUIDE_BAD.replace("ms.set_context(mode=ms.PYNATIVE_MODE)\n", "")
    assert len(_lint(project, no_mode)) == 1
    assert _lint(project, no_mode, graph_mode="always") == []


def test_argparse_driven_mode_is_flagged(project):
    src = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--mode", default="pynative")
args = parser.parse_args()
if args.mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
else:
    ms.set_context(mode=ms.PYNATIVE_MODE)


def train(x):
    sampler = MySampler(3)
    out = sampler(x)
    return ops.GradOperation(get_all=True)(sampler)(x)
"""
    assert [f.line for f in _lint(project, src)] == [_line(src, "GradOperation")]


def test_jit_function_is_not_checked(project):
    src = """
sampler = MySampler(3)


@ms.jit
def step(x):
    out = sampler(x)
    return ops.GradOperation(get_all=True)(sampler)(x)
"""
    assert _lint(project, src) == []


def test_self_attribute_in_a_trainer_class(project):
    src = """
class Trainer:
    def __init__(self):
        self.sampler = MySampler(3)
        self.grad_op = ops.GradOperation(get_all=True)

    def step(self, x):
        out = self.sampler(x)
        return self.grad_op(self.sampler)(x)
"""
    assert [f.line for f in _lint(project, src)] == [_line(src, "self.grad_op(self.sampler)")]
    fixed = src.replace("self.sampler = MySampler(3)", "self.sampler = MySampler(3)\n        self.sampler.set_grad()")
    assert _lint(project, fixed) == []


def test_factory_function_and_parameter(project):
    src = """
def build(k):
    return MySampler(k)


def build_ready(k):
    return MySampler(k).set_grad()


def run(net, x):
    out = net(x)
    return ms.grad(net)(x)


x = ms.Tensor(np.ones(3, np.float32))
a = build(2)
a(x)
ga = ms.grad(a)(x)
b = build_ready(2)
b(x)
gb = ms.grad(b)(x)
run(MySampler(2), x)
"""
    lines = sorted(f.line for f in _lint(project, src))
    assert lines == [_line(src, "return ms.grad(net)(x)"), _line(src, "ga = ms.grad(a)(x)")]


def test_cross_module_network_class_and_factory(project):
    project.write("src/__init__.py", "")
    project.write("src/model.py", SAMPLER + """
def create_sampler(k):
    net = MySampler(k)
    return net
""")
    project.write("train.py", """
import numpy as np
import mindspore as ms
from mindspore import ops
from src.model import MySampler, Plain, create_sampler

x = ms.Tensor(np.ones(3, np.float32))
a = MySampler(3)
a(x)
ga = ops.GradOperation(get_all=True)(a)(x)
b = create_sampler(3)
b(x)
gb = ops.GradOperation(get_all=True)(b)(x)
c = Plain()
c(x)
gc = ops.GradOperation(get_all=True)(c)(x)
""")
    findings = only(project.lint("train.py", select=["MS501", "MS502"]), "MS501")
    assert sorted(f.line for f in findings) == [9, 12]
    assert all("MySampler, which defines bprop" in f.message for f in findings)


def test_factories_of_modules_with_and_without_training_calls(project, monkeypatch):
    """Another module's calls are visited only when it makes training calls (set_grad here);
    a module without them still gives the cells its factories return and its classes hold."""
    from astroid import nodes

    from mslint.analysis import instances

    project.write("src/__init__.py", "")
    project.write("src/model.py", SAMPLER + """
def create_ready(k):
    net = MySampler(k)
    net.set_grad()
    return net
""")
    project.write("src/factories.py", """
from mindspore import nn
from src.model import MySampler


class Holder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = MySampler(2)

    def construct(self, x):
        return self.inner(x)


def create_sampler(k):
    net = MySampler(k)
    return net


def create_holder():
    return Holder()


def unrelated():
    return [MySampler(i) for i in range(3)]
""")
    project.write("train.py", """
import numpy as np
import mindspore as ms
from src.factories import create_sampler, create_holder
from src.model import create_ready

x = ms.Tensor(np.ones(3, np.float32))
a = create_sampler(3)
a(x)
ga = ms.grad(a)(x)
b = create_holder()
b(x)
gb = ms.grad(b)(x)
c = create_ready(3)
c(x)
gc = ms.grad(c)(x)
""")
    visited = set()
    visit_call = instances.InstanceTracker._visit_call

    def recording(self, call: nodes.Call) -> None:
        visited.add(call.root().file.replace("\\", "/").rsplit("/", 1)[-1])
        visit_call(self, call)

    monkeypatch.setattr(instances.InstanceTracker, "_visit_call", recording)
    findings = only(project.lint("train.py", select=["MS501"]), "MS501")
    assert [(f.line, "sub-cell MySampler" in f.message) for f in findings] == [(9, False), (12, True)]
    assert visited == {"train.py", "model.py"}  # factories.py makes no training call: its calls are not visited


def test_class_setting_set_grad_in_init_is_clean(project):
    prefix = SAMPLER.replace("        self.k = k\n", "        self.k = k\n        self.set_grad()\n")
    assert _lint(project, MIGRATION_GUIDE_BAD, prefix=prefix) == []


# -- MS502 --------------------------------------------------------------------------------------
def test_ms502_any_cell_without_bprop(project):
    src = """
x = ms.Tensor(np.ones(3, np.float32))
net = Plain()
out = net(x)
g = ms.grad(net)(x)
dense = nn.Dense(3, 3)
dense(x)
gd = ms.grad(dense)(x)
sampler = MySampler(2)
sampler(x)
gs = ms.grad(sampler)(x)
"""
    findings = _lint(project, src, select=("MS502",))
    assert sorted(f.line for f in findings) == [_line(src, "g = ms.grad(net)"), _line(src, "gd = ms.grad(dense)")]
    assert "The cell is Plain; " in findings[0].message or "The cell is Plain; " in findings[1].message


def test_ms502_is_off_by_default(project):
    src = SAMPLER + "x = 1\nnet = Plain()\nnet(x)\ng = ms.grad(net)(x)\n"
    assert [f for f in project.lint_source(src) if f.code.startswith("MS50")] == []


# -- MS503 / MS504 ------------------------------------------------------------------------------
BPROP = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, out, dout):
        return (dout, dout)


class Good(nn.Cell):
    def construct(self, x, y=None):
        return x

    def bprop(self, x, out, dout):
        return (dout,)


class Single(nn.Cell):
    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        dx = dout * 2
        return dx


class Pair(nn.Cell):
    def construct(self, x):
        return x, x

    def bprop(self, x, out, dout):
        return dout
"""


def test_ms503_bprop_signature(project):
    findings = only(project.lint_source(BPROP, select=["MS503"]), "MS503")
    assert [f.line for f in findings] == [9]
    assert findings[0].message == (
        "'Net.bprop' takes 3 input(s), not construct's 2 plus out and dout. It takes (x, out, dout); it must take "
        "(x, y, out, dout). GRAPH_MODE fails with \"TypeError: The params of function 'bprop' of Primitive or Cell "
        "requires the forward inputs as well as the 'out' and 'dout'.\". PyNative fails with \"TypeError: "
        "Net.bprop() takes 4 positional arguments but 5 were given\".")


def test_ms503_a_bprop_with_more_inputs_quotes_the_errors_that_case_raises(project):
    # checked on 2.10 (tests/test_mindspore_claims.py): too many bprop inputs is another error in both modes
    findings = only(project.lint_source('''
        from mindspore import nn

        class More(nn.Cell):
            def construct(self, x):
                return x * 2

            def bprop(self, x, y, out, dout):
                return (dout,)

        class Most(nn.Cell):
            def construct(self, x):
                return x * 2

            def bprop(self, x, y, z, w, out, dout):
                return (dout,)
    ''', select=["MS503"]), "MS503")
    assert [f.line for f in findings] == [7, 14]
    assert findings[0].message.endswith(
        "GRAPH_MODE fails with \"TypeError: ... The number of parameter of this primal function is 1, but the number "
        "of parameters of bprop is 2\". PyNative fails with \"TypeError: More.bprop() missing 1 required positional "
        "argument: 'dout'\".")
    assert findings[1].message.endswith(
        "PyNative fails with \"TypeError: Most.bprop() missing 3 required positional arguments: 'w', 'out', and "
        "'dout'\".")


def test_ms503_a_bprop_without_out_and_dout_quotes_graph_modes_runtime_error(project):
    # checked on 2.10 (tests/test_mindspore_claims.py): fewer than two bprop inputs fails GRAPH_MODE's own
    # check for out and dout (a RuntimeError), before the count of forward inputs (the TypeError above)
    findings = only(project.lint_source('''
        from mindspore import nn

        class OutOnly(nn.Cell):
            def construct(self, x, y):
                return x * y

            def bprop(self, out):
                return out, out

        class Bare(nn.Cell):
            def construct(self, x, y):
                return x * y

            def bprop(self):
                return 1, 1
    ''', select=["MS503"]), "MS503")
    assert [f.line for f in findings] == [7, 14]
    assert findings[0].message.endswith(
        "GRAPH_MODE fails with \"RuntimeError: The function 'bprop' of Primitive or Cell requires at least 2 params "
        "'out' and 'dout', but got only 1.\". PyNative fails with \"TypeError: OutOnly.bprop() takes 2 positional "
        "arguments but 5 were given\".")
    assert "TypeError: The params of function 'bprop'" not in findings[0].message
    assert findings[1].message.endswith(
        "but got only 0.\". PyNative fails with \"TypeError: Bare.bprop() takes 1 positional argument but 5 were "
        "given\".")


def test_ms504_bprop_returning_a_tensor(project):
    findings = only(project.lint_source(BPROP, select=["MS504"]), "MS504")
    assert [f.line for f in findings] == [27]
    assert "output should be a tuple" in findings[0].message and "return (dx,)" in findings[0].message


def test_ms504_not_in_a_pynative_only_program(project):
    src = BPROP.replace("from mindspore import nn\n", "from mindspore import nn\nms.set_context(mode=ms.PYNATIVE_MODE)\n")
    assert only(project.lint_source(src, select=["MS504"]), "MS504") == []


def test_ms504_quiet_when_bprop_returns_what_a_stored_function_returns(project):
    # reduced from a real custom-VJP factory: the backward function is handed in later through a
    # setter and kept on self; what it returns (often a tuple already) is not visible
    src = """
from mindspore import nn, ops


def with_backward(forward):
    class Wrapped(nn.Cell):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn
            self.backward = None
            self.double = ops.Mul()

        def construct(self, *args):
            return self.fn(*args)

        def set_backward(self, backward):
            self.backward = backward

        def bprop(self, *args):
            return self.backward(*args)

    class Doubling(nn.Cell):
        def __init__(self):
            super().__init__()
            self.double = ops.Mul()

        def construct(self, x):
            return x

        def bprop(self, x, out, dout):
            return self.double(dout, 2)

    return Wrapped(forward), Doubling()
"""
    findings = only(project.lint_source(src, select=["MS504"]), "MS504")
    assert [f.line for f in findings] == [30]  # only Doubling.bprop (the source loses its first newline)
