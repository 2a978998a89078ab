"""MS201-MS204: user classes created from tensors, jit_class from tensors, returned, mutated."""
from __future__ import annotations

from conftest import codes_by_line, only

MS2 = ["MS201", "MS202", "MS203", "MS204"]


def lines(findings, code):
    return [f.line for f in only(findings, code)]


# -- MS201 ---------------------------------------------------------------------------
def test_namedtuple_built_from_tensors_is_flagged_and_one_built_in_init_is_clean(project):
    findings = project.lint_source('''
        from collections import namedtuple
        import mindspore as ms

        Pair = namedtuple("Pair", ["a", "b"])


        class FromTensors(ms.nn.Cell):
            def construct(self, x):
                p = Pair(x, x * 2)
                return p.a + p.b


        class FromInit(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.pair = Pair(2.0, 3.0)

            def construct(self, x):
                return x * self.pair.a + self.pair.b
    ''', select=MS2)
    assert [(f.code, f.line) for f in findings] == [("MS201", 9)]
    assert findings[0].message.startswith("Namedtuple 'Pair' is built in graph code from 'x', a value only known at "
                                          "run time. STRICT fails")
    assert "gradient through it is zero" in findings[0].message
    assert "the inputs should be constant" in findings[0].message


def test_typing_namedtuple_dataclass_and_plain_class_in_any_spelling(project):
    findings = project.lint_source('''
        import typing
        from dataclasses import dataclass
        from mindspore import nn, ops


        class Box(typing.NamedTuple):
            lo: object
            hi: object


        @dataclass
        class Stats:
            mean: object
            std: object


        class Plain:
            def __init__(self, value, scale=1.0):
                self.value = value
                self.scale = scale


        Alias = Plain
        Functional = typing.NamedTuple("Functional", [("v", object)])


        class Net(nn.Cell):
            def construct(self, x, y):
                box = Box(x, y)
                stats = Stats(mean=ops.mean(x), std=1.0)
                plain = Plain(1.0, scale=y)
                other = Alias(*[x])
                fun = Functional(v=x.sum())
                return box.lo + stats.mean + plain.value + other.value + fun.v
    ''', select=["MS201"])
    assert lines(findings, "MS201") == [29, 30, 31, 32, 33]
    messages = [f.message for f in findings]
    assert messages[0].startswith("Namedtuple 'Box' is built")
    assert messages[1].startswith("Dataclass 'Stats' is built in graph code from 'ops.mean(x)', a value only known "
                                  "at run time.")
    assert messages[2].startswith("Class 'Plain' is built in graph code from 'y', a value only known at run time.")
    assert messages[4].startswith("Namedtuple 'Functional' is built")


def test_constant_arguments_cells_exceptions_enums_and_builtins_are_clean(project):
    findings = project.lint_source('''
        import enum
        from collections import namedtuple
        import mindspore as ms
        from mindspore import nn

        Pair = namedtuple("Pair", "a b")


        class Plain:
            def __init__(self, a):
                self.a = a


        class Block(nn.Cell):
            def __init__(self, scale):
                super().__init__()
                self.scale = scale

            def construct(self, x):
                return x * self.scale


        class BadInput(ValueError):
            pass


        class Mode(enum.Enum):
            A = 1


        class Net(nn.Cell):
            def __init__(self, width):
                super().__init__()
                self.width = width

            def construct(self, x):
                p = Pair(1, self.width)
                q = Plain(x.shape[0])
                if x.sum() > 10:
                    raise BadInput(x)
                d = dict(a=x)
                t = tuple([x, x])
                m = Mode(1)
                return x * p.a + q.a + d["a"] + t[0]
    ''', select=MS2)
    assert findings == []


def test_creation_in_init_or_outside_graph_is_clean(project):
    findings = project.lint_source('''
        from dataclasses import dataclass
        from mindspore import nn


        @dataclass
        class Cfg:
            scale: object


        def make_cfg(x):
            return Cfg(x)


        class Net(nn.Cell):
            def __init__(self, x):
                super().__init__()
                self.cfg = make_cfg(x)
                self.other = Cfg(x)

            def construct(self, x):
                return x * self.cfg.scale
    ''', select=MS2)
    assert findings == []


