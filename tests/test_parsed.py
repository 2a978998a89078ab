"""One parse of a text shared by its readers (mslint.parsed): each reader sees what it saw
when it parsed the text itself, also after astroid's builder changed the shared tree."""
from __future__ import annotations

import ast
import textwrap

from mslint import parsed
from mslint.project import program_facts
from mslint.run import runner
from mslint.run.cache import ModuleParts

SOURCE = textwrap.dedent('''\
    """The module's docstring: astroid's builder takes it out of the tree's body."""
    import mindspore as ms
    from mindspore import nn

    ms.set_context(mode=ms.GRAPH_MODE)


    class Net(nn.Cell):
        """A docstring too."""

        def __init__(self):
            super().__init__()
            self.head = Head()

        def construct(self, x):
            return x.asnumpy()
    ''')


def test_readers_after_the_build_see_the_text_as_parsed(tmp_path):
    path = str(tmp_path / "net.py")
    expected_parts = ModuleParts(SOURCE.encode()).digest(["Net"])
    expected_facts = program_facts.read_facts(SOURCE.encode(), path)
    assert runner.syntax_problem(path, SOURCE) is None  # keeps the tree for the build
    runner._start_session()
    try:
        module = runner._STORE.get(path, SOURCE)  # takes it (and moves the docstrings)
    finally:
        runner._end_session()
    assert module.doc_node.value.startswith("The module's docstring")
    assert [type(node).__name__ for node in module.body] == ["Import", "ImportFrom", "Expr", "ClassDef"]
    assert "Head" in expected_facts.converting_names
    assert ModuleParts(SOURCE.encode()).digest(["Net"]) == expected_parts
    assert program_facts.read_facts(SOURCE.encode(), path) == expected_facts
    assert expected_facts.modes == frozenset({"graph"})
    assert isinstance(parsed.tree(SOURCE).body[0], ast.Expr)  # a new tree, with the docstring


def test_a_misplaced_type_comment_parses_as_astroid_parses_it(tmp_path):
    source = "x = [  # type: List[int]\n    1,\n]\n"
    assert runner.syntax_problem(str(tmp_path / "typed.py"), source) is None
    assert isinstance(parsed.tree(source).body[0], ast.Assign)


def test_a_syntax_error_is_raised_to_every_reader(tmp_path):
    path = str(tmp_path / "broken.py")
    problem = runner.syntax_problem(path, "def broken(:\n    pass\n")
    assert (problem.code, problem.line) == ("MS001", 1)
    assert program_facts.parse(b"def broken(:\n    pass\n", path) is None


def test_the_shared_tree_comes_in_the_shape_this_astroid_returns():
    """astroid 4.0.x's `_parse_string` returns (tree, parser module), later ones the tree
    alone; the builder unpacks what its own version returns (CI runs the oldest too)."""
    def old_style(text, type_comments=True, modname=None):
        return ast.parse(text), "the parser module"

    def new_style(text, type_comments=True, modname=None):
        return ast.parse(text)

    text = "x = 1\n"
    parsed.tree(text, keep=True)
    shared = parsed.tree(text)
    tree, parser_module = runner._shared_tree_parser(old_style)(text)
    assert tree is shared and parser_module == "the parser module"
    parsed.tree(text, keep=True)
    shared = parsed.tree(text)
    assert runner._shared_tree_parser(new_style)(text) is shared


def test_a_name_check_that_finds_the_name_keeps_its_tree_for_the_build(monkeypatch):
    from mslint.analysis import mentions

    source = b"from mindspore import nn\n\n\nclass KeptNet(nn.Cell):\n    pass\n\nnet = KeptNet()\n"
    other = b"import os\nprint(os.sep)\n"
    assert "KeptNet" in mentions.code_names(source, keep_for="KeptNet")
    assert "KeptNet" not in mentions.code_names(other, keep_for="KeptNet")
    calls = []
    monkeypatch.setattr(parsed, "parse", lambda text: calls.append(text))
    assert isinstance(parsed.take(source.decode()), ast.Module)  # the kept tree: no parse
    assert calls == []
    parsed.take(other.decode())  # not kept (it does not spell the name): parsed again
    assert calls == [other.decode()]


