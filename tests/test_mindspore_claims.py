"""The rule pages' claims about MindSpore, checked with the real MindSpore.

Every page of MS1xx-MS8xx has a `mindspore-check` claim block (see
scripts/generate_claim_tables.py): how to drive its "Example" and "Use instead" code and
what MindSpore does with each, per mode. The tests marked `mindspore` run every block in
every claimed mode in its own process (tests/mindspore_claims_runner.py forks one child per
run from a server that imported MindSpore once; MSLINT_CLAIM_WORKERS servers in parallel,
default 2) and fail when a claim no longer holds. They are skipped when MindSpore is not
installed (`pip install -e ".[test,mindspore]"`). The other tests check, without MindSpore,
that every page has a well-formed claim and shows the table generated from it.

The same runner checks the claims behind issue 14's precision decisions that no rule page
shows (section "Issue 14's precision decisions" below), and those behind issue 26's
training-setup decisions for MS601, MS603, MS703, MS704 and MS705 (section "Issue 26's
training-setup decisions"). Claims that need a project on disk or
a lint run beside them sit next to their lint tests and run MindSpore the same way:
test_dynamic_shape.py (masks and producers MindSpore does or does not fold),
test_graph_syntax.py (branches the parser drops), test_parameter_defaults.py (defaults decided
per caller, `~` on numbers), test_stored_callables.py (callables stored on self),
test_objects_changed_in_graph.py and test_mindspore_composition.py (MS204, MS501),
test_raising_calls.py (a call that always raises ends its block), test_precision.py (which
amp levels override to_float, a float16 loss under O2) and test_migration.py (the errors
MindSpore gives for string padding and for a tuple padding of the wrong size, which MS701 quotes,
and the padding it suggests instead).
"""
from __future__ import annotations

import importlib.util
import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from mslint import rule_pages
from setup_networks import NETWORKS
from test_caller_values import ACCESS
from test_third_party import PARTIAL

REPO = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "mindspore_claims_runner.py"
HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None


def _claims_module():
    spec = importlib.util.spec_from_file_location("generate_claim_tables", REPO / "scripts" / "generate_claim_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


claims = _claims_module()
CODES = claims.page_codes()


def _jobs():
    """Every (page, section, block, mode) run, with the code block it runs."""
    jobs = []
    for code in CODES:
        text = claims.read(code)
        try:
            claim = claims.parse(text)
        except Exception:  # reported by test_every_page_has_a_well_formed_claim
            continue
        page_sections = rule_pages.sections(text)
        for key, title in claims.SECTIONS:
            sources = rule_pages.python_blocks(page_sections.get(title, ""))
            for number, block in enumerate(claim[key], start=1):
                source = sources[number - 1] if number <= len(sources) else None
                for mode, outcome in block["modes"].items():
                    suffix = f"{number}" if len(claim[key]) > 1 else ""
                    jobs.append({"id": f"{code}-{key}{suffix}-{mode}", "source": source, "mode": mode,
                                 "drive": block["drive"], "outcome": outcome})
    return jobs


def _fixed_jobs():
    """Every fixable rule's Examples after `mslint --fix --unsafe-fixes` (mslint.fix.apply.fixed_text),
    driven as the page's "Use instead" is and claimed to behave as it does: a fix must do what the
    page says the good code does (an Example without its own "Use instead" takes the last one)."""
    import tempfile

    from mslint.config import Config
    from mslint.fix.apply import fixed_text
    from mslint.fixes import FIXABLE

    jobs = []
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "example.py")
        for code in sorted(FIXABLE):
            text = claims.read(code)
            good = claims.parse(text)["use_instead"]
            for number, example in enumerate(rule_pages.python_blocks(rule_pages.sections(text)["Example"]), start=1):
                block = good[min(number, len(good)) - 1]
                fixed = fixed_text(path, example, Config(root=root))
                for mode, outcome in block["modes"].items():
                    jobs.append({"id": f"{code}-fixed{number}-{mode}", "source": fixed, "mode": mode,
                                 "drive": block["drive"], "outcome": outcome})
    return jobs



# -- Issue 14's precision decisions -------------------------------------------------------------
# What MindSpore does with the code behind the MS1/MS2 rules' precision decisions (cells with no
# rule page of their own). Each claim runs through the same runner as the pages' claims:
# - logging / warnings calls on constants run once, at compile time (MS103 leaves them alone);
# - a NumPy random call on a data-dependent value is not frozen: STRICT rejects it, LAX runs it on
#   every call (MS102, not MS104);
# - NumPy on the array `.asnumpy()` made runs on every call in LAX and STRICT stops at the
#   conversion (one finding, MS101);
# - a NumPy random scalar added to a tensor compiles and is frozen (MS104 only, no MS102);
# - a random call inside a @constexpr function is frozen too (MS104 follows graph calls into them);
# - typing.OrderedDict() fails to compile at both levels, collections.OrderedDict() works (MS102
#   names it).

