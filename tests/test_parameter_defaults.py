"""A root's parameter with a default is a constant of unknown value.

MindSpore (2.10, checked below in GRAPH_MODE) compiles a Cell's construct with the arguments
of each call: called with the default, the branch the default rules out is not compiled;
called with another value, it is.  The caller of a root is Python code the linter cannot see
(a training script, a pipeline), so branches on such a parameter are reachable.  A helper or
sub-cell called from graph code without the argument does get the default (its caller is seen).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from conftest import only

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None

HEADER = """\
import mindspore as ms
from mindspore import nn, ops

DEBUG = False

"""  # the snippets below start on line 6


def lint(project, body: str, code: str):
    return only(project.lint_source(HEADER + textwrap.dedent(body), select=[code]), code)


def test_branch_on_a_root_default_is_reachable_and_a_helper_called_without_it_gets_the_default(project):
    findings = lint(project, """
class Net(nn.Cell):
    def select(self, x, positive=False):
        if positive:
            return ops.masked_select(x, x > 1)
        return x

    def construct(self, x, use_cache=False):
        if use_cache:
            return ops.masked_select(x, x > 0)
        return self.select(x)
""", "MS401")
    assert [f.line for f in findings] == [15]
    assert findings[0].message.endswith("Only compiled when the caller passes use_cache other than its default False.")


def test_after_an_early_return_on_the_default_the_rest_says_when_it_is_compiled(project):
    # the Hugging-Face / diffusers port: `return_dict=False` returns a tuple early; the output
    # object after it is built only for a caller passing return_dict=True (then, MindSpore 2.10
    # LAX, the gradient through it is zero: verified below)
    findings = project.lint_source(HEADER + textwrap.dedent("""
        from dataclasses import dataclass


        @dataclass
        class Output:
            value: object = None


        class Net(nn.Cell):
            def construct(self, x, return_dict: bool = False):
                y = x * 2
                if not return_dict:
                    return (y,)
                if self.training:
                    y = ops.masked_select(y, y > 0)
                return Output(value=y)
    """), select=["MS201", "MS401"])
    assert [(f.code, f.line) for f in findings] == [("MS401", 21), ("MS201", 22)]
    assert all(f.message.endswith("Only compiled when the caller passes return_dict other than its default False.")
               for f in findings)


def test_no_condition_is_named_for_a_branch_on_an_unknown_value(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, mask):
        if mask.sum() > 0:
            return ops.masked_select(x, mask)
        return x
""", "MS401")
    assert [f.line for f in findings] == [10] and "Only compiled when" not in findings[0].message


def test_module_constants_and_literals_still_prune(project):
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x):
        if DEBUG:
            x = ops.masked_select(x, x > 0)
        verbose = False
        if verbose:
            x = ops.masked_select(x, x > 1)
        return x
""", "MS401")
    assert findings == []


def test_an_integer_default_is_still_a_constant(project):
    # MS402 asks for a constant k: a default is one (its value unknown, its kind known)
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, k=3):
        values, _ = ops.topk(x, k)
        return values
""", "MS402")
    assert findings == []


DEFAULT_CLAIM = """
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
DEBUG = False


class Debugged(nn.Cell):
    def construct(self, x):
        if DEBUG:
            return Tensor(np.sum(x.asnumpy()))
        return x + 1


class Net(nn.Cell):
    def construct(self, x, use_numpy=False):
        if use_numpy:
            return Tensor(np.sum(x.asnumpy()))
        return x + 1


class Parent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def construct(self, x):
        return self.net(x)


x = Tensor(np.ones((2, 2), np.float32))
for label, call in [("default", lambda: Net()(x)), ("true", lambda: Net()(x, True)),
                    ("false", lambda: Net()(x, False)), ("sub-cell", lambda: Parent()(x)),
                    ("global", lambda: Debugged()(x))]:
    try:
        call()
        print(label, "compiled")
    except Exception as error:
        print(label, "failed", type(error).__name__)
"""


RETURN_DICT_CLAIM = """
from dataclasses import dataclass
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

ms.set_context(mode=ms.GRAPH_MODE)


@dataclass
class Out:
    value: object = None


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.ones((2,), np.float32)), name="w")

    def construct(self, x, return_dict=False):
        y = x * self.w
        if not return_dict:
            return (y,)
        return Out(value=y)


x = Tensor(np.ones((2,), np.float32))
net = Net()


def loss_default(a):
    return net(a)[0].sum()


def loss_true(a):
    return net(a, True).value.sum()


for label, loss in (("default", loss_default), ("true", loss_true)):
    grads = ms.grad(loss, grad_position=None, weights=net.trainable_params())(x)
    print(label, grads[0].asnumpy().tolist())
"""


