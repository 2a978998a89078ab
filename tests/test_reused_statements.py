"""A buffer's next build reuses its unchanged top-level definitions
(mslint.run.reused_statements): the findings after every edit are those of a run that builds
the text afresh, whatever was reused."""
from __future__ import annotations

import ast

import pytest

from conftest import Project, afresh_rows as afresh, finding_rows as rows
from mslint.frontends.buffers import BufferLinter
from mslint.run import reused_statements, runner

HELPERS = """
def to_host(x):
    return x.asnumpy()
"""

MODEL = """
import numpy as np
from mindspore import nn
from pkg.helpers import to_host

USE_HOST = True


def scale(x):
    return x * 2


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x):
        if USE_HOST:
            x = np.abs(x)
        return self.relu(scale(x))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        y = self.block(x)
        return y
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    root.mkdir()
    package = Project(root)
    for relative, text in (("pkg/__init__.py", ""), ("pkg/helpers.py", HELPERS), ("pkg/model.py", MODEL)):
        package.write(relative, text)
    return root


@pytest.fixture
def reused(monkeypatch):
    """How many definitions each build reused (the stand-ins the rebuilder met)."""
    counts = []
    mark = reused_statements.LastTree.mark

    def counting(self, tree, text, *lines):
        marked = mark(self, tree, text, *lines)
        counts.append(self.reused)
        return marked
    monkeypatch.setattr(reused_statements.LastTree, "mark", counting)
    return counts


def replaced(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def test_findings_after_each_edit_are_those_of_a_fresh_build(project, reused):
    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"
    linter = BufferLinter()
    first = rows(linter.lint({model: text}))
    assert [row[:3] for row in first] == [("MS102", "model.py", 19)]  # np.abs in Block.construct
    assert first == afresh({model: text})

    steps = [
        # a module constant an unchanged class reads: its name's lookup must see the new binding
        ("USE_HOST = True", "USE_HOST = False", []),
        # an unchanged class calls a function that changed
        ("    return x * 2", "    return x.asnumpy()", [("MS101", "model.py", 9)]),
        # a line inserted in a class: what follows moves, and is built again
        ("        y = self.block(x)\n", "        y = self.block(x)\n        y = y + 1\n", [("MS101", "model.py", 9)]),
        # a function the unchanged class calls no longer defined by that name
        ("def scale(x):", "def scale2(x):", []),
        ("def scale2(x):", "def scale(x):", [("MS101", "model.py", 9)]),
        # a function that binds a module name with `global` (never reused): the name is no constant
        ("USE_HOST = False", "USE_HOST = False\n\n\ndef switch():\n    global USE_HOST\n    USE_HOST = True",
         [("MS101", "model.py", 14), ("MS102", "model.py", 24)]),
    ]
    for old, new, expected in steps:
        text = replaced(text, old, new)
        found = rows(linter.lint({model: text}))
        assert found == afresh({model: text}), (old, new)
        assert [row[:3] for row in found] == expected, (old, new)
    assert reused and all(count >= 1 for count in reused[:2])  # the unchanged definitions were reused


def test_a_reused_definition_belongs_to_the_new_module_alone(project, reused):
    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"
    linter = BufferLinter()
    linter.lint({model: text})
    store = linter._modules.store
    before = store.last_trees[model].module
    block = before.locals["Block"][0]
    linter.lint({model: replaced(text, "USE_HOST = True", "USE_HOST = False")})
    after = store.last_trees[model].module
    assert reused[-1] == 6 and after is not before  # the three imports, scale, Block and Net (not USE_HOST)
    assert after.locals["np"] == before.locals["np"] and after.locals["to_host"] == before.locals["to_host"]
    assert after.locals["np"][0].parent is after
    assert not store.modules[model][1].whole  # finding what to reuse is no read of the whole file (importers)
    assert after.locals["Block"] == [block] and block.parent is after and block.root() is after
    assert [node.lineno for node in after.locals["USE_HOST"]] == [5]
    assert [statement.__class__.__name__ for statement in after.body] == [
        statement.__class__.__name__ for statement in ast.parse(text).body]


def test_a_closed_buffer_keeps_no_last_tree(project):
    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"
    linter = BufferLinter()
    linter.lint({model: text})
    assert model in linter._modules.store.last_trees
    helpers = str(project / "pkg" / "helpers.py")
    linter.lint({helpers: (project / "pkg" / "helpers.py").read_text() + "\n# unsaved\n"})  # the model closed
    assert model not in linter._modules.store.last_trees


@pytest.mark.parametrize("source", [
    "@decorate\nclass A:\n    pass\n",
    "def f(x=(y := 1)):\n    return x\n",
    "def f():\n    x = 1; global y\n",
    "class A:\n    def f(self):\n        global z\n",
])
def test_what_may_bind_other_module_names_is_never_reused(source):
    import astroid

    module = astroid.parse(source)
    last = reused_statements.LastTree(module, source)
    again = last.mark(ast.parse(source + "\n"), source + "\n")
    assert last.reused == (1 if source.startswith("@") else 0)
    assert isinstance(again.body[0], reused_statements.MslintReused) == source.startswith("@")


def test_facts_about_a_reused_statement_are_kept_on_it_and_only_in_buffers(project):
    from mslint.project import module_memo

    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text() + "\n# unsaved\n"
    linter = BufferLinter()
    linter.lint({model: text})
    store = linter._modules.store
    first = store.last_trees[model].module
    block, net = first.locals["Block"][0], first.locals["Net"][0]
    kept = dict(block.__dict__[module_memo._ATTRIBUTE])
    assert {"spelled", "preorder"} <= set(kept)  # the module's walk and its search for names
    construct = block.locals["construct"][0]
    assert ("body False", construct) in kept and "lookups" in kept  # Block.construct's body, its names' lookups
    linter.lint({model: replaced(text, "        y = self.block(x)\n", "        y = self.block(x)\n        y = y + 1\n")})
    after = store.last_trees[model].module
    assert after.locals["Block"] == [block] and after.locals["Net"] != [net]
    assert all(block.__dict__[module_memo._ATTRIBUTE][name] is value for name, value in kept.items())
    # a module built for a command run keeps nothing on its statements, analysed or not
    from astroid import nodes
    from mslint.analysis.context import ModuleContext
    from mslint.config import Config

    command_tree = runner._ModuleStore(record=False).build(model, text)
    context = ModuleContext(command_tree, model, Config(root=str(project)))
    assert [call.lineno for call, _ in context.graph_nodes(nodes.Call) if call.lineno == 19] == [19]  # np.abs
    assert module_memo.BUFFER not in command_tree.__dict__
    assert all(module_memo._ATTRIBUTE not in statement.__dict__ for statement in command_tree.body)


def test_a_reused_class_sees_a_module_name_it_reads_rebound(project):
    model = project / "pkg" / "aliased.py"
    text = ("import numpy as np\nfrom mindspore import nn\n\nBase = nn.Cell\n\n\n"
            "class Block(Base):\n    def construct(self, x):\n        return np.abs(x)\n")
    model.write_text(text)
    text += "# unsaved\n"
    linter = BufferLinter()
    assert [row[:3] for row in rows(linter.lint({str(model): text}))] == [("MS102", "aliased.py", 9)]
    text = replaced(text, "Base = nn.Cell", "Base = object")  # Block is reused, and no Cell now
    assert rows(linter.lint({str(model): text})) == afresh({str(model): text}) == []


def positions(statement) -> list:
    """Every node's place in a statement, with what astroid computes from it."""
    from astroid import nodes

    found = []
    for node in statement.nodes_of_class(nodes.NodeNG):
        found.append((type(node).__name__, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                      node.fromlineno, node.tolineno))
        position = getattr(node, "position", None)
        if position is not None:
            found.append(tuple(position))
        doc = getattr(node, "doc_node", None)
        if doc is not None:
            found.append(("doc", doc.lineno, doc.end_lineno))
    return found


@pytest.mark.parametrize("old, new", [
    ("USE_HOST = True\n", "USE_HOST = True\n\n# two lines more\n"),  # lines inserted above the definitions
    ("from pkg.helpers import to_host\n", ""),  # a line removed above them
])
def test_a_definition_that_only_moved_is_reused_in_its_new_place(project, reused, old, new):
    import astroid

    model = str(project / "pkg" / "model.py")
    text = (project / "pkg" / "model.py").read_text().replace("class Block(nn.Cell):\n",
                                                              'class Block(nn.Cell):\n    """A block."""\n\n')
    linter = BufferLinter()
    linter.lint({model: text + "\n# unsaved\n"})
    block = linter._modules.store.last_trees[model].module.locals["Block"][0]
    block.fromlineno, block.blockstart_tolineno  # (astroid caches these: they must move too)
    text = replaced(text, old, new) + "\n# unsaved\n"
    assert rows(linter.lint({model: text})) == afresh({model: text})
    after = linter._modules.store.last_trees[model].module
    assert after.locals["Block"] == [block] and reused[-1] >= 4
    fresh = astroid.parse(text).locals["Block"][0]
    assert positions(block) == positions(fresh) and block.blockstart_tolineno == fresh.blockstart_tolineno