SIDE_EFFECTS = '''
import logging
import warnings

import numpy as np
import mindspore as ms
from mindspore import nn

CALLS = []


class Recorder(logging.Handler):
    def emit(self, record):
        CALLS.append(record.getMessage())


logger = logging.getLogger("claims")
logger.addHandler(Recorder())
logger.setLevel(logging.INFO)
warnings.simplefilter("always")
warnings.showwarning = lambda message, *args, **kwargs: CALLS.append(str(message))


class Noisy(nn.Cell):
    def construct(self, x):
        logger.info("logged")
        warnings.warn("warned")
        return x * 2
'''

PERMUTATION = '''
import numpy as np
import mindspore as ms
from mindspore import nn, ops


class Sampler(nn.Cell):
    def construct(self, labels):
        fg_inds = ops.nonzero(labels > 0)
        perm = np.random.permutation(fg_inds.size)
        return ms.Tensor(perm)
'''

CONVERTED = '''
import numpy as np
import mindspore as ms
from mindspore import nn


class Sampler(nn.Cell):
    def construct(self, labels):
        pos = labels.asnumpy()
        pos = np.where(pos > 0)[0]
        chosen = np.random.choice(pos, size=2, replace=False)
        return ms.Tensor(chosen)
'''

RANDOM_SCALAR = '''
import numpy as np
from mindspore import nn


class Jitter(nn.Cell):
    def construct(self, x):
        return x + np.random.normal()
'''

CONSTEXPR_RANDOM = '''
import random

from mindspore import nn, ops


@ops.constexpr
def jitter():
    return random.random()


class Jitter(nn.Cell):
    def construct(self, x):
        return x + jitter()
'''

SAMPLE_OF_MASKED_RANGE = '''
import random

import mindspore as ms
from mindspore import nn, ops


class Sampler(nn.Cell):
    def construct(self, labels):
        neg = ops.masked_select(labels, labels == 0)
        picked = random.sample(range(len(neg)), 1)
        return ms.Tensor(picked)
'''

CONSTEXPR_HELPER_RANDOM = '''
import random

from mindspore import nn, ops


def draw():
    return random.uniform(0.0, 1000.0)


@ops.constexpr
def jitter():
    return draw()


class Jitter(nn.Cell):
    def construct(self, x):
        return x + jitter()
'''

TYPING_DICT = '''
import typing

from mindspore import nn


class Table(nn.Cell):
    def construct(self, x):
        d = typing.OrderedDict()
        d["x"] = x
        return d["x"] * 2
'''

COLLECTIONS_DICT = TYPING_DICT.replace("import typing", "import collections").replace("typing.", "collections.")

LABELS = "ms.Tensor(np.array([1., 0., 2., 3., 0., 5., 6., 7.], np.float32))"

PRECISION_CLAIMS = [
    # (id, source, cell, args, calls, mode, outcome)
    ("logging-once-strict", SIDE_EFFECTS, "Noisy()", "ms.Tensor(np.ones(2, np.float32))", 3, "strict",
     {"holds": "CALLS == ['logged', 'warned']"}),
    ("logging-once-lax", SIDE_EFFECTS, "Noisy()", "ms.Tensor(np.ones(2, np.float32))", 3, "lax",
     {"holds": "CALLS == ['logged', 'warned']"}),
    ("permutation-of-nonzero-strict", PERMUTATION, "Sampler()", LABELS, 1, "strict",
     "error: the inputs should be constant, but found variable"),
    ("permutation-of-nonzero-lax", PERMUTATION, "Sampler()", LABELS, 1, "lax", "varies"),
    ("numpy-after-asnumpy-strict", CONVERTED, "Sampler()", LABELS, 1, "strict",
     "error: cannot get attributes asnumpy"),
    ("numpy-after-asnumpy-lax", CONVERTED, "Sampler()", LABELS, 1, "lax", "varies"),
    ("random-scalar-strict", RANDOM_SCALAR, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1, "strict",
     "frozen"),
    ("random-scalar-lax", RANDOM_SCALAR, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1, "lax", "frozen"),
    ("constexpr-random-strict", CONSTEXPR_RANDOM, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1, "strict",
     "frozen"),
    # a range over masked_select's length is known only at run time: STRICT rejects the draw. (LAX defers it
    # to run time, not frozen either: on int32 labels random.sample raises 'Population must be a sequence', on
    # these float32 labels it exhausts memory (std::bad_alloc under an 8 GB limit, MindSpore 2.10): no LAX claim.)
    ("sample-of-masked-range-strict", SAMPLE_OF_MASKED_RANGE, "Sampler()", LABELS, 1, "strict",
     "error: the inputs should be constant, but found variable"),
    # what a @constexpr function's plain helper draws is drawn once, at compile time
    ("constexpr-helper-random-strict", CONSTEXPR_HELPER_RANDOM, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1,
     "strict", "frozen"),
    ("constexpr-helper-random-lax", CONSTEXPR_HELPER_RANDOM, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1,
     "lax", "frozen"),
    ("typing-ordered-dict-strict", TYPING_DICT, "Table()", "ms.Tensor(np.ones(3, np.float32))", 1, "strict",
     "error: Unsupported statement 'Try'"),
    ("typing-ordered-dict-lax", TYPING_DICT, "Table()", "ms.Tensor(np.ones(3, np.float32))", 1, "lax",
     "error: Unsupported statement 'Try'"),
    ("collections-ordered-dict-strict", COLLECTIONS_DICT, "Table()", "ms.Tensor(np.ones(3, np.float32))", 1,
     "strict", {"holds": "out.asnumpy().tolist() == [2.0, 2.0, 2.0]"}),
    ("collections-ordered-dict-lax", COLLECTIONS_DICT, "Table()", "ms.Tensor(np.ones(3, np.float32))", 1, "lax",
     {"holds": "out.asnumpy().tolist() == [2.0, 2.0, 2.0]"}),
    ("constexpr-random-lax", CONSTEXPR_RANDOM, "Jitter()", "ms.Tensor(np.zeros(3, np.float32))", 1, "lax",
     "frozen"),
]


