"""Graph-syntax cases of the kinds MindSpore's own test suite exercises (graph_syntax, parse, fallback),
written anew for mslint: each form the compiler rejects on 2.10 is flagged by its rule, each form it
accepts is quiet.  The outcome named in each case was measured on MindSpore 2.10 (CPU, GRAPH_MODE) under
STRICT and LAX; the pages' claim blocks re-run the representative ones (tests/test_mindspore_claims.py).
"""
from __future__ import annotations

import textwrap

import pytest

from conftest import codes_by_line

NEW_RULES = ["MS205", "MS206", "MS207", "MS713", "MS808", "MS809", "MS810", "MS811", "MS812"]
HEADER = '''\
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


class Custom(Exception):
    pass


class Net(nn.Cell):
    def __init__(self, arg=None):
        super().__init__()
        self.matrix = Tensor(np.ones((2, 3), np.float32))
        self.single = Tensor([1.0])
        self.n = 3
        self.hist = []
        self.table = {"a": 1}
        self.arg = arg
        self.uniform_int = ops.UniformInt()

    def construct(self, x, y):
'''
BODY_LINE = HEADER.count("\n") + 1  # the first line of a case's body


def _source(body: str) -> str:
    return HEADER + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n        return x\n"


# (case, body, the rule expected on the body's first line ("CODE@n": on its line n, from 0) or None, level)
CASES = [
    # 1. range: a tensor bound fails in make_range (both levels); ints, static shapes and int(t) compile
    ("range over a reduced tensor", "for i in range(x.sum()):\n    x = x + 1", "MS808", "lax"),
    ("range with a tensor stop", "for i in range(0, ops.argmax(x)):\n    x = x + 1", "MS808", "strict"),
    # a tensor built from constants fails too (recall review of issue 30), as does a stored primitive's result
    ("range over an element of a built tensor", "t = ops.ones((4,), ms.int32)\nfor i in range(t[0]):\n    x = x + 1",
     "MS808@1", "lax"),
    ("range over a tensor literal", "for i in range(Tensor(3, ms.int32)):\n    x = x + 1", "MS808", "strict"),
    ("range over a stored primitive's draw",
     "t = self.uniform_int((2,), Tensor(1, ms.int32), Tensor(5, ms.int32))\nfor i in range(t[0]):\n    x = x + 1",
     "MS808@1", "lax"),
    ("range over a constant", "for i in range(3):\n    x = x + 1", None, "lax"),
    ("range over ops.tuple_len", "for i in range(ops.tuple_len((x, y))):\n    x = x + 1", None, "strict"),
    ("range over an int attribute", "for i in range(self.n):\n    x = x + 1", None, "lax"),
    ("range over a static shape", "for i in range(x.shape[0] * 2):\n    x = x + 1", None, "strict"),
    ("range over int() of a tensor", "for i in range(int(y)):\n    x = x + 1", None, "lax"),
    ("range over len()", "for i in range(len(x)):\n    x = x + 1", None, "lax"),
    # 2. comprehensions: one `for` clause only
    ("list comprehension, two clauses", "z = [a * b for a in (1, 2) for b in (3, 4)]", "MS809", "lax"),
    ("generator, two clauses", "z = sum(a * b for a in (1, 2) for b in (3, 4))", "MS809", "strict"),
    ("dict comprehension, two clauses", "z = {a + b: x for a in ('a', 'b') for b in ('c',)}", "MS809", "lax"),
    ("nested comprehensions", "z = [[a * b for b in (3, 4)] for a in (1, 2)]", None, "lax"),
    ("one clause, two conditions", "z = [a for a in (1, 2, 3) if a > 1 if a < 3]", None, "strict"),
    # 3. raise: only some built-in types, checked when compiling (even in a branch never taken)
    ("raise a user exception", "if x.shape[0] > 100:\n    raise Custom('x')", "MS810@1", "lax"),
    ("raise UserWarning", "if x.shape[0] > 100:\n    raise UserWarning('x')", "MS810@1", "strict"),
    ("raise ImportError", "if x.shape[0] > 100:\n    raise ImportError", "MS810@1", "lax"),
    ("raise ValueError", "if x.shape[0] > 100:\n    raise ValueError('x')", None, "lax"),
    ("raise NotImplementedError", "if x.shape[0] > 100:\n    raise NotImplementedError", None, "strict"),
    ("raise KeyError", "if x.shape[0] > 100:\n    raise KeyError('x')", None, "lax"),
    # 4. truth value: only a tensor of shape () or (1,) converts to bool
    ("if on a matrix comparison", "if self.matrix > 0:\n    x = x + 1", "MS811", "lax"),
    ("while on a literal vector", "while Tensor([1, 2, 3]):\n    break", "MS811", "strict"),
    ("not of a built mask", "z = not ops.ones((2, 2), ms.float32)", "MS811", "lax"),
    ("assert on a matrix", "assert self.matrix", "MS811", "lax"),
    ("first operand of and", "z = self.matrix and x", "MS811", "lax"),
    ("if on a one-element tensor", "if self.single > 0:\n    x = x + 1", None, "lax"),
    ("if on a reduction", "if (self.matrix > 0).all():\n    x = x + 1", None, "strict"),
    ("if on an input (shape unknown)", "if x > 0:\n    x = x + 1", None, "lax"),
    ("if on a shape", "if x.shape[0] == 2:\n    x = x + 1", None, "lax"),
    # 5. a Cell's list or dict attribute changed in graph code
    ("append to a list attribute", "self.hist.append(x)", "MS205", "lax"),
    ("store into a dict attribute under STRICT", "self.table['b'] = x", "MS205", "strict"),
    ("store into a dict attribute under LAX (kept)", "self.table['b'] = x", None, "lax"),
    ("extend a list attribute under STRICT", "self.hist.extend([1])", "MS205", "strict"),
    ("extend a list attribute under LAX (kept)", "self.hist.extend([1])", None, "lax"),
    ("a local list", "out = []\nout.append(x)", None, "strict"),
    ("a copy of the attribute", "out = list(self.hist)\nout.append(x)", None, "lax"),
    # 6. STRICT: an attribute __init__ copied from an argument
    ("assign an argument attribute under STRICT", "self.arg = x", "MS713", "strict"),
    ("assign an argument attribute under LAX", "self.arg = x", None, "lax"),
    # 8. divmod
    ("divmod of a tensor", "q, r = divmod(x.sum(), 2)", "MS812", "lax"),
    ("divmod of a shape under STRICT", "q, r = divmod(x.shape[0], 2)", "MS812", "strict"),
    ("divmod of a shape under LAX", "q, r = divmod(x.shape[0], 2)", None, "lax"),
    ("divmod of constants", "q, r = divmod(7, 2)", None, "strict"),
]


