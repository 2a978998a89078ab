"""MS4xx: dynamic-shape producers in graph scope."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import only

HEADER = """\
import mindspore as ms
from mindspore import nn, ops, mint, Tensor

"""  # the snippets below start on line 4


def lint(project, body: str, code: str, **kwargs):
    return only(project.lint_source(HEADER + body, select=[code], **kwargs), code)


def lines(findings):
    return sorted(f.line for f in findings)


# -- MS401 dynamic-shape-op -------------------------------------------------------------------------------------

@pytest.mark.parametrize("expression", [
    "ops.masked_select(x, x > 0)",
    "mint.masked_select(x, x > 0)",
    "x.masked_select(x > 0)",
    "ops.nonzero(x)",
    "x.nonzero()",
    "mint.nonzero(x)",
    "ops.argwhere(x)",
    "mint.where(x > 0)",
    "ops.unique_consecutive(x)",
    "ops.bincount(x)",
    "x.to_coo()",
    "Tensor.nonzero(x)",
    "ops.MaskedSelect()(x, x > 0)",
])
def test_producer_calls_are_flagged(project, expression):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x):
        y = {expression}
        return y
""", "MS401")
    assert lines(findings) == [7]
    assert "dynamic output shape" in findings[0].message
    assert "verified on CPU" in findings[0].message and "Ascend/GPU" in findings[0].message


@pytest.mark.parametrize("imports, call", [
    ("import mindspore.ops as P", "P.masked_select(x, m)"),
    ("from mindspore.ops import masked_select as msel", "msel(x, m)"),
    ("from mindspore import mint as M", "M.nonzero(x)"),
    ("import mindspore", "mindspore.ops.nonzero(x)"),
    ("import mindspore.numpy as mnp", "mnp.argwhere(x)"),
])
def test_producers_resolve_through_any_import_spelling(project, imports, call):
    findings = only(project.lint_source(f"""
{imports}
from mindspore import nn

class Net(nn.Cell):
    def construct(self, x, m):
        return {call}
""", select=["MS401"]), "MS401")
    assert lines(findings) == [6]


def test_primitive_created_in_init_and_called_in_construct(project):
    findings = only(project.lint_source("""
from mindspore import nn
from mindspore.ops import operations as P

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.select = P.MaskedSelect()
        self.nz = P.NonZero()
        self.add = P.Add()

    def construct(self, x, m):
        a = self.select(x, m)
        b = self.nz(x)
        return a, b, self.add(x, x)
""", select=["MS401"]), "MS401")
    assert lines(findings) == [12, 13]
    assert "(MaskedSelect)" in findings[0].message


@pytest.mark.parametrize("mask", [
    "x > 0",
    "~(x > 0)",
    "(x > 0) & (x < 5)",
    "ops.logical_and(x > 0, x < 5)",
    "ops.isnan(x)",
    "ops.logical_not(ops.isinf(x))",
    "(x > 0).astype(ms.bool_)",
    "ops.cast(x, ms.bool_)",
    "x.isnan() | x.isinf()",
    "ops.Greater()(x, 0.0)",
])
def test_boolean_mask_loads_are_flagged(project, mask):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x):
        mask = {mask}
        y = x[mask]
        return y
""", "MS401")
    assert lines(findings) == [8]
    assert findings[0].message.startswith("Boolean-mask indexing 'x[mask]' has a dynamic output shape. It has one "
                                          "element per True in 'mask'. MindSpore 2.10 compiles and runs it")


@pytest.mark.parametrize("mask", [
    "(x == 0).all(-1)",                                   # all/any give Bool whatever their input
    "(x > 0).any(1)",
    "x.any(-1)",
    "ops.all(x > 0, 1)",
    "mint.any(x, dim=-1)",
    "~valid",                                             # MindSpore's ~ gives Bool for every dtype
    "~(x == 0).all(-1)",
    "mint.cat([x > 0, ~(x > 0)], dim=1)",                 # joins of boolean tensors
    "ops.stack((x > 0, x < 5))",
    "ops.concat((x > 0, ops.isnan(x)), 0)",
    "mint.where((x > 0).any(), x > 0, Tensor([True]))",   # picks between boolean branches
    "mint.where(x > 0, x < 5, ms.tensor([True], dtype=(x > 0).dtype))",
    "ops.where(x > 0, x < 5, False)",
    "ops.select(x > 0, x < 5, x > 9)",
])
def test_masks_known_boolean_through_reductions_inversion_joins_and_picks(project, mask):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x, valid):
        mask = {mask}
        y = x[mask]
        return y
""", "MS401")
    assert lines(findings) == [8]
    assert findings[0].message.startswith("Boolean-mask indexing 'x[mask]' has a dynamic output shape. It has one "
                                          "element per True in 'mask'. MindSpore 2.10 compiles and runs it")


