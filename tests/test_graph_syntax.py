"""MS8xx: removed jit APIs, classmethods, jit_class on Cell, uncompiled construct, unsupported syntax."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from conftest import codes_by_line, only

MS8 = ["MS801", "MS802", "MS803", "MS804", "MS805", "MS806", "MS807"]


def lines(findings, code):
    return [f.line for f in only(findings, code)]


# -- MS801 legacy-jit-api ---------------------------------------------------------------------
LEGACY_IMPORT = """
from mindspore import ms_function, Tensor


@ms_function
def add(x, y):
    return x + y
"""


def test_ms801_ms_function_import_is_reported_once(project):
    findings = project.lint_source(LEGACY_IMPORT, select=["MS801"])
    assert lines(findings, "MS801") == [1]
    message = findings[0].message
    assert "ImportError: cannot import name 'ms_function' from 'mindspore'" in message
    assert "mindspore.jit" in message


@pytest.mark.parametrize("version, reported", [("1.8", False), ("2.0", False), ("2.5", False), ("2.6", True),
                                               ("2.10", True)])
def test_ms801_ms_function_follows_target_version(project, version, reported):
    findings = project.lint_source(LEGACY_IMPORT, select=["MS801"], target_version=version)
    assert lines(findings, "MS801") == ([1] if reported else [])


def test_ms801_attribute_spellings(project):
    findings = project.lint_source("""
        import mindspore as ms
        import mindspore


        @ms.ms_function
        def add(x, y):
            return x + y


        helper = mindspore.ms_class
        """, select=["MS801"])
    assert lines(findings, "MS801") == [5, 10]
    # issue 26: an attribute is an AttributeError on 2.10, an import an ImportError (tests/test_mindspore_claims.py)
    assert findings[0].message == (
        "'ms.ms_function' uses 'ms_function', which MindSpore 2.10 no longer has. It was replaced by 'mindspore.jit' "
        "in MindSpore 2.0 and last documented in 2.5; 2.10 raises AttributeError: module 'mindspore' has no attribute "
        "'ms_function'. Use mindspore.jit.")
    assert "mindspore.jit_class" in findings[1].message


def test_ms801_ms_class_from_common_api(project):
    findings = project.lint_source("from mindspore.common.api import ms_class\n", select=["MS801"])
    assert lines(findings, "MS801") == [1]
    assert "'ms_class'" in findings[0].message and "mindspore.jit_class" in findings[0].message
    assert "ImportError: cannot import name 'ms_class' from 'mindspore.common.api'" in findings[0].message
    assert project.lint_source("from mindspore.common.api import ms_class\n", select=["MS813"]) == []


COMMON_API = """
from mindspore.common.api import jit
import mindspore.common.api as api
"""


def test_ms813_common_api_is_deprecated_from_2_9(project):
    # issue 26: it only logs a deprecation on 2.10, so it is MS813 (info), not the error MS801
    findings = project.lint_source(COMMON_API, select=["MS801", "MS813"])
    assert lines(findings, "MS813") == [1, 2] and lines(findings, "MS801") == []
    assert findings[0].rule.severity == "info"
    assert findings[0].message.startswith("'from mindspore.common.api import jit' imports the module "
                                          "'mindspore.common.api', deprecated since MindSpore 2.9. It still works "
                                          "on 2.10 and logs")
    assert "mindspore.graph.api" in findings[0].message
    assert lines(project.lint_source(COMMON_API, select=["MS813"], target_version="2.9"), "MS813") == [1, 2]
    assert project.lint_source(COMMON_API, select=["MS813"], target_version="2.8") == []


def test_ms801_current_apis_are_clean(project):
    findings = project.lint_source("""
        import mindspore as ms
        from mindspore import jit, jit_class
        from mindspore.graph.api import jit as graph_jit
        from mindspore.common import api  # an alias of mindspore.graph.api on 2.10, no deprecation log
        from mindspore import nn

        jitted = ms.jit
        executor = ms.common.api._cell_graph_executor


        @jit_class
        class Point:
            def __init__(self):
                self.x = 1


        class Net(nn.Cell):
            @jit
            def construct(self, x):
                return x
        """, select=["MS801"])
    assert findings == []


# -- MS802 classmethod-in-graph ---------------------------------------------------------------
def test_ms802_self_and_class_calls(project):
    findings = project.lint_source("""
        from mindspore import nn


        class Net(nn.Cell):
            @classmethod
            def func(cls, x, y):
                return x + y

            def construct(self, x):
                a = self.func(x, x)
                return Net.func(a, x)
        """, select=["MS802"])
    assert lines(findings, "MS802") == [10, 11]
    assert "classmethod Net.func" in findings[0].message
    assert "The parameters number of the function is 3, but the number of provided arguments is 2." \
        in findings[0].message


def test_ms802_inherited_classmethod_and_plain_object(project):
    findings = project.lint_source("""
        import mindspore as ms


        class Scaler:
            @classmethod
            def double(cls, x):
                return x * 2


        class Base(ms.nn.Cell):
            @classmethod
            def shift(cls, x):
                return x + 1


        class Net(Base):
            def __init__(self):
                super().__init__()
                self.scaler = Scaler()

            def construct(self, x):
                return self.scaler.double(self.helper(x))

            def helper(self, x):
                return self.shift(x)
        """, select=["MS802"])
    assert lines(findings, "MS802") == [22, 25]
    assert "classmethod Scaler.double" in findings[0].message
    assert "classmethod Base.shift" in findings[1].message
    assert "called from Net.construct" in findings[1].message


def test_ms802_staticmethod_and_classmethod_outside_graph_are_clean(project):
    findings = project.lint_source("""
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self, scale):
                super().__init__()
                self.scale = self.make_scale(scale)

            @classmethod
            def make_scale(cls, scale):
                return scale * 2

            @staticmethod
            def add(x, y):
                return x + y

            def construct(self, x):
                return self.add(x, x) * self.scale
        """, select=["MS802"])
    assert findings == []


# -- MS803 jit-class-on-cell --------------------------------------------------------------------
def test_ms803_jit_class_on_cell_any_spelling(project):
    findings = project.lint_source("""
        import mindspore as ms
        from mindspore.nn import Cell as C


        class Base(C):
            pass


        @ms.jit_class
        class Net(Base):
            def construct(self, x):
                return x
        """, select=["MS803"])
    assert lines(findings, "MS803") == [9]
    assert "cannot be used for nn.Cell" in findings[0].message
    assert findings[0].column == 1  # the decorator expression, after '@'


def test_ms803_jit_class_on_plain_class_is_clean(project):
    findings = project.lint_source("""
        from mindspore import jit_class


        @jit_class
        class Point:
            def __init__(self, x):
                self.x = x
        """, select=["MS803"])
    assert findings == []


# -- MS804 construct-not-compiled ---------------------------------------------------------------
EAGER = """
import numpy as np
from mindspore import nn, Tensor


