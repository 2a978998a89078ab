"""False findings of the held-out review (benchmarks/review/heldout-2026-11-28.md, issue 26) that
come from the value model: what a value is (graph tensor, host value, Python scalar, constant)
and which program compiles a cell.  Each class has its minimal form (no finding) beside the
true positive that must stay.  The MindSpore behaviour behind them is checked in
tests/test_mindspore_claims.py (section "Issue 26's value kinds")."""
from __future__ import annotations

import os

from conftest import codes_by_line
from test_project_model import mslint, places, write

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
        host = pos_mask.asnumpy()
        again = np.random.permutation(len(list(np.where(host > 0)[0])))
        return x, order, fixed, again
""")
    # the conversion is MS101's; a draw on its length is not frozen (no MS104); the constant one is
    assert codes_by_line(found) == {8: ["MS101"], 11: ["MS104"], 12: ["MS101"]}


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
        w = np.maximum(x, np.zeros((3, 3)))
        return y, z, k, w
""", select=("MS102", "MS103"))
    # the operator and the call on a tensor are MS102's; the array builders that feed them get no MS103
    assert codes_by_line(found) == {8: ["MS102"], 10: ["MS102"], 11: ["MS103"], 12: ["MS102"]}


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
    assert "a number computed from tensor data" in found[0].message


# -- class 1: a sub-cell that is held but never called is not compiled with its parent --------
LOSS_AND_EXPORT = '''
    import numpy as np
    from mindspore import nn


    class Loss(nn.Cell):
        def construct(self, x):
            return np.sum(x.asnumpy())


    class Export(nn.Cell):
        def __init__(self):
            super(Export, self).__init__()
            self.fc = nn.Dense(2, 2)
            self.loss = Loss()

        def construct(self, x):
            return {body}
'''

EXPORT_PROGRAM = '''
    import numpy as np
    import mindspore as ms
    from pkg.model import Export

    if __name__ == "__main__":
        ms.set_context(mode=ms.GRAPH_MODE)
        ms.export(Export(), ms.Tensor(np.zeros((1, 2), np.float32)), file_name="net", file_format="MINDIR")
'''

TRAIN_PROGRAM = '''
    import numpy as np
    import mindspore as ms
    from pkg.model import Export

    if __name__ == "__main__":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = Export()
        x = ms.Tensor(np.zeros((1, 2), np.float32))
        print(net.loss(net(x)))
'''


def _export_and_train(root, body="self.fc(x)", export=EXPORT_PROGRAM):
    write(root, {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "",
                 "pkg/model.py": LOSS_AND_EXPORT.replace("{body}", body),
                 "pkg/export.py": export, "pkg/train.py": TRAIN_PROGRAM})


def test_a_held_sub_cell_only_a_pynative_program_calls_is_not_compiled_by_the_graph_program(tmp_path):
    _export_and_train(tmp_path)
    findings, result = mslint(tmp_path, "--no-cache", "pkg")
    assert findings == []
    assert "1 more finding withheld" in result.stderr
    alone, _ = mslint(tmp_path, "--no-cache", "pkg/model.py")
    assert alone == []


def test_a_held_sub_cell_the_parent_calls_is_compiled_by_the_graph_program(tmp_path):
    _export_and_train(tmp_path, body="self.loss(self.fc(x))")
    findings, _ = mslint(tmp_path, "--no-cache", "pkg")
    assert places(findings) == {("pkg/model.py", 7, "MS101")}
    assert "Compiled by pkg/export.py; not by PyNative programs" in findings[0]["message"]


def test_a_held_sub_cell_a_graph_program_calls_itself_is_compiled_by_it(tmp_path):
    export = EXPORT_PROGRAM.replace("ms.export(Export(),", "net = Export()\n        net.loss(ms.Tensor([1.0]))\n"
                                    "        ms.export(net,")
    _export_and_train(tmp_path, export=export)
    findings, _ = mslint(tmp_path, "--no-cache", "pkg")
    assert places(findings) == {("pkg/model.py", 7, "MS101")}


def test_a_held_sub_cell_in_library_code_is_still_checked(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "",
                     "pkg/model.py": LOSS_AND_EXPORT.replace("{body}", "self.fc(x)")})
    findings, _ = mslint(tmp_path, "--no-cache", "pkg")
    assert places(findings) == {("pkg/model.py", 7, "MS101")}


