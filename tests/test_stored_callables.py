"""Callables a cell stores on itself are followed into graph scope (issue 14 item 17):
`self.act = np_gelu`, `self.act = ACT2FN[name]`, a dict of methods, `getattr(self, "name")`.
MindSpore compiles whatever the attribute holds: checked on MindSpore below."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import codes_by_line

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops


def np_gelu(x):
    return ms.Tensor(np.tanh(x.asnumpy()))


def relu(x):
    return ops.relu(x)


ACT2FN = {"gelu": np_gelu, "relu": relu}
"""

CELLS = """

class Direct(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = np_gelu

    def construct(self, x):
        return self.act(x)


class FromDict(nn.Cell):
    def __init__(self, name="gelu"):
        super().__init__()
        self.act = ACT2FN[name]

    def construct(self, x):
        return self.act(x)


class Methods(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = {"a": self.first, "b": self.second}

    def construct(self, x):
        return self.table["a"](x)

    def first(self, x):
        return ms.Tensor(x.asnumpy())

    def second(self, x):
        return ms.Tensor(x.asnumpy())


class ByName(nn.Cell):
    def construct(self, x):
        f = getattr(self, "helper")
        return f(x)

    def helper(self, x):
        return ms.Tensor(x.asnumpy())
"""


def test_stored_callables_are_followed(project):
    found = project.lint_source(HEADER + CELLS, select=["MS101"])
    # np_gelu (line 7), Methods.first (line 44; "b" is never called) and ByName.helper (line 56)
    assert codes_by_line(found) == {7: ["MS101"], 44: ["MS101"], 56: ["MS101"]}
    reached = {f.line: f.message for f in found}
    assert "called from Direct.construct (line 23)" in reached[7] or "FromDict.construct (line 32)" in reached[7]
    assert "called from Methods.construct (line 41)" in reached[44]
    assert "called from ByName.construct (line 53)" in reached[56]


def test_a_stored_callable_used_outside_graph_code_is_not_followed(project):
    assert project.lint_source(HEADER + """

class Quiet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = np_gelu
        self.table = {"relu": relu}
        self.warm = self.act(ms.Tensor(np.ones(3)))

    def construct(self, x):
        return self.table["relu"](x)
""", select=["MS101"]) == []


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_compiles_what_the_attribute_holds(tmp_path):
    program = HEADER + CELLS + """
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
for cls in (Direct, FromDict, Methods, ByName):
    try:
        cls()(ms.Tensor(np.ones(3, np.float32)))
        print(cls.__name__, "compiled")
    except AttributeError as error:
        print(cls.__name__, str(error).splitlines()[0][:60])
"""
    (tmp_path / "program.py").write_text(program)
    result = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    lines = [line for line in result.stdout.splitlines() if line.split(" ")[0] in ("Direct", "FromDict", "Methods",
                                                                                    "ByName")]
    assert [line.split(" ", 1)[0] for line in lines] == ["Direct", "FromDict", "Methods", "ByName"], \
        result.stdout + result.stderr[-2000:]
    assert all(" In JIT strict mode, cannot get attributes asnumpy" in line for line in lines), lines


def test_a_method_that_returns_a_table_entry_is_followed_with_its_argument(project):
    found = project.lint_source(HEADER + """

class Picked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = self.pick("gelu")
        self.quiet = self.pick("relu")

    def pick(self, name):
        return ACT2FN[name]

    def construct(self, x):
        return self.act(x)


class PickedQuietly(Picked):
    def construct(self, x):
        return self.quiet(x)
""", select=["MS101"])
    assert codes_by_line(found) == {7: ["MS101"]}
    assert found[0].reach == ("Picked.construct (line 27)", "self.act (self.pick('gelu'))", "np_gelu")