class Eager(nn.Cell):
    def __call__(self, x):
        return self.construct(x)

    def construct(self, x):
        return Tensor(x.asnumpy() + 1)


class Child(Eager):
    pass
"""


def test_ms804_reports_the_override_and_is_off_by_default(project):
    findings = project.lint_source(EAGER, select=["MS804", "MS101"])
    assert codes_by_line(findings) == {6: ["MS804"]}  # construct is not graph code: no MS101
    assert "never compiled" in findings[0].message
    assert (findings[0].end_line, findings[0].column) == (6, 4)
    assert only(project.lint_source(EAGER), "MS804") == []


@pytest.mark.parametrize("call", ["super().__call__(x)", "nn.Cell.__call__(self, x)"])
def test_ms804_override_that_reaches_cell_call_is_clean(project, call):
    findings = project.lint_source(f"""
        from mindspore import nn


        class Logged(nn.Cell):
            def __call__(self, x):
                print("called")
                return {call}

            def construct(self, x):
                return x
        """, select=["MS804"])
    assert findings == []


def test_ms804_jit_construct_is_compiled_anyway(project):
    findings = project.lint_source("""
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            def __call__(self, x):
                return self.construct(x)

            @ms.jit
            def construct(self, x):
                return x
        """, select=["MS804"])
    assert findings == []


# -- MS805 unsupported-syntax-in-graph ----------------------------------------------------------
def test_ms805_statements_and_expressions(project):
    findings = project.lint_source("""
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                try:
                    y = x + 1
                except ValueError:
                    y = x
                del x
                if (n := y.shape[0]) > 1:
                    y = y + n
                count = 0

                def bump():
                    nonlocal count
                    count = 1
                    yield count
                    yield from (1, 2)

                match n:
                    case 1:
                        return y
                return y
        """, select=["MS805"])
    assert lines(findings, "MS805") == [6, 10, 11, 16, 18, 19, 21]
    texts = [f.message for f in only(findings, "MS805")]
    for fragment in ("'Try'", "'Delete'", "'NamedExpr'", "'Nonlocal'", "'Yield'", "'YieldFrom'", "'Match'"):
        assert any(fragment in t for t in texts), fragment
    try_finding = only(findings, "MS805")[0]
    assert (try_finding.end_line, try_finding.end_column) == (6, 11)  # just the 'try' keyword line


def test_ms805_async(project):
    findings = project.lint_source("""
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                async def fetch():
                    return x
                return self.helper(x)

            async def helper(self, x):
                await self.other(x)
                return x


        @ms.jit
        async def compiled(x):
            async for item in x:
                pass
            return x
        """, select=["MS805", "MS301"])
    # async belongs to the concurrency family (design.md: MS3xx covers async); reported once, by MS301
    assert lines(findings, "MS805") == []
    assert lines(findings, "MS301") == [7, 11, 17]


def test_ms805_with_needs_a_jit_class_instance(project):
    findings = project.lint_source("""
        import threading
        from mindspore import nn, ops, jit_class


        class Opener:
            def __enter__(self):
                return self

            def __exit__(self, *args):
                return False


        @jit_class
        class JitOpener:
            def __init__(self):
                self.v = 1

            def __enter__(self):
                return self.v

            def __exit__(self, *args):
                return False


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.plain = Opener()
                self.jitted = JitOpener()
                self.lock = threading.Lock()

            def construct(self, x, manager):
                with self.plain:
                    x = x + 1
                with open("/dev/null"):
                    x = x + 1
                y = ops.abs(x)
                with y:
                    x = x + 1
                with self.jitted as v:
                    x = x + v
                with JitOpener() as v:
                    x = x + v
                with self.lock:
                    x = x + 1
                with manager:
                    x = x + 1
                return x
        """, select=["MS805"])
    assert lines(findings, "MS805") == [33, 35, 38]  # not `with manager:`, a parameter of construct
    messages = [f.message for f in only(findings, "MS805")]
    assert "instance of Opener, which is not a @jit_class" in messages[0]
    assert "builtins.open" in messages[1]
    assert "'y' is a tensor" in messages[2]
    # checked on 2.10 (test_mindspore_claims.py): a file from open() fails in the parser's class test first
    assert "MindSpore 2.10, STRICT and LAX: TypeError: issubclass() arg 1 must be a class." in messages[1]
    assert "Only support jit_class" not in messages[1]
    assert all("TypeError: Only support jit_class instance, but got ..." in m for m in (messages[0], messages[2]))


def test_ms805_with_on_executor_is_left_to_ms301(project):
    findings = project.lint_source("""
        from concurrent.futures import ThreadPoolExecutor
        import multiprocessing
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                with ThreadPoolExecutor(2) as pool:
                    pass
                with multiprocessing.Pool(2) as pool:
                    pass
                return x
        """, select=["MS805"])
    assert findings == []


def test_ms805_supported_syntax_is_clean(project):
    findings = project.lint_source("""
        from mindspore import nn

        LIMIT = 1


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                try:
                    self.scale = 2
                except ValueError:
                    self.scale = 1

            def construct(self, x):
                global LIMIT
                y: int = 1
                assert x.shape[0] == 3
                if x.shape[0] > 5:
                    raise ValueError("too big")
                f = lambda a: a + 1
                squares = [i * i for i in range(3)]
                table = {i: i for i in range(3)}
                total = tuple(i for i in range(3))
                s = x
                for i in range(x.shape[0]):
                    s = s + i
                i = 0
                while i < x.shape[0]:
                    i += 1
                return f(s) + y + squares[0] + table[1] + total[0] + LIMIT
        """, select=MS8)
    assert findings == []


def test_ms805_not_reported_outside_graph_scope(project):
    findings = project.lint_source("""
        def load(path):
            try:
                import json
                with open(path) as handle:
                    return json.load(handle), {1, 2}
            finally:
                del path
        """, select=MS8)
    assert findings == []


# -- MS806 import-in-graph / MS807 set-in-graph ------------------------------------------------
def test_ms806_import_in_construct_and_helper(project):
    findings = project.lint_source("""
        from mindspore import nn


        def helper(x):
            from math import pi
            return x * pi


        class Net(nn.Cell):
            def construct(self, x):
                import math
                return helper(x) + math.e
        """, select=["MS806"])
    assert lines(findings, "MS806") == [5, 11]
    assert "Unsupported statement 'ImportFrom'" in findings[0].message
    assert "called from Net.construct" in findings[0].message
    assert "Unsupported statement 'Import'." in findings[1].message


def test_ms807_set_display_and_comprehension(project):
    findings = project.lint_source("""
        import mindspore as ms


        @ms.jit
        def pick(x):
            seen = {1, 2}
            odd = {i for i in range(5) if i % 2}
            ok = set((1, 2))
            table = {"a": 1}
            return x
        """, select=["MS807"])
    assert lines(findings, "MS807") == [6, 7]
    assert "Unsupported expression 'Set'." in findings[0].message
    assert "Unsupported expression 'SetComp'." in findings[1].message


def test_ms801_version_fallbacks_are_not_reported(project):
    findings = project.lint_source("""
        import mindspore as ms

        try:
            from mindspore import jit
        except ImportError:
            from mindspore import ms_function as jit

        try:
            from mindspore import ms_class
        except (ModuleNotFoundError, ImportError):
            from mindspore import jit_class as ms_class

        try:
            legacy = ms.ms_function
        except AttributeError:
            legacy = ms.jit

        if ms.__version__.startswith("2"):
            from mindspore import jit as compile_fn
        else:
            from mindspore import ms_function as compile_fn
        """, select=["MS801"])
    assert findings == []


def test_ms801_try_or_if_that_is_no_fallback_still_reports(project):
    findings = project.lint_source("""
        import os

        try:
            from mindspore import ms_function
        except ValueError:
            ms_function = None

        if os.environ.get("LEGACY"):
            from mindspore import ms_class
        """, select=["MS801"])
    assert lines(findings, "MS801") == [4, 9]


def test_ms801_the_branch_of_a_version_test_taken_on_older_versions_is_not_reported(project):
    findings = project.lint_source("""
        import mindspore as ms
        from packaging.version import parse
        from mindformers.tools.utils import is_version_ge

        if not is_version_ge(ms.__version__, "2.6"):
            compile_fn = ms.ms_function
        if parse(ms.__version__) < parse("2.0"):
            from mindspore import ms_class
        if is_version_ge(ms.__version__, "2.3"):
            pass
        else:
            old = ms.ms_function
        if is_version_ge(ms.__version__, "2.6"):
            new = ms.ms_function
        """, select=["MS801"])
    # issue 29: the old name is the right one on the versions those branches run on (the else of
    # '>= 2.3' runs before 2.3, where ms_function exists); the fix would break them
    assert lines(findings, "MS801") == [14]


PARSER_PRUNING = """
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor

