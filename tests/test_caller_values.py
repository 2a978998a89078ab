"""The values every caller passes (mslint.analysis.caller_values), across the modules of a project.

Two false-finding classes of the held-out review (benchmarks/review/heldout2-2026-11-28.md):
- class 5, MS701: a helper's padding default that no caller leaves in place (`conv3x3(...,
  padding=0)` everywhere) never reaches the layer;
- class 2, MS201: the inputs of a @jit function that every call passes as Python literals are
  compile-time constants, so building a dataclass from them compiles under STRICT (the claim
  "jit-literal-inputs-strict" in tests/test_mindspore_claims.py).
"""
from __future__ import annotations

from test_project_model import mslint, places, write

PYPROJECT = "[project]\nname = 'example'\n"

LAYERS = '''
    from mindspore import nn


    def conv3x3(cin, cout, stride=1, padding=1):
        return nn.Conv2d(cin, cout, 3, stride, padding=padding)
'''

NET = '''
    from mindspore import nn
    from pkg.layers import conv3x3


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = conv3x3(3, 8, padding=0)
            self.b = conv3x3(8, 8, 1, {second})

        def construct(self, x):
            return self.b(self.a(x))
'''


def _lint_conv(root, net=None, extra=None):
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/layers.py": LAYERS}
    if net is not None:
        files["pkg/net.py"] = NET.replace("{second}", net)
    files.update(extra or {})
    write(root, files)
    findings, _ = mslint(root, "--no-cache", "--select", "MS701", "pkg")
    return findings


def test_a_padding_default_no_caller_leaves_in_place_is_no_conv_padding_finding(tmp_path):
    assert _lint_conv(tmp_path, net="0") == []


def test_a_padding_default_a_caller_leaves_in_place_is_reported(tmp_path):
    findings = _lint_conv(tmp_path, net="stride=1")
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}
    assert "when the caller leaves it at 1 (the default of the parameter 'padding'" in findings[0]["message"]


def test_a_non_zero_padding_a_caller_passes_is_reported_with_it(tmp_path):
    findings = _lint_conv(tmp_path, net="2")
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}


def test_a_helper_nothing_calls_keeps_its_default_finding(tmp_path):
    findings = _lint_conv(tmp_path)
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}


def test_a_call_through_the_module_name_counts(tmp_path):
    train = '''
        from pkg import layers

        stem = layers.conv3x3(3, 8)
    '''
    findings = _lint_conv(tmp_path, net="0", extra={"pkg/train.py": train})
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}


def test_a_helper_passed_around_is_still_reported(tmp_path):
    registry = '''
        from pkg.layers import conv3x3

        FACTORIES = {"conv": conv3x3}
    '''
    findings = _lint_conv(tmp_path, net="0", extra={"pkg/registry.py": registry})
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}


def test_every_call_passing_one_non_zero_padding_is_named_across_modules(tmp_path):
    layers = '''
        from mindspore import nn


        def conv_bn(cin, cout, padding):
            return nn.Conv2d(cin, cout, 3, padding=padding)
    '''
    net = '''
        from pkg.layers import conv_bn

        a = conv_bn(3, 8, padding=1)
        b = conv_bn(8, 8, 1)
    '''
    write(tmp_path, {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/layers.py": layers,
                     "pkg/net.py": net})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS701", "pkg")
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}
    assert "padding is 1: every call of conv_bn() in the project passes padding=1" in findings[0]["message"]


def test_a_cached_result_follows_a_caller_that_starts_leaving_the_default(tmp_path):
    assert _lint_conv(tmp_path, net="0") == []
    cached, _ = mslint(tmp_path, "--select", "MS701", "pkg")
    assert cached == []
    write(tmp_path, {"pkg/net.py": NET.replace("{second}", "stride=1")})
    findings, _ = mslint(tmp_path, "--select", "MS701", "pkg")
    assert places(findings) == {("pkg/layers.py", 5, "MS701")}


# -- class 2: @jit inputs every caller passes as literals -----------------------------------
ACCESS = '''
    from dataclasses import dataclass

    from mindspore import jit


    @dataclass
    class Access:
        x: int
        y: int

        def largest(self):
            return self.x if self.x > self.y else self.y


    @jit(fullgraph=True)
    def pick(x, y):
        return Access(x, y).largest()


    def pick_later(x, y):
        return Access(x, y).largest()


    picked = jit(pick_later, fullgraph=True)
'''


def _lint_access(root, train):
    write(root, {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/access.py": ACCESS,
                 "pkg/train.py": train})
    findings, _ = mslint(root, "--no-cache", "--select", "MS201", "pkg")
    return findings


def test_jit_inputs_every_call_passes_as_literals_build_a_dataclass_without_a_finding(tmp_path):
    train = '''
        from pkg.access import pick, picked

        print(pick(1, 2), pick(3, y=4), picked(5, 6))
    '''
    assert _lint_access(tmp_path, train) == []


