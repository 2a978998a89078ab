"""An edited buffer is parsed from the unchanged statements of its last parse and parses of
the text between them (mslint.reparse): the tree is always the one a parse of the whole text
gives, and anything that a piece alone cannot tell is parsed whole."""
from __future__ import annotations

import ast
import contextlib
from pathlib import Path

import pytest

from mslint import parsed, reparse
from mslint.frontends.buffers import BufferLinter

SOURCE = '''"""A module."""
import os
from typing import List  # type: ignore

LIMIT = 3


@staticmethod
def helper(x):
    """Its docstring."""
    return x + 1


class Base:
    """Base."""

    def f(self):
        return [i for i in range(LIMIT)]


if os.name == "nt":
    SEP = "\\\\"
else:
    SEP = "/"
'''


def dump(tree):
    return ast.dump(tree, include_attributes=True)


@contextlib.contextmanager
def remembered(path: str, source: str):
    """`source` parsed as the last text of `path`, every statement kept, as if no reader
    changed any; forgotten after."""
    tree = parsed.parse(source)
    reparse.remember(path, reparse.source_lines(source), tree.body, tree.body, tree.type_ignores)
    try:
        yield path
    finally:
        reparse.forget(path)


@pytest.fixture
def kept():
    """SOURCE remembered."""
    with remembered("/virtual/module.py", SOURCE) as path:
        yield path


def replaced(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old, new", [
    ("    return x + 1", "    return x + 2"),  # inside a definition
    ("LIMIT = 3", "LIMIT = 4"),  # a simple statement
    ("class Base:", "class Base(object):"),
    ('    SEP = "/"', '    SEP = "/"  # comment'),
    ("\n\nclass Base", "\n# a comment between statements\n\nclass Base"),
    ("LIMIT = 3\n", "LIMIT = 3\nextra = [\n    1,\n]\n"),  # lines inserted: what follows moves
    ("LIMIT = 3\n", ""),  # a line removed
])
def test_the_assembled_tree_is_the_whole_parse(kept, old, new):
    text = replaced(SOURCE, old, new)
    assembled = reparse.assemble(kept, text)
    assert assembled is not None
    assert dump(assembled) == dump(parsed.parse(text))


@pytest.mark.parametrize("old, new", [
    ("\n\nclass Base", '\n\n"""\nclass Base'),  # an open string swallows what follows
    ("\n\n@staticmethod", "\n@decorate\n@staticmethod"),  # a decorator above a definition that did not move
    ("\n\nclass Base", '\n"""\nclass Base'),  # an open string on a line of its own
    ("\n\nclass Base", "\n    indented = 1\n\nclass Base"),  # belongs to the function before
    ("LIMIT = 3", "LIMIT = (3"),
    ("LIMIT = 3", "from __future__ import annotations"),  # not at the start: an error of the whole
    ("LIMIT = 3", "LIMIT = 3  # type: int"),  # type comments: as the whole text is parsed
])
def test_what_a_piece_alone_cannot_tell_is_parsed_whole(kept, old, new):
    text = replaced(SOURCE, old, new)
    assert reparse.assemble(kept, text) is None
    try:
        expected = dump(parsed.parse(text))
    except SyntaxError:
        expected = None
    try:
        found = dump(parsed.tree(text, path=kept))
    except SyntaxError:
        found = None
    assert found == expected


def test_an_else_after_a_kept_if_statement_makes_its_gap_fail():
    with remembered("/virtual/branches.py", "if a:\n    x = 1\n\ny = 2\n") as path:
        text = "if a:\n    x = 1\nelse:\n    x = 3\ny = 2\n"
        assert reparse.assemble(path, text) is None
        assert dump(parsed.tree(text, path=path)) == dump(parsed.parse(text))


def test_statements_that_share_a_line_are_never_kept():
    with remembered("/virtual/semicolons.py", "a = 1; b = 2\nc = 3\n") as path:
        assert [key[:2] for key in reparse._LAST[path].statements] == [(2, 2)]
        text = "a = 1; b = 5\nc = 3\n"
        assert dump(reparse.assemble(path, text)) == dump(parsed.parse(text))


def test_the_server_keeps_only_statements_no_reader_changed(tmp_path, monkeypatch):
    """astroid's builder moves a definition's docstring out of the tree it builds: a definition
    it built is parsed again next time; one it reused is kept, docstring and all."""
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    model = tmp_path / "model.py"
    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    \"\"\"A net.\"\"\"\n\n"
              "    def construct(self, x):\n        \"\"\"Run it.\"\"\"\n        return x\n\n\n"
              "def helper(y):\n    \"\"\"Help.\"\"\"\n    return y\n")
    model.write_text(source)
    linter = BufferLinter()
    path = str(model)
    texts = [source + "# unsaved\n",
             replaced(source, "    return y\n", "    return y + 1\n") + "# unsaved\n",  # helper built, Net reused
             replaced(source, "    return y\n", "    return y + 2\n") + "# unsaved\n",
             source + "# unsaved again\n"]
    for text in texts:
        assert linter.lint({path: text}) is not None
        kept = reparse._LAST[path].statements
        names = sorted(getattr(statement, "name", type(statement).__name__) for statement in kept.values())
        if text is texts[0]:
            assert names == ["ImportFrom"]  # the first build builds every definition
        else:
            assert names == ["ImportFrom", "Net"]  # helper was built (its docstring moved out)
        fresh = {(reparse.first_line(statement), statement.end_lineno): statement for statement in parsed.parse(text).body}
        assert all(dump(statement) == dump(fresh[key[:2]]) for key, statement in kept.items())  # untouched
    again = texts[-1] + "x = 1\n"
    assert dump(parsed.tree(again, path=path)) == dump(parsed.parse(again))
    linter.forget(path)
    assert path not in reparse._LAST


def test_a_command_run_keeps_nothing(tmp_path, monkeypatch):
    from mslint import config as config_module
    from mslint.run import runner

    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "cmd_model.py"
    model.write_text("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return x\n")
    runner.lint_run([str(model)], config_module.PerFile())
    assert str(Path(model)) not in reparse._LAST


def test_a_kept_definition_the_builder_builds_after_all_is_copied_first(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    model = tmp_path / "model.py"
    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    \"\"\"A net.\"\"\"\n\n"
              "    def construct(self, x):\n        return x\n\n\nLIMIT = 1\n")
    model.write_text(source)
    path = str(model)
    linter = BufferLinter()
    linter.lint({path: source + "# 1\n"})
    linter.lint({path: replaced(source, "LIMIT = 1", "LIMIT = 2") + "# 1\n"})  # Net reused: kept
    net = next(statement for statement in reparse._LAST[path].statements.values()
               if isinstance(statement, ast.ClassDef))
    linter._modules.store.last_trees.clear()  # (as when the buffer was saved: no last tree to reuse)
    text = replaced(source, "LIMIT = 1", "LIMIT = 3") + "# 1\n"
    assert linter.lint({path: text}) is not None
    assert ast.get_docstring(net) == "A net."  # the builder built a copy, not the kept statement
    assert dump(net) == dump(parsed.parse(text).body[1])