# batch 3's tuning half: the holder is a Metric, and the module's own __main__ block runs the cell
METRICS = '''
    import mindspore as ms
    from scipy.stats import spearmanr


    class Spearman(ms.nn.Cell):
        def construct(self, pred, gt):
            return spearmanr(pred.asnumpy(), gt.asnumpy())[0]


    class Correlation(ms.train.Metric):
        def __init__(self):
            super().__init__()
            self.srcc = Spearman()

        def clear(self):
            pass

        def update(self, *inputs):
            {update}

        def eval(self):
            return 0.0


    if __name__ == "__main__":
        {mode}
        print(Spearman()(ms.Tensor([1.0, 2.0]), ms.Tensor([2.0, 1.0])))
'''

GRAPH_TRAIN = '''
    import mindspore as ms
    from pkg.metrics import Correlation

    if __name__ == "__main__":
        ms.set_context(mode=ms.GRAPH_MODE)
        metric = Correlation()
        {use}
'''


def _metric_project(root, update="pass", mode="pass", use="print(metric)"):
    write(root, {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "",
                 "pkg/metrics.py": METRICS.replace("{update}", update).replace("{mode}", mode),
                 "train.py": GRAPH_TRAIN.replace("{use}", use)})


def test_a_cell_a_metric_holds_and_a_pynative_main_block_runs_is_not_compiled_by_the_graph_program(tmp_path):
    _metric_project(tmp_path)
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert findings == []
    assert "2 more findings withheld" in result.stderr


def test_a_cell_the_metric_calls_is_compiled_by_the_program_that_updates_it(tmp_path):
    _metric_project(tmp_path, update="return self.srcc(*inputs)", use="metric.update(ms.Tensor([1.0]), ms.Tensor([2.0]))")
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("pkg/metrics.py", 7, "MS101")}
    assert all("Compiled by train.py; not by PyNative programs." in f["message"] for f in findings)


def test_a_main_block_that_sets_graph_mode_compiles_the_cell_it_runs(tmp_path):
    _metric_project(tmp_path, mode="ms.set_context(mode=ms.GRAPH_MODE)")
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("pkg/metrics.py", 7, "MS101")}
    assert all("Compiled by" not in f["message"] for f in findings)  # every program that reaches it is GRAPH


# -- class 2: an input every parent passes as a Python int is not a tensor --------------------
CHILDREN = '''
    import math
    import numpy as np
    from mindspore import nn


    class Roll(nn.Cell):
        def construct(self, x, *args):
            n, qs = args[0]
            perm = np.roll(range(n), 1)
            return x[perm]


    class Depth(nn.Cell):
        def construct(self, sample, depth_num):
            scale = math.log(math.e, depth_num)
            return sample * scale
'''

PARENT = '''
    from mindspore import nn
    from pkg.ops_q import Roll, Depth


    class Net(nn.Cell):
        def __init__(self, n_qubit=4, depth=8):
            super().__init__()
            self.n_qubit = n_qubit
            self.depth = depth
            self.roll = Roll()
            self.dep = Depth()

        def construct(self, x):
            y = self.roll(x, ({n}, 2))
            return self.dep(y, {depth})
'''


def _parent_and_children(root, n="self.n_qubit", depth="self.depth", extra=None):
    files = {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "", "pkg/ops_q.py": CHILDREN,
             "pkg/net.py": PARENT.replace("{n}", n).replace("{depth}", depth)}
    files.update(extra or {})
    write(root, files)


def test_inputs_every_parent_passes_as_python_ints_are_not_tensors(tmp_path):
    _parent_and_children(tmp_path)
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert findings == []
    alone, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg/ops_q.py")
    assert alone == []


def test_inputs_a_parent_passes_as_tensors_are_still_tensors(tmp_path):
    _parent_and_children(tmp_path, n="x.sum()", depth="x.max()")
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert places(findings) == {("pkg/ops_q.py", 9, "MS102"), ("pkg/ops_q.py", 15, "MS102")}


