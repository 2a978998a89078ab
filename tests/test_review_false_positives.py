"""False positives the independent precision review found on the PyPI corpora (issue 14),
each reduced to its pattern, with the true positive next to it that must stay."""
from __future__ import annotations

from conftest import codes_by_line

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops
"""


def lint(project, body, select=("MS102", "MS104", "MS403")):
    return project.lint_source(HEADER + body, select=select)


# -- MS403: slice bounds that are ints -------------------------------------------------------
def test_an_enumerate_index_is_a_compile_time_int(project):
    # transformer_lumina2.py: `for i, (cap, seq) in enumerate(zip(lengths, seqs)): ids[i : i + 1]`
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, x, lengths, seqs):
        parts = []
        for i, (cap, seq) in enumerate(zip(lengths, seqs)):
            parts.append(x[i:i + 1])
        for i, n in enumerate(lengths):
            parts.append(x[:n.sum()])
        return parts
""")
    assert codes_by_line(found) == {11: ["MS403"]}
    assert "the bound 'n.sum()'" in found[0].message


def test_an_input_container_indexed_by_a_constant_is_an_input(project):
    # modeling_flaubert.py: `_slen = slen - cache["slen"]; input_ids[:, -_slen:]`
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, input_ids, cache=None):
        slen = input_ids.shape[1]
        if cache is not None:
            _slen = slen - cache["slen"]
            input_ids = input_ids[:, -_slen:]
        k = input_ids.sum()
        return input_ids[:, :k]
""")
    assert codes_by_line(found) == {12: ["MS403"]}


def test_a_bound_computed_by_the_interpreter_says_so(project):
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        counts = x.asnumpy().cumsum(0)
        end = int(counts[0])
        return x[:end]
""", select=("MS403",))
    assert codes_by_line(found) == {9: ["MS403"]}
    assert "'end', a number computed from tensor data" in found[0].message


# -- MS102: a call with no tensor in it ------------------------------------------------------
def test_a_spread_tuple_of_shape_numbers_passes_ints(project):
    # modeling_groupvit.py: resize_attention_map(att, *pixel_values.shape[2:]) -> np.round(width / scale)
    helper = """
def resize(att, height, width):
    scale = (height * width // att.shape[2]) ** 0.5
    return att.reshape(1, int(np.round(width / scale)), -1)

"""
    assert lint(project, helper + """
class Net(nn.Cell):
    def construct(self, x, att):
        return resize(att, *x.shape[2:])
""", select=("MS102",)) == []
    found = lint(project, helper + """
class Net(nn.Cell):
    def construct(self, x, att):
        return resize(att, *(x, x))
""", select=("MS102",))
    assert codes_by_line(found) == {7: ["MS102"]}  # tensors spread in: the NumPy call gets one
    assert "called from Net.construct (line 12)" in found[0].message


# -- dispatch on isinstance ------------------------------------------------------------------
def test_the_numpy_branch_of_an_isinstance_dispatch_is_not_compiled(project):
    # image_transforms.py: `if is_tensor(b): ... elif isinstance(b, np.ndarray): _numpy(b)`
    found = lint(project, """
def _numpy(b):
    return np.stack([b[..., 0], b[..., 1]], axis=-1)


def _mindspore(b):
    return ops.stack([b[..., 0], b[..., 1]], axis=-1)


def is_tensor(x):
    return isinstance(x, ms.Tensor)


def convert(b):
    if is_tensor(b):
        return _mindspore(b)
    elif isinstance(b, np.ndarray):
        return _numpy(b)
    raise ValueError("unsupported")


def convert_numpy_first(b):
    if isinstance(b, (np.ndarray, np.generic)):
        return _numpy(b)
    return _mindspore(b)


class Net(nn.Cell):
    def construct(self, x):
        y = ops.relu(x)
        return convert(y) + convert_numpy_first(y)


class Bad(nn.Cell):
    def construct(self, x):
        return _numpy(ops.relu(x))
""", select=("MS102",))
    assert codes_by_line(found) == {6: ["MS102"]}
    assert "called from Bad.construct" in found[0].message


# -- MS104: draws after a constant seed ------------------------------------------------------
def test_draws_after_a_constant_seed_are_the_same_on_every_call(project):
    # modeling_big_bird.py: np.random.seed(self.seed) and then np.random.permutation in a helper
    found = lint(project, """
class Sparse(nn.Cell):
    def __init__(self, seed=0):
        super().__init__()
        self.seed = seed

    def construct(self, x):
        return self.attend(x, self.seed)

    def attend(self, x, seed):
        np.random.seed(seed)
        mask = self._rand_mask(8)
        return x * ms.Tensor(mask)

    @staticmethod
    def _rand_mask(n):
        return np.random.permutation(n)


class SeedAfter(nn.Cell):
    def construct(self, x):
        noise = np.random.rand()
        np.random.seed(0)
        return x * noise


class OtherGenerator(nn.Cell):
    def construct(self, x):
        np.random.seed(0)
        import random
        return x * random.random()
""", select=("MS104",))
    assert codes_by_line(found) == {25: ["MS104"], 34: ["MS104"]}


