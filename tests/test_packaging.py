"""A wheel holds everything mslint needs at run time, and works without the source tree."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from mslint.rules import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), ROOT],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"pip wheel failed: {result.stderr[-2000:]}")
    [path] = [p for p in out.iterdir() if p.suffix == ".whl"]
    return path


def test_wheel_contents(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mslint/checkers/__init__.py" in names and "mslint/checkers/third_party.py" in names
    assert "mslint/data/mindspore_api.json" in names
    assert not any(n.startswith("checkers/") for n in names), "no generic top-level checkers package"
    for rule in registry():
        assert f"mslint/rule_docs/{rule.code}.md" in names


def test_wheel_holds_every_module_of_every_layer(wheel):
    """A layer package missing from pyproject's list would install a mslint that cannot import itself."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for source, installed in (("mslint", "mslint"), ("checkers", "mslint/checkers")):
        for folder, subfolders, files in os.walk(os.path.join(ROOT, source)):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            relative = os.path.relpath(folder, os.path.join(ROOT, source))
            for name in files:
                if name.endswith(".py"):
                    expected.add(os.path.normpath(os.path.join(installed, relative, name)).replace(os.sep, "/"))
    assert "mslint/analysis/interpreter.py" in expected and "mslint/frontends/cli.py" in expected
    assert sorted(expected - names) == []


def test_installed_wheel_explains_and_lints_outside_the_source_tree(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=str(target))
    work = tmp_path / "work"
    work.mkdir()
    explained = subprocess.run([sys.executable, "-m", "mslint", "--explain", "MS102"], cwd=work, env=env,
                               capture_output=True, text=True)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.startswith("# MS102 third-party-call-on-tensor")
    located = subprocess.run([sys.executable, "-c", "import mslint; print(mslint.__file__)"], cwd=work, env=env,
                             capture_output=True, text=True)
    assert located.stdout.startswith(str(target))