def test_the_lean_builder_takes_every_option_of_the_installed_astroids_build():
    """The lean builder overrides a private method of astroid's builder; astroid 4.4 added a
    keyword (is_stub) that it passes, and an override that did not accept it turned every
    file of a run into MS001.  A stub path (astroid's default for is_stub) builds too."""
    import inspect

    from astroid.builder import AstroidBuilder

    runner._start_session()
    try:
        builder = runner._lean_builder_class()(runner._STORE, None)
        options = [name for name in inspect.signature(AstroidBuilder._data_build).parameters
                   if name not in ("self", "data", "modname", "path")]
        module = builder.string_build(SOURCE, "net", "net.py")
        stub = builder.string_build("def f(x: int) -> int: ...\n", "stub", "stub.pyi")
    finally:
        runner._end_session()
    assert [type(node).__name__ for node in module.body][-1] == "ClassDef"
    assert [node.name for node in stub.body] == ["f"]
    for name in options:  # each option the installed astroid has is passed through
        assert builder._data_build("x = 1\n", "opt", "opt.py", **{name: None})[0].body


def test_a_lean_builder_that_does_not_fit_astroid_falls_back_to_astroids_own(tmp_path, monkeypatch, caplog, capsys):
    """A future astroid that calls a private method the lean builder overrides with another
    signature: the run says so once and builds with astroid's own builder, and the findings
    are still there (not MS001 or MS003 on every file)."""
    import json
    import logging

    from astroid.builder import AstroidBuilder

    from mslint.frontends import cli

    original_post_build = AstroidBuilder._post_build

    def post_build(self, module, builder, encoding, new_option=None):
        return original_post_build(self, module, builder, encoding)

    def string_build(self, data, modname="", path=None, **options):
        module, builder = self._data_build(data, modname, path)
        return self._post_build(module, builder, "utf-8", new_option=True)  # what the lean override lacks

    monkeypatch.setattr(AstroidBuilder, "_post_build", post_build)
    monkeypatch.setattr(AstroidBuilder, "string_build", string_build)
    monkeypatch.setattr(runner, "_LEAN_BUILDER_FITS", [True])
    for name in ("one.py", "two.py"):
        (tmp_path / name).write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="mslint.run.runner"):
        status = cli.main(["--no-cache", "--jobs", "1", "--format", "json", "one.py", "two.py"])
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(capsys.readouterr().out))
    assert status == 1
    assert found == [("one.py", 16, "MS101"), ("two.py", 16, "MS101")]
    warnings = [r.getMessage() for r in caplog.records if "fast tree builder" in r.getMessage()]
    assert len(warnings) == 1 and "TypeError" in warnings[0]
    assert runner._LEAN_BUILDER_FITS == [False]


def test_a_failure_of_one_files_build_does_not_switch_the_builder(tmp_path, monkeypatch, capsys):
    """A TypeError in the lean path that only one file's text sets off (here: its star import's
    resolution) is that file's internal error; the probe builds, so the process keeps the lean
    builder and the other file is checked as usual."""
    import json

    from mslint.frontends import cli
    from mslint.project import resolve

    original = resolve.absolute_import_name

    def absolute_import_name(node):
        if node.modname == "odd":
            raise TypeError("a bug of mslint's on this import")
        return original(node)

    monkeypatch.setattr(resolve, "absolute_import_name", absolute_import_name)
    monkeypatch.setattr(runner, "_LEAN_BUILDER_FITS", [True])
    (tmp_path / "odd.py").write_text("X = 1\n")
    (tmp_path / "one.py").write_text("from odd import *\n" + SOURCE)
    (tmp_path / "two.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    cli.main(["--no-cache", "--jobs", "1", "--format", "json", "one.py", "two.py"])
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(capsys.readouterr().out))
    assert found == [("one.py", 1, "MS003"), ("two.py", 16, "MS101")]
    assert runner._LEAN_BUILDER_FITS == [True]