# -- the project-model review's false positives (benchmarks/review/project-model-verdicts.md) ----
def test_varargs_hold_the_arguments_and_a_none_default_closes_isinstance_branches(project):
    # diffusers' deprecate(*args, take_from=None): warnings.warn gets strings (n 5), and
    # `isinstance(take_from, dict) and ...` is False when take_from is left at None (n 10, 12)
    found = project.lint_source(HEADER + """
import inspect
import warnings


def deprecate(*args, take_from=None):
    deprecated_kwargs = take_from
    for attribute, version_name, message in (args,):
        warnings.warn(f"`{attribute}` is removed in {version_name}. " + message, FutureWarning)
    if isinstance(deprecated_kwargs, dict) and len(deprecated_kwargs) > 0:
        frame = inspect.getouterframes(inspect.currentframe())[1]
    return args


def spread(*parts):
    return np.concatenate(parts)


class Net(nn.Cell):
    def construct(self, x):
        deprecate("encoder_hidden_states", "0.35.0", "use encoder_hidden_states_t5")
        return spread(x, x)
""", select=("MS102", "MS103"))
    assert codes_by_line(found) == {19: ["MS102"]}  # only the tensors spread into *parts
    assert "np.concatenate" in found[0].message


def test_a_conditional_expression_on_a_constant_takes_one_arm(project):
    helper = """
def head(x, flag=False):
    k = x.sum() if flag else 3
    return x[:k]

"""
    assert project.lint_source(HEADER + helper + """
class Quiet(nn.Cell):
    def construct(self, x):
        return head(x)
""", select=("MS403",)) == []
    found = project.lint_source(HEADER + helper + """
class Loud(nn.Cell):
    def construct(self, x):
        return head(x, True)
""", select=("MS403",))
    assert codes_by_line(found) == {7: ["MS403"]}


def test_a_product_of_shape_numbers_through_functools_reduce_is_quiet(project):
    # mindbnb's prod(iterable) = reduce(operator.mul, iterable, 1) on a shape (MS103's scalar-math exclusion)
    found = project.lint_source(HEADER + """
import operator
from functools import reduce


def prod(iterable):
    return reduce(operator.mul, iterable, 1)


class Net(nn.Cell):
    def construct(self, x):
        n = prod(list(x.shape))
        table = np.ones((3, 3))
        return x.reshape(n) + ms.Tensor(table).sum()
""", select=("MS103",))
    assert [f.line for f in found] == [16]  # only the array np.ones((3, 3)), worth computing in __init__


# -- MS403: part B of the review (ids 73, 75, 76, 77, 79) ----------------------------------
def test_a_method_a_tensor_lacks_returns_no_tensor(project):
    # modeling_mistral.py / modeling_moshi.py: `target_length = past_key_values.get_max_cache_shape()`
    # (an int) on a `past_key_values=None` taken for a tensor; `x.sum()` on an input still is one
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, x, cache=None):
        t = cache.get_max_cache_shape()
        head = x[:, :t]
        n = x.sum()
        return head, x[:, :n]
""", select=("MS403",))
    assert codes_by_line(found) == {10: ["MS403"]}
    assert "the bound 'n', a tensor value" in found[0].message


def test_a_dict_read_through_keys_in_a_helper_holds_no_tensor(project):
    # modeling_perceiver.py:2452: `restructure(modality_sizes, inputs)`, reached from a construct's
    # `modality_sizes=None`: `.keys()` shows the value is a dict, not the tensor it was taken for;
    # a length read from a tensor's rows is still reported
    found = lint(project, """
def restructure(modality_sizes, inputs):
    outputs = {}
    index = 0
    for modality in sorted(modality_sizes.keys()):
        size = modality_sizes[modality]
        outputs[modality] = inputs[:, index:index + size]
        index += size
    return outputs


def split_rows(lengths, inputs):
    outputs = []
    for length in lengths:
        outputs.append(inputs[:, :length])
    return outputs


class Net(nn.Cell):
    def construct(self, inputs, modality_sizes=None):
        mask = inputs > 0
        return restructure(modality_sizes, inputs), split_rows(mask.sum(axis=1), inputs)