def test_creation_in_a_helper_carries_the_reach_chain_across_modules(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/shapes.py", '''
        import collections
        Point = collections.namedtuple("Point", ["x", "y"])

        def to_point(t):
            return Point(t[0], t[1])
    ''')
    project.write("train.py", '''
        from mindspore import nn
        from pkg.shapes import Point
        from pkg import shapes


        class Net(nn.Cell):
            def construct(self, x):
                a = Point(x, x)
                return a.x + self.helper(x)

            def helper(self, x):
                return shapes.to_point(x).x
    ''')
    # train.py alone: the helper's file is not in the run, so its finding is shown at the call
    findings = project.lint("train.py", select=MS2)
    assert [(f.code, f.line) for f in findings] == [("MS201", 8), ("MS201", 12)]
    assert " It is at shapes.py:5, a file not in this run, reached by this call to to_point. " in findings[1].message
    # pkg/shapes.py alone: its importer's graph code reaches it, so it is reported at the helper
    helper = project.lint("pkg/shapes.py", select=MS2)
    assert [(f.code, f.line) for f in helper] == [("MS201", 5)]
    assert "In to_point, called from Net.construct (train.py, line 9) via Net.helper (train.py, line 12)." \
        in helper[0].message


def test_helper_creation_names_the_caller(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Plain:
            def __init__(self, a):
                self.a = a


        class Net(nn.Cell):
            def construct(self, x):
                return self.wrap(x).a

            def wrap(self, x):
                return Plain(x)
    ''', select=["MS201"])
    assert lines(findings, "MS201") == [14]
    assert "called from Net.construct (line 11)" in findings[0].message


# -- MS202 ---------------------------------------------------------------------------
def test_jit_class_from_tensors_in_any_spelling_and_subclasses(project):
    findings = project.lint_source('''
        import mindspore
        from mindspore import jit_class, nn


        @jit_class
        class Scale:
            def __init__(self, k):
                self.k = k

            def apply(self, x):
                return x * self.k


        @mindspore.jit_class
        class Shift:
            def __init__(self, b):
                self.b = b


        class SubScale(Scale):
            pass


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scale = Scale(2.0)

            def construct(self, x):
                a = Scale(x)
                b = Shift(b=x)
                c = SubScale(x.mean())
                d = Scale(3.0)
                return a.apply(x) + b.b + c.apply(x) + d.apply(x) + self.scale.apply(x)
    ''', select=MS2)
    assert [(f.code, f.line) for f in findings] == [("MS202", 30), ("MS202", 31), ("MS202", 32)]
    assert "When creating an instance of 'Scale', all arguments are required to be constants, but input 0 is a " \
           "variable" in findings[0].message
    assert "every syntax level" in findings[0].message
    assert "@jit_class 'SubScale'" in findings[2].message


# -- MS203 ---------------------------------------------------------------------------
def test_returning_a_user_object_from_a_root(project):
    findings = project.lint_source('''
        from collections import namedtuple
        from dataclasses import dataclass
        import mindspore as ms
        from mindspore import nn

        Pair = namedtuple("Pair", "a b")


        @dataclass
        class Result:
            loss: object


        class Cfg:
            def __init__(self):
                self.k = 1


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cfg = Cfg()

            def construct(self, x):
                if x.sum() > 0:
                    return x, self.cfg
                return Pair(1, 2)


        @ms.jit
        def step(x):
            out = Result(x * 2)
            return out
    ''', select=["MS203"])
    assert lines(findings, "MS203") == [26, 33]
    assert findings[0].message.startswith("construct returns a class 'Cfg' object from the graph. Net.construct "
                                          "returns 'self.cfg'. STRICT fails")
    assert findings[0].column == 22  # the tuple element, not the whole return
    # (MindSpore 2.10, STRICT: an object built before the graph runs reaches the output and is an
    # illegal type there; one built from graph values fails when it is built)
    assert "STRICT fails (RuntimeError: Illegal type in the graph" in findings[0].message
    assert "STRICT fails (ValueError: When handling script '...' in graph mode, the inputs should be constant, " \
           "but found variable" in findings[1].message