ms.set_context(mode=ms.GRAPH_MODE)
DEBUG = False


class Attribute(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = False
        self.head = None

    def construct(self, x):
        y = x + 1
        if self.flag and x.shape[0] > 1:
            try:
                y = x
            except ValueError:
                y = x
        if self.head is not None:
            del y
        if not self.flag:
            return y
        else:
            del y
            return x


class Global(nn.Cell):
    def construct(self, x):
        y = x + 1
        if DEBUG:
            del y
            y = x
        return y


class Default(nn.Cell):
    def construct(self, x, flag=False):
        y = x + 1
        if flag:
            try:
                y = x
            except ValueError:
                y = x
        return y
"""


def test_ms805_skips_what_the_parser_drops_for_a_cell_attribute_and_only_that(project):
    found = project.lint_source(PARSER_PRUNING, select=["MS805"])
    # the global's `del` (line 35) and the default's `try` (line 44) are still reported
    assert [(f.code, f.line) for f in found] == [("MS805", 35), ("MS805", 44)]


@pytest.mark.mindspore
def test_mindspore_parser_drops_only_branches_ruled_out_by_a_cell_attribute(tmp_path):
    if importlib.util.find_spec("mindspore") is None:
        pytest.skip("MindSpore is not installed")
    script = tmp_path / "pruning.py"
    script.write_text(PARSER_PRUNING + textwrap.dedent("""
        x = Tensor(np.ones((2,), np.float32))
        for cell in (Attribute, Global, Default):
            try:
                cell()(x)
                print(cell.__name__, "compiled")
            except RuntimeError as error:
                print(cell.__name__, "failed", str(error).splitlines()[0])
        """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.split(" ", 1)[0] in ("Attribute", "Global", "Default")]
    assert lines == ["Attribute compiled", "Global failed Unsupported statement 'Delete'.",
                     "Default failed Unsupported statement 'Try'."], done.stdout + done.stderr


# -- MS808-MS812: forms MindSpore's own graph-syntax tests reject (issue 30) ----------------------------
HELPERS = '''
    import mindspore as ms
    from mindspore import ops


    class ConfigError(Exception):
        pass


    def repeat(x, steps):
        for _ in range(steps):
            x = x + 1
        return x


    def check(x):
        if x.ndim != 2:
            raise ConfigError("expected a matrix")
        return x
'''
MODEL = '''
    import numpy as np
    from mindspore import nn, ops, Tensor
    from helpers import repeat, check


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bias = Tensor(np.ones((2, 3), np.float32))
            self.n = 3

        def construct(self, x, n):
            x = repeat(x, x.sum())
            x = repeat(x, self.n)
            x = repeat(x, x.shape[0])
            x = check(x)
            return x
'''


def test_ms808_ms810_in_a_helper_of_another_module(project):
    project.write("helpers.py", HELPERS)
    project.write("model.py", MODEL)
    findings = project.lint("helpers.py", select=["MS808", "MS810"])
    assert codes_by_line(findings) == {10: ["MS808"], 17: ["MS810"]}
    range_finding = only(findings, "MS808")[0]
    assert range_finding.message.startswith("range() is given the tensor 'steps'; it needs a Python int.")
    assert "called from Net.construct" in range_finding.message
    assert "Unsupported exception type: ConfigError" in only(findings, "MS810")[0].message


def test_ms808_helper_reached_only_with_ints_is_quiet(project):
    project.write("helpers.py", HELPERS)
    project.write("model.py", MODEL.replace("x = repeat(x, x.sum())\n", ""))
    assert only(project.lint("helpers.py", select=["MS808"]), "MS808") == []


def test_ms808_forms(project):
    findings = project.lint_source('''
        import mindspore as ms
        from mindspore import nn, ops, Tensor


        class Net(nn.Cell):
            def construct(self, x, n, m: Tensor):
                for i in range(n):                 # an input: may be an int its parent passes
                    x = x + 1
                for i in range(int(n)):
                    x = x + 1
                for i in range(0, ops.argmax(x)):
                    x = x + 1
                for i in range(m):
                    x = x + 1
                for i in range(len(x)):
                    x = x + 1
                for i in range(x.shape[0] * 2):
                    x = x + 1
                return x
        ''', select=["MS808"])
    assert lines(findings, "MS808") == [11, 13]
    assert "the 1th input should be a int scalar" in findings[0].message


def test_ms809_two_for_clauses_in_every_comprehension_kind(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                a = [i * j for i in (1, 2) for j in (3, 4)]
                b = sum(i * j for i in (1, 2) for j in (3, 4))
                c = {k + v: x for k in ("a", "b") for v in ("c",)}
                d = [[i * j for j in (3, 4)] for i in (1, 2)]
                e = [i for i in (1, 2, 3) if i > 1 if i < 3]
                return x
        ''', select=["MS809"])
    assert lines(findings, "MS809") == [6, 7, 8]
    assert "in DictComp/GeneratorExp, but got 2 comprehensions" in findings[2].message
    assert findings[0].message.startswith("This comprehension has 2 `for` clauses; graph code allows one.")


def test_ms809_outside_graph_code_is_quiet(project):
    findings = project.lint_source('''
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pairs = [(i, j) for i in range(3) for j in range(3)]

            def construct(self, x):
                return x
        ''', select=["MS809"])
    assert findings == []


def test_ms810_accepted_and_rejected_types(project):
    findings = project.lint_source('''
        from mindspore import nn


        class BadInput(ValueError):
            pass


        class Net(nn.Cell):
            def construct(self, x):
                if x.shape[0] > 8:
                    raise BadInput("x")
                if x.shape[0] > 8:
                    raise UserWarning("x")
                if x.shape[0] > 8:
                    raise ImportError
                if x.shape[0] > 8:
                    raise ValueError("x")
                if x.shape[0] > 8:
                    raise NotImplementedError
                if x.shape[0] > 8:
                    raise KeyError("x")
                return x
        ''', select=["MS810"])
    assert lines(findings, "MS810") == [11, 13, 15]
    assert findings[0].message.startswith("Graph code cannot raise BadInput;")


def test_ms810_exception_outside_graph_code_is_quiet(project):
    findings = project.lint_source('''
        from mindspore import nn


        class BadInput(Exception):
            pass


        class Net(nn.Cell):
            def __init__(self, n):
                super().__init__()
                if n < 0:
                    raise BadInput("n")

            def construct(self, x):
                return x
        ''', select=["MS810"])
    assert findings == []


def test_ms811_multi_element_conditions(project):
    findings = project.lint_source('''
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops, Tensor, Parameter


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bias = Tensor(np.ones((2, 3), np.float32))
                self.w = Parameter(Tensor(np.zeros(4, np.float32)), name="w")
                self.one = Tensor([1.0])

            def construct(self, x):
                mask = ops.ones((2, 3), ms.float32) > 0
                if mask:
                    x = x + 1
                while Tensor([1, 2, 3]):
                    break
                assert not self.w
                y = x if self.bias > 0 else x + 1
                if self.bias.astype(ms.int32) and x:
                    x = x + 1
                if x > 0:                      # an input: shape unknown
                    x = x + 1
                if (self.bias > 0).all() or mask:
                    x = x + 1
                if self.one > 0:               # one element
                    x = x + 1
                if self.bias.sum() > 0:
                    x = x + 1
                return x
        ''', select=["MS811"])
    assert lines(findings, "MS811") == [15, 17, 19, 20, 21]
    assert findings[0].message.startswith("'mask' is a tensor with more than one element, used as a condition.")
    assert "The truth value of an array with more than one element is ambiguous." in findings[1].message


def test_ms812_divmod(project):
    source = '''
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x, n):
                q, r = divmod(x.sum(), 2)
                q, r = divmod(7, 2)
                q, r = divmod(x.shape[0], 2)
                q, r = divmod(n, 2)
                return x
        '''
    lax = project.lint_source(source, select=["MS812"])
    assert lines(lax, "MS812") == [6]
    assert "LAX: TypeError: unsupported operand type(s) for divmod()" in lax[0].message
    strict = project.lint_source(source, select=["MS812"], syntax_level="strict")
    assert lines(strict, "MS812") == [6, 8]  # n: an input the parent may pass as an int
    assert "divmod() is given a value computed from a shape, which STRICT refuses." in strict[1].message


def test_ms809_ms810_follow_the_parser(project):
    # 2.10, both levels: a nested def that is never called is still parsed (both fail); the side of an
    # `if` on a cell attribute that __init__ sets to False is dropped by the parser (it runs)
    findings = project.lint_source('''
        from mindspore import nn


        class BadInput(Exception):
            pass


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.strict = False

            def construct(self, x):
                def check(y):
                    pairs = [a * b for a in (1, 2) for b in (3, 4)]
                    raise BadInput("bad")
                if self.strict:
                    raise BadInput("bad")
                return x
        ''', select=["MS809", "MS810"])
    assert codes_by_line(findings) == {15: ["MS809"], 16: ["MS810"]}
