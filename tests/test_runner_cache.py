"""The runner's speed levers keep findings unchanged: result cache, jobs, pre-filter, memory bound.

No timing here: the benchmark (benchmarks/run_benchmark.py) measures speed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mslint.run import runner
from mslint.directories import CACHE_DIRECTORY_NAME, ENVIRONMENT_VARIABLE
from mslint.frontends.cli import main
from mslint.config import Config

BASE = """
import mindspore as ms
from mindspore import nn


class Base(nn.Cell):
    def construct(self, x):
        return self.helper(x)

    def helper(self, x):
        return x
"""

BASE_NOT_CALLING_HELPER = """
import mindspore as ms
from mindspore import nn


class Base(nn.Cell):
    def construct(self, x):
        return x

    def helper(self, x):
        return x
"""

# No "mindspore" in this module: it is graph code only through its project base class.
SUB = """
import numpy as np

from base import Base


class Sub(Base):
    def helper(self, x):
        return x + np.ones(3)
"""

NET_WITH_NUMPY = """
import numpy as np
import mindspore as ms
from mindspore import nn


class Net{n}(nn.Cell):
    def construct(self, x):
        y = x.asnumpy()
        return np.ones(3) + {n}
"""


def run(capsys, *args) -> tuple:
    status = main(list(args))
    return status, capsys.readouterr().out


def json_findings(output: str) -> list:
    return [(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(output)]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(directory))
    return directory


def test_editing_a_base_class_module_invalidates_its_subclass_module(project, capsys, cache_dir, monkeypatch):
    project.write("base.py", BASE)
    project.write("sub.py", SUB)
    monkeypatch.chdir(project.root)
    _, first = run(capsys, "--format", "json", "--jobs", "1", "sub.py")
    # one problem, one finding: the constant np.ones(3) meets a tensor (MS102), no MS103 beside it
    assert [(p, line, code) for p, line, code, _ in json_findings(first)] == [("sub.py", 8, "MS102")]
    assert "called from Base.construct (base.py, line 7)" in json_findings(first)[0][3]
    entries = _entries(cache_dir)
    assert str(project.root / "base.py") in entries[str(project.root / "sub.py")]["deps"]

    project.write("base.py", BASE_NOT_CALLING_HELPER)  # sub.py itself is unchanged
    _, second = run(capsys, "--format", "json", "--jobs", "1", "sub.py")
    assert json_findings(second) == []
    _, uncached = run(capsys, "--format", "json", "--jobs", "1", "--no-cache", "sub.py")
    assert second == uncached


def test_a_new_project_module_invalidates_files_whose_imports_it_now_resolves(project, capsys, cache_dir,
                                                                           monkeypatch):
    project.write("sub.py", SUB)
    monkeypatch.chdir(project.root)
    _, first = run(capsys, "--format", "json", "sub.py")
    assert json_findings(first) == []  # `base` is not found: Sub is not known to be a Cell
    project.write("base.py", BASE)
    _, second = run(capsys, "--format", "json", "sub.py")
    assert [code for _, _, code, _ in json_findings(second)] == ["MS102"]


def test_findings_are_the_same_with_a_cold_cache_a_warm_cache_and_no_cache(project, capsys, cache_dir, monkeypatch):
    for n in range(3):
        project.write(f"pkg/net{n}.py", NET_WITH_NUMPY.format(n=n))
    project.write("pkg/__init__.py", "")
    project.write("pkg/broken.py", "def broken(:\n    pass\n")
    monkeypatch.chdir(project.root)
    outputs = [run(capsys, "--jobs", "1", *extra, "pkg") for extra in (["--no-cache"], [], [], ["--no-cache"])]
    assert len({output for _, output in outputs}) == 1
    assert {status for status, _ in outputs} == {1}
    assert "MS101" in outputs[0][1] and "MS001" in outputs[0][1]
    assert _entries(cache_dir)  # the second run wrote the cache the third one read


def test_the_cache_directory_ignores_itself_and_no_cache_writes_nothing(project, capsys, monkeypatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    project.write("net.py", NET_WITH_NUMPY.format(n=1))
    monkeypatch.chdir(project.root)
    run(capsys, "--no-cache", "net.py")
    assert not (project.root / CACHE_DIRECTORY_NAME).exists()
    run(capsys, "net.py")
    ignore = (project.root / CACHE_DIRECTORY_NAME / ".gitignore").read_text()
    assert "*" in ignore.splitlines()


def test_a_changed_configuration_does_not_reuse_results(project, capsys, cache_dir, monkeypatch):
    project.write("net.py", NET_WITH_NUMPY.format(n=1))
    monkeypatch.chdir(project.root)
    _, everything = run(capsys, "--format", "json", "net.py")
    _, selected = run(capsys, "--format", "json", "--select", "MS103", "net.py")
    assert {code for _, _, code, _ in json_findings(everything)} > {"MS103"}
    assert {code for _, _, code, _ in json_findings(selected)} == {"MS103"}


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_jobs_give_byte_identical_output(project, capsys, output_format, monkeypatch):
    for n in range(runner.SERIAL_BELOW + 4):
        project.write(f"pkg/net{n:02d}.py", NET_WITH_NUMPY.format(n=n))
    project.write("pkg/__init__.py", "from .net00 import *\n")
    project.write("pkg/plain.py", "def f(x):\n    return x\n")
    monkeypatch.chdir(project.root)
    serial = run(capsys, "--no-cache", "--format", output_format, "--jobs", "1", "pkg")
    parallel = run(capsys, "--no-cache", "--format", output_format, "--jobs", "3", "pkg")
    assert serial == parallel
    assert serial[1].count("MS101 " if output_format == "text" else '"code": "MS101"') == runner.SERIAL_BELOW + 4


def test_pre_filter_keeps_what_may_be_graph_code():
    config = Config(extra_jit_decorators=("tools.compile_graph",))
    keeps = ["import mindspore\n", "from .ops import ms_function\n", "@jit\ndef f(): pass\n",
             "class Net(Base):\n    pass\n", "class Net(\n    Base):\n    pass\n", "  class Inner(pkg.Cell): pass\n",
             "@compile_graph\ndef f(): pass\n"]
    skips = ["def f(x):\n    return x\n", "class Plain:\n    pass\n", "class Old(object):\n    pass\n",
             "class Empty():\n    pass\n", "import numpy as np\nprint(np.ones(3))\n"]
    assert all(runner.may_hold_graph_code(text, config) for text in keeps)
    assert not any(runner.may_hold_graph_code(text, config) for text in skips)


def test_pre_filtered_files_still_report_syntax_errors(project):
    findings = project.lint_source("def f(:\n    return 1\n")
    assert [(f.code, f.line) for f in findings] == [("MS001", 1)]


def test_findings_are_the_same_without_the_pre_filter_and_with_a_tiny_module_bound(project, capsys, monkeypatch):
    project.write("base.py", BASE)
    project.write("sub.py", SUB)
    project.write("plain.py", "import numpy as np\n\ndef f(x):\n    return np.ones(3)\n")
    for n in range(3):
        project.write(f"net{n}.py", NET_WITH_NUMPY.format(n=n))
    monkeypatch.chdir(project.root)
    reference = run(capsys, "--no-cache", "--jobs", "1", ".")
    monkeypatch.setenv(runner.PREFILTER_VARIABLE, "0")
    unfiltered = run(capsys, "--no-cache", "--jobs", "1", ".")
    monkeypatch.delenv(runner.PREFILTER_VARIABLE)
    monkeypatch.setattr(runner, "MAX_MODULES", 1)
    bounded = run(capsys, "--no-cache", "--jobs", "1", ".")
    assert reference == unfiltered == bounded
    assert "sub.py:8" in reference[1]


def _entries(cache_dir) -> dict:
    entries = {}
    for name in os.listdir(cache_dir):
        if name.startswith("results-"):
            with open(os.path.join(cache_dir, name), encoding="utf-8") as handle:
                entries.update(json.load(handle)["entries"])
    return entries


def test_the_pylint_plugin_reports_what_the_command_reports_with_and_without_its_cache(project, capsys,
                                                                                    monkeypatch):
    """The command builds lean trees (no astroid transforms, no inference), pylint full ones;
    the plugin reads (never writes) the command's result cache and applies pylint's own pragmas."""
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    project.write("base.py", BASE)
    project.write("sub.py", SUB)
    project.write("net.py", NET_WITH_NUMPY.format(n=1).replace(
        "y = x.asnumpy()", "y = x.asnumpy()  # pylint: disable=tensor-to-numpy-in-graph").replace(
        "return np.ones(3) + 1", "return np.ones(3) + 1  # mslint: disable=MS103"))
    project.write("other.py", NET_WITH_NUMPY.format(n=2))
    monkeypatch.chdir(project.root)
    files = ["base.py", "sub.py", "net.py", "other.py"]

    def command(*extra):
        _, output = run(capsys, *extra, "--format", "json", *files)
        return sorted((f["path"], f["line"], f["symbol"], f["message"]) for f in json.loads(output))

    def plugin():
        result = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all",
                                 "--enable=mslint", "--msg-template={path}|{line}|{symbol}|{msg}", *files],
                                capture_output=True, text=True, cwd=project.root)
        return sorted((path, int(line), symbol, message) for path, line, symbol, message in
                      (row.split("|", 3) for row in result.stdout.splitlines() if row.count("|") >= 3))

    cold = command("--no-cache")
    assert not (project.root / CACHE_DIRECTORY_NAME).exists()
    assert plugin() == cold
    assert ("sub.py", 8, "third-party-call-on-tensor") in [f[:3] for f in cold]
    assert [f[:3] for f in cold if f[0] == "net.py"] == []  # both findings suppressed, each its own way
    assert [f[:3] for f in cold if f[0] == "other.py"] == [("other.py", 8, "tensor-to-numpy-in-graph"),
                                                           ("other.py", 9, "third-party-call-in-graph")]

    assert command() == cold  # fills the cache
    assert plugin() == cold
    cache_file = next((project.root / CACHE_DIRECTORY_NAME).glob("results-*.json"))
    document = json.loads(cache_file.read_text())
    for item in document["entries"][str(project.root / "other.py")]["findings"]:
        item[5] = "from the cache"
    cache_file.write_text(json.dumps(document))
    assert {message for path, _, _, message in plugin() if path == "other.py"} == {"from the cache"}


def test_a_cache_file_read_again_in_the_same_process_has_what_its_file_holds(tmp_path):
    """The entries are kept between the objects of one process (the server makes one per
    edit) only while the file is the one they were read from."""
    from mslint.findings import Finding
    from mslint.rules import INTERNAL_ERROR
    from mslint.run.cache import ResultCache

    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    directory = str(tmp_path / "cache")

    def stored(message):
        cache = ResultCache(directory, "n")
        cache.store(str(source), "digest", "a", [Finding(INTERNAL_ERROR, str(source), 1, 0, None, None, message)], [], {})
        return cache

    def found():
        cached = ResultCache(directory, "n").lookup(str(source), "digest", "a")
        return None if cached is None else [f.message for f in cached]

    stored("first").save()
    assert found() == ["first"]
    stored("not saved")  # an object's entries are its own until it saves them
    assert found() == ["first"]
    other = subprocess.run([sys.executable, "-c", f"""
