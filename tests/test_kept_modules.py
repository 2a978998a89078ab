"""The language server keeps project modules built from one run to the next
(runner.KeptModules): findings after any change, in a buffer or on disk, are still those of
a run that builds everything afresh."""
from __future__ import annotations

import textwrap

import pytest

from conftest import afresh_rows as afresh, finding_rows as rows
from mslint.frontends.buffers import BufferLinter

LAYERS = """
def to_host(x):
    return x.asnumpy()
"""

BLOCKS = """
from pkg.layers import *


def twice(x):
    return to_host(x) + to_host(x)
"""

MODEL = """
from mindspore import nn
from pkg.blocks import *


class Net(nn.Cell):
    def construct(self, x):
        return twice(x)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in (("layers", LAYERS), ("blocks", BLOCKS), ("model", MODEL)):
        (root / "pkg" / f"{name}.py").write_text(textwrap.dedent(text).lstrip())
    return root


def test_a_star_imported_module_changed_on_disk_is_built_again(project):
    model = str(project / "pkg" / "model.py")
    layers = project / "pkg" / "layers.py"
    layers.write_text("def to_device(x):\n    return x.asnumpy()\n")  # no to_host: blocks' star import lacks it
    linter = BufferLinter()
    texts = {model: (project / "pkg" / "model.py").read_text()}
    assert rows(linter.lint(texts)) == afresh(texts) == []

    layers.write_text("def to_device(x):\n    return x\n\n\ndef to_host(x):\n    return x.asnumpy()\n")
    found = rows(linter.lint(texts))  # blocks is built again: its names come from layers' tree
    assert [(code, name, line) for code, name, line, _ in found] == [("MS101", "model.py", 7)]
    assert "It is at layers.py:6, a file not in this run" in found[0][3]
    assert found == afresh(texts)

    layers.write_text("def to_host(x):\n    return x * 2\n")
    assert rows(linter.lint(texts)) == afresh(texts) == []


def test_an_unsaved_edit_of_an_open_helper_updates_its_importer_and_unchanged_modules_are_kept(project):
    model, blocks = str(project / "pkg" / "model.py"), str(project / "pkg" / "blocks.py")
    layers = str(project / "pkg" / "layers.py")
    linter = BufferLinter()
    texts = {model: (project / "pkg" / "model.py").read_text(), blocks: (project / "pkg" / "blocks.py").read_text()}
    first = rows(linter.lint(texts))
    assert [(code, name, line) for code, name, line, _ in first] == [("MS101", "blocks.py", 5)]
    layers_tree = linter._modules.store.modules[layers][0]

    texts[blocks] = "from pkg.layers import *\n\n\ndef twice(x):\n    return x + x\n"
    assert rows(linter.lint(texts)) == afresh(texts) == []
    assert linter._modules.store.modules[layers][0] is layers_tree  # unchanged: not built again

    texts[model] = texts[model].replace("return twice(x)", "return twice(x).asnumpy()")
    edited = rows(linter.lint(texts))
    assert edited == afresh(texts)
    assert [(code, name, line) for code, name, line, _ in edited] == [("MS101", "model.py", 7)]