OTHER_CELLS = '''
    from mindspore import nn
    from pkg.net import Net


    class Unrelated(nn.Cell):
        def __init__(self):
            super().__init__()
            self.roll = nn.Dense(2, 2)

        def construct(self, x):
            return self.roll(x)
'''


def test_a_cell_of_another_class_calling_its_own_attribute_of_that_name_is_no_outside_call(tmp_path):
    # `self.roll(x)` in a Cell whose bases are MindSpore's: its own attribute, not Net's roll
    # (the file's text says so; mslint.analysis.mentions.CodeFacts)
    _parent_and_children(tmp_path, extra={"pkg/other.py": OTHER_CELLS})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert findings == []


def test_a_call_of_the_held_attribute_from_outside_the_parent_keeps_tensor_inputs(tmp_path):
    outside = OTHER_CELLS + '''

    def step(net, x):
        return net.roll(x, (x.sum(), 2))
'''
    _parent_and_children(tmp_path, extra={"pkg/other.py": outside})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert places(findings) == {("pkg/ops_q.py", 9, "MS102")}  # Roll's inputs; Depth's are still ints


def test_a_subclass_of_the_parent_calling_the_attribute_keeps_tensor_inputs(tmp_path):
    subclass = OTHER_CELLS + '''

    class Wider(Net):
        def forward_twice(self, x):
            return self.roll(x, (x.sum(), 2))
'''
    _parent_and_children(tmp_path, extra={"pkg/other.py": subclass})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert places(findings) == {("pkg/ops_q.py", 9, "MS102")}


def test_a_cell_a_program_also_runs_itself_keeps_tensor_inputs(tmp_path):
    program = '''
        import mindspore as ms
        from pkg.ops_q import Depth

        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            print(Depth()(ms.Tensor([1.0]), ms.Tensor([2.0])))
    '''
    _parent_and_children(tmp_path, extra={"pkg/run.py": program})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS102", "pkg")
    assert places(findings) == {("pkg/ops_q.py", 15, "MS102")}


def test_a_cached_result_follows_a_program_that_starts_calling_the_held_cell(tmp_path):
    _export_and_train(tmp_path)
    env = dict(os.environ, MSLINT_CACHE_DIR=str(tmp_path / "cache"))
    first, _ = mslint(tmp_path, "pkg/model.py", env=env)
    assert first == []
    # a new graph program, in a file the first analysis never read, calls the held loss itself
    evaluate = TRAIN_PROGRAM.replace("PYNATIVE_MODE", "GRAPH_MODE")
    write(tmp_path, {"pkg/evaluate.py": evaluate})
    again, _ = mslint(tmp_path, "pkg/model.py", env=env)
    assert places(again) == {("pkg/model.py", 7, "MS101")}


# -- issue 26, class 1: host values taken for graph tensors -----------------------------------
def test_values_read_from_a_metadata_dict_are_not_graph_tensors(project):
    found = lint(project, """
class Meta(nn.Cell):
    def construct(self, img, img_metas):
        out = []
        for i in range(2):
            s = img_metas[i]["scale"]
            out.append(np.prod(s * 200.0))
            out.append(np.array(img_metas[i]["bbox_score"]))
        out.append(np.prod(img * 200.0))
        out.append(np.array(img_metas[0]))
        return out
""", select=("MS102",))
    # a string key says the input is a dict: what it holds is unknown; the tensor input stays one
    assert codes_by_line(found) == {13: ["MS102"], 14: ["MS102"]}


def test_python_scalars_from_attributes_and_shapes_are_not_graph_tensors(project):
    adapter = '''
import mindspore


def Tensor(data, dtype=None):
    return mindspore.Tensor(data, dtype)
'''
    project.write("adapter.py", adapter)
    found = lint(project, """
import adapter


class Q(nn.Cell):
    def __init__(self, n_qubit=4, stride=2):
        super().__init__()
        self.n_qubit = n_qubit
        self.stride = stride
        self.scale = 1.5
        self.w = adapter.Tensor(np.ones(3))

    def construct(self, x):
        perm = np.roll(range(self.n_qubit), 1)
        _, _, H, W = x.shape
        h = math.ceil(H / self.stride)
        sz = np.array(x.shape[2:]).tolist()
        bad = math.isinf(self.scale) or np.isnan(self.scale)
        t = adapter.Tensor(np.ones(3))
        return x, perm, h, sz, bad, t + self.w, math.ceil(x.sum())


class Wrap(nn.Cell):
    def __init__(self, module):
        super().__init__()
        self.weight = module.weight

    def construct(self, x):
        return ops.matmul(x, self.weight)
""", select=("MS102", "MS201", "MS710"))
    assert codes_by_line(found) == {24: ["MS102"]}  # only math.ceil of a tensor's sum