def test_a_jit_input_one_call_passes_as_a_tensor_keeps_the_finding(tmp_path):
    train = '''
        import mindspore as ms
        from pkg.access import pick, picked

        print(pick(1, 2), pick(ms.Tensor(3), 4), picked(ms.Tensor(5), 6))
    '''
    findings = _lint_access(tmp_path, train)
    assert places(findings) == {("pkg/access.py", 17, "MS201"), ("pkg/access.py", 21, "MS201")}
    assert all(f["message"].startswith("Dataclass 'Access' is built in graph code from 'x'") for f in findings)


def test_a_jit_function_nothing_calls_keeps_tensor_inputs(tmp_path):
    findings = _lint_access(tmp_path, "print('no calls')\n")
    assert places(findings) == {("pkg/access.py", 17, "MS201"), ("pkg/access.py", 21, "MS201")}


BLOCKS = '''
    from mindspore import nn


    class Block(nn.Cell):
        def __init__(self, c, momentum=0.1, training=None):
            super().__init__()
            self.bn = nn.BatchNorm2d(c, momentum=momentum, use_batch_statistics=training)

        def construct(self, x):
            return self.bn(x)
'''


def _lint_momentum(root, user):
    write(root, {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/blocks.py": BLOCKS, "pkg/net.py": user})
    findings, _ = mslint(root, "--no-cache", "--select", "MS704", "pkg")
    return findings


def test_a_momentum_default_of_a_cell_class_passed_around_is_not_known(tmp_path):
    # maskrcnn's ResNet builder: the class is handed over and built as block(c, training=...), so
    # neither the momentum nor the flag that may freeze the statistics is known
    user = '''
        from mindspore import nn
        from pkg.blocks import Block


        class ResNet(nn.Cell):
            def __init__(self, block, training):
                super().__init__()
                self.layer = block(4, training=training)

            def construct(self, x):
                return self.layer(x)


        net = ResNet(Block, False)
    '''
    assert _lint_momentum(tmp_path, user) == []


def test_a_momentum_default_every_call_leaves_is_reported_with_its_origin(tmp_path):
    user = '''
        from pkg.blocks import Block

        layer = Block(4)
    '''
    findings = _lint_momentum(tmp_path, user)
    assert places(findings) == {("pkg/blocks.py", 7, "MS704")}
    assert findings[0]["message"].startswith("'nn.BatchNorm2d(..., momentum=0.1)' looks like PyTorch's momentum. "
                                             "momentum=momentum is 0.1 (the default of the parameter 'momentum'")


def test_a_momentum_every_call_overrides_with_mindsporess_value_is_not_reported(tmp_path):
    user = '''
        from pkg.blocks import Block

        layer = Block(4, momentum=0.9)
    '''
    assert _lint_momentum(tmp_path, user) == []


def test_a_module_that_names_a_cell_only_in_a_string_is_not_built_to_look_for_calls():
    # a package __init__ with `__all__ = ["Net"]` and star imports: the text search for `Net`
    # hits it, and building it would build every module it star-imports, to find no call
    from mslint.analysis.mentions import code_names

    names = code_names(b'__all__ = ["Net"]  # Net is exported\nfrom .model import *\nx = models.Head(3)\n')
    assert "Net" not in names and {"models", "Head", "x"} <= names
    assert code_names(b"def broken(:\n") is None  # kept: building it says what is unknown


def test_code_facts_list_the_attribute_calls_a_project_object_may_receive():
    from mslint.analysis.mentions import code_facts

    facts = code_facts(b'''
import numpy as np
from mindspore import nn
from . import relative
from .models import Base


class OwnCell(nn.Cell):
    def construct(self, x):
        return self.dense(x) + np.roll(x, 1) + relative.helper(x)


class Derived(Base):
    def construct(self, x):
        return self.head(x)


class Plain:
    def run(self):
        return self.loss(1)


def step(net, x):
    return net.classifier(x) + super().zap(x)


def not_a_method(self):
    return self.plain(1)
''')
    # self.dense in a Cell with MindSpore bases, self.loss in a class with none and np.roll through
    # an import are not; a relative import's module, a project base, a parameter, super() and a
    # `self` outside a method may be project objects
    assert sorted(facts.outside_attribute_calls) == ["classifier", "head", "helper", "plain", "zap"]
    assert {"dense", "roll", "loss", "np", "nn"} <= facts.names


def test_code_facts_treat_an_import_name_bound_again_as_an_object():
    from mslint.analysis.mentions import code_facts

    facts = code_facts(b'''
from mindspore import nn
import numpy as np

np = load_backend()


class Cell(nn.Cell):
    pass


class Mine(Cell):
    def construct(self, x):
        return self.dense(x) + np.roll(x, 1)
''')
    # `np` is rebound and `Cell` is the module's own class: neither is known to be MindSpore's
    assert sorted(facts.outside_attribute_calls) == ["dense", "roll"]