@pytest.mark.parametrize("statement", [
    "y = x[(x == 0).sum(-1)]",                  # a count, not a mask: an integer gather
    "y = x[index]",
    "y = x[-index]",
    "y = x[~n]",                                # ~ on a Python int is bitwise not
    "y = x[mint.cat([index, index])]",          # joins of integer indices
    "y = x[mint.cat([x > 0, index])]",
    "y = x[ops.stack((x > 0, index))]",
    "y = x[ops.where(x > 0, index, 0)]",        # a pick with an integer branch
    "y = x[mint.where(x > 0, x > 1, index)]",
    "y = x[mint.where(x > 0, True, 0)]",
    "y = x[ms.tensor([1, 0], dtype=ms.int32)]",
    "y = x[Tensor([True, False], ms.int32)]",
    "y = x[0] if (x == 0).all() else x[1]",     # all() as a condition, not an index
    "y = ops.masked_fill(x, ~(x > 0).any(-1, keep_dims=True), 0.0)",
])
def test_integer_indices_and_conditions_are_not_masks(project, statement):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x, index: Tensor, n: int):
        {statement}
        return y
""", "MS401")
    assert findings == []


def test_inverted_optional_input_is_a_mask(project):
    # videomae: the parent passes an Optional[Tensor] defaulting to None; ~ of it is still Bool
    findings = lint(project, """
from typing import Optional


class Embeddings(nn.Cell):
    def construct(self, x, bool_masked_pos):
        if bool_masked_pos is not None:
            x = x[~bool_masked_pos]
        return x


class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embeddings = Embeddings()

    def construct(self, x, bool_masked_pos: Optional[Tensor] = None, n: Optional[int] = None):
        if n is not None:
            x = x[~n]
        return self.embeddings(x, bool_masked_pos)
""", "MS401")
    assert lines(findings) == [11]


def test_boolean_mask_in_a_tuple_index_and_on_an_init_tensor(project):
    findings = lint(project, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.anchors = Tensor([1.0, 2.0, 3.0])

    def construct(self, x):
        rows = x[x[:, 0] > 0, :]
        picked = self.anchors[x[0] > 0]
        return rows, picked
""", "MS401")
    assert lines(findings) == [11, 12]


def test_a_parameter_used_as_a_mask_elsewhere_is_a_boolean_mask(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, valid, index):
        filled = ops.masked_fill(x, valid, 0.0)
        return x[valid], x[index], filled
""", "MS401")
    assert lines(findings) == [8]
    assert "This function also uses 'valid' as a boolean mask." in findings[0].message


@pytest.mark.parametrize("statement", [
    "x[x < 0] = 0",                      # boolean store keeps the shape
    "x[x < 0] += 1",
    "y = ops.where(x > 0, x, 0.0)",
    "y = ops.select(x > 0, x, ops.zeros_like(x))",
    "y = ops.masked_fill(x, x > 0, 0.0)",
    "y = x * (x > 0).astype(x.dtype)",
    "_, idx = ops.unique(x)",
    "values, idx = ops.unique(x)",        # values never used
    "idx = ops.unique(x)[1]",
    "y = x[0, 1]",
    "y = x[index]",
    "y = x[1:3]",
    "y = x[self.flag]",
    "y = ops.bincount(Tensor([1, 0, 1]))",  # constants only: folded (checked below)
    "y = ops.where(x > 0, 1.0, 0.0)",
])
def test_shape_keeping_code_is_clean(project, statement):
    findings = lint(project, f"""
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = True

    def construct(self, x, index: Tensor):
        {statement}
        return x
""", "MS401")
    assert findings == []


def test_unique_values_used_are_flagged(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        values, idx = ops.unique(x)
        return values
""", "MS401")
    assert lines(findings) == [7]


def test_numpy_and_project_methods_of_the_same_name_are_clean(project):
    findings = lint(project, """
import numpy as np

class Finder:
    def nonzero(self, x):
        return x

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.finder = Finder()
        self.table = np.array([1, 0, 2])

    def construct(self, x):
        return self.finder.nonzero(x), self.table.nonzero()
""", "MS401")
    assert findings == []


def test_finding_in_a_helper_carries_the_reach_chain(project):
    findings = lint(project, """
def keep_positive(x):
    return x[x > 0]

class Net(nn.Cell):
    def construct(self, x):
        return keep_positive(x)
""", "MS401")
    assert lines(findings) == [6]
    assert "called from Net.construct (line 10)" in findings[0].message


def test_init_and_pynative_code_are_not_graph_scope(project):
    findings = lint(project, """
class Net(nn.Cell):
    def __init__(self, x):
        super().__init__()
        self.kept = x[x > 0]

    def construct(self, x):
        return x

def eager(x):
    return ops.masked_select(x, x > 0)
""", "MS401")
    assert findings == []