# -- Issue 26's value kinds -----------------------------------------------------------------------
# What MindSpore does with the held-out review's minimal forms (tests/test_heldout_value_kinds.py):
# - a sub-cell its parent holds but never calls is not compiled with the parent;
# - a slice bound from `.asnumpy().item()` of a constant default Tensor argument, the argument left
#   out, is a compile-time constant (static shape); passed a tensor, it is not (MS403 only then);
# - a sub-cell input that the parent fills with an int from its __init__ is a Python int: STRICT
#   compiles `math.log(math.e, n)` and `np.roll(range(n), 1)` on it; given a tensor, STRICT fails;
# - a NumPy draw sized by the length of converted data runs on every call in LAX (not frozen: no MS104);
# - a NumPy call given a MindSpore dtype raises in STRICT and LAX (nothing is folded: no MS103).

SLIM = '''
import mindspore as ms
from mindspore import nn, Tensor


class Slim(nn.Cell):
    def construct(self, x, w=Tensor(1.0)):
        w = w.asnumpy().item()
        return x[:int(4 * w)]
'''

INT_FROM_PARENT = '''
import math

import numpy as np
import mindspore as ms
from mindspore import nn


class Depth(nn.Cell):
    def construct(self, sample, depth_num):
        return sample * math.log(math.e, depth_num)


class Roll(nn.Cell):
    def construct(self, x, *args):
        n, qs = args[0]
        return x[ms.Tensor(np.roll(range(n), 1))]


class Net(nn.Cell):
    def __init__(self, n_qubit=4, depth=8):
        super().__init__()
        self.n_qubit = n_qubit
        self.depth = depth
        self.roll = Roll()
        self.dep = Depth()

    def construct(self, x):
        return self.dep(self.roll(x, (self.n_qubit, 2)), self.depth)
'''

DRAW_SIZED_BY_DATA = '''
import numpy as np
import mindspore as ms
from mindspore import nn


class Pick(nn.Cell):
    def construct(self, pos_mask):
        pos = pos_mask.asnumpy()
        c_len = len(list(np.where(pos > 0)[0]))
        return ms.Tensor(np.random.permutation(c_len))
'''

NUMPY_WITH_MINDSPORE_DTYPE = '''
import numpy as np
import mindspore as ms
from mindspore import nn


class Ar(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = 5

    def construct(self, x):
        return x + ms.Tensor(np.arange(self.n, dtype=x.dtype))
'''

HELD_LOSS = '''
import numpy as np
import mindspore as ms
from mindspore import nn


class Loss(nn.Cell):
    def construct(self, x):
        return ms.Tensor(np.sum(x.asnumpy()))


class Export(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)
        self.loss = Loss()

    def construct(self, x):
        return self.fc(x)
'''

JIT_LITERAL_INPUTS = ACCESS  # (tests/test_caller_values.py: the lint side)

EIGHT = "ms.Tensor(np.ones(8, np.float32))"
FIVE = "ms.Tensor(np.ones(5, np.float32))"

