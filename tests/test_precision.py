"""MS6xx: custom to_float next to amp_level, double conversion, loss in float16."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from conftest import only
from setup_networks import NETWORKS

NETWORK = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.bn(self.dense(x)))

"""

# The migration guide's "Manual Mixed-precision" example.
GUIDE = """
net = Network()
net.to_float(ms.float16)
for _, cell in net.cells_and_names():
    if isinstance(cell, nn.BatchNorm1d):
        cell.to_float(ms.float32)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean").to_float(ms.float32)
opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
model = Model(net, loss, opt, amp_level="O2")
"""


def _lint(project, body, code, prefix=NETWORK, **settings):
    return only(project.lint_source(prefix + body, select=[code], **settings), code)


def _line(source, fragment, prefix=NETWORK):
    lines = (prefix + source).lstrip("\n").splitlines()
    return next(i for i, text in enumerate(lines, 1) if fragment in text)


# -- MS601 --------------------------------------------------------------------------------------
def test_migration_guide_to_float_with_amp_level_o2(project):
    # the guide's example: net.to_float(ms.float16) is what O2 does anyway, and O2 keeps the
    # BatchNorm cells the loop sets to float32 in float32 itself (it wraps them; checked on 2.10):
    # nothing is overridden at O2; O3 casts the BatchNorm cells too
    assert _lint(project, GUIDE, "MS601") == []
    findings = _lint(project, GUIDE.replace('"O2"', '"O3"'), "MS601")
    assert [f.line for f in findings] == [_line(GUIDE, "cell.to_float")]
    message = findings[0].message
    assert "Model(..., amp_level='O3')" in message
    assert "O3 casts every cell to float16 again" in message
    assert "don't set amp_level in Model if you use custom mixed precision" in message
    head = GUIDE.replace("loss = nn", "net.head.to_float(ms.float32)\nloss = nn")
    assert [f.line for f in _lint(project, head, "MS601")] == [_line(head, "net.head.to_float")]
    # what O2's black list keeps (test_o2_keeps_batchnorm_and_layernorm_in_float32_on_mindspore)
    assert "(O2 keeps only BatchNorm and LayerNorm in float32, by its own rule)" in \
        _lint(project, head, "MS601")[0].message


def test_without_amp_level_or_with_o0_is_clean(project):
    assert _lint(project, GUIDE.replace(', amp_level="O2"', ""), "MS601") == []
    assert _lint(project, GUIDE.replace('"O2"', '"O0"'), "MS601") == []


def test_sub_cell_path_and_o3_and_build_train_network(project):
    src = """
from mindspore import amp
net = Network()
net.head.to_float(ms.float32)
loss = nn.MSELoss()
opt = nn.SGD(net.trainable_params())
train = amp.build_train_network(net, opt, loss, level="O3")
"""
    findings = _lint(project, src, "MS601")
    assert [f.line for f in findings] == [_line(src, "net.head.to_float")]
    assert "amp.build_train_network(..., level='O3')" in findings[0].message


def test_unknown_level_from_argparse(project):
    src = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--amp_level", default="O0")
args = parser.parse_args()
net = Network()
net.head.to_float(ms.float32)
model = Model(net, nn.MSELoss().to_float(ms.float32), nn.SGD(net.trainable_params()), amp_level=args.amp_level)
"""
    findings = _lint(project, src, "MS601")
    assert [f.line for f in findings] == [_line(src, "net.head.to_float")]
    assert findings[0].message.startswith("'net.head.to_float(ms.float32)' sets custom mixed precision that a level "
                                          "may override. ")
    assert 'Unless the level is "O0", "O1" or "auto", it overrides that' in findings[0].message


def test_wrappers_two_deep_and_a_level_variable(project):
    src = """
level = "O2"
net = Network()
net.head.to_float(ms.float32)
opt = nn.SGD(net.trainable_params())
loss_net = nn.WithLossCell(net, nn.MSELoss())
train_net = nn.TrainOneStepCell(loss_net, opt)
model = Model(train_net, optimizer=opt, amp_level=level)
other = Network()
other.head.to_float(ms.float32)
"""
    findings = _lint(project, src, "MS601")
    assert [f.line for f in findings] == [_line(src, "net.head.to_float")]
    # with no optimizer Model converts nothing: 2.10 raises "Auto mixed precision will not work because
    # 'optimizer' is None" (tests/test_mindspore_claims.py)
    train_cell = src.replace("Model(train_net, optimizer=opt, amp_level=level)", "Model(train_net, amp_level=level)")
    assert "Model(train_net, amp_level=level)" in train_cell
    assert _lint(project, train_cell, "MS601") == []


def test_only_the_levels_that_override_are_reported(project):
    # checked on MindSpore 2.10: O1 and "auto" keep to_float(float32); float16 under O2/O3 changes
    # nothing; auto_mixed_precision(net, "O2"/"O3") after to_float overrides it like Model does
    src = """