def test_jit_function_is_graph_scope(project):
    findings = lint(project, """
@ms.jit
def positives(x):
    return ops.masked_select(x, x > 0)
""", "MS401")
    assert lines(findings) == [7]


# -- MS402 topk-variable-k -----------------------------------------------------------------------------------

def test_topk_with_k_from_an_input_annotated_as_tensor_is_flagged(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, n: ms.Tensor):
        values, _ = ops.topk(x, n)
        return values
""", "MS402")
    assert lines(findings) == [7] and findings[0].message.startswith("topk's k, 'n', is computed from a tensor")


def test_topk_with_k_an_unannotated_input_is_quiet(project):
    # the cell may be a sub-cell whose parent passes a Python int: a compile-time constant
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, n):
        values, _ = ops.topk(x, n - 1)
        return values
""", "MS402")
    assert findings == []


@pytest.mark.parametrize("k", [
    "(x > 0).sum()",
    "(x > 0).sum().item()",
    "int((x > 0).sum())",
    "ops.maximum((x > 0).sum() * 0.7, 1).astype(ms.int32)",
    "ms.mutable(2)",
    "n.sum()",
])
def test_topk_with_a_tensor_derived_k_is_flagged(project, k):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x, n):
        k = {k}
        values, _ = ops.topk(x, k)
        return values
""", "MS402")
    assert lines(findings) == [8]
    assert "dynamic output shape" in findings[0].message and findings[0].message.startswith("topk's k, 'k', is computed")


def test_a_sharded_primitive_is_still_the_primitive(project):
    # heldout3 (zidongtaichu's beam search): `P.TopK(sorted=True).shard(...)` returns the primitive
    # itself on 2.10, so its call's k is its second argument, not the input (a constant k here)
    findings = lint(project, """
from mindspore.ops import operations as P


class Decoder(nn.Cell):
    def __init__(self, k=4):
        super().__init__()
        self.k = k
        self.reshape = P.Reshape()
        self.add = P.Add().shard(((1, 1), ()))
        self.topk = P.TopK(sorted=True).shard(((1, 1),))
        self.top = P.TopK().add_prim_attr("primitive_target", "CPU")

    def construct(self, x, n):
        flat = self.reshape(x, (2, -1))
        values, _ = self.topk(flat, self.k)
        picked, _ = self.top(flat, (n > 0).sum())
        return values, picked, self.add(n, 1)
""", "MS402")
    assert lines(findings) == [20] and findings[0].message.startswith("topk's k, '(n > 0).sum()', is computed")


def test_topk_spellings(project):
    findings = lint(project, """
from mindspore.ops import operations as P

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.topk = P.TopK(sorted=True)
        self.count = ms.Parameter(Tensor(3, ms.int32))

    def construct(self, x):
        k = (x > 0).sum()
        a = self.topk(x, k)
        b = x.topk(k)
        c = mint.topk(x, k=k)
        d = ops.TopK()(x, k)
        e = ops.topk(x, self.count)
        return a, b, c, d, e
""", "MS402")
    assert lines(findings) == [15, 16, 17, 18, 19]


@pytest.mark.parametrize("k", [
    "3",
    "self.k",
    "self.ratio_k",
    "x.shape[-1] // 2",
    "int(x.shape[0] * 0.7)",
    "len(x)",
    "ops.shape(x)[0] // 2",
    "int(x.size * self.ratio)",
    "max(1, x.shape[0] // 4)",
    "self.k_tensor",
    "n",
    "self.missing",  # never set: UNKNOWN stays quiet
])
def test_topk_with_a_constant_or_unknown_k_is_clean(project, k):
    findings = lint(project, f"""
class Net(nn.Cell):
    def __init__(self, k, ratio=0.5):
        super().__init__()
        self.k = k
        self.ratio = ratio
        self.ratio_k = int(k * ratio)
        self.k_tensor = Tensor(2, ms.int32)

    def construct(self, x, n: int = 2):
        values, _ = ops.topk(x, {k})
        return values
""", "MS402")
    assert findings == []


def test_topk_in_a_helper_with_k_passed_from_construct(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        mask = x > 0
        hard = self.hardest(x, mask.sum())
        easy = self.hardest(x, 2)
        return hard, easy

    def hardest(self, loss, k):
        return ops.topk(loss, k)[0]
""", "MS402")
    assert lines(findings) == [13]
    assert "called from Net.construct" in findings[0].message


# -- MS403 variable-slice-bound ------------------------------------------------------------------------------