def test_a_local_dict_of_methods_called_with_a_key_that_is_not_a_constant(project):
    """DETR's ImageLoss.get_loss: `loss_map[loss](...)` for each name in self.losses."""
    found = project.lint_source(HEADER + """

class Loss(nn.Cell):
    def __init__(self, losses):
        super().__init__()
        self.losses = losses

    def get_loss(self, loss, x):
        loss_map = {"labels": self.loss_labels, "masks": self.loss_masks}
        return loss_map[loss](x)

    def get_labels_loss(self, x):
        loss_map = {"labels": self.loss_labels, "masks": self.loss_masks}
        return loss_map["labels"](x)

    def loss_labels(self, x):
        return ops.relu(x)

    def loss_masks(self, x):
        return ms.Tensor(x.asnumpy())

    def construct(self, x):
        total = self.get_labels_loss(x)
        for loss in self.losses:
            total = total + self.get_loss(loss, x)
        return total
""", select=["MS101"])
    assert codes_by_line(found) == {34: ["MS101"]}
    assert found[0].reach == ("Loss.construct (line 39)", "Loss.get_loss (line 24)", "loss_map[...]",
                              "Loss.loss_masks")


# -- across modules: Hugging Face's activations.py (issue 14 item 17, the audit's gap) ---------

ACTIVATIONS = """
from collections import OrderedDict

import numpy as np
import mindspore as ms
from mindspore import ops


def np_gelu(x):
    return ms.Tensor(np.tanh(x.asnumpy()))


def quick_gelu(x):
    return x * ops.sigmoid(1.702 * x)


class NumpyGELU:
    def __init__(self, scale=1.0):
        self.scale = ms.Tensor(np.ones(1)).asnumpy() * scale

    def __call__(self, x):
        return ms.Tensor(x.asnumpy())


class ClassInstantier(OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


ACT2FN = {"gelu_np": np_gelu, "quick_gelu": quick_gelu, "scale": 2.0}
ACT2CLS = {"gelu_np": NumpyGELU, "gelu_np2": (NumpyGELU, {"scale": 2.0})}
ACT2INST = ClassInstantier(ACT2CLS)


def get_activation(name):
    if name in ACT2FN:
        return ACT2FN[name]
    raise KeyError(name)


def make_activation(name):
    return ACT2CLS[name]()
"""
NP_GELU_LINE, CALL_LINE, INIT_LINE = 9, 21, 18  # x.asnumpy() in np_gelu and NumpyGELU.__call__, and in __init__

MODEL = """
from mindspore import nn
from {module} import ACT2FN, ACT2INST, ACT2CLS, get_activation, make_activation


class MLP(nn.Cell):
    def __init__(self, config, act="gelu_np"):
        super().__init__()
        self.act = {stored}

    def construct(self, x):
        return self.act(x)
"""


def lint_package(project, stored: str, module: str = ".activations", reexport: bool = False):
    from mslint.config import Config
    from mslint.run.runner import lint_paths

    project.write("pkg/__init__.py", "from .activations import ACT2FN\n" if reexport else "")
    project.write("pkg/activations.py", ACTIVATIONS)
    project.write("pkg/model.py", MODEL.format(module=module, stored=stored))
    files = [str(project.root / "pkg" / name) for name in ("__init__.py", "activations.py", "model.py")]
    return lint_paths(files, Config(root=str(project.root), select=("MS101",)))


@pytest.mark.parametrize("stored, module, reexport, line, path", [
    ("ACT2FN[act]", ".activations", False, NP_GELU_LINE, "ACT2FN[...] in activations.py"),
    ("ACT2FN[config.hidden_act]", ".activations", False, NP_GELU_LINE, "ACT2FN[...] in activations.py"),
    ("ACT2FN[config.hidden_act]", "pkg", True, NP_GELU_LINE, "ACT2FN[...] in activations.py"),
    ('ACT2FN["gelu_np"]', "pkg.activations", False, NP_GELU_LINE, "ACT2FN['gelu_np'] in activations.py"),
    ('get_activation("gelu_np")', ".activations", False, NP_GELU_LINE, "get_activation('gelu_np') in activations.py"),
    ("ACT2INST[config.hidden_act]", ".activations", False, CALL_LINE, "ACT2INST[...] in activations.py"),
    ('ACT2INST["gelu_np2"]', ".activations", False, CALL_LINE, "ACT2INST['gelu_np2'] in activations.py"),
    ("ACT2CLS[act]()", ".activations", False, CALL_LINE, "ACT2CLS[...]() in activations.py"),
    ('make_activation("gelu_np")', ".activations", False, CALL_LINE, "make_activation('gelu_np') in activations.py"),
])
def test_a_table_or_factory_of_another_module_is_followed(project, stored, module, reexport, line, path):
    found = lint_package(project, stored, module, reexport)
    assert [(os.path.basename(f.path), f.line, f.code) for f in found] == [("activations.py", line, "MS101")]
    callee = "np_gelu" if line == NP_GELU_LINE else "NumpyGELU.__call__"
    assert found[0].reach == ("MLP.construct (model.py, line 11)", f"self.act ({path})", callee)
    assert found[0].message.endswith(f"In {callee}, called from MLP.construct (model.py, line 11) "
                                     f"through self.act ({path}).")