first = Network()
first.head.to_float(ms.float32)
a = Model(first, nn.MSELoss(), nn.SGD(first.trainable_params()), amp_level="O1")
second = Network()
second.head.to_float(ms.float32)
b = Model(second, nn.MSELoss(), nn.SGD(second.trainable_params()), amp_level="auto")
net = Network()
net.head.to_float(ms.float16)
c = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O3")
converted = Network()
converted.head.to_float(ms.float32)
converted = ms.amp.auto_mixed_precision(converted, "O2")
kept = Network()
kept.head.to_float(ms.float32)
kept = ms.amp.auto_mixed_precision(kept, "O1")
"""
    findings = _lint(project, src, "MS601")
    assert [f.line for f in findings] == [_line(src, "converted.head.to_float")]
    assert "'ms.amp.auto_mixed_precision(converted, 'O2')' (line" in findings[0].message
    assert "converts afterwards. O2 casts the whole network to float16" in findings[0].message


def test_to_float_on_another_network_is_clean(project):
    src = """
net = Network()
teacher = Network()
teacher.to_float(ms.float16)
model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O2")
"""
    assert _lint(project, src, "MS601") == []


def test_factory_and_helper_function(project):
    src = """
def keep_bn_fp32(network):
    for _, cell in network.cells_and_names():
        if isinstance(cell, nn.BatchNorm1d):
            cell.to_float(ms.float32)


def create_network():
    return Network()


def main(args):
    net = create_network()
    keep_bn_fp32(net)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level=args.amp_level)
"""
    findings = _lint(project, src, "MS601")
    assert [f.line for f in findings] == [_line(src, "cell.to_float")]


def test_cross_module_to_float_in_the_class(project):
    project.write("src/__init__.py", "")
    project.write("src/model.py", NETWORK.replace(
        "        self.head = nn.Dense(4, 2)\n",
        "        self.head = nn.Dense(4, 2)\n        self.head.to_float(ms.float32)\n"))
    project.write("train.py", """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from src.model import Network

net = Network()
model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O2")
clean = Model(Network(), nn.MSELoss(), nn.SGD(net.trainable_params()))
""")
    findings = only(project.lint("train.py", select=["MS601"]), "MS601")
    assert [(f.line, f.column) for f in findings] == [(7, 75)]
    assert "'self.head.to_float(ms.float32)' in model.py, line 12" in findings[0].message
    assert only(project.lint("src/model.py", select=["MS601"]), "MS601") == []


# -- MS602 --------------------------------------------------------------------------------------
def test_auto_mixed_precision_then_model_amp_level(project):
    src = """
from mindspore import amp
net = amp.auto_mixed_precision(Network(), "O2")
model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O2")
ok = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O0")
"""
    findings = _lint(project, src, "MS602")
    assert [f.line for f in findings] == [_line(src, 'amp_level="O2"')]
    assert "amp_level need to be configured to O0" in findings[0].message


def test_custom_mixed_precision_and_two_auto_conversions(project):
    src = """
import mindspore
net = Network()
mindspore.amp.custom_mixed_precision(net, white_list=[nn.Dense])
train = mindspore.amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level="O1")
n2 = mindspore.amp.auto_mixed_precision(Network(), amp_level="O1")
n2 = mindspore.amp.auto_mixed_precision(n2, amp_level="O2")
n3 = mindspore.amp.auto_mixed_precision(Network(), amp_level="O0")
m3 = Model(n3, amp_level="O2")
"""
    findings = _lint(project, src, "MS602")
    assert [f.line for f in findings] == [_line(src, 'level="O1")'), _line(src, 'n2, amp_level="O2"')]
    assert "repeated calls to mixed-precision interfaces" in findings[1].message


def test_conversions_in_exclusive_branches_are_not_repeated(project):
    # reduced from a real helper: one branch converts the network one way, the other branch's
    # last arm another way; only one of them ever runs
    src = """
from mindspore import amp


def prepare(network, level, rewrite, half):
    if rewrite:
        network = amp.auto_mixed_precision(network, level)
    else:
        if half:
            network.to_float(ms.float16)
        else:
            network = amp.auto_mixed_precision(network, level)
    return network


def twice(network):
    network = amp.auto_mixed_precision(network, "O1")
    if network is not None:
        network = amp.auto_mixed_precision(network, "O2")
    return network
"""
    findings = _lint(project, src, "MS602")
    assert [f.line for f in findings] == [_line(src, '(network, "O2")')]


# -- MS603 --------------------------------------------------------------------------------------
def test_loss_cast_to_float16(project):
    src = """