VALUE_KIND_CLAIMS = [
    # a sub-cell held but never called is not compiled with its parent: STRICT, which rejects
    # `.asnumpy()`, compiles the parent; the sub-cell called alone is rejected
    ("held-sub-cell-not-compiled-strict", HELD_LOSS, "Export()", "ms.Tensor(np.ones((1, 2), np.float32))", 1,
     "strict", "runs"),
    ("held-sub-cell-called-strict", HELD_LOSS, "Loss()", "ms.Tensor(np.ones((1, 2), np.float32))", 1, "strict",
     "error: cannot get attributes asnumpy"),
    ("constant-default-tensor-bound-lax", SLIM, "Slim()", EIGHT, 1, "lax", "static shape"),
    ("passed-tensor-bound-lax", SLIM, "Slim()", EIGHT + ", ms.Tensor(0.5)", 1, "lax", "dynamic shape"),
    ("int-from-parent-strict", INT_FROM_PARENT, "Net()", "ms.Tensor(np.arange(4, dtype=np.float32))", 1, "strict",
     {"holds": "np.allclose(out.asnumpy(), np.array([3, 0, 1, 2]) / np.log(8))"}),
    ("tensor-into-math-log-strict", INT_FROM_PARENT, "Depth()", "ms.Tensor(np.ones(2, np.float32)), ms.Tensor(8.0)",
     1, "strict", "error: the inputs should be constant, but found variable"),
    ("draw-sized-by-converted-data-lax", DRAW_SIZED_BY_DATA, "Pick()", LABELS, 1, "lax", "varies"),
    ("numpy-with-mindspore-dtype-strict", NUMPY_WITH_MINDSPORE_DTYPE, "Ar()", FIVE, 1, "strict",
     "error: Cannot interpret 'mindspore.float32' as a data type"),
    ("numpy-with-mindspore-dtype-lax", NUMPY_WITH_MINDSPORE_DTYPE, "Ar()", FIVE, 1, "lax",
     "error: Cannot interpret 'mindspore.float32' as a data type"),
    # a @jit function's inputs passed as Python ints are constants: STRICT builds a dataclass from
    # them (MS201 leaves such a function alone when every call passes literals); from tensors it fails
    ("jit-literal-inputs-strict", JIT_LITERAL_INPUTS, "pick", "1, 2", 1, "strict", {"holds": "out == 2"}),
    ("jit-tensor-inputs-strict", JIT_LITERAL_INPUTS, "pick", "ms.Tensor(1), ms.Tensor(2)", 1, "strict",
     "error: the inputs should be constant, but found variable"),
]


def _precision_jobs():
    return [{"id": f"precision-{claim_id}", "source": textwrap.dedent(source).lstrip(), "mode": mode,
             "drive": {"cell": cell, "args": args, "calls": calls}, "outcome": outcome}
            for claim_id, source, cell, args, calls, mode, outcome in PRECISION_CLAIMS + VALUE_KIND_CLAIMS]


# -- Issue 26's training-setup decisions --------------------------------------------------------
# What MindSpore 2.10 does with the training-setup forms MS601, MS603, MS703, MS704 and MS705 decide
# on (tests/test_precision.py and tests/test_migration.py hold the lint side):
# - Model converts the network when it is built, before it adds loss_fn: a loss_fn kept in float32
#   stays float32 at O2, a criterion the network holds as a sub-cell does not, and a to_float(float32)
#   after Model(...) survives (MS601);
# - Model with an amp_level and no optimizer raises at construction (MS601 leaves it alone);
# - a cells_and_names() loop run after net.to_float(float16) that sets the loss, or the Dense cells
#   (the logits), to float32 gives a float32 loss; run before the cast, it is undone (MS603);
# - a loss a Cell keeps on self but never calls is never computed (MS603);
# - Model at O0, or with no level, on a float16 network: MSELoss with float32 labels computes in
#   float32, a loss on class indices in float16 (MS603; issue 30's case);
# - a layer given a fixed tensor as weight_init in construct computes with that tensor; a filter
#   computed in graph code makes construction fail (MS705 / MS712);
# - nn.Dropout(1.0) keeps everything: 1.0 is a keep rate (MS703 / MS711);
# - BatchNorm with use_batch_statistics=False never updates its moving statistics (MS704).

