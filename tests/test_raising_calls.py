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

    from mslint.cache import ENVIRONMENT_VARIABLE
    from mslint.cli import main

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