@pytest.mark.parametrize("stored", [
    'ACT2FN["quick_gelu"]',  # a constant key picks one entry
    'get_activation("quick_gelu")',  # so does the factory's argument
    'ACT2FN["missing"]',  # a key the table does not have picks none
    'ACT2FN["scale"]',  # a value that is not a callable
    "ACT2CLS[act]",  # a class: calling it makes an instance (its __init__ runs), not its __call__
])
def test_what_the_attribute_cannot_hold_is_not_followed(project, stored):
    assert lint_package(project, stored) == []
    one_module = ACTIVATIONS + MODEL.format(module="collections", stored=stored).replace(
        "ACT2FN, ACT2INST, ACT2CLS, get_activation, make_activation", "OrderedDict")
    assert project.lint_source(one_module, "single.py", select=["MS101"]) == []


def test_an_instance_table_never_makes_its_classes_init_graph_code(project):
    """ClassInstantier makes the instance in __init__ (Python); only __call__ is compiled."""
    found = lint_package(project, "ACT2INST[config.hidden_act]")
    assert INIT_LINE not in [f.line for f in found] and [f.line for f in found] == [CALL_LINE]


FOLLOWED = ["ACT2FN[config.hidden_act]", 'get_activation("gelu_np")', "ACT2INST[config.hidden_act]",
            'ACT2INST["gelu_np2"]', "ACT2CLS[act]()", 'make_activation("gelu_np")']


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_compiles_what_a_table_or_factory_of_another_module_gives(tmp_path):
    """Each spelling the lint follows: STRICT rejects the asnumpy() of the callee it names (np_gelu
    or NumpyGELU.__call__, never NumpyGELU.__init__, which runs in Python)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "activations.py").write_text(textwrap.dedent(ACTIVATIONS).lstrip("\n"))
    for number, stored in enumerate(FOLLOWED):
        (tmp_path / "pkg" / f"model_{number}.py").write_text(
            textwrap.dedent(MODEL.format(module=".activations", stored=stored)).lstrip("\n"))
    program = f"""
import importlib
import numpy as np
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)


class Config:
    hidden_act = "gelu_np"


for number in range({len(FOLLOWED)}):
    net = importlib.import_module(f"pkg.model_{{number}}").MLP(Config())
    try:
        net(ms.Tensor(np.ones(3, np.float32)))
        print("RESULT", number, "compiled")
    except AttributeError as error:
        where = [line for line in str(error).splitlines() if "activations.py:" in line]
        print("RESULT", number, where[0].split("activations.py:")[1].split(",")[0] if where else "?",
              str(error).splitlines()[0][:60])
"""
    (tmp_path / "program.py").write_text(program)
    result = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    lines = [line.split(" ", 3)[1:] for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    expected = [NP_GELU_LINE, NP_GELU_LINE, CALL_LINE, CALL_LINE, CALL_LINE, CALL_LINE]
    assert [(int(number), int(line)) for number, line, _ in lines] == list(enumerate(expected)), \
        result.stdout + result.stderr[-2000:]
    assert all(said.startswith("In JIT strict mode, cannot get attributes asnumpy") for _, _, said in lines), lines