@pytest.mark.parametrize("expression", [
    "x[:n]",
    "x[n:]",
    "x[n:n + 1]",
    "x[:, :n]",
    "x[::int(n)]",
    "ops.slice(x, (n, 0), (1, 2))",
    "ops.strided_slice(x, (0,), (n,), (1,))",
])
def test_slices_with_tensor_bounds_are_flagged(project, expression):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, x):
        n = (x > 0).sum()
        return {expression}
""", "MS403")
    assert lines(findings) == [8]
    assert "dynamic output shape" in findings[0].message


def test_slice_bound_from_an_input_a_parent_module_passes_as_int_is_quiet(project):
    # reduced from a real pattern: a cache cell slices a precomputed range to `capacity // batch`,
    # where its parent cell (in another module) passes `batch` from `ops.Shape()(ids)`, a Python int
    project.write("pkg/__init__.py", "")
    project.write("pkg/cache.py", HEADER + """
class RangeWindow(nn.Cell):
    def __init__(self, capacity):
        super().__init__()
        self.capacity = capacity
        self.positions = ops.arange(0, capacity).reshape(1, 1, -1)
        self.cut = ops.StridedSlice()

    def construct(self, batch, lengths=None):
        window = self.capacity // batch
        steps = self.cut(self.positions, (0, 0, 0), (1, 1, window), (1, 1, 1))
        return steps[:, :, :batch + 1], ops.slice(self.positions, (0, 0, 0), (1, 1, -batch))
""")
    project.write("pkg/model.py", HEADER + """
from pkg.cache import RangeWindow


class Decoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.window = RangeWindow(64)
        self.shape = ops.Shape()

    def construct(self, ids):
        batch, _ = self.shape(ids)
        return self.window(batch)
""")
    assert only(project.lint("pkg/cache.py", select=["MS403"]), "MS403") == []


def test_bounds_built_from_an_input_index_into_constant_sequences_are_quiet(project):
    # reduced from two real patterns: a jit-compiled optimizer step that looks up where a parameter
    # group starts in a list built in __init__, and a micro-batch splitter that builds the begin
    # tuple of a strided slice step by step from the micro-batch index its parent loops over
    findings = lint(project, """
class Splitter(nn.Cell):
    def __init__(self, parts):
        super().__init__()
        self.parts = parts
        self.starts = [0, 4, 9]
        self.cut = ops.StridedSlice()

    @ms.jit
    def group(self, grads, index):
        first = self.starts[index]
        last = self.starts[index + 1]
        return grads[first:last]

    def construct(self, index, x):
        rows = x.shape[0] // self.parts
        begin = (rows * index,)
        end = (rows * (index + 1),)
        for _ in range(x.ndim - 1):
            begin += (0,)
        end += x.shape[1:]
        return self.cut(x, begin, end, (1,) * x.ndim)
""", "MS403")
    assert findings == []


def test_bound_from_an_inherited_sequence_indexed_by_an_input_is_quiet(project):
    # the list of group starts is built by a MindSpore base class the analysis does not read
    findings = lint(project, """
from mindspore.experimental.optim import Optimizer


class Stepper(Optimizer):
    @ms.jit
    def step_group(self, grads, group):
        return grads[self.group_start_id[group]:self.group_start_id[group + 1]]
""", "MS403")
    assert findings == []


@pytest.mark.parametrize("signature, bound, said", [
    ("x, n: Tensor", "n", "a tensor value"),              # annotated as a tensor: evidence
    ("x, n", "n.sum()", "a tensor value"),                # a tensor op on the input
    ("x, n", "ops.argmax(x) + 1", "a number computed from tensor data"),  # computed by an op
    ("x, n", "int(n.sum()) // 2", "a number computed from tensor data"),  # a Python number made from one
])
def test_slice_bound_with_evidence_of_a_tensor_is_flagged(project, signature, bound, said):
    findings = lint(project, f"""
class Net(nn.Cell):
    def construct(self, {signature}):
        k = {bound}
        return x[:k]
""", "MS403")
    assert lines(findings) == [8] and f"the bound 'k', {said}. The slice has a dynamic output shape." in findings[0].message


def test_slice_bound_passed_by_a_graph_caller_as_a_tensor_is_flagged(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        return self.head(x, (x > 0).sum())

    def head(self, x, n):
        return x[:n]
""", "MS403")
    assert lines(findings) == [10]


@pytest.mark.parametrize("statement", [
    "y = x[:self.k]",
    "y = x[:x.shape[0] // 2]",
    "y = x[1:-1]",
    "y = x[:, :len(x)]",
    "x[:n] = 0",
    "y = ops.slice(x, (0, 0), (1, 2))",
    "y = self.names[:n]",
])
def test_slices_with_constant_bounds_or_stores_are_clean(project, statement):
    findings = lint(project, f"""
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2
        self.names = ("a", "b")

    def construct(self, x):
        n = (x > 0).sum()
        {statement}
        return x
""", "MS403")
    assert findings == []