def run_script(tmp_path, source: str, labels) -> dict:
    """label -> the rest of the line, for each line the script prints that starts with a label."""
    if not HAS_MINDSPORE:
        pytest.skip("MindSpore is not installed")
    script = tmp_path / "claim.py"
    script.write_text(source)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.split(" ", 1)[0] in labels)
    assert set(found) == set(labels), done.stdout + done.stderr
    return found


@pytest.mark.mindspore
def test_mindspore_gradient_through_the_return_dict_branch_is_zero(tmp_path):
    assert run_script(tmp_path, RETURN_DICT_CLAIM, ("default", "true")) == {"default": "[1.0, 1.0]",
                                                                             "true": "[0.0, 0.0]"}


@pytest.mark.mindspore
def test_mindspore_compiles_the_branch_only_for_a_caller_that_passes_the_value(tmp_path):
    # and a module global bound once is read as a constant: its untaken branch is not compiled
    outcome = run_script(tmp_path, DEFAULT_CLAIM, ("default", "true", "false", "sub-cell", "global"))
    assert outcome == {"default": "compiled", "true": "failed AttributeError", "false": "compiled",
                       "sub-cell": "compiled", "global": "compiled"}


def test_an_optional_int_parameter_is_not_a_tensor(project):
    # transformer_flux2: `text_seq_len: Optional[int] = None`, set from a shape, used as a slice bound
    source = """
from typing import Optional


class Net(nn.Cell):
    def construct(self, x, y=None, text_seq_len: {annotation} = None, split=False):
        if y is not None:
            text_seq_len = y.shape[1]
        if split:
            return x[:, :text_seq_len]
        return x
"""
    for annotation in ("Optional[int]", "int | None"):
        assert lint(project, source.format(annotation=annotation), "MS403") == []
    assert [f.line for f in lint(project, source.format(annotation="Optional[ms.Tensor]"), "MS403")] == [15]


NONE_DEFAULT_CLAIM = """
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

ms.set_context(mode=ms.GRAPH_MODE)


class Cache:
    @classmethod
    def from_legacy(cls, x):
        return x


class Net(nn.Cell):
    def construct(self, x, past=None, mode="ms"):
        if past is None:
            y = x
        else:
            y = Cache.from_legacy(past)
        if mode == "np":
            y = Cache.from_legacy(y)
        return y


x = Tensor(np.ones((2,), np.float32))
for label, call in [("default", lambda: Net()(x)), ("past", lambda: Net()(x, x)),
                    ("mode", lambda: Net()(x, None, "np"))]:
    try:
        call()
        print(label, "compiled")
    except Exception as error:
        print(label, "failed", type(error).__name__)
"""


@pytest.mark.mindspore
def test_mindspore_compiles_a_none_or_string_guarded_branch_only_for_a_caller_that_passes_it(tmp_path):
    # `past is None` and `mode == "np"` are decided at compile time: the classmethod (MS802) in
    # the branch the defaults leave out fails only for a caller that passes another value
    outcome = run_script(tmp_path, NONE_DEFAULT_CLAIM, ("default", "past", "mode"))
    assert outcome == {"default": "compiled", "past": "failed TypeError", "mode": "failed TypeError"}


def test_branches_on_none_and_string_defaults_say_when_they_are_compiled(project):
    # HF ports: `if past_key_values is None: ... else: DynamicCache.from_legacy_cache(...)`
    source = HEADER + textwrap.dedent("""
        class Cache:
            @classmethod
            def from_legacy(cls, x):
                return x


        class Net(nn.Cell):
            def construct(self, x, past=None, mode="ms"):
                if past is None:
                    y = x
                else:
                    y = Cache.from_legacy(past)
                if isinstance(past, tuple):
                    y = Cache.from_legacy(past)
                if mode == "np":
                    y = x[x > 0]
                if mode != "np":
                    y = x[x > 1]
                if past is not None:
                    y = x[x > 2]
                return y
        """)
    found = {(f.code, f.line): f.message for f in project.lint_source(source, select=["MS802", "MS401", "MS405"])}
    past = "Only compiled when the caller passes past other than its default None."
    assert sorted(found) == [("MS401", 22), ("MS401", 24), ("MS401", 26), ("MS802", 18), ("MS802", 20)]
    assert found[("MS802", 18)].endswith(past) and found[("MS802", 20)].endswith(past)
    assert found[("MS401", 26)].endswith(past)  # and no MS405: `past is not None` is no tensor
    assert found[("MS401", 22)].endswith("Only compiled when the caller passes mode other than its default 'ms'.")
    assert "Only compiled" not in found[("MS401", 24)]