loss = nn.MSELoss().to_float(ms.float16)
wl = nn.WithLossCell(Network(), nn.L1Loss()).to_float(ms.float16)
fixed = nn.WithLossCell(Network(), nn.MSELoss())
fixed.to_float(ms.float16)
fixed_loss = nn.MSELoss()
restored = nn.WithLossCell(Network(), fixed_loss).to_float(ms.float16)
fixed_loss.to_float(ms.float32)
"""
    findings = _lint(project, src, "MS603")
    assert [f.line for f in findings] == [_line(src, "loss = nn.MSELoss()"), _line(src, "wl = "),
                                          _line(src, "fixed.to_float")]
    assert "computes the loss in float16" in findings[0].message
    assert "also casts the loss inside it" in findings[1].message


def test_float16_network_into_a_default_loss(project):
    src = """
net = Network()
net.to_float(ms.float16)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
loss_net = nn.WithLossCell(net, loss)
kept = nn.SoftmaxCrossEntropyWithLogits(sparse=True).to_float(ms.float32)
ok = nn.WithLossCell(net, kept)
"""
    findings = _lint(project, src, "MS603")
    assert [(f.line, f.column) for f in findings] == [(_line(src, "loss_net ="), 32)]
    assert "float16 is used for calculation of the loss part, which may cause overflow" in findings[0].message
    assert findings[0].message.startswith("The loss 'loss' computes in float16: its logits come from a float16 "
                                          "network. 'net' runs in float16")
    assert "the loss's labels are class indices, so nothing promotes it" in findings[0].message


def test_model_at_o2_handles_the_loss(project):
    src = """
net = Network()
net.to_float(ms.float16)
model = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params()), amp_level="O2")
model0 = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params()))
promoted = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))
"""
    findings = _lint(project, src, "MS603")
    # (MSELoss takes float labels, which promote float16 logits to float32: checked below)
    assert [f.line for f in findings] == [_line(src, "model0 =")]


def test_project_loss_class(project):
    src = """
class MyLoss(nn.LossBase):
    def construct(self, logits, labels):
        return self.get_loss((logits - labels) ** 2)


loss = MyLoss().to_float(ms.bfloat16)
"""
    findings = _lint(project, src, "MS603")
    assert [f.line for f in findings] == [_line(src, "loss = MyLoss()")]
    assert "bfloat16" in findings[0].message


def test_project_loss_cell_named_as_a_loss(project):
    # (2.10: a FocalLoss(nn.Cell) with exp() of the logits, cast to float16 inside WithLossCell, gives inf;
    # the same loss left in float32 after a float16 network also gives inf when the overflow is in exp()
    # of float16 logits, which mslint cannot see, so only the casts are reported)
    src = """
class FocalLoss(nn.Cell):
    def construct(self, logits, labels):
        return ops.mean(ops.exp(logits) * (logits - labels) ** 2)


class Head(nn.Cell):
    def construct(self, x):
        return x


