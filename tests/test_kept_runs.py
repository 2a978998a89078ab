"""The interpreter's runs of a buffer's functions are kept from one edit to the next
(mslint.analysis.kept_runs): after every edit the findings are those of a run that keeps
nothing, and the runs that the edit cannot have changed are not run again."""
from __future__ import annotations


import pytest

from conftest import Project, afresh_rows as afresh, finding_rows as rows
from mslint import config as config_module
from mslint.analysis import interpreter, kept_runs
from mslint.frontends.buffers import BufferLinter
from mslint.run import runner

MODEL = """
import numpy as np
from mindspore import nn
from pkg.helpers import pick

USE_HOST = False
SCALE = 2


def scale(x):
    return x * SCALE


class Block(nn.Cell):
    def construct(self, x):
        if USE_HOST:
            x = np.abs(x)
        return scale(x)


class Head(nn.Cell):
    def construct(self, x):
        m = pick(x)
        return x[m]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = Head()

    def construct(self, x):
        y = self.block(x)
        return self.head(y)
"""

HELPERS = """
def pick(x):
    return x * 2
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    kept_runs.KEPT.forget()
    root = tmp_path / "proj"
    root.mkdir()
    package = Project(root)
    for relative, text in (("pkg/__init__.py", ""), ("pkg/helpers.py", HELPERS), ("pkg/model.py", MODEL)):
        package.write(relative, text)
    yield root
    kept_runs.KEPT.forget()


@pytest.fixture
def runs(monkeypatch):
    """The functions the interpreter ran (not recalled), by name, since the last clear()."""
    ran = []
    run = interpreter.Interpreter._run

    def counting(self, function, params, self_class):
        ran.append(function.name if self_class is None else f"{self_class.name}.{function.name}")
        return run(self, function, params, self_class)
    monkeypatch.setattr(interpreter.Interpreter, "_run", counting)
    return ran


def replaced(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def edits(linter: BufferLinter, texts: dict, path: str, steps: list) -> None:
    """Apply each (old, new, expected rows) to the buffer at `path`: the findings are those of a
    fresh run, and the expected ones."""
    for old, new, expected in steps:
        texts[path] = replaced(texts[path], old, new)
        found = rows(linter.lint(dict(texts)))
        assert found == afresh(dict(texts)), (old, new)
        assert [row[:3] for row in found] == expected, (old, new)


def test_an_edit_in_one_class_runs_only_what_reads_it_again(project, runs):
    model = str(project / "pkg" / "model.py")
    texts = {model: (project / "pkg" / "model.py").read_text()}
    linter = BufferLinter()
    linter.lint(dict(texts))  # (the buffer as on disk: its runs are kept too)
    assert kept_runs.KEPT.kept(runner_module(model, linter)) > 0
    runs.clear()
    texts[model] = replaced(texts[model], "        return x[m]", "        m = m\n        return x[m]")
    found = rows(linter.lint(dict(texts)))
    ran = list(runs)
    assert found == afresh(dict(texts))
    assert "Head.construct" in ran and "Net.construct" in ran  # Net spells Head: it may read it
    assert "Block.construct" not in ran and "scale" not in ran  # neither spells what changed


def test_a_package_that_star_imports_the_buffer_keeps_its_runs(project, monkeypatch):
    """The package's __init__ is built again after every edit (it copies the buffer's names; an
    importer's analysis loads it), which is no change of its own: the buffer's analysis does not
    load it, and keeps its runs."""
    (project / "pkg" / "__init__.py").write_text("from pkg.model import *\n")
    (project / "train.py").write_text("from mindspore import nn\nfrom pkg import Net\n\n\nclass Wrapper(nn.Cell):\n"
                                      "    def __init__(self):\n        super().__init__()\n        self.net = Net()\n\n"
                                      "    def construct(self, x):\n        return self.net(x)\n")
    model = str(project / "pkg" / "model.py")
    texts = {model: (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"}
    used = []
    recall = kept_runs.KeptRuns.recall

    def counting(self, interpreter, key, module):
        found = recall(self, interpreter, key, module)
        used.append((key[2].name if key[2] is not None else None, key[1].name, found is not None))
        return found
    monkeypatch.setattr(kept_runs.KeptRuns, "recall", counting)
    linter = BufferLinter()
    linter.lint(dict(texts))
    used.clear()
    texts[model] = replaced(texts[model], "        return x[m]", "        m = m\n        return x[m]")
    found = rows(linter.lint(dict(texts)))
    assert found == afresh(dict(texts))
    first = {}
    for owner, name, hit in used:
        first.setdefault((owner, name), hit)
    assert first[("Block", "construct")] and not first[("Head", "construct")]  # (the first ask, not a repeat)


def runner_module(path: str, linter: BufferLinter):
    return linter._modules.store.modules[path][0]


def test_findings_follow_every_edit_that_a_kept_run_read(project):
    model = str(project / "pkg" / "model.py")
    texts = {model: (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"}
    linter = BufferLinter()
    assert [row[:3] for row in rows(linter.lint(dict(texts)))] == []
    edits(linter, texts, model, [
        # a module constant an unchanged class reads
        ("USE_HOST = False", "USE_HOST = True", [("MS102", "model.py", 16)]),
        ("USE_HOST = True", "USE_HOST = False", []),
        # a function an unchanged class calls (through a name)
        ("    return x * SCALE", "    return x.asnumpy()", [("MS101", "model.py", 10)]),
        ("    return x.asnumpy()", "    return x * SCALE", []),
        # a new binding of a name an unchanged class reads: the later one wins
        ("class Block(nn.Cell):", "def pick(x):\n    return x > 0\n\n\nclass Block(nn.Cell):",
         [("MS401", "model.py", 27)]),
        ("def pick(x):\n    return x > 0\n\n\n", "", []),
        # a name rebound after the classes that read it: none of their statements moved
        ("# unsaved", "def pick(x):\n    return x > 0\n\n\n# unsaved", [("MS401", "model.py", 23)]),
        ("def pick(x):\n    return x > 0\n\n\n# unsaved", "# unsaved", []),
        # a `global` statement: the constant is no constant any more (np.abs may run)
        ("SCALE = 2\n", "SCALE = 2\n\n\ndef switch():\n    global USE_HOST\n    USE_HOST = True\n",
         [("MS102", "model.py", 21)]),
        ("\n\ndef switch():\n    global USE_HOST\n    USE_HOST = True\n", "", []),
    ])


def test_another_buffer_edited_drops_the_runs_that_may_have_read_it(project):
    model = str(project / "pkg" / "model.py")
    helpers = str(project / "pkg" / "helpers.py")
    texts = {model: (project / "pkg" / "model.py").read_text() + "\n# unsaved\n",
             helpers: (project / "pkg" / "helpers.py").read_text() + "\n# unsaved\n"}
    linter = BufferLinter()
    assert rows(linter.lint(dict(texts))) == []
    edits(linter, texts, helpers, [("    return x * 2", "    return x > 2", [("MS401", "model.py", 23)])])
    edits(linter, texts, model, [("# unsaved", "# still unsaved", [("MS401", "model.py", 23)])])
    edits(linter, texts, helpers, [("    return x > 2", "    return x * 2", [])])


def test_a_helper_changed_on_disk_drops_the_runs_that_may_have_read_it(project):
    model = str(project / "pkg" / "model.py")
    texts = {model: (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"}
    linter = BufferLinter()
    assert rows(linter.lint(dict(texts))) == []
    (project / "pkg" / "helpers.py").write_text("def pick(x):\n    return x > 2\n")
    edits(linter, texts, model, [("# unsaved", "# still unsaved", [("MS401", "model.py", 23)])])


def test_an_import_cycle_keeps_no_runs_of_the_analysis(project):
    """helpers.pick calls back into the buffer by a name the buffer's classes never spell:
    a kept run of Head could not tell that to_mask changed."""
    model = str(project / "pkg" / "model.py")
    (project / "pkg" / "helpers.py").write_text("from pkg.model import to_mask\n\n\ndef pick(x):\n"
                                                "    return to_mask(x)\n")
    texts = {model: replaced((project / "pkg" / "model.py").read_text(), "def scale(x):",
                             "def to_mask(x):\n    return x * 2\n\n\ndef scale(x):") + "\n# unsaved\n"}
    linter = BufferLinter()
    assert rows(linter.lint(dict(texts))) == []
    edits(linter, texts, model, [("    return x * 2", "    return x > 2", [("MS401", "model.py", 27)])])


def test_a_module_reached_through_a_package_attribute_counts_too(project):
    """`import pkg` then `pkg.sub.pick(x)`: sub.py is no import of the buffer's own, and it
    imports the buffer back."""
    (project / "pkg" / "sub.py").write_text("from pkg.model import to_mask\n\n\ndef pick(x):\n    return to_mask(x)\n")
    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text()
    text = replaced(text, "from pkg.helpers import pick\n", "import pkg\n")
    text = replaced(text, "        m = pick(x)", "        m = pkg.sub.pick(x)")
    text = replaced(text, "def scale(x):", "def to_mask(x):\n    return x * 2\n\n\ndef scale(x):")
    texts = {model: text + "\n# unsaved\n"}
    linter = BufferLinter()
    assert rows(linter.lint(dict(texts))) == []
    edits(linter, texts, model, [("    return x * 2", "    return x > 2", [("MS401", "model.py", 27)])])


def test_a_command_run_keeps_no_runs(project):
    model = str(project / "pkg" / "model.py")
    runner.lint_run([model], config_module.PerFile())
    assert kept_runs.KEPT._modules == {}