# -- MS404 variable-axis (off by default) --------------------------------------------------------------------

def test_variable_axis_is_off_by_default_and_flags_when_selected(project):
    source = HEADER + """
class Net(nn.Cell):
    def construct(self, x):
        axis = int((x > 100).sum())
        a = x.sum(axis)
        b = ops.mean(x, axis=axis)
        c = ops.transpose(x, (axis, 1 - axis))
        d = x.sum(x.ndim - 1)
        e = ops.max(x, 0)
        f = x.permute(1, 0)
        return a, b, c, d, e, f
"""
    assert only(project.lint_source(source), "MS404") == []
    findings = only(project.lint_source(source, select=["MS404"]), "MS404")
    assert lines(findings) == [8, 9, 10]
    assert "takes its axis from 'axis'" in findings[0].message


# -- MS405 shape-divergent-branches (off by default) ---------------------------------------------------------

def test_branches_binding_dynamic_and_static_shapes(project):
    source = HEADER + """
class Net(nn.Cell):
    def construct(self, x, y):
        if y > 0.5:
            out = ops.masked_select(x, x > 0.5)
        else:
            out = ops.zeros_like(x)
        if self.training:
            same = ops.masked_select(x, x > 0.5)
        else:
            same = x
        if y > 0:
            both = x * 2
        else:
            both = x + 1
        kept = x
        if y.sum() > 3:
            kept = x[x > 0]
        return out, same, both, kept
"""
    assert only(project.lint_source(source), "MS405") == []
    findings = only(project.lint_source(source, select=["MS405"]), "MS405")
    assert lines(findings) == [7, 20]
    assert "'out'" in findings[0].message and "ops.select" in findings[0].message


def test_bounds_from_calls_the_analysis_cannot_follow_and_unpacked_inputs_are_quiet(project):
    findings = lint(project, """
class Counter(nn.Cell):
    def construct(self, x):
        return x.shape[0]


class Middle(nn.Cell):
    def __init__(self):
        super().__init__()
        self.counter = Counter()

    def construct(self, x):
        return self.counter(x)


class Head(nn.Cell):
    def __init__(self, cache):
        super().__init__()
        self.cache = cache
        self.middle = Middle()

    def construct(self, x, in_args):
        boxes, idx = in_args
        seen = self.cache.get_seq_length(x)
        k = unknown_helper(x)
        n = self.middle(x)
        t = int(x.sum())
        return boxes[:idx], x[:, seen:], x[:k], x[:n], x[:t]
""", "MS403")
    # an object passed to __init__, an unresolved helper, an int from a sub-cell too deep to follow, an
    # element of a root input: no evidence of a tensor; int(x.sum()) is one
    assert [(f.line, f.column) for f in findings] == [(31, 55)]


def test_root_inputs_handed_to_helpers_keep_their_exemption_in_this_module_and_another(project):
    # issue 14 item 2: a root input (or its part) passed on to a helper is no more a tensor there than in
    # the root; a bound the graph computes from tensor data, passed the same way, is still reported
    project.write("pkg/__init__.py", "")
    project.write("pkg/utils.py", """
        def crop(boxes, count):
            return boxes[:count]


        def crop_twice(boxes, count, step=1):
            return crop(boxes, count * 2 - step)


        def head(rows, n):
            return rows[:n]
    """)
    project.write("pkg/model.py", """
        from mindspore import nn
        from .utils import crop, crop_twice, head


        class Direct(nn.Cell):
            def construct(self, boxes, num):
                return crop(boxes, num)


        class Unpacked(nn.Cell):
            def trim(self, boxes, num):
                return boxes[:num]

            def construct(self, inputs):
                boxes, num = inputs
                return self.trim(boxes, num), crop_twice(boxes, num), crop(inputs[0], inputs[1] + 1)


        class Counted(nn.Cell):
            def construct(self, x, rows):
                return head(rows, int((x > 0).sum()))


        class Mixed(nn.Cell):
            def construct(self, x, rows, n):
                return head(rows, n) + head(rows, x.argmax())
    """)
    # head() is called with an input and with bounds from tensor data: reported once, in head
    findings = only(project.lint("pkg/utils.py", select=["MS403"]), "MS403")
    assert [(f.path.rsplit("/", 1)[-1], f.line) for f in findings] == [("utils.py", 10)]
    assert "slices with the bound 'n'" in findings[0].message and "called from" in findings[0].message
    # linted alone, model.py shows it at the call that reaches it; Unpacked.trim is quiet
    findings = only(project.lint("pkg/model.py", select=["MS403"]), "MS403")
    assert [(f.path.rsplit("/", 1)[-1], f.line) for f in findings] == [("model.py", 21)]
    assert " It is at utils.py:10, a file not in this run, reached by this call to head. " in findings[0].message


