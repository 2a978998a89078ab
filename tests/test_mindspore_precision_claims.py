"""What MindSpore does with the code behind issue 14's precision decisions, checked with the real MindSpore.

Each claim is a small cell run by tests/mindspore_claims_runner.py (one child process per run, in
GRAPH_MODE with the syntax level of the mode) with an outcome in the runner's vocabulary: "frozen"
(two calls, same value), "varies", "error: <text>", or {"holds": <expression over the example's
module names, net and out>}. They back these decisions of the MS1/MS2 rules:

- logging / warnings calls on constants run once, at compile time (MS103 leaves them alone);
- a NumPy random call on a data-dependent value is not frozen: STRICT rejects it, LAX runs it on
  every call (MS102, not MS104);
- NumPy on the array `.asnumpy()` made runs on every call in LAX and STRICT stops at the conversion
  (one finding, MS101);
- a NumPy random scalar added to a tensor compiles and is frozen (MS104 only, no MS102);
- a random call inside a @constexpr function is frozen too (MS104 follows graph calls into them);
- typing.OrderedDict() fails to compile at both levels, collections.OrderedDict() works (MS102 names it).
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parent / "mindspore_claims_runner.py"
HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None

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

CLAIMS = [
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


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Run every claim through one runner server (MindSpore imported once); id -> result."""
    if not HAS_MINDSPORE:
        pytest.skip("MindSpore is not installed (pip install -e '.[test,mindspore]')")
    root = tmp_path_factory.mktemp("precision-claims")
    jobs = []
    for claim_id, source, cell, args, calls, mode, outcome in CLAIMS:
        jobs.append({"id": claim_id, "dir": str(root / claim_id), "source": textwrap.dedent(source).lstrip(),
                     "mode": mode, "drive": {"cell": cell, "args": args, "calls": calls}, "outcome": outcome})
    lines = "".join(json.dumps(job) + "\n" for job in jobs)
    done = subprocess.run([sys.executable, str(RUNNER), "--serve"], input=lines, capture_output=True, text=True,
                          cwd=str(root), timeout=1200)
    found = {}
    for line in done.stdout.splitlines():
        result = json.loads(line)
        found[result["id"]] = result
    return found


@pytest.mark.mindspore
@pytest.mark.parametrize("claim", CLAIMS, ids=[claim[0] for claim in CLAIMS])
def test_precision_claim_holds_on_mindspore(claim, results):
    result = results.get(claim[0])
    assert result is not None, "the runner did not run this claim"
    assert result["ok"], f"{claim[0]}: claimed {claim[-1]!r}: {result['detail']}"