TRAINING_SETUP = '''
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
from mindspore.train.loss_scale_manager import FixedLossScaleManager

LOSS_CLASS = nn.SoftmaxCrossEntropyWithLogits
X = ms.Tensor(np.ones((1, 3, 4, 4), np.float32))
HALF = ms.Tensor(np.full((1, 2), 300.0, np.float16))
LABELS = ms.Tensor(np.zeros((1,), np.int32))
TARGETS = ms.Tensor(np.zeros((1, 2), np.float32))
''' + NETWORKS + '''

def model(net, loss, level=None):
    levels = {} if level is None else {"amp_level": level}
    if level in ("O2", "O3"):
        levels["loss_scale_manager"] = FixedLossScaleManager(drop_overflow_update=False)
    return Model(net, loss_fn=loss, optimizer=nn.SGD(net.trainable_params(), 0.0), **levels)


def restore(cells, kinds):
    for _, cell in cells.cells_and_names():
        if isinstance(cell, kinds):
            cell.to_float(ms.float32)
    return cells


def loss_fn_kept_at_o2():
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    criterion.to_float(ms.float32)
    model(Net(), criterion, "O2")
    return criterion


def criterion_held_at_o2():
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    criterion.to_float(ms.float32)
    net = NetHoldingLoss(Net(), criterion)
    model(net, criterion, "O2")
    return criterion


def head_after_model_at_o2():
    net = Net()
    model(net, nn.MSELoss(), "O2")
    net.fc.to_float(ms.float32)
    return net


def no_optimizer():
    net = Net()
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.0))
    return Model(cell, amp_level="O3")


def wrapper(loop_first):
    n = NetWithLoss(Net())
    if loop_first:
        restore(n, (nn.BatchNorm2d, nn.SoftmaxCrossEntropyWithLogits))
    n.to_float(ms.float16)
    return n if loop_first else restore(n, (nn.BatchNorm2d, nn.SoftmaxCrossEntropyWithLogits))


def with_loss_cell_restored():
    net = Net()
    net.to_float(ms.float16)
    return restore(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                   (nn.SoftmaxCrossEntropyWithLogits,))


def dense(loop_first):
    net = Net()
    if loop_first:
        restore(net, (nn.Dense,))
    net.to_float(ms.float16)
    if not loop_first:
        restore(net, (nn.Dense,))
    return nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


def unused_loss():
    h = HModel()
    h.to_float(ms.float16)
    return h


def float16_network_trained(loss, level):
    net = Net()
    net.to_float(ms.float16)
    return model(net, loss, level)._train_network
'''

FIXED_FILTERS = '''
import numpy as np
import mindspore as ms
from mindspore import nn, ops

C = 2
KERNEL = ms.Tensor(np.full((C, C, 3), 0.5, np.float32))


class FromAttribute(nn.Cell):
    def __init__(self):
        super().__init__()
        self.kernel = KERNEL

    def construct(self, x):
        conv = nn.Conv1d(C, C, 3, weight_init=self.kernel)
        return conv(x)


class FromNumpy(nn.Cell):
    def construct(self, x):
        eye = ms.Tensor(np.eye(C).reshape(C, C, 1), ms.float32)
        up = nn.Conv1dTranspose(C, C, 1, weight_init=eye)
        return up(x)


class FromOps(nn.Cell):
    def construct(self, x):
        eye = ops.eye(C, C, ms.float32).reshape(C, C, 1)
        up = nn.Conv1dTranspose(C, C, 1, weight_init=eye)
        return up(x)
'''

DROPOUT_AND_FROZEN_BN = '''
import numpy as np
import mindspore as ms
from mindspore import nn


def dropout(rate):
    layer = nn.Dropout(rate)
    layer.set_train()
    return layer


def bn(use_batch_statistics):
    layer = nn.BatchNorm2d(2, momentum=0.1, use_batch_statistics=use_batch_statistics)
    layer.set_train()
    return layer
'''