def test_returns_in_helpers_and_nested_functions_and_tensor_returns_are_clean(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Plain:
            def __init__(self, a):
                self.a = a


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.p = Plain(1)

            def construct(self, x):
                def inner():
                    return self.p
                return x * self.helper().a + inner().a

            def helper(self):
                return self.p
    ''', select=["MS203"])
    assert findings == []


def test_an_object_built_to_be_returned_is_one_finding_and_one_kept_in_graph_is_another(project):
    findings = project.lint_source('''
        from dataclasses import dataclass
        import mindspore as ms
        from mindspore import nn


        @dataclass
        class Output:
            sample: object


        class Direct(nn.Cell):
            def construct(self, x):
                return Output(sample=x * 2)


        class ThroughName(nn.Cell):
            def construct(self, x):
                out = Output(x)
                return out


        class NotReturned(nn.Cell):
            def construct(self, x):
                out = Output(x)
                return out.sample + 1
    ''', select=MS2)
    # one problem, one finding: MS203 where the object is returned, MS201 where it is only created
    assert [(f.code, f.line) for f in findings] == [("MS203", 13), ("MS203", 19), ("MS201", 24)]
    # MS201 alone still reports every creation
    findings = project.lint("example.py", select=["MS201"])
    assert [(f.code, f.line) for f in findings] == [("MS201", 13), ("MS201", 18), ("MS201", 24)]


def test_an_object_a_helper_builds_and_the_root_returns_is_one_finding(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", '''
        class Box:
            def __init__(self, t):
                self.t = t
    ''')
    project.write("pkg/utils.py", '''
        from .base import Box


        def make_box(x):
            box = Box(x * 2)
            return box


        def boxed_sum(x):
            return Box(x + 1).t
    ''')
    project.write("pkg/model.py", '''
        from mindspore import nn
        from .base import Box
        from .utils import make_box, boxed_sum


        class Head(nn.Cell):
            def head(self, x):
                return Box(x)

            def construct(self, x):
                return self.head(x)


        class Through(nn.Cell):
            def construct(self, x):
                out = make_box(x)
                return out


        class Kept(nn.Cell):
            def head(self, x):
                return Box(x)

            def construct(self, x):
                return self.head(x).t + boxed_sum(x)
    ''')
    findings = project.lint("pkg/model.py", select=MS2)
    # one problem, one finding: the object a helper (a method, or a function of another module) builds and
    # the root returns is MS203's, at the return; one a helper builds and graph code keeps is MS201's
    assert [(f.code, f.line) for f in findings] == [("MS203", 11), ("MS203", 17), ("MS201", 22), ("MS201", 25)]
    assert findings[0].message.startswith("construct returns a class 'Box' object from the graph. Head.construct "
                                          "returns 'self.head(x)'. STRICT fails (ValueError: When handling script "
                                          "'...' in graph mode, the inputs should be constant")
    assert "the inputs should be constant" in findings[1].message
    helpers = project.lint("pkg/utils.py", select=MS2)
    assert [(f.code, f.line) for f in helpers] == [("MS201", 10)]  # boxed_sum's; make_box's is returned
    # MS201 alone still reports every creation
    findings = project.lint("pkg/model.py", select=["MS201"])
    assert [(f.code, f.line) for f in findings] == [("MS201", 8), ("MS201", 16), ("MS201", 22), ("MS201", 25)]


# -- MS204 ---------------------------------------------------------------------------
def test_mutating_an_object_from_init_is_flagged(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Acc:
            def __init__(self):
                self.total = 0
                self.steps = 0


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Acc()
                self.count = 0

            def construct(self, x):
                self.acc.total = self.acc.total + 1
                self.acc.steps += 1
                setattr(self.acc, "total", 3)
                self.count = 1
                return x
    ''', select=["MS204"])
    assert lines(findings, "MS204") == [17, 18, 19]
    assert "'self.acc.total = ...' changes an attribute of an instance of class 'Acc'" in findings[0].message
    assert "runs once, while the graph is compiled" in findings[0].message
    assert "'self.acc.steps += ...'" in findings[1].message