INIT_DEFAULT = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


class Cache:
    @classmethod
    def build(cls, x):
        return x


def embed(pos, output_type="np"):
    if output_type == "np":
        return Cache.build(pos)
    return pos


class T(nn.Cell):
    def __init__(self, output_type="ms", prefix_bucket=False):
        super().__init__()
        self.output_type = output_type
        self.prefix_bucket = prefix_bucket

    def construct(self, t):
        if self.prefix_bucket:
            t = Cache.build(t)
        return embed(t, output_type=self.output_type)
"""


def test_a_branch_an_init_default_leaves_out_names_the_constructor_argument(project):
    # diffusers' SkyReelsV2Timesteps(output_type="ms") and udop's prefix_bucket=False: the
    # branch is compiled only for a cell built with the other value
    found = {f.line: f.message for f in project.lint_source(INIT_DEFAULT, select=["MS802"])}
    assert sorted(found) == [14, 26]
    assert found[14].endswith("Only compiled when the caller passes output_type to T() other than its default 'ms'.")
    assert found[26].endswith("Only compiled when the caller passes prefix_bucket to T() other than its default False.")


@pytest.mark.mindspore
def test_mindspore_compiles_an_init_default_guarded_branch_only_for_a_cell_built_with_another_value(tmp_path):
    outcome = run_script(tmp_path, INIT_DEFAULT + """
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.ones((2,), np.float32))
for label, build in [("default", lambda: T()), ("np", lambda: T(output_type="np")),
                     ("bucket", lambda: T(prefix_bucket=True))]:
    try:
        build()(x)
        print(label, "compiled")
    except Exception as error:
        print(label, "failed", type(error).__name__)
""", ("default", "np", "bucket"))
    assert outcome == {"default": "compiled", "np": "failed TypeError", "bucket": "failed TypeError"}


# -- `~` on a Python number -----------------------------------------------------------------
# `~False` and `~0` are -1 and `~True` is -2 (truthy), `~-1` is 0: the branch under `if ~DEBUG:`
# with DEBUG = False is compiled, and `if ~self.flag:` with flag=False too, under the default
INVERTED = """
class Net(nn.Cell):
    def __init__(self, flag=False):
        super().__init__()
        self.flag = flag

    def construct(self, x):
        if ~DEBUG:
            x = x + 100
            y = ops.masked_select(x, x > 0)
        if ~self.flag:
            x = x + 10
            z = ops.masked_select(x, x > 1)
        else:
            z = ops.masked_select(x, x > 2)
        return x
"""


def test_invert_of_a_python_constant_is_not_its_truth(project):
    found = {f.line: f.message for f in lint(project, INVERTED, "MS401")}
    assert sorted(found) == [15, 18, 20]
    assert "Only compiled when" not in found[15] and "Only compiled when" not in found[18]
    assert found[20].endswith("Only compiled when the caller passes flag to Net() other than its default False.")


@pytest.mark.mindspore
def test_mindspore_compiles_the_branch_of_an_inverted_false_or_true_but_not_of_minus_one(tmp_path):
    outcome = run_script(tmp_path, "import numpy as np\nfrom mindspore import Tensor\n" + HEADER + INVERTED.replace(
        "y = ops.masked_select(x, x > 0)", "pass").replace("z = ops.masked_select(x, x > 1)", "pass").replace(
        "z = ops.masked_select(x, x > 2)", "pass") + """
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.zeros((2,), np.float32))
for label, flag in (("false", False), ("true", True), ("minus-one", -1), ("zero", 0)):
    print(label, Net(flag)(x).asnumpy().tolist())
""", ("false", "true", "minus-one", "zero"))
    assert outcome == {"false": "[110.0, 110.0]", "true": "[110.0, 110.0]", "minus-one": "[100.0, 100.0]",
                       "zero": "[110.0, 110.0]"}
