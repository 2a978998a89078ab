"""pre-commit and editor integration: the hook definition as pre-commit runs it, and
pylint as the VS Code pylint extension runs it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mslint.rules import registry

REPO = Path(__file__).resolve().parent.parent

BASE = """
from mindspore import nn


class Base(nn.Cell):
    def helper(self, x):
        return x
"""
MODEL = """
import mindspore as ms
from pkg.base import Base


class Net(Base):
    def construct(self, x):
        y = x.asnumpy()
        return ms.Tensor(y)
"""


def hook_definitions():
    """The hooks in .pre-commit-hooks.yaml (a list of flat mappings; read without PyYAML)."""
    hooks, current = [], None
    for raw in (REPO / ".pre-commit-hooks.yaml").read_text().splitlines():
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if line.startswith("- "):
            current = {}
            hooks.append(current)
            line = "  " + line[2:]
        key, _, value = line.strip().partition(":")
        value = value.strip().strip('"')
        if value.startswith("[") and value.endswith("]"):
            value = [v.strip() for v in value[1:-1].split(",") if v.strip()]
        elif value in ("true", "false"):
            value = value == "true"
        current[key] = value
    return hooks


def test_hook_definition():
    (hook,) = hook_definitions()
    # --force-exclude: the configuration's exclusions apply to the files pre-commit names
    assert hook["id"] == "mslint" and hook["entry"] == "mslint --force-exclude" and hook["language"] == "python"
    assert hook["types"] == ["python"]
    assert hook["require_serial"] is True  # mslint runs its own worker processes
    assert hook.get("pass_filenames", True) is True


def run_hook(root, *files):
    """What pre-commit does: `entry args... file...` in the repository root."""
    (hook,) = hook_definitions()
    bin_dir = os.path.dirname(sys.executable)
    program, *options = hook["entry"].split()
    entry = shutil.which(program, path=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    command = ([entry] if entry else [sys.executable, "-m", "mslint"]) + options
    return subprocess.run(command + list(hook.get("args", [])) + list(files), cwd=root,
                          capture_output=True, text=True, timeout=120)


def test_hook_on_one_file_still_resolves_the_cell_base_class_in_another(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/model.py", MODEL)
    result = run_hook(project.root, "pkg/model.py")  # pre-commit passes only the staged file
    assert result.returncode == 1, result.stderr
    assert "pkg/model.py:7:13: MS101 tensor-to-numpy-in-graph 'x.asnumpy()'" in result.stdout
    assert "1 of 1 file" in result.stdout

    # the control: when the base is no Cell, construct is not graph code and nothing is reported
    project.write("pkg/base.py", BASE.replace("nn.Cell", "object"))
    result = run_hook(project.root, "pkg/model.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_on_the_other_file_reports_nothing_about_unpassed_files(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/model.py", MODEL)
    result = run_hook(project.root, "pkg/base.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "model.py" not in result.stdout


def test_hook_skips_staged_files_the_configuration_excludes(project):
    project.write("pyproject.toml", '[tool.mslint]\nexclude = ["pkg/model.py"]\n')
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    project.write("pkg/model.py", MODEL)
    result = run_hook(project.root, "pkg/model.py")
    assert (result.returncode, result.stderr) == (0, ""), result.stdout


def pylint_like_vscode(root, path, buffer):
    """The VS Code pylint extension lints the unsaved buffer with its fixed arguments
    (`--reports=n --output-format=json --clear-cache-post-run=y --from-stdin PATH`) plus the
    user's `pylint.args` (here `--load-plugins=mslint`), in the workspace root."""
    command = [sys.executable, "-m", "pylint", "--load-plugins=mslint", "--reports=n", "--output-format=json",
               "--clear-cache-post-run=y", "--from-stdin", str(path)]
    result = subprocess.run(command, input=buffer, cwd=root, capture_output=True, text=True, timeout=300)
    assert result.returncode != 32, result.stderr  # 32: pylint usage error
    symbols = {rule.symbol for rule in registry()}
    return [m for m in json.loads(result.stdout or "[]") if m["symbol"] in symbols], result


def test_pylint_from_stdin_as_vscode_runs_it_reports_the_buffer(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    path = project.write("pkg/model.py", MODEL.replace("y = x.asnumpy()", "y = x"))  # the saved file is clean
    messages, result = pylint_like_vscode(project.root, path, MODEL.lstrip("\n"))  # the buffer is not
    found = [(m["message-id"], m["symbol"], m["line"], m["column"], m["endColumn"]) for m in messages]
    assert found == [("E8101", "tensor-to-numpy-in-graph", 7, 12, 23)], result.stderr
    assert "'x.asnumpy()' converts a tensor to NumPy" in messages[0]["message"]
    assert messages[0]["path"].replace(os.sep, "/").endswith("pkg/model.py")


def test_pylint_from_stdin_clean_buffer(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", BASE)
    path = project.write("pkg/model.py", MODEL)  # the saved file has the problem, the buffer fixed it
    messages, result = pylint_like_vscode(project.root, path, MODEL.lstrip("\n").replace("y = x.asnumpy()", "y = x"))
    assert messages == [], result.stderr


HELPERS = """
def to_host(x):
    return x.asnumpy()


def to_list(x):
    return x.asnumpy().tolist()
"""
CALLER = """
from mindspore import nn

from pkg.helpers import to_host, to_list


class Net(nn.Cell):
    def construct(self, x):
        return to_host(x), to_list(x)
"""


def test_pylint_from_stdin_reports_a_helper_from_the_buffer_even_with_the_commands_cache(project):
    # the findings in helpers.py come from model.py's analysis; the command's cache holds that
    # analysis as it was made on helpers.py on disk, which the buffer no longer is
    project.write("pkg/__init__.py", "")
    path = project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/model.py", CALLER)
    warm = subprocess.run([sys.executable, "-m", "mslint", "pkg"], cwd=project.root, capture_output=True, text=True,
                          timeout=300)
    assert "helpers.py:2:12: MS101" in warm.stdout and os.path.isdir(os.path.join(project.root, ".mslint_cache"))

    shifted = "# a line typed on top\n" + HELPERS.lstrip("\n")
    messages, result = pylint_like_vscode(project.root, path, shifted)
    assert [(m["symbol"], m["line"], m["column"]) for m in messages] == [
        ("tensor-to-numpy-in-graph", 3, 11), ("tensor-to-numpy-in-graph", 7, 11)], result.stderr

    without_asnumpy = shifted.replace(".asnumpy()", "")
    messages, result = pylint_like_vscode(project.root, path, without_asnumpy)
    assert [(m["line"], m["message"].split(" converts")[0]) for m in messages] == [(7, "'x.tolist()'")], result.stderr