def test_mutation_through_a_parameter_in_a_helper(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Acc:
            def __init__(self):
                self.total = 0


        def bump(acc, x):
            acc.total = x
            return x


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Acc()

            def construct(self, x):
                return bump(self.acc, x)
    ''', select=["MS204"])
    assert lines(findings, "MS204") == [10]
    assert "called from Net.construct (line 20)" in findings[0].message


def test_jit_class_cells_and_local_objects_under_lax_are_clean(project):
    src = '''
        import mindspore as ms
        from mindspore import nn


        @ms.jit_class
        class Counter:
            def __init__(self):
                self.n = 0


        class Acc:
            def __init__(self):
                self.total = 0

            def add(self, v):
                self.total = self.total + v
                return v


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.counter = Counter()
                self.block = nn.Dense(2, 2)
                self.acc = Acc()

            def construct(self, x):
                self.counter.n = 1
                self.block.weight_init = 1
                local = Acc()
                local.total = 5
                self.acc.add(1)
                return x + local.total
    '''
    assert project.lint_source(src, select=["MS204"]) == []
    strict = project.lint_source(src, select=["MS204"], syntax_level="strict")
    assert lines(strict, "MS204") == [16, 31]
    assert "In JIT strict mode, if need to modify a member attribute of a class with self.total" in strict[0].message
    assert "called from Net.construct (line 32)" in strict[0].message
    assert "STRICT fails as soon as the attribute is used" in strict[1].message


def test_local_bindings_only_for_names_local_to_the_function():
    import astroid

    from mslint.analysis.scope import local_bindings

    module = astroid.parse('''
G = 1
def f(p):
    a = g()
    def inner():
        return a
    return a, p, G, inner
''')
    function = module.body[1]
    names = {n.name: n for n in function.body[-1].nodes_of_class(astroid.nodes.Name)}
    assert [b.parent.as_string() for b in local_bindings(names["a"], function)] == ["a = g()"]
    assert isinstance(local_bindings(names["p"], function)[0].parent, astroid.nodes.Arguments)
    assert local_bindings(names["G"], function) == []
    inner_a = next(function.body[1].nodes_of_class(astroid.nodes.Name))
    assert local_bindings(inner_a, function.body[1]) == []  # bound in the enclosing function


# -- MS205 / MS206 / MS207 (issue 30) ---------------------------------------------------------------
CONTAINERS = '''
    from mindspore import nn


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hist = []
            self.cache = {}
            self.items = [1, 2, 3]
            self.layers = nn.CellList([nn.ReLU()])

        def construct(self, x):
            self.hist.append(x)
            self.cache["k"] = x
            self.cache["n"] = 2
            self.items[1] = x
            self.items.extend([4])
            h = self.hist
            h.append(x)
            out = []
            out.append(x)
            copy = list(self.items)
            copy.append(x)
            self.layers.append(nn.ReLU())
            return x + self.items[0]
'''


def test_ms205_changes_lost_under_lax(project):
    findings = only(project.lint_source(CONTAINERS, select=["MS205"]), "MS205")
    # a dict item store is kept under LAX, a tensor too (tests/test_mindspore_syntax_suite.py measures it)
    assert [f.line for f in findings] == [13, 16, 19]
    assert findings[0].message.startswith("'.append()' changes the list 'self.hist' in graph code; "
                                          "the change is not kept. MindSpore 2.10, LAX:")
    assert "LAX: the list is unchanged after the call; STRICT: TypeError" in findings[1].message


def test_ms205_strict_adds_the_changes_lax_keeps(project):
    findings = only(project.lint_source(CONTAINERS, select=["MS205"], syntax_level="strict"), "MS205")
    assert [f.line for f in findings] == [13, 14, 15, 16, 17, 19]
    assert "STRICT refuses it" in findings[2].message


def test_ms205_quiet_in_init_and_for_attributes_graph_code_assigns(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.hist = []
                self.hist.append(1)
                self.buf = []

            def construct(self, x):
                self.buf = []
                self.buf.append(x)
                return x
        ''', select=["MS205"])
    assert findings == []


def test_ms205_in_a_base_class_of_another_module(project):
    project.write("base.py", '''
        from mindspore import nn


        class Recorder(nn.Cell):
            def __init__(self):
                super().__init__()
                self.seen = {}

            def record(self, key, value):
                self.seen.update({key: value})
        ''')
    project.write("model.py", '''
        from base import Recorder


        class Net(Recorder):
            def construct(self, x):
                self.record("x", x)
                return x
        ''')
    findings = only(project.lint("base.py", select=["MS205"]), "MS205")
    assert [f.line for f in findings] == [10]
    assert "called from Net.construct" in findings[0].message


STRICT_RETURNS = '''
    import mindspore as ms
    from mindspore import nn, jit


    class Net(nn.Cell):
        def construct(self, x):
            seen = set((1, 2))
            n = len(set((1, 1)))
            return x + n, seen, {"a": x}


    @jit(fullgraph=True)
    def heads(x):
        out = {k: x for k in ("a", "b")}
        return out


    @jit
    def lax_heads(x):
        return {"a": x}, frozenset((1,))
'''


def test_ms206_ms207_only_under_strict(project):
    lax = project.lint_source(STRICT_RETURNS, select=["MS206", "MS207"])
    assert codes_by_line(lax) == {15: ["MS207"]}  # the fullgraph function is STRICT anyway
    strict = project.lint_source(STRICT_RETURNS, select=["MS206", "MS207"], syntax_level="strict")
    assert codes_by_line(strict) == {9: ["MS206", "MS207"], 15: ["MS207"]}
    set_finding = only(strict, "MS206")[0]
    assert set_finding.message.startswith("Net.construct returns a set, which STRICT graph code cannot hand back. "
                                          "The returned value is 'seen'.")
    assert "Illegal type in the graph" in set_finding.message