net_with_loss = nn.WithLossCell(Network(), FocalLoss())
net_with_loss.to_float(ms.float16)
head = Head().to_float(ms.float16)
alone = FocalLoss().to_float(ms.float16)
"""
    findings = _lint(project, src, "MS603")
    assert [f.line for f in findings] == [_line(src, "net_with_loss.to_float"), _line(src, "alone = ")]
    assert "also casts the loss inside it to float16. The loss is 'FocalLoss(...)'" in findings[0].message


def _run_on_mindspore(tmp_path, program: str) -> dict:
    """Run a program with MindSpore in a child process; the JSON object its last line prints."""
    (tmp_path / "program.py").write_text(program)
    result = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


AMP_LEVELS = '''
import json
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from mindspore.train.loss_scale_manager import FixedLossScaleManager

ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        # 1.0001 is 1.0 in float16: the output says which precision the head computed in
        self.head = nn.Dense(1, 1, weight_init=ms.Tensor([[1.0001]], ms.float32), bias_init="zeros")

    def construct(self, x):
        return self.head(x)


def head(net, x):
    value = float(net(x).astype(ms.float32).asnumpy().ravel()[0])
    return "float32" if abs(value - 1.0001) < 2e-5 else "float16"


x = ms.Tensor(np.ones((1, 1), np.float32))
found = {}
for level in ("O0", "O1", "O2", "O3", "auto"):
    for asked in ("float32", "float16"):
        net = Net()
        net.head.to_float(getattr(ms, asked))
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=level,
              loss_scale_manager=FixedLossScaleManager(drop_overflow_update=False))
        found[f"Model {level} {asked}"] = head(net, x)
        net = Net()
        net.head.to_float(getattr(ms, asked))
        found[f"auto_mixed_precision {level} {asked}"] = head(ms.amp.auto_mixed_precision(net, level), x)
print(json.dumps(found))
'''


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_which_levels_override_to_float_on_mindspore(tmp_path):
    found = _run_on_mindspore(tmp_path, AMP_LEVELS)
    for api in ("Model", "auto_mixed_precision"):
        for level in ("O0", "O1", "O2", "O3", "auto"):
            # float16 asked for is float16 at every level; float32 survives exactly the levels MS601 leaves alone
            assert found[f"{api} {level} float16"] == "float16"
            expected = "float16" if level in ("O2", "O3") else "float32"
            assert found[f"{api} {level} float32"] == expected, (api, level)


LOSS_CASES = '''
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from mindspore.train.loss_scale_manager import FixedLossScaleManager


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(1, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(x)


def loss_net(kept):
    wrapped = nn.WithLossCell(Net(), nn.MSELoss())
    wrapped.to_float(ms.float16)
    for _, cell in wrapped.cells_and_names():
        if isinstance(cell, kept):
            cell.to_float(ms.float32)
    return wrapped


def trained_at_o2():
    net = Net()
    loss = nn.MSELoss()
    loss.to_float(ms.float16)
    return Model(net, loss, nn.SGD(net.trainable_params(), 0.0), amp_level="O2",
                 loss_scale_manager=FixedLossScaleManager(drop_overflow_update=False))
'''


def test_loss_set_back_to_float32_by_a_cell_loop_and_a_float16_loss_under_o2(project):
    source = LOSS_CASES + '''

kept = nn.WithLossCell(Net(), nn.MSELoss())
kept.to_float(ms.float16)
for _, cell in kept.cells_and_names():
    if isinstance(cell, (nn.MSELoss, nn.BatchNorm1d)):
        cell.to_float(ms.float32)

lost = nn.WithLossCell(Net(), nn.MSELoss())
lost.to_float(ms.float16)
for _, cell in lost.cells_and_names():
    if isinstance(cell, nn.BatchNorm1d):
        cell.to_float(ms.float32)
'''
    found = only(project.lint_source(source, select=["MS603"]), "MS603")
    lines = source.lstrip("\n").splitlines()
    # the loop over cells_and_names() that sets the MSELoss back to float32 protects it (kept); one that
    # sets only BatchNorm does not (lost); O2 does not protect a loss cast to float16 (trained_at_o2);
    # loss_net's own guard is a parameter the analysis cannot read: reported
    assert [f.line for f in found] == [next(i for i, text in enumerate(lines, 1) if fragment in text) for fragment in
                                       ("wrapped.to_float(ms.float16)", "loss.to_float(ms.float16)",
                                        "lost.to_float(ms.float16)")]


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_float16_losses_overflow_on_mindspore(tmp_path):
    program = LOSS_CASES + '''
import json
ms.set_context(mode=ms.PYNATIVE_MODE)
x = ms.Tensor(np.full((1, 1), 300.0, np.float32))
y = ms.Tensor(np.zeros((1, 1), np.float32))
print(json.dumps({"loop keeps the loss": float(loss_net(nn.MSELoss)(x, y).asnumpy()),
                  "loop keeps BatchNorm": float(loss_net(nn.BatchNorm1d)(x, y).asnumpy()),
                  "Model O2, loss in float16": float(trained_at_o2()._train_network(x, y).asnumpy())}))
'''
    found = _run_on_mindspore(tmp_path, program)
    assert found["loop keeps the loss"] == 90000.0
    assert found["loop keeps BatchNorm"] == float("inf")
    assert found["Model O2, loss in float16"] == float("inf")


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_float16_logits_overflow_only_with_float16_labels_on_mindspore(tmp_path):
    program = LOSS_CASES + '''
import json
ms.set_context(mode=ms.PYNATIVE_MODE)
x = ms.Tensor(np.full((1, 1), 300.0, np.float32))
found = {}
for labels in ("float32", "float16"):
    net = Net()
    net.to_float(ms.float16)
    y = ms.Tensor(np.zeros((1, 1), getattr(np, labels)))
    found[labels] = float(nn.WithLossCell(net, nn.MSELoss())(x, y).asnumpy())
net = Net()
net.to_float(ms.float16)
sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
found["sparse softmax cross entropy"] = str(nn.WithLossCell(net, sparse)(x, ms.Tensor(np.zeros(1, np.int32))).dtype)
print(json.dumps(found))
'''
    assert _run_on_mindspore(tmp_path, program) == {"float32": 90000.0, "float16": float("inf"),
                                                    "sparse softmax cross entropy": "Float16"}


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_o2_keeps_batchnorm_and_layernorm_in_float32_on_mindspore(tmp_path):
    # O2 wraps its black-list cells so they compute in float32 and cast their output to float16
    # (mindspore/train/amp.py); O3 casts them like every other cell
    found = _run_on_mindspore(tmp_path, '''
import json
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from mindspore.train.loss_scale_manager import FixedLossScaleManager

ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)
        self.ln = nn.LayerNorm((4,))
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.ln(self.bn(x)))


found = {}
for level in ("O2", "O3"):
    net = Net()
    for cell in (net.bn, net.ln, net.head):
        cell.to_float(ms.float32)
    Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=level,
          loss_scale_manager=FixedLossScaleManager(drop_overflow_update=False))
    found[level] = {name: type(getattr(net, name)).__name__ for name in ("bn", "ln", "head")}
print(json.dumps(found))
''')
    assert found == {"O2": {"bn": "_OutputTo16", "ln": "_OutputTo16", "head": "Dense"},
                     "O3": {"bn": "BatchNorm1d", "ln": "LayerNorm", "head": "Dense"}}


# -- MS601: to_float in the class, turned off by the construction, or replaced by float16 ---------------
CLASSIFIER = """
import mindspore as ms
from mindspore import nn
from mindspore.common import dtype as mstype