SETUP_CLAIMS = [
    # (id, source, cell, args, calls, mode, outcome)
    ("loss-fn-kept-float32-at-o2", TRAINING_SETUP, "loss_fn_kept_at_o2()", "HALF, LABELS", 1, "pynative",
     {"holds": "out.dtype == ms.float32"}),
    ("held-criterion-cast-at-o2", TRAINING_SETUP, "criterion_held_at_o2()", "HALF, LABELS", 1, "pynative",
     {"holds": "out.dtype == ms.float16"}),
    ("to-float-after-model-survives", TRAINING_SETUP, "head_after_model_at_o2()", "X", 1, "lax",
     {"holds": "out.dtype == ms.float32"}),
    ("model-without-optimizer-raises", TRAINING_SETUP, "no_optimizer()", "", 0, "pynative",
     "error: Auto mixed precision will not work because 'optimizer' is None"),
    ("loop-after-cast-restores-loss", TRAINING_SETUP, "wrapper(False)", "X, LABELS", 1, "lax",
     {"holds": "out.dtype == ms.float32"}),
    ("loop-before-cast-undone", TRAINING_SETUP, "wrapper(True)", "X, LABELS", 1, "lax",
     {"holds": "out.dtype == ms.float16"}),
    ("with-loss-cell-loop-restores-loss", TRAINING_SETUP, "with_loss_cell_restored()", "X, LABELS", 1, "lax",
     {"holds": "out.dtype == ms.float32"}),
    ("dense-loop-after-cast-float32-loss", TRAINING_SETUP, "dense(False)", "X, LABELS", 1, "lax",
     {"holds": "out.dtype == ms.float32"}),
    ("dense-loop-before-cast-float16-loss", TRAINING_SETUP, "dense(True)", "X, LABELS", 1, "lax",
     {"holds": "out.dtype == ms.float16"}),
    ("unused-loss-never-computed", TRAINING_SETUP, "unused_loss()", "ms.Tensor(np.ones((1, 4), np.float32))", 1,
     "pynative", "ran 0"),
    ("called-loss-computed", TRAINING_SETUP, "wrapper(False)", "X, LABELS", 1, "pynative", "ran 1"),
    ("float16-network-mse-o0-float32", TRAINING_SETUP, "float16_network_trained(nn.MSELoss(), 'O0')",
     "X, TARGETS", 1, "pynative", {"holds": "out.dtype == ms.float32"}),
    ("float16-network-mse-no-level-float32", TRAINING_SETUP, "float16_network_trained(nn.MSELoss(), None)",
     "X, TARGETS", 1, "pynative", {"holds": "out.dtype == ms.float32"}),
    ("float16-network-class-indices-float16", TRAINING_SETUP,
     "float16_network_trained(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), None)",
     "X, LABELS", 1, "pynative", {"holds": "out.dtype == ms.float16"}),
    ("fixed-filter-attribute-lax", FIXED_FILTERS, "FromAttribute()", "ms.Tensor(np.ones((1, C, 5), np.float32))", 1,
     "lax", [{"holds": "out.asnumpy().ravel().tolist() == [2.0, 3.0, 3.0, 3.0, 2.0] * 2"}, "frozen"]),
    ("fixed-filter-attribute-strict", FIXED_FILTERS, "FromAttribute()", "ms.Tensor(np.ones((1, C, 5), np.float32))",
     1, "strict", {"holds": "out.asnumpy().ravel().tolist() == [2.0, 3.0, 3.0, 3.0, 2.0] * 2"}),
    ("fixed-filter-numpy-lax", FIXED_FILTERS, "FromNumpy()", "ms.Tensor(np.ones((1, C, 5), np.float32))", 1, "lax",
     {"holds": "out.asnumpy().ravel().tolist() == [1.0] * 10"}),
    ("filter-from-ops-lax", FIXED_FILTERS, "FromOps()", "ms.Tensor(np.ones((1, C, 5), np.float32))", 1, "lax",
     "error: all arguments are required to be constants"),
    ("filter-from-ops-strict", FIXED_FILTERS, "FromOps()", "ms.Tensor(np.ones((1, C, 5), np.float32))", 1, "strict",
     "error: all arguments are required to be constants"),
    ("dropout-keep-rate-one-keeps-all", DROPOUT_AND_FROZEN_BN, "dropout(1.0)",
     "ms.Tensor(np.ones(1000, np.float32))", 1, "pynative", {"holds": "out.asnumpy().tolist() == [1.0] * 1000"}),
    ("frozen-batchnorm-statistics", DROPOUT_AND_FROZEN_BN, "bn(False)",
     "ms.Tensor(np.full((2, 2, 2, 2), 5.0, np.float32))", 2, "pynative",
     {"holds": "net.moving_mean.asnumpy().tolist() == [0.0, 0.0] and net.moving_variance.asnumpy().tolist() == "
               "[1.0, 1.0]"}),
    ("trained-batchnorm-statistics", DROPOUT_AND_FROZEN_BN, "bn(None)",
     "ms.Tensor(np.full((2, 2, 2, 2), 5.0, np.float32))", 1, "pynative",
     {"holds": "net.moving_mean.asnumpy().tolist() != [0.0, 0.0]"}),
]


def _setup_jobs():
    return [{"id": f"setup-{claim_id}", "source": textwrap.dedent(source).lstrip(), "mode": mode,
             "drive": dict({"cell": cell, "args": args, "calls": calls},
                           **({"count": "LOSS_CLASS"} if str(outcome).startswith("ran ") else {})),
             "outcome": outcome}
            for claim_id, source, cell, args, calls, mode, outcome in SETUP_CLAIMS]


# -- Issue 26's message claims -------------------------------------------------------------------
# What the rewritten messages quote (cells with no page of their own):
# - MS101 in a cell that defines bprop: STRICT rejects the conversion, LAX differentiates through bprop;
# - MS503: a bprop with too few inputs, one without even out and dout, and one with too many raise different
#   errors, in each mode;
# - MS102/MS103 leave functools.partial alone: on tensors and a bound method it compiles under STRICT
#   and the gradient flows through it;
# - MS805: `with` on a file from open() and on a plain class's instance raise different TypeErrors;
# - MS705: a layer built in construct and stored on self fails in both levels (one only called runs,
#   its parameters untrained: the page's claim);
# - MS801: ms_function from mindspore.common.api is an ImportError naming that module; as an
#   attribute of mindspore, an AttributeError.

BPROP_CONVERSION = '''
import mindspore as ms
from mindspore import nn


class Reverse(nn.Cell):
    def construct(self, x):
        return ms.Tensor(x.asnumpy() * 3)

    def bprop(self, x, out, dout):
        return (dout * 5,)
'''

