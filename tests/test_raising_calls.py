"""A call that always raises with its constant arguments ends its block.

Ports of Hugging Face libraries (mindone's diffusers) guard a deprecated branch with
`deprecate("output_type=='np'", "0.34.0", message)`; the library's `__version__` is past that
version, so the call raises and what follows it (a NumPy implementation) never runs.  MindSpore
2.10 agrees (checked below): the ValueError, in STRICT and LAX, before the NumPy call.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import only

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None

DEPRECATION = '''
import warnings

from packaging import version


def deprecate(*args, take_from=None, standard_warn=True):
    from .. import __version__

    deprecated_kwargs = take_from
    if not isinstance(args[0], tuple):
        args = (args,)
    for attribute, version_name, message in args:
        if version.parse(version.parse(__version__).base_version) >= version.parse(version_name):
            raise ValueError(f"{attribute} should be removed since version {__version__} >= {version_name}")
        if deprecated_kwargs is None:
            warnings.warn(f"{attribute} is deprecated: {message}", FutureWarning)
'''

EMBEDDINGS = '''
import numpy as np
import mindspore as ms
from mindspore import nn, ops

from ..utils.deprecation import deprecate


def embed_np(pos):
    return np.einsum("m,d->md", pos, np.arange(4.0))


def embed(pos, output_type="np"):
    if output_type == "np":
        message = "embed uses MindSpore now; pass output_type='ms'"
        deprecate("output_type=='np'", "{removed_in}", message, standard_warn=False)
        return embed_np(pos)
    return ops.outer(pos, ops.arange(4.0))


class Timesteps(nn.Cell):
    def __init__(self, output_type="ms"):
        super().__init__()
        self.output_type = output_type

    def construct(self, t):
        return embed(t, output_type=self.output_type)
'''

PACKAGE_VERSION = '__version__ = "0.35.1"\n'


def run_claim(tmp_path, source: str, *argv: str) -> list:
    """The lines starting with "outcome" that a MindSpore program prints (run in tmp_path)."""
    if not HAS_MINDSPORE:
        pytest.skip("MindSpore is not installed")
    script = tmp_path / "claim.py"
    script.write_text(source)
    done = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    outcome = [line for line in done.stdout.splitlines() if line.startswith("outcome ")]
    assert outcome, done.stdout + done.stderr
    return outcome


def write_package(project, removed_in: str, package_init: str = PACKAGE_VERSION, deprecation: str = DEPRECATION):
    project.write("lib/__init__.py", package_init)
    project.write("lib/utils/__init__.py", "")
    project.write("lib/utils/deprecation.py", deprecation)
    project.write("lib/models/__init__.py", "")
    project.write("lib/models/embeddings.py", EMBEDDINGS.replace("{removed_in}", removed_in))


def numpy_findings(project):
    return only(project.lint("lib/models/embeddings.py", select=["MS102"]), "MS102")


def test_code_after_a_deprecation_the_package_version_has_passed_is_not_reported(project):
    write_package(project, removed_in="0.34.0")
    assert numpy_findings(project) == []


@pytest.mark.parametrize("removed_in", ["0.36.0", "1.0.0", "0.35.2"])
def test_code_after_a_deprecation_still_to_come_is_reported(project, removed_in):
    write_package(project, removed_in=removed_in)
    findings = numpy_findings(project)
    assert [f.line for f in findings] == [9]
    assert "np.einsum" in findings[0].message and "output_type" in findings[0].message


@pytest.mark.parametrize("removed_in", ["0.35.1", "0.35", "0.35.1.0", "0.34"])
def test_a_version_equal_or_spelled_with_fewer_parts_compares_as_packaging_does(project, removed_in):
    write_package(project, removed_in=removed_in)
    assert numpy_findings(project) == []


def test_the_version_may_come_through_a_module_the_package_imports_it_from(project):
    # mindone/__init__.py: `from .version import __version__`
    write_package(project, removed_in="0.34.0", package_init="from .version import __version__\n")
    project.write("lib/version.py", PACKAGE_VERSION)
    assert numpy_findings(project) == []


@pytest.mark.parametrize("package_init", [
    "import os\n__version__ = os.environ.get('LIB_VERSION', '0.35.1')\n",  # not a literal
    '__version__ = "0.35.1"\n\n\ndef set_version(v):\n    global __version__\n    __version__ = v\n',  # rebound
    '__version__ = "0.35.1"\nif True:\n    __version__ = "0.1"\n',  # bound twice
    '__version__ = "1!0.1"\n',  # an epoch: not modelled
    "",  # no version at all: the import fails, which is not the raise looked for
])
def test_a_version_the_analysis_cannot_know_exactly_keeps_the_finding(project, package_init):
    write_package(project, removed_in="0.34.0", package_init=package_init)
    assert [f.line for f in numpy_findings(project)] == [9]


def test_a_pre_release_is_compared_by_its_base_version_and_not_compared_itself(project):
    # deprecate compares version.parse(__version__).base_version: "0.35.1rc1" -> "0.35.1"
    write_package(project, removed_in="0.34.0", package_init='__version__ = "0.35.1rc1"\n')
    assert numpy_findings(project) == []
    # a pre-release on the other side is not modelled (packaging orders 0.36.0rc1 before 0.36.0)
    write_package(project, removed_in="0.34.0rc1")
    assert [f.line for f in numpy_findings(project)] == [9]


def test_a_deprecation_that_only_warns_or_may_return_keeps_the_finding(project):
    warns_only = DEPRECATION.replace("raise ValueError", "warnings.warn")
    write_package(project, removed_in="0.34.0", deprecation=warns_only)
    assert [f.line for f in numpy_findings(project)] == [9]
    returns_first = DEPRECATION.replace("    from .. import __version__\n",
                                        "    from .. import __version__\n    if take_from == 'x':\n        return None\n")
    write_package(project, removed_in="0.34.0", deprecation=returns_first)
    assert numpy_findings(project) == []  # take_from is None: the return is not taken
    unknown_first = DEPRECATION.replace("    from .. import __version__\n",
                                        "    from .. import __version__\n    if message_of(args):\n        return None\n")
    write_package(project, removed_in="0.34.0", deprecation=unknown_first)
    assert [f.line for f in numpy_findings(project)] == [9]


def test_a_raise_that_depends_on_an_argument_that_is_not_a_literal_keeps_the_finding(project):
    write_package(project, removed_in="0.34.0")
    source = (project.root / "lib/models/embeddings.py").read_text()
    # the version now comes in as a variable: its value is unknown here
    source = source.replace('deprecate("output_type==\'np\'", "0.34.0"', 'deprecate("output_type==\'np\'", removed')
    source = source.replace('def embed(pos, output_type="np"):', 'def embed(pos, output_type="np", removed=None):')
    project.write("lib/models/embeddings.py", source)
    assert [f.line for f in numpy_findings(project)] == [9]


def test_a_helper_that_validates_its_constant_argument_ends_the_block_when_the_check_fails(project):
    findings = only(project.lint_source('''
import numpy as np
from mindspore import nn


def check_even(n):
    if n % 2 != 0:
        raise ValueError("odd")


def require(flag):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def construct(self, x):
        require(True)
        y = np.sin(x)
        check_even(3)
        return np.cos(x)
''', select=["MS102"]), "MS102")
    # `n % 2` is not evaluated (no arithmetic): only the call that surely raises ends the block
    assert [f.line for f in findings] == [18, 20]
    findings = only(project.lint_source('''
import numpy as np
from mindspore import nn


def require(flag):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def construct(self, x):
        y = np.sin(x)
        require(False)
        return np.cos(x)
''', select=["MS102"]), "MS102")
    assert [f.line for f in findings] == [12]


def test_methods_decorated_functions_and_calls_with_spread_arguments_are_not_evaluated(project):
    findings = only(project.lint_source('''
import functools
import numpy as np
from mindspore import nn


def fail():
    raise ValueError("always")


@functools.lru_cache()
def cached_fail():
    raise ValueError("always")


class Net(nn.Cell):
    def stop(self):
        raise ValueError("always")

    def construct(self, x):
        if x.shape[0] == 1:
            self.stop()
            return np.sin(x)
        if x.shape[0] == 2:
            cached_fail()
            return np.cos(x)
        if x.shape[0] == 3:
            fail(*())
            return np.tan(x)
        fail()
        return np.exp(x)
''', select=["MS102"]), "MS102")
    assert [f.line for f in findings] == [22, 25, 28]


DEPRECATION_CLAIM = r'''
import sys
import numpy as np
import mindspore as ms
from mindspore import Tensor
from lib.models.embeddings import Timesteps

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, sys.argv[1]))
try:
    Timesteps(output_type="np")(Tensor(np.arange(3, dtype=np.float32)))
    print("outcome", "ran")
except Exception as error:
    print("outcome", type(error).__name__, "should be removed" in str(error))
'''


@pytest.mark.mindspore
@pytest.mark.parametrize("mode", ["STRICT", "LAX"])
def test_mindspore_stops_at_the_deprecation_and_never_reaches_the_numpy_call(tmp_path, mode):
    from conftest import Project

    project = Project(tmp_path)
    # the import at the top of the module (inside the function MindSpore rejects it: MS806)
    hoisted = DEPRECATION.replace("    from .. import __version__\n", "").replace(
        "from packaging import version\n", "from packaging import version\n\nfrom .. import __version__\n")
    write_package(project, removed_in="0.34.0", deprecation=hoisted)
    assert run_claim(tmp_path, DEPRECATION_CLAIM, mode) == ["outcome ValueError True"]
    # and with a deprecation still to come, the NumPy call is reached (STRICT rejects it, LAX runs it)
    write_package(project, removed_in="0.99.0", deprecation=hoisted)
    assert run_claim(tmp_path, DEPRECATION_CLAIM, mode) == (
        ["outcome ValueError False"] if mode == "STRICT" else ["outcome ran"])


HELPER_CLAIM = r'''
import sys
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn


def require(flag):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def __init__(self, flag):
        super().__init__()
        self.flag = flag

    def construct(self, x):
        require(self.flag)
        return Tensor(np.cos(x.asnumpy()))


ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, sys.argv[1]))
for flag in (False, True):
    try:
        Net(flag)(Tensor(np.arange(3, dtype=np.float32)))
        print("outcome", flag, "ran")
    except Exception as error:
        print("outcome", flag, type(error).__name__, str(error).splitlines()[0])
'''


@pytest.mark.mindspore
@pytest.mark.parametrize("mode", ["STRICT", "LAX"])
def test_mindspore_stops_at_a_helper_whose_check_fails_on_its_constant_argument(tmp_path, mode):
    failing, passing = run_claim(tmp_path, HELPER_CLAIM, mode)
    assert failing == "outcome False ValueError 'flag needed'"
    # with the check passing, what follows is compiled: STRICT rejects the NumPy path, LAX runs it
    if mode == "LAX":
        assert passing == "outcome True ran"
    else:
        assert passing.startswith("outcome True AttributeError In JIT strict mode, cannot get attributes asnumpy")


def test_a_changed_package_version_is_seen_by_a_cached_run(project, capsys, tmp_path, monkeypatch):
    import json

    from mslint.directories import ENVIRONMENT_VARIABLE
    from mslint.frontends.cli import main

    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.chdir(project.root)

    def lines(*extra):
        main(["--format", "json", "--jobs", "1", "--select", "MS102", *extra, "lib/models/embeddings.py"])
        return [f["line"] for f in json.loads(capsys.readouterr().out)]

    write_package(project, removed_in="0.34.0")
    assert lines() == []
    project.write("lib/__init__.py", '__version__ = "0.33.0"\n')  # an older release: the deprecation still to come
    assert lines() == lines("--no-cache") == [9]
    project.write("lib/utils/deprecation.py", DEPRECATION.replace(">= version.parse", "< version.parse"))
    assert lines() == lines("--no-cache") == []


def test_a_coroutine_or_generator_function_runs_nothing_when_called(project):
    findings = only(project.lint_source('''
import numpy as np
from mindspore import nn


async def fail_later():
    raise ValueError("when awaited")


def fail_when_iterated():
    raise ValueError("when iterated")
    yield


class Net(nn.Cell):
    def construct(self, x):
        fail_later()
        fail_when_iterated()
        return np.cos(x)
''', select=["MS102"]), "MS102")
    assert [f.line for f in findings] == [18]


SYNTAX_AFTER_THE_CALL = '''
import numpy as np
from mindspore import nn


def require(flag):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def construct(self, x):
        require(False)
        y = np.cos(x)
        del x
        return y
'''


def test_syntax_after_the_call_is_still_reported_since_mindspore_parses_it_first(project):
    findings = project.lint_source(SYNTAX_AFTER_THE_CALL, select=["MS102", "MS805"])
    assert [(f.code, f.line) for f in findings] == [("MS805", 14)]


@pytest.mark.mindspore
def test_mindspore_rejects_syntax_after_the_call_before_the_call_raises(tmp_path):
    source = SYNTAX_AFTER_THE_CALL + '''
import mindspore as ms
from mindspore import Tensor

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX)
try:
    Net()(Tensor(np.arange(3, dtype=np.float32)))
    print("outcome ran")
except Exception as error:
    print("outcome", type(error).__name__, str(error).splitlines()[0])
'''
    assert run_claim(tmp_path, source) == ["outcome RuntimeError Unsupported statement 'Delete'."]


def test_a_project_module_named_packaging_is_not_taken_for_the_library(project):
    project.write("packaging/__init__.py", "")
    project.write("packaging/version.py", "def parse(text):\n    return 0\n")  # every version is equal
    write_package(project, removed_in="0.34.0")
    assert [f.line for f in numpy_findings(project)] == [9]


def test_an_argument_passed_by_keyword_to_a_positional_only_parameter_gives_no_answer(project):
    # check(flag=False) is a TypeError in Python (flag is positional-only): not the raise looked for
    findings = only(project.lint_source('''
import numpy as np
from mindspore import nn


def check(flag, /, **options):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def construct(self, x):
        check(flag=False)
        return np.cos(x)
''', select=["MS102"]), "MS102")
    assert [f.line for f in findings] == [13]


# -- The adversarial review's cases (benchmarks/review/precision-verdicts.md, part H) ----------

RUNTIME_RAISE = '''
import numpy as np
from mindspore import Tensor, nn


def _raise_bad_input(value):
    raise ValueError(f"input out of range: {value}")


class Net(nn.Cell):
    def construct(self, x):
        if x.max() > 100:
            _raise_bad_input(x)
            x = Tensor(np.clip(x.asnumpy(), 0, 100))
        return x
'''


def test_a_raise_that_formats_a_graph_value_happens_at_run_time_and_keeps_the_finding(project):
    # MindSpore compiles what follows a raise that formats a tensor (checked below)
    findings = only(project.lint_source(RUNTIME_RAISE, select=["MS101"]), "MS101")
    assert [f.line for f in findings] == [13]
    # the same helper outside any tensor condition: the raise still formats a graph value
    straight = RUNTIME_RAISE.replace("        if x.max() > 100:\n            _raise_bad_input(x)\n"
                                     "            x = Tensor(np.clip(x.asnumpy(), 0, 100))\n",
                                     "        _raise_bad_input(x)\n        x = Tensor(np.clip(x.asnumpy(), 0, 100))\n")
    assert [f.line for f in only(project.lint_source(straight, select=["MS101"]), "MS101")] == [12]


def test_a_constant_raise_under_a_condition_on_tensor_values_keeps_the_finding(project):
    # STRICT compiles both sides of `if x.sum() > 100:` in full: the NumPy line is its error
    findings = only(project.lint_source('''
import numpy as np
from mindspore import nn


def require(flag):
    if not flag:
        raise ValueError("flag needed")


class Net(nn.Cell):
    def construct(self, x):
        if x.sum() > 100:
            require(False)
            x = np.einsum("i,i->i", x, x)
        while x.sum() > 1:
            require(False)
            x = np.sqrt(x)
        require(False)
        return np.cos(x)
''', select=["MS102"]), "MS102")
    assert [f.line for f in findings] == [14, 17]


RUNTIME_RAISE_CLAIM = r'''
import sys
import numpy as np
import mindspore as ms
from mindspore import Tensor

from net import Net

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, sys.argv[1]))
try:
    Net()(Tensor(np.arange(3, dtype=np.float32)))
    print("outcome", "ran")
except Exception as error:
    print("outcome", type(error).__name__, str(error).splitlines()[0][:49])
'''


@pytest.mark.mindspore
def test_mindspore_compiles_what_follows_a_raise_that_formats_a_tensor(tmp_path):
    net = tmp_path / "net.py"
    net.write_text(RUNTIME_RAISE)
    assert run_claim(tmp_path, RUNTIME_RAISE_CLAIM, "STRICT") == [
        "outcome AttributeError In JIT strict mode, cannot get attributes asnumpy"]
    # without the NumPy line the same program compiles and runs: the finding is the only problem
    net.write_text(RUNTIME_RAISE.replace("Tensor(np.clip(x.asnumpy(), 0, 100))", "x * 2"))
    assert run_claim(tmp_path, RUNTIME_RAISE_CLAIM, "STRICT") == ["outcome ran"]


ENV_SWITCHED_HELPER = {
    "a definition under if": ('''
import os


def require(flag):
    pass


if os.environ.get("LIB_STRICT"):
    def require(flag):
        if not flag:
            raise ValueError("flag needed")
''', "from .checks import require"),
    "a try/except ImportError fallback": ('''
try:
    from extlib.checks import require
except ImportError:
    def require(flag):
        if not flag:
            raise ValueError("flag needed")
''', "from .checks import require"),
    "a fallback import in the caller": ('''
def require(flag):
    if not flag:
        raise ValueError("flag needed")
''', "try:\n    from extlib.checks import require\nexcept ImportError:\n    from .checks import require"),
    "a conditional re-export": ('''
import os

from .quiet import require

if os.environ.get("LIB_STRICT"):
    from .strict import require
''', "from .checks import require"),
    "a module attribute call through a star-importing module": ('''
from .strict import *
''', "from . import checks\nrequire = None"),
}


@pytest.mark.parametrize("case", list(ENV_SWITCHED_HELPER))
def test_a_helper_python_may_not_call_keeps_the_finding(project, case):
    checks, imports = ENV_SWITCHED_HELPER[case]
    project.write("lib/__init__.py", "")
    project.write("lib/checks.py", checks)
    project.write("lib/quiet.py", "def require(flag):\n    pass\n")
    project.write("lib/strict.py", 'def require(flag):\n    if not flag:\n        raise ValueError("flag needed")\n')
    call = "checks.require(False)" if "module attribute" in case else "require(False)"
    project.write("lib/model.py", f'''
import numpy as np
from mindspore import nn
{imports}


class Net(nn.Cell):
    def construct(self, x):
        {call}
        return np.cos(x)
''')
    findings = only(project.lint("lib/model.py", select=["MS102"]), "MS102")
    assert [f.message.split(" is applied")[0] for f in findings] == ["NumPy function 'np.cos' (numpy.cos)"]


def test_the_same_helper_defined_once_at_the_top_level_ends_the_block(project):
    project.write("lib/__init__.py", "")
    project.write("lib/strict.py", 'def require(flag):\n    if not flag:\n        raise ValueError("flag needed")\n')
    project.write("lib/checks.py", "from .strict import require\n")
    project.write("lib/model.py", '''
import numpy as np
from mindspore import nn
from . import checks


class Net(nn.Cell):
    def construct(self, x):
        checks.require(False)
        return np.cos(x)
''')
    assert only(project.lint("lib/model.py", select=["MS102"]), "MS102") == []


@pytest.mark.parametrize("check", [
    'if mode is not "np":',  # CPython interns "np": `is` on literals is not decided here
    'if (version.parse(__version__), mode) != (version.parse("0.35.1"), "np"):',  # versions inside tuples
])
def test_comparisons_python_answers_by_identity_give_no_answer(project, check):
    project.write("lib/__init__.py", PACKAGE_VERSION)
    project.write("lib/checks.py", f'''
from packaging import version

from . import __version__


def check_mode(mode):
    {check}
        raise ValueError("only np is supported here")
''')
    project.write("lib/model.py", '''
import numpy as np
from mindspore import nn
from .checks import check_mode


class Net(nn.Cell):
    def construct(self, x):
        check_mode("np")
        return np.einsum("i,i->i", x, x)
''')
    assert [f.line for f in only(project.lint("lib/model.py", select=["MS102"]), "MS102")] == [9]


@pytest.mark.parametrize("package_init, other", [
    ('__version__ = "0.35.1"\nfrom ._build import *\n', ("lib/_build.py", '__version__ = "0.30.0"\n')),
    ('__version__ = "0.35.1"\n\n\ndef pin(v):\n    globals()["__version__"] = v\n', None),
    ('__version__ = "0.35.1"\nfrom . import _compat\n',
     ("lib/_compat.py", 'import lib\n\nlib.__version__ = "0.30.0"\n')),
    ('__version__ = "0.35.1"\n', ("tools/pin.py", 'import lib\n\nsetattr(lib, "__version__", "0.30.0")\n')),
])
def test_a_version_something_else_may_set_keeps_the_finding_in_both_front_ends(project, package_init, other):
    # a star import, a write through globals(), `lib.__version__ = ...` or setattr in another file
    write_package(project, removed_in="0.34.0", package_init=package_init)
    if other:
        project.write(*other)
    assert [f.line for f in numpy_findings(project)] == [9]
    # pylint builds the other file too (astroid then records its write among lib's bindings): same answer
    done = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all",
                           "--enable=third-party-call-on-tensor", "--recursive=y", "-sn", "--score=n", "."],
                          capture_output=True, text=True, cwd=project.root, timeout=600)
    assert [line.split(":")[:2] for line in done.stdout.splitlines() if "E8102" in line] == \
        [["lib/models/embeddings.py", "9"]], done.stdout + done.stderr