class Classifier(nn.Cell):
    def __init__(self, keep_fp32=True):
        super().__init__()
        self.backbone = nn.SequentialCell([nn.Dense(8, 8), nn.ReLU()])
        self.fc = nn.Dense(8, 3)
        if keep_fp32:
            self.fc.to_float(mstype.float32)

    def construct(self, x):
        return self.fc(self.backbone(x))
"""

HELPER_IMPORTS = """
import mindspore as ms
from mindspore import nn
"""


def _float32_loop(name: str, cell_class: str, returns: bool = False) -> str:
    """A helper setting the cells of one class to float32 with the migration guide's loop."""
    return f"""

def {name}(network):
    for _, cell in network.cells_and_names():
        if isinstance(cell, nn.{cell_class}):
            cell.to_float(ms.float32)
""" + ("    return network\n" if returns else "")


HELPERS = HELPER_IMPORTS + """

def fp32_head(network):
    network.fc.to_float(ms.float32)
    return network
""" + _float32_loop("keep_dense_fp32", "Dense")


def _write_project(project, net: str, utils: str, train: str):
    """src/net.py, src/utils.py and train.py; the line of the nth line of train.py holding a fragment."""
    project.write("src/__init__.py", "")
    project.write("src/net.py", net)
    project.write("src/utils.py", utils)
    project.write("train.py", train)
    lines = train.lstrip("\n").splitlines()
    return lambda fragment, nth=0: [i for i, text in enumerate(lines, 1) if fragment in text][nth]


def _classifier_project(project, train: str):
    line = _write_project(project, CLASSIFIER, HELPERS, train)
    return only(project.lint("train.py", select=["MS601"]), "MS601"), line


def test_auto_mixed_precision_after_to_float_in_the_class_init(project):
    findings, line = _classifier_project(project, """
import mindspore as ms
from mindspore import amp
from src.net import Classifier


def direct():
    return amp.auto_mixed_precision(Classifier(), "O2")


def named():
    net = Classifier()
    net = ms.amp.auto_mixed_precision(net, amp_level="O3")
    return net


def kept():
    return amp.auto_mixed_precision(Classifier(), "O1")
""")
    assert [(f.line, f.code) for f in findings] == [(line("Classifier(), \"O2\""), "MS601"),
                                                   (line('amp_level="O3"'), "MS601")]
    assert "'self.fc.to_float(mstype.float32)' in net.py, line 12" in findings[0].message
    assert findings[0].message.startswith("Level O2 here overrides the network's custom mixed precision. ")
    assert "'amp.auto_mixed_precision(Classifier(), 'O2')' converts it afterwards. O2 casts the whole network " \
           "to float16 again" in findings[0].message
    assert "O3 casts every cell to float16 again" in findings[1].message


def test_auto_mixed_precision_after_to_float_in_a_class_of_the_same_module(project):
    # the conversion is written above the class: __init__ still runs first, at Classifier()
    source = CLASSIFIER.replace("\n\nclass Classifier", """

def build():
    return ms.amp.auto_mixed_precision(Classifier(), "O3")


class Classifier""")
    findings = only(project.lint_source(source, select=["MS601"]), "MS601")
    assert [f.line for f in findings] == [16]
    assert "converts afterwards. O3 casts every cell to float16 again" in findings[0].message