BPROP_COUNTS = '''
from mindspore import nn


class Fewer(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, out, dout):
        return (dout, dout)


class More(nn.Cell):
    def construct(self, x):
        return x * 2

    def bprop(self, x, y, out, dout):
        return (dout,)


class OutOnly(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, out):
        return out, out
'''

LAYER_STORED = '''
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        self.fc = nn.Dense(3, 2)
        return self.fc(x)
'''


WITH_OPEN = '''
from mindspore import nn


class Plain:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


class Net(nn.Cell):
    def __init__(self, opened):
        super().__init__()
        self.opened = opened
        self.plain = Plain()

    def construct(self, x):
        if self.opened:
            with open("/dev/null") as handle:
                x = x + 1
        else:
            with self.plain:
                x = x + 1
        return x
'''

ONE = "ms.Tensor(np.ones(2, np.float32))"
GRAD_FEWER = "lambda x, y: ms.grad(Fewer(), grad_position=(0, 1))(x, y)"
GRAD_MORE = "lambda x: ms.grad(More())(x)"
GRAD_OUT_ONLY = "lambda x, y: ms.grad(OutOnly(), grad_position=(0, 1))(x, y)"

MESSAGE_CLAIMS = [
    # (id, source, cell, args, calls, mode, outcome)
    # (STRICT rejects the forward call; differentiating the cell alone runs bprop and does not reach it)
    ("bprop-conversion-strict", BPROP_CONVERSION, "Reverse()", ONE, 1, "strict",
     "error: cannot get attributes asnumpy"),
    ("bprop-conversion-lax", BPROP_CONVERSION, "lambda x: ms.grad(Reverse())(x)", ONE, 1, "lax",
     {"holds": "out.asnumpy().tolist() == [5.0, 5.0]"}),
    ("bprop-fewer-graph", BPROP_COUNTS, GRAD_FEWER, f"{ONE}, {ONE}", 1, "lax",
     "error: The params of function 'bprop' of Primitive or Cell requires the forward inputs as well as the 'out' "
     "and 'dout'."),
    ("bprop-fewer-pynative", BPROP_COUNTS, GRAD_FEWER, f"{ONE}, {ONE}", 1, "pynative",
     "error: Fewer.bprop() takes 4 positional arguments but 5 were given"),
    ("bprop-more-graph", BPROP_COUNTS, GRAD_MORE, ONE, 1, "lax",
     "error: The number of parameter of this primal function is 1, but the number of parameters of bprop is 2"),
    ("bprop-more-pynative", BPROP_COUNTS, GRAD_MORE, ONE, 1, "pynative",
     "error: More.bprop() missing 1 required positional argument: 'dout'"),
    ("bprop-out-only-graph", BPROP_COUNTS, GRAD_OUT_ONLY, f"{ONE}, {ONE}", 1, "lax",
     "error: The function 'bprop' of Primitive or Cell requires at least 2 params 'out' and 'dout', but got only 1."),
    ("bprop-out-only-pynative", BPROP_COUNTS, GRAD_OUT_ONLY, f"{ONE}, {ONE}", 1, "pynative",
     "error: OutOnly.bprop() takes 2 positional arguments but 5 were given"),
    # x * y + x + y at x = 2, y = 3: 11, and the gradient flows to both inputs (4 and 3)
    ("partial-strict", PARTIAL, "Net()", "ms.Tensor([2.0]), ms.Tensor([3.0])", 1, "strict",
     {"holds": "out.asnumpy().tolist() == [11.0]"}),
    ("partial-grad-strict", PARTIAL, "lambda x, y: ms.grad(Net(), grad_position=(0, 1))(x, y)",
     "ms.Tensor([2.0]), ms.Tensor([3.0])", 1, "strict",
     {"holds": "[g.asnumpy().tolist() for g in out] == [[4.0], [3.0]]"}),
    ("with-open-strict", WITH_OPEN, "Net(True)", ONE, 1, "strict", "error: issubclass() arg 1 must be a class"),
    ("with-open-lax", WITH_OPEN, "Net(True)", ONE, 1, "lax", "error: issubclass() arg 1 must be a class"),
    ("with-plain-strict", WITH_OPEN, "Net(False)", ONE, 1, "strict", "error: Only support jit_class instance, but got"),
    ("with-plain-lax", WITH_OPEN, "Net(False)", ONE, 1, "lax", "error: Only support jit_class instance, but got"),
    ("layer-stored-strict", LAYER_STORED, "Net()", "ms.Tensor(np.ones((2, 3), np.float32))", 1, "strict",
     "error: the member attribute must be of the Parameter type"),
    ("layer-stored-lax", LAYER_STORED, "Net()", "ms.Tensor(np.ones((2, 3), np.float32))", 1, "lax",
     "error: Sub cell 'fc' already exists in network, can not assign"),
    ("ms-function-from-common-api", "from mindspore.common.api import ms_function\n", None, None, 1, "pynative",
     "error: cannot import name 'ms_function' from 'mindspore.common.api'"),
    ("ms-function-attribute", "import mindspore as ms\n\njit = ms.ms_function\n", None, None, 1, "pynative",
     "error: module 'mindspore' has no attribute 'ms_function'"),
]