def test_lists_filled_in_graph_hold_graph_values(project):
    findings = only(project.lint_source(HEADER + """
import numpy as np


class Neck(nn.Cell):
    def construct(self, feats, x):
        parts = []
        for f in feats:
            parts.append(f * 2)
        merged = ops.concat(parts)
        counts = [0, 0]
        counts[0] = x.sum()
        k = int(counts[0])
        fixed = []
        fixed.append(3)
        return ops.topk(merged, k), merged[:k], ops.topk(merged, fixed[0])
""", select=["MS4"]), "MS402")
    # the FPN idiom: a list filled with .append() (or item assignment) holds tensors, not constants;
    # a list of ints filled the same way stays constant
    assert [(f.code, f.line, f.column) for f in findings] == [("MS402", 19, 15)]


def test_lists_filled_in_graph_make_numpy_calls_on_them_calls_on_tensors(project):
    findings = project.lint_source(HEADER + """
import numpy as np


class Neck(nn.Cell):
    def construct(self, feats):
        parts = []
        for f in feats:
            parts.append(f * 2)
        return np.stack(parts), np.ones((3,))
""", select=["MS1"])
    assert [(f.code, f.column) for f in findings] == [("MS102", 15), ("MS103", 32)]


def test_parameters_of_sub_cells_are_tensors(project):
    findings = lint(project, """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ops.ones(4))


class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)
        self.block = Block()

    def construct(self, x):
        k = int(x.sum())
        return self.fc.weight[:k], self.block.scale[:k], self.fc.in_channels
""", "MS403")
    assert [(f.line, f.column) for f in findings] == [(19, 15), (19, 35)]


def test_parameters_of_nested_sub_cells_and_of_listed_cells_are_tensors(project):
    # issue 14 item 12: the Parameters of a sub-cell's sub-cell, of a SequentialCell's or a CellList's
    # element, in a package whose cells live in another module
    project.write("pkg/__init__.py", "")
    project.write("pkg/blocks.py", """
        import mindspore as ms
        from mindspore import nn, ops


        class Inner(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(8, 8)
                self.w = ms.Parameter(ops.zeros((8, 8)), name="w")
                self.weight = [1, 2, 3]
                self.table = [4, 5, 6]


        class Outer(nn.Cell):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
    """)
    project.write("pkg/model.py", """
        from mindspore import nn
        from .blocks import Inner, Outer


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.outer = Outer()
                self.inner = Inner()
                self.seq = nn.SequentialCell([nn.Dense(8, 8), Inner()])
                self.cells = nn.CellList([nn.Dense(8, 8)])
                self.blocks = nn.CellList([nn.Dense(8, 8) for _ in range(3)])

            def construct(self, x):
                k = int((x > 0).sum())
                a = self.inner.proj.weight[:k]
                b = self.outer.inner.proj.bias[:k]
                c = self.outer.inner.w[:, :k]
                d = self.seq[0].weight[:k]
                e = self.seq[1].proj.weight[:k]
                f = self.cells[0].bias[:k]
                g = self.blocks[2].weight[:k]
                # not Parameters: what the classes store is a list, and a nested layer's int
                h = self.inner.weight[:k], self.outer.inner.table[:k], self.seq[1].table[:k]
                return a, b, c, d, e, f, g, h
    """)
    findings = only(project.lint("pkg/model.py", select=["MS403"]), "MS403")
    assert [(f.path.rsplit("/", 1)[-1], f.line) for f in findings] == [("model.py", line) for line in range(16, 23)]
    assert "'self.outer.inner.proj.bias[:k]'" in findings[1].message


def test_a_mask_built_from_an_unresolved_result_still_indexes_with_a_dynamic_shape(project):
    findings = lint(project, """
class Render(nn.Cell):
    def __init__(self, renderer):
        super().__init__()
        self.renderer = renderer

    def construct(self, x):
        out = self.renderer(x)
        n = out["count"] + 1
        return out["depth"][out["opacity"] > 0.5], out["depth"][:n]
""", "MS401") + only(project.lint("example.py", select=["MS403"]), "MS403")
    # what the renderer returns is unknown, but comparing part of it and indexing with the result is a
    # boolean mask; an int taken from it is no evidence of a tensor bound
    assert [(f.code, f.line) for f in findings] == [("MS401", 13)]


def test_a_bound_from_a_converted_tensor_is_still_data_dependent(project):
    findings = lint(project, """
class Cut(nn.Cell):
    def construct(self, x):
        lengths = x.sum(-1).tolist()
        end = int(lengths[0])
        return x[:end]
""", "MS403")
    # .tolist() is MS101's finding; the slice it bounds still has a dynamic shape
    assert [(f.line, f.column) for f in findings] == [(9, 15)]