def test_to_float_the_construction_turns_off_or_a_later_float16_replaces(project):
    # checked on MindSpore 2.10 (test_a_later_float16_leaves_nothing_to_override_on_mindspore): a
    # to_float(float16) on the same cell, on the network or from a loop after the float32 one
    # leaves the cell in float16, and Classifier(keep_fp32=False) never ran it: nothing to override
    findings, line = _classifier_project(project, """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from src.net import Classifier
from src.utils import fp32_head, keep_dense_fp32


def turned_off():
    net = Classifier(keep_fp32=False)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")


def turned_off_by_position():
    return ms.amp.auto_mixed_precision(Classifier(False), "O3")


def head_in_float16():
    net = Classifier()
    net.fc.to_float(ms.float16)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")


def network_in_float16():
    net = Classifier()
    net.to_float(ms.float16)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O3")


def every_cell_in_float16():
    net = Classifier()
    for _, cell in net.cells_and_names():
        cell.to_float(ms.float16)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O3")


def kept_on(flag):
    net = Classifier(keep_fp32=flag)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")


def only_batchnorm_in_float16():
    net = Classifier(keep_fp32=True)
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.BatchNorm2d):
            cell.to_float(ms.float16)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O3")


def head_set_by_a_helper():
    net = fp32_head(Classifier(keep_fp32=False))
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")


def dense_set_by_a_helper():
    net = Classifier(keep_fp32=False)
    keep_dense_fp32(net)
    return Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O3")
""")
    trainers = [line(f"def {name}(") + offset for name, offset in (
        ("kept_on", 2), ("only_batchnorm_in_float16", 5), ("head_set_by_a_helper", 2), ("dense_set_by_a_helper", 3))]
    # reported: the flag the analysis cannot read, the float16 loop that skips Dense, and the two
    # helpers (in utils.py) that set float32 themselves
    assert [(f.line, f.column) for f in findings] == [(row, 79) for row in trainers]
    assert "'self.fc.to_float(mstype.float32)' in net.py, line 12" in findings[0].message
    assert "'self.fc.to_float(mstype.float32)' in net.py, line 12" in findings[1].message
    assert "'network.fc.to_float(ms.float32)' in utils.py, line 6" in findings[2].message
    assert "'cell.to_float(ms.float32)' in utils.py, line 13" in findings[3].message


# -- MS603: the cells_and_names() loop in a helper (the recognition MS601 shares) ------------------
def test_loss_set_back_to_float32_by_a_loop_in_a_helper(project):
    project.write("src/__init__.py", "")
    project.write("src/net.py", """
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(x)
""")
    project.write("src/utils.py", HELPER_IMPORTS + _float32_loop("keep_loss_fp32", "LossBase", returns=True)
                  + _float32_loop("keep_bn_fp32", "BatchNorm2d"))
    train = HELPER_IMPORTS + """from src.net import Net
from src.utils import keep_loss_fp32, keep_bn_fp32
""" + _float32_loop("local_helper", "L1Loss") + "".join(
        f"""

def {case}():
    wl = nn.WithLossCell(Net(), nn.{loss}())
    wl.to_float(ms.float16)
    {helper}(wl)
    return wl
""" for case, loss, helper in (("protected_in_another_module", "L1Loss", "keep_loss_fp32"),
                               ("protected_in_this_module", "L1Loss", "local_helper"),
                               ("batchnorm_only", "L1Loss", "keep_bn_fp32"),
                               ("guard_for_another_loss", "MSELoss", "local_helper")))
    project.write("train.py", train)
    lines = train.lstrip("\n").splitlines()
    findings = only(project.lint("train.py", select=["MS603"]), "MS603")
    casts = [i for i, text in enumerate(lines, 1) if "wl.to_float(ms.float16)" in text]
    assert [(f.line, f.column) for f in findings] == [(casts[2], 4), (casts[3], 4)]
    assert findings[0].message.startswith("'wl.to_float(ms.float16)' also casts the loss inside it to float16. The "
                                          "loss is 'nn.L1Loss(...)'; ")
    assert "The loss is 'nn.MSELoss(...)'; " in findings[1].message


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_a_later_float16_leaves_nothing_to_override_on_mindspore(tmp_path):
    # what MS601 relies on: a to_float(float32) made in the class's __init__ is overridden by
    # auto_mixed_precision and Model at O2/O3 (kept at O1/auto); a later to_float(float16) on the
    # same cell, on the network or from a cells_and_names() loop replaces it before any level runs
    found = _run_on_mindspore(tmp_path, AMP_LEVELS.split("x = ms.Tensor")[0].replace(
        '''        self.head = nn.Dense(1, 1, weight_init=ms.Tensor([[1.0001]], ms.float32), bias_init="zeros")
''', '''        self.head = nn.Dense(1, 1, weight_init=ms.Tensor([[1.0001]], ms.float32), bias_init="zeros")
        self.head.to_float(ms.float32)
''') + '''

def trained(net, level):
    Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=level,
          loss_scale_manager=FixedLossScaleManager(drop_overflow_update=False))
    return net


def head_half(net):
    net.head.to_float(ms.float16)
    return net


def every_cell_half(net):
    for _, cell in net.cells_and_names():
        cell.to_float(ms.float16)
    return net


x = ms.Tensor(np.ones((1, 1), np.float32))
found = {"init": head(Net(), x), "init, head float16": head(head_half(Net()), x), "init, network float16": head(Net().to_float(ms.float16), x),
         "init, loop float16": head(every_cell_half(Net()), x)}
for level in ("O1", "O2", "O3", "auto"):
    found[f"init, auto_mixed_precision {level}"] = head(ms.amp.auto_mixed_precision(Net(), level), x)
    found[f"init, Model {level}"] = head(trained(Net(), level), x)
print(json.dumps(found))
''')
    assert {k: v for k, v in found.items() if " O" not in k and " auto" not in k} == {
        "init": "float32", "init, head float16": "float16",
        "init, network float16": "float16", "init, loop float16": "float16"}
    for level in ("O1", "O2", "O3", "auto"):
        expected = "float16" if level in ("O2", "O3") else "float32"
        assert found[f"init, auto_mixed_precision {level}"] == expected, level
        assert found[f"init, Model {level}"] == expected, level


