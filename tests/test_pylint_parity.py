"""The pylint plugin and the `mslint` command report the same findings on the same files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "parity")


@pytest.fixture
def parity_project(tmp_path):
    target = tmp_path / "project"
    shutil.copytree(FIXTURES, target)
    (target / "pyproject.toml").write_text("[project]\nname = 'parity'\n")
    return target


def _mslint(directory):
    result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "src"],
                            cwd=directory, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    return {(f["path"], f["line"], f["column"], f["symbol"]) for f in json.loads(result.stdout)}, json.loads(result.stdout)


def _pylint(directory):
    result = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all", "--enable=mslint",
         "--output-format=json2", "src"],
        cwd=directory, capture_output=True, text=True)
    assert result.stdout, result.stderr
    messages = json.loads(result.stdout)["messages"]
    # pylint's columns are 0-based, mslint's 1-based
    return {(m["path"], m["line"], m["column"] + 1, m["symbol"]) for m in messages}, messages


def test_both_front_ends_report_identical_findings(parity_project):
    from_mslint, raw = _mslint(parity_project)
    from_pylint, messages = _pylint(parity_project)
    assert from_mslint == from_pylint
    symbols = sorted(symbol for _, _, _, symbol in from_mslint)
    assert symbols == sorted([
        # random_positive: one conversion, one finding (what NumPy then does with the host array
        # is the same problem: issue 14, "one conversion, one finding")
        "tensor-to-numpy-in-graph",
        "compile-time-frozen-call", "third-party-call-in-graph",  # construct: random.random(), onp.ones
        "third-party-call-on-tensor",  # Head.table_like, reached through Backbone.construct -> Head.head
        "tensor-to-numpy-in-graph",  # @ms.jit step
    ])
    # the same message text in both
    assert sorted(f["message"] for f in raw) == sorted(m["message"] for m in messages)


def test_suppressions_are_honoured_by_both(parity_project):
    from_mslint, _ = _mslint(parity_project)
    lines = {line for path, line, _, _ in from_mslint if path.endswith("model.py")}
    assert 32 not in lines  # mslint: disable=MS102
    assert 33 not in lines  # pylint: disable=third-party-call-on-tensor


def test_every_rule_page_example_gives_identical_findings_in_both_front_ends(tmp_path):
    """Parity over every rule: each page's Example as a file, all rules selected."""
    from mslint import rule_pages
    from mslint.rules import registry

    project = tmp_path / "examples"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.mslint]\nselect = ["MS"]\n')
    for rule in registry():
        if rule.check is None:
            continue
        blocks = rule_pages.python_blocks(rule_pages.sections(rule_pages.read_page(rule.code))["Example"])
        for index, block in enumerate(blocks):
            (project / f"{rule.code.lower()}_{index}.py").write_text(block)
    from_mslint = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "."], cwd=project,
                                 capture_output=True, text=True)
    from_pylint = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all", "--enable=mslint",
         "--output-format=json2", "."], cwd=project, capture_output=True, text=True)
    cli = {(f["path"], f["line"], f["column"], f["symbol"]) for f in json.loads(from_mslint.stdout)}
    plugin = {(m["path"], m["line"], m["column"] + 1, m["symbol"]) for m in json.loads(from_pylint.stdout)["messages"]}
    assert cli == plugin
    assert {symbol for *_, symbol in cli} >= {r.symbol for r in registry() if r.check is not None}


def test_the_index_filled_by_pylints_walk_lists_what_a_walk_of_its_own_lists(parity_project, monkeypatch):
    """In pylint the analysis gets the module's calls, classes, imports... from pylint's own
    walk (collected by the MS0 checker) instead of walking the tree again."""
    from astroid import nodes
    from pylint.lint import Run

    import mslint.frontends.pylint_plugin as plugin
    from mslint.analysis.scope import NodeIndex, node_classes_of

    assert node_classes_of(tuple(plugin.WALKED_TYPES)) == plugin.WALKED_TYPES  # pylint dispatches by class name
    seen = []
    original = plugin.ModuleContext

    def recording(module, path, config, index=None):
        assert index is not None  # the walk filled it
        full = NodeIndex(module)
        for kinds in [(nodes.Call,), (nodes.ClassDef,), (nodes.FunctionDef,), (nodes.AssignAttr,),
                      (nodes.Import, nodes.ImportFrom, nodes.Attribute)]:
            assert index.of(*kinds) == full.of(*kinds), (path, kinds)
        assert index.of(nodes.Name) == full.of(nodes.Name)  # not collected: the index walks then
        seen.append(os.path.basename(path))
        return original(module, path, config, index)

    monkeypatch.setattr(plugin, "ModuleContext", recording)
    monkeypatch.chdir(parity_project)
    Run(["--load-plugins=mslint", "--disable=all", "--enable=mslint", "src"], exit=False)
    assert sorted(seen) == ["base.py", "model.py"]


def test_without_the_ms0_checker_the_analysis_walks_the_tree_itself(parity_project):
    """pylint walks only with checkers that have an enabled message: with MS0 off, nothing
    collects the nodes, and the findings are still those of the command."""
    expected, _ = _mslint(parity_project)
    result = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all", "--enable=mslint",
         "--disable=" + ",".join(rule.symbol for rule in _tool_rules()), "--output-format=json2", "src"],
        cwd=parity_project, capture_output=True, text=True)
    messages = json.loads(result.stdout)["messages"]
    assert {(m["path"], m["line"], m["column"] + 1, m["symbol"]) for m in messages} == expected


def _tool_rules():
    from mslint.rules import TOOL_RULES
    return TOOL_RULES


def test_the_callers_search_reads_pylints_trees_instead_of_parsing_the_run_files(tmp_path, monkeypatch):
    """Whether a module names a cell is answered on the tree pylint built for it: parsing its
    text again (mslint.analysis.mentions.code_names) is for modules nobody has built."""
    from pylint.lint import Run

    from mslint.analysis import caller_values

    project = tmp_path / "project"
    (project / "lib" / "app").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'callers'\n")
    (project / "lib" / "app" / "__init__.py").write_text("")
    (project / "lib" / "app" / "blocks.py").write_text(
        "import numpy as np\nfrom mindspore import nn\n\n\nclass Block(nn.Cell):\n"
        "    def construct(self, x, scale):\n        return x * np.float32(scale)\n")
    (project / "lib" / "app" / "model.py").write_text(
        "from mindspore import nn\nfrom app.blocks import Block\n\n\nclass Model(nn.Cell):\n"
        "    def __init__(self):\n        super().__init__()\n        self.block = Block()\n\n"
        "    def construct(self, x):\n        return self.block(x, 2)\n")
    parsed_texts, searched = [], []
    original_search = caller_values.Callers._find
    monkeypatch.setattr(caller_values, "code_names", lambda *args, **kwargs: parsed_texts.append(args[0]))
    monkeypatch.setattr(caller_values.Callers, "_find",
                        lambda self, definition: searched.append(definition.name) or original_search(self, definition))
    monkeypatch.chdir(project)
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    # (not "src": astroid's manager keeps the module of that name that another test's run built)
    Run(["--load-plugins=mslint", "--disable=all", "--enable=mslint", "lib"], exit=False)
    assert "Block" in searched  # the search ran: who builds Block, and what do they pass
    assert parsed_texts == []