@pytest.mark.parametrize("case, body, expected, level", CASES, ids=[c[0] for c in CASES])
def test_case(project, case, body, expected, level):
    findings = project.lint_source(_source(body), select=NEW_RULES, syntax_level=level)
    code, _, offset = (expected or "").partition("@")
    assert codes_by_line(findings) == ({BODY_LINE + int(offset or 0): [code]} if expected else {}), \
        [f"{f.line}: {f.code} {f.message}" for f in findings]


# 7. what a root hands back: STRICT cannot return a set and turns a dict into a tuple
RETURNS = '''\
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        return {returned}
'''


@pytest.mark.parametrize("returned, level, expected", [
    ("set((1, 2, 3))", "strict", ["MS206"]),
    ("x, frozenset((1, 2))", "strict", ["MS206"]),
    ("set((1, 2, 3))", "lax", []),
    ("{'a': x, 'b': x + 1}", "strict", ["MS207"]),
    ("{'a': x, 'b': x + 1}", "lax", []),
    ("x + len(set((1, 2, 2)))", "strict", []),
    ("(x, x + 1)", "strict", []),
])
def test_returned_values(project, returned, level, expected):
    findings = project.lint_source(RETURNS.format(returned=returned), select=NEW_RULES, syntax_level=level)
    assert [f.code for f in findings] == expected
    assert all(f.line == 6 for f in findings)


# -- the same cases on the real MindSpore --------------------------------------------------------------
_RUNNER = '''
import importlib.util, json, sys
import numpy as np
import mindspore as ms

level, directory, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if level == "strict" else ms.LAX)
outcomes = []
for i in range(count):
    spec = importlib.util.spec_from_file_location(f"case{i}", f"{directory}/case{i}.py")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        net = module.Net(ms.Tensor(np.zeros(1, np.float32)))
        net(ms.Tensor(np.ones(1, np.float32)), ms.Tensor(2, ms.int32))
        outcomes.append("runs")
    except Exception as error:  # the outcome is what we record
        outcomes.append(f"error: {type(error).__name__}")
print(json.dumps(outcomes))
'''
# rules whose finding means "fails to compile" at the level the case runs
_FAILS = {"MS808", "MS809", "MS810", "MS811", "MS812", "MS713"}


@pytest.mark.mindspore
@pytest.mark.parametrize("level", ["strict", "lax"])
def test_cases_on_mindspore(tmp_path, level):
    pytest.importorskip("mindspore")
    import json
    import subprocess
    import sys

    cases = [c for c in CASES if c[3] == level]
    for i, (_, body, _, _) in enumerate(cases):
        (tmp_path / f"case{i}.py").write_text(_source(body), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _RUNNER, level, str(tmp_path), str(len(cases))],
                          capture_output=True, text=True, cwd=tmp_path, timeout=900)
    outcomes = json.loads(done.stdout.strip().splitlines()[-1])
    expected = ["error" if (c[2] or "").partition("@")[0] in _FAILS or
                (c[2] == "MS205" and "[" in c[1] and "] =" in c[1] and level == "strict") else "runs" for c in cases]
    assert [o.split(":")[0] for o in outcomes] == expected, list(zip([c[0] for c in cases], outcomes))


# 5, measured: what LAX keeps of the changes (the table on MS205's page)
KEPT_PROBE = HEADER.replace("self.hist = []", "self.hist = [0]") + """\
        self.hist.append(x)
        self.hist[0] = x
        self.table['b'] = x * 2
        self.table['a'] = 2
        self.table.update({'c': x})
        return x


ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX)
net = Net()
for _ in range(2):
    net(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32)))
print("outcome", len(net.hist), type(net.hist[0]).__name__, sorted(net.table), type(net.table['b']).__name__,
      net.table['a'])
"""


@pytest.mark.mindspore
def test_mindspore_lax_keeps_dict_item_stores_and_drops_list_changes(tmp_path):
    pytest.importorskip("mindspore")
    import subprocess
    import sys

    (tmp_path / "probe.py").write_text(KEPT_PROBE)
    done = subprocess.run([sys.executable, "probe.py"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    outcome = [line for line in done.stdout.splitlines() if line.startswith("outcome")]
    assert outcome == ["outcome 1 int ['a', 'b'] Tensor 2"], done.stdout + done.stderr[-2000:]