def test_the_flag_of_the_construction_read_only_when_the_code_says_which(project):
    # a module constant is read; a factory's parameter is what its caller passes, not its default
    source = CLASSIFIER + """

KEEP = False


def build(flag=False):
    return Classifier(keep_fp32=flag)


constant = ms.amp.auto_mixed_precision(Classifier(KEEP), "O3")
through_a_factory = ms.amp.auto_mixed_precision(build(True), "O3")
"""
    findings = only(project.lint_source(source, select=["MS601"]), "MS601")
    assert [f.line for f in findings] == [12]
    assert "'ms.amp.auto_mixed_precision(build(True), 'O3')'" in findings[0].message


# -- MS601 / MS602: networks built through functools.partial, trainers built by helpers (issue 30) ------
PARTIAL_NET = """
import mindspore as ms
from mindspore import nn


class GhostNet(nn.Cell):
    def __init__(self, width=1.0):
        super().__init__()
        self.body = nn.Dense(4, 4)
        self.head = nn.Dense(4, 2)
        self.head.to_float(ms.float32)

    def construct(self, x):
        return self.head(self.body(x))


def ghostnet(width=1.0):
    return GhostNet(width)
"""
TRAINER_HELPERS = """
from mindspore import Model


def create_trainer(network, loss, optimizer, **kwargs):
    return Model(network, loss, optimizer, **kwargs)


def build(network, loss, optimizer, level="O0"):
    return Model(network, loss, optimizer, amp_level=level)
"""


def test_ms601_network_built_through_functools_partial(project):
    project.write("net.py", PARTIAL_NET)
    project.write("train.py", """
import functools
from functools import partial
from mindspore import nn, Model
from net import ghostnet

make = functools.partial(ghostnet, width=1.3)
net = make()
model = Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")
net2 = partial(ghostnet, width=1.3)()
model2 = Model(net2, nn.MSELoss(), nn.Adam(net2.trainable_params()), amp_level="O1")
""")
    findings = only(project.lint("train.py", select=["MS601"]), "MS601")
    assert [f.line for f in findings] == [8]
    assert "('self.head.to_float(ms.float32)' in net.py, line 10)" in findings[0].message


def test_ms601_ms602_trainer_built_by_a_helper_in_another_module(project):
    project.write("net.py", PARTIAL_NET)
    project.write("trainer.py", TRAINER_HELPERS)
    project.write("train.py", """
from mindspore import nn, amp
from net import ghostnet
from trainer import create_trainer, build

net = ghostnet()
model = create_trainer(net, nn.MSELoss(), nn.Adam(net.trainable_params()), amp_level="O2")
net2 = ghostnet()
model2 = build(net2, nn.MSELoss(), nn.Adam(net2.trainable_params()), level="O3")
net3 = ghostnet()
model3 = build(net3, nn.MSELoss(), nn.Adam(net3.trainable_params()))
net4 = amp.auto_mixed_precision(nn.Dense(4, 2), "O1")
model4 = create_trainer(net4, nn.MSELoss(), nn.Adam(net4.trainable_params()), amp_level="O2")
""")
    findings = project.lint("train.py", select=["MS601", "MS602"])
    assert [(f.code, f.line) for f in findings] == [("MS601", 6), ("MS601", 8), ("MS602", 12)]
    assert "create_trainer(..., amp_level='O2') (line 6) converts it again" in findings[0].message
    assert "build(..., level='O3') (line 8)" in findings[1].message
    assert findings[0].fix is not None and findings[0].fix.edits[0].content == '"O0"'
    assert project.lint("trainer.py", select=["MS601", "MS602"]) == []


