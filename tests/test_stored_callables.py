"""Callables a cell stores on itself are followed into graph scope (issue 14 item 17):
`self.act = np_gelu`, `self.act = ACT2FN[name]`, a dict of methods, `getattr(self, "name")`.
MindSpore compiles whatever the attribute holds: checked on MindSpore below."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

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