def _message_jobs():
    return [{"id": f"message-{claim_id}", "source": textwrap.dedent(source).lstrip(), "mode": mode,
             "drive": {"cell": cell, "args": args, "calls": calls} if cell else {}, "outcome": outcome}
            for claim_id, source, cell, args, calls, mode, outcome in MESSAGE_CLAIMS]


JOBS = _jobs() + _fixed_jobs() + _precision_jobs() + _setup_jobs() + _message_jobs()


@pytest.mark.parametrize("code", CODES)
def test_every_page_has_a_well_formed_claim(code):
    text = claims.read(code)
    claim = claims.parse(text)
    page_sections = rule_pages.sections(text)
    assert "mindspore-check" in page_sections["What MindSpore does"], \
        "the claim block belongs in 'What MindSpore does'"
    for key, title in claims.SECTIONS:
        blocks = rule_pages.python_blocks(page_sections[title])
        assert len(blocks) == len(claim[key]), f"'{title}' has {len(blocks)} python blocks, the claim {len(claim[key])}"


@pytest.mark.parametrize("code", CODES)
def test_every_page_shows_the_table_generated_from_its_claim(code):
    text = claims.read(code)
    assert claims.render_page(text) == text, \
        f"{code}.md: the table is stale: run python scripts/generate_claim_tables.py"


def _serve(jobs: "queue.Queue", results: dict, root: Path):
    server = subprocess.Popen([sys.executable, str(RUNNER), "--serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=str(root))
    try:
        while True:
            try:
                job = jobs.get_nowait()
            except queue.Empty:
                break
            server.stdin.write(json.dumps(job) + "\n")
            server.stdin.flush()
            line = server.stdout.readline()
            if not line:
                results[job["id"]] = {"ok": False, "detail": f"the runner exited ({server.poll()})"}
                break
            results[job["id"]] = json.loads(line)
    finally:
        server.stdin.close()
        server.wait(timeout=60)


def _run_one(job: dict) -> dict:
    done = subprocess.run([sys.executable, str(RUNNER), "--one"], input=json.dumps(job), capture_output=True,
                          text=True, cwd=job["dir"], timeout=600)
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {"ok": False, "detail": done.stderr[-3000:]}


def _selected_ids(session) -> set:
    """The jobs of the claim tests this session runs (all of them, unless -k or ids narrow it)."""
    return {item.callspec.params["job"]["id"] for item in session.items
            if getattr(item, "originalname", None) == "test_page_claim_holds_on_mindspore"}


@pytest.fixture(scope="module")
def results(tmp_path_factory, request):
    """Run every selected job once, in parallel; id -> result."""
    if not HAS_MINDSPORE:
        pytest.skip("MindSpore is not installed (pip install -e '.[test,mindspore]')")
    root = tmp_path_factory.mktemp("mindspore-claims")
    selected = _selected_ids(request.session)
    pending: "queue.Queue" = queue.Queue()
    for job in JOBS:
        if job["source"] is not None and job["id"] in selected:
            pending.put(dict(job, dir=str(root / job["id"])))
    found: dict = {}
    if hasattr(os, "fork"):
        workers = [threading.Thread(target=_serve, args=(pending, found, root))
                   for _ in range(min(int(os.environ.get("MSLINT_CLAIM_WORKERS", "2")), pending.qsize()))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    else:
        while not pending.empty():
            job = pending.get()
            os.makedirs(job["dir"], exist_ok=True)
            found[job["id"]] = _run_one(job)
    return found


@pytest.mark.mindspore
@pytest.mark.parametrize("job", JOBS, ids=[job["id"] for job in JOBS])
def test_page_claim_holds_on_mindspore(job, results):
    assert job["source"] is not None, "the claim names a code block the page does not have"
    result = results.get(job["id"])
    assert result is not None, "the runner did not run this job"
    assert result["ok"], f"{job['id']}: claimed {job['outcome']!r}: {result['detail']}"


@pytest.mark.mindspore
def test_the_installed_mindspore_is_the_documented_version(tmp_path):
    if not HAS_MINDSPORE:
        pytest.skip("MindSpore is not installed")
    done = subprocess.run([sys.executable, "-c", "import mindspore; print(mindspore.__version__)"],
                          capture_output=True, text=True, cwd=str(tmp_path), timeout=300)
    version = done.stdout.strip().splitlines()[-1]
    assert version.startswith(claims.MINDSPORE_VERSION + "."), \
        f"the pages document MindSpore {claims.MINDSPORE_VERSION}, this is {version}"
