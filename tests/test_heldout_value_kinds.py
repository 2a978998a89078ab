"""False findings of the held-out review (benchmarks/review/heldout-2026-11-28.md, issue 26) that
come from the value model: what a value is (graph tensor, host value, Python scalar, constant)
and which program compiles a cell.  Each class has its minimal form (no finding) beside the
true positive that must stay.  The MindSpore behaviour behind them is checked in
tests/test_mindspore_claims.py (section "Issue 26's value kinds")."""
from __future__ import annotations

from conftest import codes_by_line

HEADER = """\
import math
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

"""  # the snippets below start on line 6


def lint(project, body: str, select=("MS101", "MS102", "MS103", "MS104", "MS403")):
    return project.lint_source(HEADER + body.lstrip("\n"), select=select)


# -- class 10: a draw whose argument is counted from converted data ---------------------------
def test_a_draw_sized_by_converted_data_runs_on_every_call(project):
    found = lint(project, """
class Pick(nn.Cell):
    def construct(self, x, pos_mask):
        pos = [i for i in pos_mask.numpy() if i > 0]
        c_len = len(pos)
        order = np.random.permutation(c_len)
        fixed = np.random.permutation(10)
        return x, order, fixed
""")
    # the conversion is MS101's; the draw on its length is not frozen (no MS104); the constant one is
    assert codes_by_line(found) == {8: ["MS101"], 11: ["MS104"]}


# -- class 11: a NumPy call given a MindSpore dtype raises, it is not folded --------------------
def test_a_numpy_call_given_a_mindspore_dtype_is_not_a_folded_constant(project):
    found = lint(project, """
class Ar(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = 5

    def construct(self, x):
        a = np.arange(self.n, dtype=x.dtype)
        b = np.arange(self.n, dtype=ms.float32)
        c = np.arange(self.n, dtype=np.float32)
        return a, b, c
""", select=("MS103",))
    assert codes_by_line(found) == {14: ["MS103"]}


# -- one problem, one finding: a NumPy array that meets a graph tensor ------------------------
def test_an_array_combined_with_a_tensor_is_one_finding(project):
    found = lint(project, """
class Mix(nn.Cell):
    def construct(self, x):
        y = x * np.ones((3, 3))
        m = np.zeros((3, 3))
        z = m + x
        k = np.eye(3)
        return y, z, k
""", select=("MS102", "MS103"))
    # the operators are MS102's; the array builders that feed them get no MS103 of their own
    assert codes_by_line(found) == {8: ["MS102"], 10: ["MS102"], 11: ["MS103"]}


# -- class 3: a bound computed from a constant default Tensor argument ------------------------
def test_a_bound_from_a_constant_default_tensor_is_a_constant(project):
    found = lint(project, """
class Slim(nn.Cell):
    def construct(self, x, w=Tensor(1.0)):
        w = w.asnumpy().item()
        return x[:int(4 * w)]
""", select=("MS403",))
    assert found == []


def test_a_bound_from_a_tensor_the_parent_passes_is_still_computed_at_run_time(project):
    found = lint(project, """
class Slim(nn.Cell):
    def construct(self, x, w=Tensor(1.0)):
        w = w.asnumpy().item()
        return x[:int(4 * w)]


class Top(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = Slim()

    def construct(self, x, scale):
        return self.body(x, scale * 2)
""", select=("MS403",))
    assert codes_by_line(found) == {9: ["MS403"]}
    assert "computed at run time from tensor data" in found[0].message