""", select=("MS403",))
    assert codes_by_line(found) == {18: ["MS403"]}
    assert "'inputs[:, :length]'" in found[0].message


def test_max_over_shape_numbers_is_an_int(project):
    # modeling_seamless_m4t.py:80: `max_len = max([s.shape[0] for s in sequences])` in pad_sequence;
    # the longest count of positives is still a tensor value
    found = lint(project, """
def pad(seqs):
    max_len = max([s.shape[0] for s in seqs])
    total = sum(s.shape[-1] for s in seqs)
    longest = max([(s > 0).sum() for s in seqs])
    out = []
    for s in seqs:
        out.append(s[:max_len, :total])
        out.append(s[:longest])
    return out


class Net(nn.Cell):
    def construct(self, x):
        return pad([x, x * 2])
""", select=("MS403",))
    assert codes_by_line(found) == {12: ["MS403"]}
    assert "the bound 'longest'" in found[0].message


def test_a_dynamic_length_still_makes_shape_numbers_dynamic(project):
    # the comprehension's elements decide: a shape of a dynamic-length tensor is a graph value
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        picked = ops.nonzero(x)
        n = max([p.shape[0] for p in (picked, picked)])
        return x[:n]
""", select=("MS403",))
    assert codes_by_line(found) == {9: ["MS403"]}


def test_an_input_annotated_as_ints_is_ints(project):
    # modeling_swinv2.py:805: `input_dimensions: Tuple[int, int]`, then `height, width = input_dimensions`
    found = lint(project, """
from typing import Dict, List, Mapping, Optional, Tuple

SizeMap = Mapping[str, int]


class Net(nn.Cell):
    def construct(self, x, dims: Tuple[int, int], sizes: SizeMap, starts: Optional[List[int]] = None,
                  ends: "Dict[str, int] | None" = None, n: ms.Tensor = None, parts: Tuple[ms.Tensor, int] = None):
        h, w = dims
        a = x[:, :h, :w]
        b = x[:, :sizes["a"]]
        c = x[:, starts[0]:]
        d = x[:, :n]
        e = x[:, :parts[0]]
        return a, b, c, d, e
""", select=("MS403",))
    assert codes_by_line(found) == {17: ["MS403"], 18: ["MS403"]}


def test_a_loop_key_of_an_input_container_is_an_input(project):
    # the review's reduction of modeling_perceiver.py:2452 (`sizes["a"]` was already quiet)
    found = lint(project, """
class Net(nn.Cell):
    def construct(self, x, sizes=None, lengths: ms.Tensor = None):
        for k in sizes:
            n = sizes[k]
        head = x[:, :n]
        for k in lengths:
            m = lengths[k]
        return head, x[:, :m]
""", select=("MS403",))
    assert codes_by_line(found) == {12: ["MS403"]}
    assert "the bound 'm'" in found[0].message


def test_a_bare_container_annotation_is_no_evidence_of_tensor_elements(project):
    # the second precision review: blip_diffusion's `ctx_begin_pos: list` holds config ints
    source = """
        from mindspore import nn, Tensor


        class Bare(nn.Cell):
            def construct(self, x: Tensor, pos: list):
                for i in range(x.shape[0]):
                    p = pos[i]
                    y = x[i, :p]
                return y


        class Typed(nn.Cell):
            def construct(self, x: Tensor, pos: Tensor):
                p = pos[0]
                return x[:, :p]
    """
    found = [(f.code, f.line) for f in project.lint_source(source, select=["MS403"])]
    assert found == [("MS403", 15)]


def test_a_cache_entry_counted_up_by_shapes_is_an_int_whatever_its_annotation(project):
    # the second precision review: flaubert/xlm annotate `cache: Optional[Dict[str, Tensor]]` but
    # keep an int in cache["slen"] (`cache["slen"] += tensor.shape[1]`)
    source = """
        from typing import Dict, Optional
        from mindspore import nn, Tensor


        class Counted(nn.Cell):
            def construct(self, x, cache: Optional[Dict[str, Tensor]] = None):
                if cache is not None:
                    n = x.shape[1] - cache["slen"]
                    x = x[:, -n:]
                    cache["slen"] += x.shape[1]
                return x


        class Summed(nn.Cell):
            def construct(self, x, cache: Optional[Dict[str, Tensor]] = None):
                if cache is not None:
                    n = x.shape[1] - cache["slen"]
                    x = x[:, -n:]
                    cache["slen"] += x.sum()
                return x
    """
    found = [(f.code, f.line) for f in project.lint_source(source, select=["MS403"])]
    assert found == [("MS403", 18)]