# -- masks built from constants (issue 14 item 13) ----------------------------------------------
CONSTANT_MASKS = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
from mindspore.ops import functional as F


class Probe(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def construct(self, x):
        if self.kind == "ones":
            y = x[ops.ones((6,), ms.float32) > 0]
        elif self.kind == "arange":
            y = x[ops.arange(6) < 3]
        elif self.kind == "fill":
            y = x[ops.fill(ms.bool_, (6,), True)]
        elif self.kind == "data":
            y = x[x > 0]
        else:
            y = x[ops.arange(3)]
        return F.isconstant(y.shape[0])
"""


def test_masks_built_from_constants_are_dynamic_too(project):
    found = only(project.lint_source(CONSTANT_MASKS, select=["MS401"]), "MS401")
    assert [f.line for f in found] == [14, 16, 18, 20]
    assert all("The mask is built from constants, but MindSpore does not fold it." in f.message for f in found[:3])
    assert "built from constants" not in found[3].message


def probe_shapes(tmp_path, program: str):
    """Run a probe program with MindSpore; ({kind: "static" or "dynamic"} from the lines it prints, the run)."""
    (tmp_path / "probe.py").write_text(program)
    result = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    shapes = dict(line.rsplit(" ", 1) for line in result.stdout.splitlines() if line.endswith(("static", "dynamic")))
    return shapes, result


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_does_not_fold_constant_masks(tmp_path):
    program = CONSTANT_MASKS + """
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.arange(6, dtype=np.float32) - 2)
for kind in ("ones", "arange", "fill", "data", "integer index"):
    print(kind, "static" if Probe(kind)(x) else "dynamic")
"""
    shapes, result = probe_shapes(tmp_path, program)
    assert shapes == {"ones": "dynamic", "arange": "dynamic", "fill": "dynamic", "data": "dynamic",
                      "integer index": "static"}, result.stdout + result.stderr[-2000:]


BOOLEAN_MASKS = HEADER + """\
from mindspore.ops import functional as F
import numpy as np


class Probe(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def construct(self, x, t, index):
        p = t > 0
        if self.kind == "all of a comparison":
            y = x[(x == 0).all(-1)]
        elif self.kind == "any of floats":
            y = x[(x + 1).any(-1)]
        elif self.kind == "invert an int input":
            y = x[~index]
        elif self.kind == "cat of masks":
            y = x[:, :2][mint.cat([p, ~p], dim=1)]
        elif self.kind == "where of masks":
            y = x[:, :1][mint.where(p.any(), p, ms.tensor([True], dtype=p.dtype))]
        elif self.kind == "where with a bool literal":
            y = x[:, :1][ops.where(p, p, True)]
        elif self.kind == "sum of a comparison":
            y = x[(x == 0).sum(-1)]
        else:
            y = x[index]
        return F.isconstant(y.shape[0])
"""


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_masks_from_reductions_inversion_joins_and_picks_are_dynamic(tmp_path):
    program = BOOLEAN_MASKS + """
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.array([[0, 0], [1, 0], [0, 0], [2, 3]], np.float32))
t = Tensor(np.array([[1.0], [-1.0], [2.0], [0.0]], np.float32))
index = Tensor(np.array([0, 1, 1, 0], np.int32))
for kind in ("all of a comparison", "any of floats", "invert an int input", "cat of masks", "where of masks",
             "where with a bool literal", "sum of a comparison", "integer index"):
    print(kind, "static" if Probe(kind)(x, t, index) else "dynamic")


class Invert(nn.Cell):
    def construct(self, m):
        return ~m


print("invert int32 dtype", Invert()(index).dtype)
"""
    shapes, result = probe_shapes(tmp_path, program)
    assert shapes == {"all of a comparison": "dynamic", "any of floats": "dynamic", "invert an int input": "dynamic",
                      "cat of masks": "dynamic", "where of masks": "dynamic", "where with a bool literal": "dynamic",
                      "sum of a comparison": "static", "integer index": "static"}, result.stdout + result.stderr[-2000:]
    assert "invert int32 dtype Bool" in result.stdout


# -- producers of constants (the review's part B: a mask filled from shapes) ---------------------
CONSTANT_PRODUCERS = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor
from mindspore.ops import functional as F


class Probe(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def construct(self, x):
        if self.kind == "nonzero":
            y = ops.nonzero(Tensor([1, 0, 1]))
        elif self.kind == "unique":
            y = ops.unique(Tensor([1, 2, 2]))[0]
        elif self.kind == "masked_select":
            y = ops.masked_select(Tensor([1.0, 2.0, 3.0]), Tensor([True, False, True]))
        elif self.kind == "filled":
            lengths = [len(t) for t in (x, x[1:])]
            mask = mint.zeros([2, max(lengths)])
            for i in range(2):
                mask[i, :lengths[i]] = 1
            y = mint.nonzero(mask)
        else:
            y = ops.bincount(Tensor([1, 2, 2]))
        return F.isconstant(y.shape)
"""