# -- issue 26: the training-setup forms a level or a loop really decides --------------------------
# (what MindSpore 2.10 does with each: tests/test_mindspore_claims.py, "Issue 26's training-setup decisions")
ISSUE_26_NETS = NETWORKS

ISSUE_26_UTILS = """
import mindspore as ms
from mindspore import nn


def keep_head_and_loss_fp32(network):
    for _, cell in network.cells_and_names():
        if isinstance(cell, (nn.Dense, nn.SoftmaxCrossEntropyWithLogits)):
            cell.to_float(ms.float32)
"""


def _issue_26_project(project, train: str):
    return _write_project(project, ISSUE_26_NETS, ISSUE_26_UTILS, train)


def test_ms601_a_loss_fn_and_a_to_float_after_the_trainer_keep_float32(project):
    train = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from src.net import Net, NetHoldingLoss


def loss_fn_kept():
    net = Net()
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    criterion.to_float(ms.float32)
    return Model(net, loss_fn=criterion, optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")


def head_after_the_trainer():
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")
    net.fc.to_float(ms.float32)
    return model


def head_before_the_trainer():
    net = Net()
    net.fc.to_float(ms.float32)
    return Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")


def criterion_held_by_the_network():
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    criterion.to_float(ms.float32)
    net = NetHoldingLoss(Net(), criterion)
    return Model(net, loss_fn=criterion, optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")


def no_optimizer():
    net = Net()
    net.fc.to_float(ms.float32)
    train_cell = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    return Model(train_cell, amp_level="O3")
"""
    line = _issue_26_project(project, train)
    findings = only(project.lint("train.py", select=["MS601", "MS602"]), "MS601")
    # reported: the head set before Model converts the network, and a criterion the network holds as a
    # sub-cell (O2 converts it with the network); not: Model's own loss_fn (converted before it is added),
    # a to_float after Model was built, and Model without an optimizer (it raises before any level applies)
    assert [f.line for f in findings] == [line("net.fc.to_float(ms.float32)", 1), line("criterion.to_float", 1)]
    assert "Model(..., amp_level='O2')" in findings[0].message


def test_ms603_loops_that_restore_the_loss_or_the_logits_and_a_loss_never_called(project):
    train = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from src.net import Net, NetWithLoss, HModel
from src.utils import keep_head_and_loss_fp32


def restore(cells):
    for _, c in cells.cells_and_names():
        if isinstance(c, (nn.BatchNorm2d, nn.SoftmaxCrossEntropyWithLogits)):
            c.to_float(ms.float32)


def wrapper_restored_after():
    n = NetWithLoss(Net())
    n.to_float(ms.float16)
    for _, c in n.cells_and_names():
        if isinstance(c, (nn.BatchNorm2d, nn.SoftmaxCrossEntropyWithLogits)):
            c.to_float(ms.float32)
    return n


def wrapper_restored_before():
    n = NetWithLoss(Net())
    for _, c in n.cells_and_names():
        if isinstance(c, nn.SoftmaxCrossEntropyWithLogits):
            c.to_float(ms.float32)
    n.to_float(ms.float16)
    return n


def wrapper_restored_by_a_helper():
    n = NetWithLoss(Net())
    n.to_float(ms.float16)
    keep_head_and_loss_fp32(n)
    return n


def with_loss_cell_restored():
    net = Net()
    net.to_float(ms.float16)
    wl = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    restore(wl)
    return wl


def dense_restored():
    net = Net()
    net.to_float(ms.float16)
    for _, c in net.cells_and_names():
        if isinstance(c, nn.Dense):
            c.to_float(ms.float32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))


def dense_restored_before():
    net = Net()
    for _, c in net.cells_and_names():
        if isinstance(c, nn.Dense):
            c.to_float(ms.float32)
    net.to_float(ms.float16)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))


def loss_never_called():
    h = HModel()
    h.to_float(ms.float16)
    return h


def float16_network_into_mse_at_o0():
    net = Net()
    net.to_float(ms.float16)
    return Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O0")


def float16_network_into_class_indices():
    net = Net()
    net.to_float(ms.float16)
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), nn.Momentum(net.trainable_params(), 0.1, 0.9))
"""
    line = _issue_26_project(project, train)
    findings = only(project.lint("train.py", select=["MS603"]), "MS603")
    assert [(f.line, f.column) for f in findings] == [
        (line("n.to_float(ms.float16)", 1), 4),  # restored before the cast: the cast undoes it
        (line("return Model(net, loss,", 1), 22),  # Dense restored before the cast
        (line("Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True)"), 22),  # issue 30, class indices
    ]
    assert findings[0].message.startswith("'n.to_float(ms.float16)' also casts the loss inside it to float16. "
                                           "The loss is 'self.loss'")
    assert findings[1].message.startswith("The loss 'loss' computes in float16: its logits come from a float16 network.")
