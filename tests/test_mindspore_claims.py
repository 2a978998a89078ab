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
shows (section "Issue 14's precision decisions" below). Claims that need a project on disk or
a lint run beside them sit next to their lint tests and run MindSpore the same way:
test_dynamic_shape.py (masks and producers MindSpore does or does not fold),
test_graph_syntax.py (branches the parser drops), test_parameter_defaults.py (defaults decided
per caller, `~` on numbers), test_stored_callables.py (callables stored on self),
test_objects_changed_in_graph.py and test_mindspore_composition.py (MS204, MS501),
test_raising_calls.py (a call that always raises ends its block), test_precision.py (which
amp levels override to_float, a float16 loss under O2) and test_migration.py (the errors
MindSpore gives for string padding, which MS701 quotes).
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


# -- Issue 26's message claims -------------------------------------------------------------------
# What the rewritten messages quote (cells with no page of their own):
# - MS101 in a cell that defines bprop: STRICT rejects the conversion, LAX differentiates through bprop;
# - MS503: a bprop with too few inputs and one with too many raise different errors, in each mode;
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

ONE = "ms.Tensor(np.ones(2, np.float32))"
GRAD_FEWER = "lambda x, y: ms.grad(Fewer(), grad_position=(0, 1))(x, y)"
GRAD_MORE = "lambda x: ms.grad(More())(x)"

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


def _precision_jobs():
    return [{"id": f"precision-{claim_id}", "source": textwrap.dedent(source).lstrip(), "mode": mode,
             "drive": {"cell": cell, "args": args, "calls": calls}, "outcome": outcome}
            for claim_id, source, cell, args, calls, mode, outcome in PRECISION_CLAIMS]


JOBS = _jobs() + _fixed_jobs() + _precision_jobs() + _message_jobs()


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