def test_producers_of_constants_are_dynamic_too(project):
    found = only(project.lint_source(CONSTANT_PRODUCERS, select=["MS401"]), "MS401")
    assert [f.line for f in found] == [14, 16, 18, 24]
    assert all("Its input is built from constants, but MindSpore does not fold it." in f.message for f in found[:3])


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_does_not_fold_producers_of_constants(tmp_path):
    program = CONSTANT_PRODUCERS + """
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
for kind in ("nonzero", "unique", "masked_select", "filled", "bincount"):
    print(kind, "static" if Probe(kind)(x) else "dynamic")
"""
    shapes, result = probe_shapes(tmp_path, program)
    assert shapes == {"nonzero": "dynamic", "unique": "dynamic", "masked_select": "dynamic", "filled": "dynamic",
                      "bincount": "static"}, result.stdout + result.stderr[-2000:]


# -- heldout2 classes 3 and 4: a boolean-mask assignment and COOTensor.to_csr keep their shapes ----
MASK_ASSIGNMENT = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
from mindspore.ops import functional as F


class Probe(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def construct(self, a, u):
        if self.kind == "assignment":
            a[a > 8] = u
            y = a
        else:
            y = a[a > 8]
        return F.isconstant(y.shape[0])
"""


def test_a_boolean_mask_assignment_is_not_a_dynamic_shape(project):
    found = only(project.lint_source(MASK_ASSIGNMENT, select=["MS401"]), "MS401")
    assert [f.line for f in found] == [17]  # the read a[a > 8], not the assignment on line 14
    assert found[0].message.startswith("Boolean-mask indexing 'a[a > 8]' has a dynamic output shape.")


def test_coo_tensor_to_csr_is_not_a_dynamic_shape_producer(project):
    found = only(project.lint_source("""
from mindspore import nn, COOTensor


class COOToCSRNet(nn.Cell):
    def construct(self, coo_tensor):
        return coo_tensor.to_csr()


class Built(nn.Cell):
    def construct(self, indices, values):
        return COOTensor(indices, values, (3, 4)).to_csr(), values.nonzero()
""", select=["MS401"]), "MS401")
    assert [f.line for f in found] == [11]  # values.nonzero(), the true finding beside them
    assert "'values.nonzero'" in found[0].message


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_keeps_the_shape_of_a_boolean_mask_assignment(tmp_path):
    program = MASK_ASSIGNMENT + """
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
a = Tensor(np.arange(12, dtype=np.float32))
for kind in ("assignment", "read"):
    print(kind, "static" if Probe(kind)(a, Tensor(0.0, ms.float32)) else "dynamic")
"""
    shapes, result = probe_shapes(tmp_path, program)
    assert shapes == {"assignment": "static", "read": "dynamic"}, result.stdout + result.stderr[-2000:]


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_mindspore_primitive_setters_return_the_primitive(tmp_path):
    # the fact behind test_a_sharded_primitive_is_still_the_primitive: each setter the analysis
    # reads through returns the primitive itself, so a sharded TopK keeps a constant k
    from mslint.analysis.lattice import PRIMITIVE_SETTERS

    arguments = {"shard": "(((1, 1),),)", "add_prim_attr": "('a', 1)", "del_prim_attr": "('a',)",
                 "set_device": "('CPU',)", "recompute": "()", "set_prim_instance_name": "('x',)", "set_stage": "(0,)"}
    assert set(arguments) == PRIMITIVE_SETTERS
    program = HEADER + f"""\
import numpy as np
from mindspore.ops import operations as P

for name, arguments in {sorted(arguments.items())!r}:
    primitive = P.TopK(sorted=True)
    primitive.add_prim_attr('a', 0)
    print(name, "static" if getattr(primitive, name)(*eval(arguments)) is primitive else "dynamic")


class Decoder(nn.Cell):
    def __init__(self, k=4):
        super().__init__()
        self.k = k
        self.topk = P.TopK(sorted=True).shard(((1, 1),))

    def construct(self, x):
        values, _ = self.topk(ops.reshape(x, (2, -1)), self.k)
        return ops.isconstant(values.shape)


ms.set_context(mode=ms.GRAPH_MODE)
print("sharded topk", "static" if Decoder()(Tensor(np.ones((2, 8), np.float32))) else "dynamic")
"""
    shapes, result = probe_shapes(tmp_path, program)
    expected = {name: "static" for name in arguments}
    expected["sharded topk"] = "static"
    assert shapes == expected, result.stdout + result.stderr[-2000:]