from mslint.findings import Finding
from mslint.rules import INTERNAL_ERROR
from mslint.run.cache import ResultCache
cache = ResultCache({directory!r}, "n")
cache.store({str(source)!r}, "digest", "a", [Finding(INTERNAL_ERROR, {str(source)!r}, 1, 0, None, None, "second")], [], {{}})
cache.save()
"""], capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert found() == ["second"]  # written by another process: read again


def test_a_module_that_now_imports_the_file_is_its_importer_in_the_next_cached_run(tmp_path, monkeypatch):
    """The program facts kept on disk hold each file's resolved imports: a file whose text
    changed gets its facts read again, and its imports must be resolved again too, even when
    another reader asked for its facts first in the run (found by a review of the server's
    kept models: the cached run missed plain.py as the helper's importer, and its MS101)."""
    from pathlib import Path

    from mslint import config as config_module
    from mslint.run import runner
    from mslint.run.cache import caches_by_configuration

    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname='x'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text("def to_host(x):\n    return x.asnumpy()\n")
    (root / "pkg" / "plain.py").write_text("from mindspore import nn\n\n\nclass Plain(nn.Cell):\n"
                                           "    def construct(self, x):\n        return x\n")
    helpers = str(root / "pkg" / "helpers.py")

    def run(files, cache=True):
        report = runner.lint_run(files, config_module.PerFile(), cache=caches_by_configuration() if cache else None)
        return sorted(Path(p).name for p in report.context), [(f.code, Path(f.path).name, f.line)
                                                              for f in report.findings]

    assert run([helpers]) == ([], [])
    (root / "pkg" / "plain.py").write_text("from mindspore import nn\n\nfrom pkg.helpers import to_host\n\n\n"
                                           "class Plain(nn.Cell):\n    def construct(self, x):\n"
                                           "        return to_host(x)\n")
    run(sorted(str(p) for p in (root / "pkg").glob("*.py")))
    assert run([helpers]) == run([helpers], cache=False) == (["plain.py"], [("MS101", "helpers.py", 2)])
