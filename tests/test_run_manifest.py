"""The run manifest (mslint.run.manifest): a repeated run with nothing changed answers from it
without linting, and every change that can change the answer is seen.

Each test compares a run after a change with a `--no-cache` run of the same tree.  The manifest
refuses paths changed less than RACY_SECONDS before a run started; the tests shorten that
bound and wait it out, so that the run before each change writes a manifest.
"""
from __future__ import annotations

import json
import os
import time

import pytest

from mslint.directories import ENVIRONMENT_VARIABLE
from mslint.frontends import cli
from mslint.run import manifest
from test_runner_cache import BASE, BASE_NOT_CALLING_HELPER, SUB
from test_runner_cache import NET_WITH_NUMPY as NET


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(manifest, "RACY_SECONDS", 0.05)
    monkeypatch.chdir(root)
    write(root, "pyproject.toml", "[project]\nname = 'repo'\n")
    for n in range(3):
        write(root, f"pkg/net{n}.py", NET.format(n=n))
    write(root, "pkg/__init__.py", "")
    write(root, "base.py", BASE)
    write(root, "sub.py", SUB)
    return root


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(capsys, *args):
    status = cli.main(["--format", "json", "--jobs", "1", *args])
    output = capsys.readouterr().out
    return status, [(f["path"], f["line"], f["code"]) for f in json.loads(output)]


def settled_run(capsys, *args):
    """A run after the tree has been left alone for longer than RACY_SECONDS (it writes a manifest)."""
    time.sleep(manifest.RACY_SECONDS * 3)
    return run(capsys, *args)


def manifests(tmp_path):
    return sorted(name for name in os.listdir(tmp_path / "cache") if name.startswith("run-"))


def answered_from_the_manifest(monkeypatch, capsys, *args):
    """A run that must not lint anything: lint_run raises if it is called."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the manifest should have answered")

    with monkeypatch.context() as patch:
        patch.setattr(cli, "lint_run", refuse)
        return run(capsys, *args)


def test_a_repeated_run_answers_from_the_manifest_with_the_same_findings(tree, tmp_path, capsys, monkeypatch):
    first = settled_run(capsys, ".")
    assert len(manifests(tmp_path)) == 1
    assert [code for _, _, code in first[1]].count("MS101") == 3 and ("sub.py", 9, "MS102") in first[1]
    assert answered_from_the_manifest(monkeypatch, capsys, ".") == first
    assert run(capsys, "--no-cache", ".") == first
    # another command line (other paths, other rules) has its own manifest
    selected = settled_run(capsys, "--select", "MS101", ".")
    assert {code for _, _, code in selected[1]} == {"MS101"}
    assert len(manifests(tmp_path)) == 2
    assert answered_from_the_manifest(monkeypatch, capsys, ".") == first


def test_a_run_that_saw_files_change_as_it_started_writes_no_manifest(tree, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(manifest, "RACY_SECONDS", 30.0)  # the tree was written just now
    run(capsys, ".")
    assert manifests(tmp_path) == []


@pytest.mark.parametrize("change", ["edit", "new file", "deleted file", "helper", "config", "gitignore",
                                    "new package marker"])
def test_every_change_that_can_change_the_answer_is_seen(tree, tmp_path, capsys, monkeypatch, change):
    before = settled_run(capsys, ".")
    assert len(manifests(tmp_path)) == 1
    if change == "edit":
        write(tree, "pkg/net1.py", NET.format(n=1).replace("y = x.asnumpy()", "y = x"))
    elif change == "new file":
        write(tree, "pkg/net7.py", NET.format(n=7))
    elif change == "deleted file":
        os.unlink(tree / "pkg" / "net2.py")
    elif change == "helper":  # sub.py is unchanged; its base class no longer calls the helper
        write(tree, "base.py", BASE_NOT_CALLING_HELPER)
    elif change == "config":
        write(tree, "pyproject.toml", "[project]\nname = 'repo'\n\n[tool.mslint]\nignore = [\"MS101\"]\n")
    elif change == "gitignore":
        write(tree, ".gitignore", "net0.py\n")
    elif change == "new package marker":  # pkg becomes its own project (its own root and configuration)
        write(tree, "pkg/pyproject.toml", "[tool.mslint]\nselect = [\"MS102\"]\n")
    after = run(capsys, ".")
    assert after != before
    assert after == run(capsys, "--no-cache", ".")


def test_a_file_outside_the_linted_path_that_its_analysis_read_is_seen(tree, tmp_path, capsys, monkeypatch):
    before = settled_run(capsys, "sub.py")
    assert ("sub.py", 9, "MS102") in before[1]
    assert answered_from_the_manifest(monkeypatch, capsys, "sub.py") == before
    write(tree, "base.py", BASE_NOT_CALLING_HELPER)
    after = run(capsys, "sub.py")
    assert after == run(capsys, "--no-cache", "sub.py") and after[1] == []


def test_a_configuration_above_the_project_is_seen(tree, tmp_path, capsys, monkeypatch):
    before = settled_run(capsys, ".")
    # the project's pyproject.toml has no [tool.mslint]: the nearest one above it applies
    write(tmp_path, "pyproject.toml", "[tool.mslint]\nselect = [\"MS102\"]\n")
    after = run(capsys, ".")
    assert after != before and {code for _, _, code in after[1]} == {"MS102"}
    assert after == run(capsys, "--no-cache", ".")


def test_a_snapshot_over_its_bound_is_not_kept(tree, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(manifest, "MAX_PATHS", 5)
    first = settled_run(capsys, ".")
    assert manifests(tmp_path) == []
    assert run(capsys, ".") == first


HOST_NET = """
import mindspore as ms
from mindspore import nn
from hostops import to_host