# -- issue 26, class 4: branches that constants decide ----------------------------------------
def test_branches_decided_by_constants_are_not_compiled(project):
    found = lint(project, """
class Sample(nn.Cell):
    def __init__(self):
        super().__init__()
        self.top_p = 1
        self.dim = 0

    def construct(self, x):
        if self.top_p < 1:
            x = ops.masked_select(x, x > 0.5)
        if self.dim != 0:
            x = x[x > 0]
        y = self.encode(x, return_dict=False)
        return y, ops.masked_select(x, x > 1)

    def encode(self, x, return_dict=True):
        if return_dict:
            return {"m": ops.masked_select(x, x > 0)}
        return (x,)
""", select=("MS401", "MS402", "MS403"))
    assert codes_by_line(found) == {18: ["MS401"]}


BLOCK = '''
    from mindspore import nn


    class Block(nn.Cell):
        def __init__(self, c, ksize=3):
            super().__init__()
            self.conv = nn.Conv2d(c, c, ksize, padding=ksize // 2)

        def construct(self, x):
            return self.conv(x)
'''

BODY = '''
    from mindspore import nn
    from pkg.blocks import Block


    class Body(nn.Cell):
        def __init__(self):
            super().__init__()
            self.b1 = Block(4, ksize=1)
            self.b2 = Block(4, {second})

        def construct(self, x):
            return self.b2(self.b1(x))
'''


def test_a_padding_every_construction_makes_zero_is_no_conv_padding_finding(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "",
                     "pkg/blocks.py": BLOCK, "pkg/net.py": BODY.replace("{second}", "1")})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS701", "pkg")
    assert findings == []


def test_a_padding_one_construction_makes_non_zero_is_still_reported(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'example'\n", "pkg/__init__.py": "",
                     "pkg/blocks.py": BLOCK, "pkg/net.py": BODY.replace("{second}", "ksize=3")})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS701", "pkg")
    assert places(findings) == {("pkg/blocks.py", 7, "MS701")}


# the independent review of issue 30's forms: two model files, each with its own `_Head` held as
# `self.head`; a program that builds only one of the networks does not compile the other's head
TWO_HEADS = '''
    from mindspore import nn
    from pkg.common import WIDTH  # importing pkg.common runs pkg/__init__.py, which imports both models


    class _Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.outputs = []

        def construct(self, x):
            self.outputs.append(x)
            return x


    class {name}(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = _Head()

        def construct(self, x):
            return self.head(x)
'''

BUILDS = '''
    import mindspore as ms
    from pkg import {name}

    if __name__ == "__main__":
        ms.set_context(mode=ms.{mode})
        {name}()(ms.Tensor([1.0]))
'''


def test_a_same_named_attribute_of_another_class_is_not_a_call_of_the_held_cell(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'example'\n",
                     "pkg/__init__.py": "from .plain import Plain\nfrom .fused import Fused\n",
                     "pkg/common.py": "WIDTH = 4\n",
                     "pkg/plain.py": TWO_HEADS.replace("{name}", "Plain"),
                     "pkg/fused.py": TWO_HEADS.replace("{name}", "Fused"),
                     "export.py": BUILDS.replace("{name}", "Plain").replace("{mode}", "GRAPH_MODE"),
                     "train.py": BUILDS.replace("{name}", "Fused").replace("{mode}", "GRAPH_MODE"),
                     "eval.py": BUILDS.replace("{name}", "Fused").replace("{mode}", "PYNATIVE_MODE")})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS205", ".")
    notes = {f["path"]: f["message"].rsplit(". ", 1)[-1] for f in findings}
    assert notes == {"pkg/plain.py": "Compiled by export.py; not by PyNative programs.",
                     "pkg/fused.py": "Compiled by train.py; not by PyNative programs."}
