"""One project, one analysis: findings in helpers and base classes of other modules, reported
once where they can be fixed, the same through both front-ends, whatever the files of the
run, their order, the number of jobs or the cache; and the program's mode decided from the
whole project."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from mslint.project import index as project_module

# A model-zoo style package: helpers and a base class in their own modules, two models that
# reach the same helper, an import cycle, and a training script.
PACKAGE = {
    "pyproject.toml": "[project]\nname = 'zoo'\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": '''
        import numpy as np


        def to_host(x):
            return x.asnumpy()


        def unused(x):
            return x.asnumpy()
    ''',
    "pkg/base.py": '''
        import mindspore.nn as nn


        class Base(nn.Cell):
            def norm(self, x):
                return x.asnumpy()
    ''',
    "pkg/model.py": '''
        from pkg.helpers import to_host
        from pkg.base import Base


        class Net(Base):
            def construct(self, x):
                y = self.norm(x)
                return to_host(y)
    ''',
    "pkg/other.py": '''
        from mindspore import nn
        from pkg import helpers


        class Other(nn.Cell):
            def construct(self, x):
                return helpers.to_host(x)
    ''',
    "pkg/cycle_a.py": '''
        from mindspore import nn
        from pkg import cycle_b


        class Loop(nn.Cell):
            def construct(self, x):
                return cycle_b.back(x)
    ''',
    "pkg/cycle_b.py": '''
        import numpy as np
        from pkg import cycle_a


        def back(x):
            return np.sum(x)
    ''',
}
# (path, line, code) of every problem, where it is
EVERY_PROBLEM = {
    ("pkg/helpers.py", 5, "MS101"), ("pkg/base.py", 6, "MS101"), ("pkg/cycle_b.py", 6, "MS102"),
}


def write(root: Path, files: Dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def zoo(tmp_path) -> Path:
    write(tmp_path, PACKAGE)
    return tmp_path


def mslint(root: Path, *args: str, env=None) -> Tuple[List[dict], subprocess.CompletedProcess]:
    result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", *args], cwd=root,
                            capture_output=True, text=True, env=env)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout), result


def pylint(root: Path, *args: str) -> List[dict]:
    result = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all",
                             "--enable=mslint", "--output-format=json2", *args],
                            cwd=root, capture_output=True, text=True)
    assert result.stdout, result.stderr
    return json.loads(result.stdout)["messages"]


def places(findings: List[dict]) -> Set[Tuple[str, int, str]]:
    return {(f["path"], f["line"], f["code"]) for f in findings}


def pylint_places(messages: List[dict]) -> Set[Tuple[str, int, str]]:
    return {(m["path"], m["line"], "MS" + m["messageId"][2:]) for m in messages}


# -- where findings are reported ------------------------------------------------------------
def test_the_folder_reports_each_problem_once_at_the_helper_with_the_root_in_the_reach(zoo):
    findings, _ = mslint(zoo, "--no-cache", "pkg")
    assert places(findings) == EVERY_PROBLEM
    assert len(findings) == 3  # to_host is reached from two roots in two files: reported once
    by_path = {f["path"]: f for f in findings}
    helper = by_path["pkg/helpers.py"]
    # the shortest reach wins (then the first in order), and it names the root's file and line
    assert helper["message"].endswith("In to_host, called from Net.construct (model.py, line 8). 1 more route reaches it.")
    base = by_path["pkg/base.py"]
    assert base["message"].endswith("In Base.norm, called from Net.construct (model.py, line 7).")


def test_a_file_alone_reports_what_reaches_outside_the_run_at_its_calls(zoo):
    findings, _ = mslint(zoo, "--no-cache", "pkg/model.py")
    assert places(findings) == {("pkg/model.py", 7, "MS101"), ("pkg/model.py", 8, "MS101")}
    messages = sorted(f["message"] for f in findings)
    assert messages[0].startswith("'x.asnumpy()' converts a tensor to NumPy in graph code. It is at base.py:6, a file "
                                  "not in this run, reached by this call to Base.norm. STRICT rejects it")
    assert "It is at helpers.py:5, a file not in this run, reached by this call to to_host." in messages[1]
    assert all("called from" not in message for message in messages)  # the call itself is the reach
    columns = {f["line"]: (f["column"], f["end_column"]) for f in findings}
    assert columns[8] == (16, 26)  # the call `to_host(y)` itself (1-based, end exclusive)


def test_a_helper_file_alone_is_checked_through_its_importers(zoo):
    findings, _ = mslint(zoo, "--no-cache", "pkg/helpers.py")
    assert places(findings) == {("pkg/helpers.py", 5, "MS101")}  # `unused` is reached by nothing
    findings, _ = mslint(zoo, "--no-cache", "pkg/base.py")
    assert places(findings) == {("pkg/base.py", 6, "MS101")}
    findings, _ = mslint(zoo, "--no-cache", "pkg/cycle_b.py")
    assert places(findings) == {("pkg/cycle_b.py", 6, "MS102")}


def test_the_same_findings_whatever_the_order_of_the_files(zoo):
    forward, _ = mslint(zoo, "--no-cache", "pkg/helpers.py", "pkg/model.py", "pkg/other.py")
    backward, _ = mslint(zoo, "--no-cache", "pkg/other.py", "pkg/model.py", "pkg/helpers.py")
    assert forward == backward
    # base.py is not in the run: Net's call of norm is where it shows
    assert places(forward) == {("pkg/helpers.py", 5, "MS101"), ("pkg/model.py", 7, "MS101")}


def test_jobs_and_the_cache_do_not_change_the_findings(zoo):
    for number in range(8):  # enough files for worker processes
        write(zoo, {f"pkg/filler_{number}.py": "from mindspore import nn\n\nclass F(nn.Cell):\n    pass\n"})
    serial, _ = mslint(zoo, "--no-cache", "--jobs", "1", "pkg")
    parallel, _ = mslint(zoo, "--no-cache", "--jobs", "2", "pkg")
    cold, _ = mslint(zoo, "--jobs", "2", "pkg")
    warm, _ = mslint(zoo, "--jobs", "2", "pkg")
    assert serial == parallel == cold == warm
    assert places(serial) == EVERY_PROBLEM
    helper_alone, _ = mslint(zoo, "pkg/helpers.py")  # from the cache the folder's run wrote
    assert places(helper_alone) == {("pkg/helpers.py", 5, "MS101")}


def test_touching_only_the_helper_updates_the_findings_from_a_warm_cache(zoo):
    mslint(zoo, "pkg")
    helpers = zoo / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("return x.asnumpy()", "return x.asnumpy() + x.asnumpy()", 1))
    findings, _ = mslint(zoo, "pkg")
    assert {(f["path"], f["line"], f["column"]) for f in findings if f["path"] == "pkg/helpers.py"} == {
        ("pkg/helpers.py", 5, 12), ("pkg/helpers.py", 5, 26)}


def test_suppressions_and_per_file_ignores_of_the_helper_file_apply(zoo):
    helpers = zoo / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("return x.asnumpy()", "return x.asnumpy()  # mslint: disable=MS101", 1))
    findings, _ = mslint(zoo, "--no-cache", "pkg")
    assert places(findings) == EVERY_PROBLEM - {("pkg/helpers.py", 5, "MS101")}
    (zoo / "pyproject.toml").write_text("[project]\nname = 'zoo'\n\n[tool.mslint]\n"
                                        "per-file-ignores = { 'pkg/base.py' = ['MS101'] }\n")
    findings, _ = mslint(zoo, "--no-cache", "pkg")
    assert places(findings) == {("pkg/cycle_b.py", 6, "MS102")}


# -- both front-ends -------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["pkg", "pkg/model.py", "pkg/helpers.py", "pkg/base.py", "pkg/cycle_b.py"])
def test_the_plugin_reports_what_the_command_reports(zoo, target):
    from_command, _ = mslint(zoo, "--no-cache", target)
    from_plugin = pylint(zoo, target)
    assert places(from_command) == pylint_places(from_plugin)
    assert sorted(f["message"] for f in from_command) == sorted(m["message"] for m in from_plugin)


def test_the_plugin_in_parallel_reports_what_it_reports_serially(zoo):
    serial = pylint(zoo, "pkg")
    parallel = pylint(zoo, "-j", "2", "pkg")
    assert pylint_places(serial) == pylint_places(parallel) == EVERY_PROBLEM


# -- script-style projects -------------------------------------------------------------------
def test_a_script_style_sibling_helper_is_project_code(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "helpers.py": "def to_host(x):\n    return x.asnumpy()\n",
        "model.py": '''
            from mindspore import nn
            from helpers import to_host


            class Net(nn.Cell):
                def construct(self, x):
                    return to_host(x)
        ''',
    })
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("helpers.py", 2, "MS101")}
    assert pylint_places(pylint(tmp_path, "helpers.py")) == {("helpers.py", 2, "MS101")}


# -- the program's mode ----------------------------------------------------------------------
MODEL = '''
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            return x.asnumpy()


    @ms.jit
    def step(x):
        return x.asnumpy()
'''


def mode_project(root: Path, **scripts: str) -> None:
    files = {"pyproject.toml": "", "model/__init__.py": "", "model/net.py": MODEL}
    files.update({f"{name}.py": f"import mindspore as ms\nfrom model.net import Net\n{body}\n"
                  for name, body in scripts.items()})
    write(root, files)


def test_a_project_that_only_runs_pynative_withholds_plain_construct_findings(tmp_path):
    mode_project(tmp_path, train="ms.set_context(mode=ms.PYNATIVE_MODE)",
                 evaluate="ms.context.set_context(mode=1, device_target='CPU')")
    findings, result = mslint(tmp_path, "--no-cache", "model")
    assert places(findings) == {("model/net.py", 12, "MS101")}  # @jit is compiled in any mode
    assert "1 more finding withheld" in result.stderr and "--graph-mode always" in result.stderr
    text = subprocess.run([sys.executable, "-m", "mslint", "--no-cache", "model"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert text.stdout.splitlines()[-1] == (
        "1 more finding withheld: in code compiled only in GRAPH_MODE, and every program that runs it runs PyNative "
        "(a program that sets no mode runs PyNative; --graph-mode always shows them).")
    shown, _ = mslint(tmp_path, "--no-cache", "--graph-mode", "always", "model")
    assert places(shown) == {("model/net.py", 7, "MS101"), ("model/net.py", 12, "MS101")}
    assert pylint_places(pylint(tmp_path, "model")) == {("model/net.py", 12, "MS101")}


@pytest.mark.parametrize("scripts", [
    {"train": "ms.set_context(mode=ms.GRAPH_MODE)"},
    {"train": "ms.set_context(mode=ms.PYNATIVE_MODE)", "export": "ms.set_context(mode=ms.GRAPH_MODE)"},
    {"train": "ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)"},
    {"train": "ms.set_context(mode=args.mode)"},
    {"train": "net = Net()"},  # never sets a mode: compiled, as before
], ids=["graph", "both", "either", "unknown", "unset"])
def test_a_project_that_may_compile_reports_plain_construct_findings(tmp_path, scripts):
    mode_project(tmp_path, **scripts)
    findings, result = mslint(tmp_path, "--no-cache", "model")
    assert places(findings) == {("model/net.py", 7, "MS101"), ("model/net.py", 12, "MS101")}
    assert "withheld" not in result.stderr


def test_a_library_modules_demo_that_sets_pynative_does_not_decide_the_mode(tmp_path):
    mode_project(tmp_path, train="ms.set_context(mode=ms.GRAPH_MODE)")
    net = tmp_path / "model" / "net.py"
    net.write_text(net.read_text() + '\n\nif __name__ == "__main__":\n    ms.set_context(mode=ms.PYNATIVE_MODE)\n')
    findings, result = mslint(tmp_path, "--no-cache", "model")
    assert places(findings) == {("model/net.py", 7, "MS101"), ("model/net.py", 12, "MS101")}
    assert "withheld" not in result.stderr


def test_a_construct_reached_from_jit_is_compiled_in_a_pynative_project(tmp_path):
    mode_project(tmp_path, train="ms.set_context(mode=ms.PYNATIVE_MODE)\nfast = ms.jit(Net())")
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("model/net.py", 7, "MS101"), ("model/net.py", 12, "MS101")}


# -- the index itself ------------------------------------------------------------------------
def test_project_root_and_importers(zoo):
    project_module.forget_projects()
    model = project_module.project_for(str(zoo / "pkg" / "model.py"))
    assert model.root == str(zoo)
    helpers = str(zoo / "pkg" / "helpers.py")
    assert model.all_importers(helpers) == [str(zoo / "pkg" / "model.py"), str(zoo / "pkg" / "other.py")]
    cycle_b = str(zoo / "pkg" / "cycle_b.py")
    assert model.all_importers(cycle_b) == [str(zoo / "pkg" / "cycle_a.py")]
    candidates = [p for p in model.files() if p != helpers]
    assert model.importers([helpers], candidates) == model.all_importers(helpers)


def test_importers_from_a_kept_facts_store_follow_a_changed_import(tmp_path, monkeypatch):
    """The store keeps each file's resolved imports while the file is unchanged: asked for
    importers first (as a run asks before the program model), an edited file is resolved again."""
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text("def to_host(x):\n    return x.asnumpy()\n")
    (root / "pkg" / "other.py").write_text("def other(x):\n    return x\n")
    (root / "pkg" / "model.py").write_text("from pkg.other import other\n")
    helpers, model = str(root / "pkg" / "helpers.py"), str(root / "pkg" / "model.py")
    saved = project_module.STORE.enabled
    project_module.STORE.enabled = True
    try:
        def importers_of_helpers():
            project_module.forget_projects()
            project = project_module.project_for(model)
            found = project.importers([helpers], [p for p in project.files() if p != helpers])
            project.programs()  # (saves the store, as a run does)
            return found

        assert importers_of_helpers() == []
        assert importers_of_helpers() == []  # (now from the store)
        (root / "pkg" / "model.py").write_text("from pkg.other import other\nfrom pkg.helpers import to_host\n")
        assert importers_of_helpers() == [model]
    finally:
        project_module.STORE.enabled = saved
        project_module.forget_projects()


def test_without_a_marker_the_root_is_the_top_of_the_package(tmp_path):
    write(tmp_path, {"lib/pkg/__init__.py": "", "lib/pkg/sub/__init__.py": "", "lib/pkg/sub/m.py": ""})
    project_module.forget_projects()
    found = project_module.project_root(str(tmp_path / "lib" / "pkg" / "sub" / "m.py"))
    # (tmp_path itself has no marker; a marker further up, e.g. a checkout, would win)
    assert found in (str(tmp_path / "lib"),) or not found.startswith(str(tmp_path))
    assert os.path.isdir(found)


# -- configuration per file ------------------------------------------------------------------
NUMPY_NET = '''
    import numpy as np
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            return np.sum(x) + x.asnumpy()
'''


def test_each_file_gets_the_nearest_configuration_in_both_front_ends(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.mslint]\nignore = ['MS102']\n", "top.py": NUMPY_NET,
                     "sub/pyproject.toml": "[tool.mslint]\nselect = ['MS102']\n", "sub/inner.py": NUMPY_NET})
    expected = {("top.py", 7, "MS101"), ("sub/inner.py", 7, "MS102")}
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == expected
    assert pylint_places(pylint(tmp_path, "top.py", "sub/inner.py")) == expected
    # --config names one file for all
    findings, _ = mslint(tmp_path, "--no-cache", "--config", "sub/pyproject.toml", ".")
    assert places(findings) == {("top.py", 7, "MS102"), ("sub/inner.py", 7, "MS102")}


def test_show_settings_says_what_applies_to_a_file_and_where_it_comes_from(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.mslint]\nignore = ['MS102']\n",
                     "sub/pyproject.toml": "[tool.mslint]\nselect = ['MS102']\n", "sub/inner.py": NUMPY_NET,
                     "train.py": "import mindspore as ms\nms.set_context(mode=ms.PYNATIVE_MODE)\n"})
    result = subprocess.run([sys.executable, "-m", "mslint", "--show-settings", "sub/inner.py"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "settings for sub/inner.py"
    assert f"  configuration file: {tmp_path / 'sub' / 'pyproject.toml'}" in lines
    assert "  select: ['MS102']" in lines
    assert lines[-1] == "  enabled rules: MS001, MS002, MS003, MS004, MS005, MS102"
    top = subprocess.run([sys.executable, "-m", "mslint", "--show-settings", "train.py"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert "  graph-mode: auto" in top.stdout.splitlines()
    at = top.stdout.splitlines().index("  graph-mode: auto")
    assert top.stdout.splitlines()[at + 1:at + 3] == [
        "  programs that reach this file (PyNative only: plain constructs are not compiled):",
        "    train.py (top-level code): PYNATIVE"]
    missing = subprocess.run([sys.executable, "-m", "mslint", "--show-settings", "nope.py"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr == "mslint: error: --show-settings: nope.py: no such file or directory\n"


# -- a helper reached only from a branch that a root's default leaves out -------------------
GUARDED = {
    "pyproject.toml": "[project]\nname = 'guarded'\n",
    "pkg/__init__.py": "",
    "pkg/utils.py": '''
        def pick(x, mask):
            return x[mask]


        def inner(x):
            return pick(x, x > 0)
    ''',
    "pkg/net.py": '''
        from mindspore import nn
        from pkg.utils import inner, pick


        class Guarded(nn.Cell):
            def construct(self, x, use_mask=False):
                if use_mask:
                    x = inner(x)
                return x
    ''',
}
CONDITION = "Only compiled when the caller passes use_mask other than its default False."


def test_a_helper_reached_only_through_a_defaulted_branch_says_when_it_is_compiled(tmp_path):
    write(tmp_path, GUARDED)
    [at_helper], _ = mslint(tmp_path, "--no-cache", "pkg")
    assert (at_helper["path"], at_helper["line"], at_helper["code"]) == ("pkg/utils.py", 2, "MS401")
    assert at_helper["message"].endswith(CONDITION)  # through inner, a function of its own
    [at_call], _ = mslint(tmp_path, "--no-cache", "pkg/net.py")  # utils.py not in the run
    assert (at_call["path"], at_call["line"]) == ("pkg/net.py", 8)
    assert " It is at utils.py:2, a file not in this run, reached by this call to inner. " in at_call["message"]
    assert at_call["message"].endswith(CONDITION)
    [plugin] = pylint(tmp_path, "pkg")
    assert plugin["message"].startswith(at_helper["message"])


def test_a_helper_also_reached_unconditionally_is_reported_without_a_condition(tmp_path):
    files = dict(GUARDED)
    files["pkg/other.py"] = '''
        from mindspore import nn
        from pkg.utils import pick


        class Always(nn.Cell):
            def construct(self, x):
                return pick(x, x > 1)
    '''
    write(tmp_path, files)
    [finding], _ = mslint(tmp_path, "--no-cache", "pkg")
    assert (finding["path"], finding["line"]) == ("pkg/utils.py", 2)
    assert "Only compiled when" not in finding["message"]
    assert "called from Always.construct (other.py, line 7)" in finding["message"]


def test_the_project_wide_searches_answer_as_a_search_of_each_whole_text_would(tmp_path):
    files = {
        "setup.py": "",
        "train.py": "net.add_flags_recursive(is_first_iteration=False)\nnet.add_flags(a=1,\n    b = 2)\n",
        "other.py": "setattr(cell, 'frozen', True)\nsetattr(x, 'add_flags(inner=1' )\nadd_flags(setattr(y, 'deep'))\n",
        "after.py": "cell.add_flags(c=1); late = 2\nsetattr(a, b)  # 'quoted'\n",
        "writes.py": "config.LR = 0.1\nself.x.MOMENTUM += 1\nitems[0] .SCALE=3\nf().Y //= 2\nz.EQUAL == 1\n"
                     "z.LESS <= 1\nw.A.B.C = 1\nnot_an.attribute\n",
        "plain.py": "add_flags = None\nnothing = 3\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    model = project_module.Project(str(tmp_path))
    texts = [text.encode() for text in files.values()]
    names = ["is_first_iteration", "a", "b", "frozen", "inner", "c", "deep", "late", "quoted", "nothing",
             "add_flags", "iteration", "LR", "MOMENTUM", "SCALE", "Y", "EQUAL", "LESS", "A", "B", "C", "attribute",
             "x", "config"]
    for name in names:
        escaped = re.escape(name.encode())
        flag = re.compile(rb"add_flags(?:_recursive)?\s*\([^)]*\b" + escaped + rb"\s*=|setattr\s*\([^)]*[\"']"
                          + escaped + rb"[\"']")
        write = re.compile(rb"[\w)\]][ \t]*\.[ \t]*" + escaped + rb"[ \t]*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=)"
                           rb"|setattr\s*\([^)]*[\"']" + escaped + rb"[\"']")
        assert model.sets_flag(name) is any(flag.search(text) for text in texts), name
        assert model.writes_attribute(name) is any(write.search(text) for text in texts), name
    assert model.sets_flag("is_first_iteration") and model.sets_flag("deep") and not model.sets_flag("late")
    assert model.writes_attribute("MOMENTUM") and model.writes_attribute("C") and not model.writes_attribute("EQUAL")