class Net(nn.Cell):
    def construct(self, x):
        return to_host(x)
"""


def test_a_search_base_above_the_project_counts_by_presence_and_the_names_tried_in_it(tmp_path, capsys,
                                                                                      monkeypatch):
    """An import the project cannot resolve is searched for in the folders above it (the
    search bases).  Such a folder is often a busy one (/tmp, a home folder): another file
    appearing in it leaves the manifest valid, the module the import names appearing in it
    does not."""
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(manifest, "RACY_SECONDS", 0.05)
    busy = tmp_path / "busy"
    write(busy / "outer" / "proj", "net.py", HOST_NET)  # no project marker: the search walks up
    monkeypatch.chdir(busy / "outer")
    before = settled_run(capsys, "proj")
    assert before[1] == [] and len(manifests(tmp_path)) == 1
    write(busy, "notes.txt", "unrelated\n")  # changes the busy folder's times
    time.sleep(manifest.RACY_SECONDS * 3)
    assert answered_from_the_manifest(monkeypatch, capsys, "proj") == before
    write(busy, "hostops.py", "def to_host(x):\n    return x.asnumpy()\n")  # what the import looks for
    after = run(capsys, "proj")
    assert after == run(capsys, "--no-cache", "proj")
    assert after[1] == [("proj/net.py", 9, "MS101")]  # (the helper outside the run is reported at the call)


def test_a_lookup_of_the_empty_module_name_counts_its_base_by_its_init_not_its_times(tmp_path):
    """`from . import x` looks up "" in each search base: the base itself (a namespace) or its
    __init__.py.  A new unrelated file in the base (a busy /tmp) leaves the snapshot holding."""
    base = tmp_path / "base"
    base.mkdir()
    snapshot = manifest.Snapshot(manifest.now_ns() + 10**12)  # (as if taken long after: nothing is racy)
    snapshot.lookup("", str(tmp_path / "project"), [str(base)])
    assert not snapshot.discarded and str(base) not in snapshot.paths
    (base / "unrelated.txt").write_text("x")
    assert manifest.holds(snapshot)
    (base / "__init__.py").write_text("")
    assert not manifest.holds(snapshot)
