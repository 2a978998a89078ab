"""The language server keeps the project models from one run to the next while the file
system is as the last run saw it (mslint.run.kept_projects), bringing them up to date for each
buffer's text (Project.use_text): every run still finds what a run that keeps nothing finds."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from mslint import config as config_module
from mslint.frontends.buffers import BufferLinter
from mslint.project import index as project_index
from mslint.run import manifest, runner

HELPERS = """
def to_host(x):
    return x.asnumpy()


def passthrough(x):
    return x
"""

MODEL = """
from mindspore import nn

from pkg.helpers import to_host


class Net(nn.Cell):
    def construct(self, x):
        return to_host(x)
"""

TRAIN = """
import mindspore as ms

from pkg.model import Net

ms.set_context(mode=ms.GRAPH_MODE)
Net()
"""

PLAIN = """
from mindspore import nn


class Plain(nn.Cell):
    def construct(self, x):
        return x
"""


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    # A run keeps nothing it read from a path changed within RACY_SECONDS of its start (a file
    # system's times are that coarse); these files were all just written, each with its own
    # nanosecond times, and every change below changes a size too.
    monkeypatch.setattr(manifest, "RACY_SECONDS", 0.0)
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in (("helpers", HELPERS), ("model", MODEL), ("train", TRAIN), ("plain", PLAIN)):
        (root / "pkg" / f"{name}.py").write_text(textwrap.dedent(text).lstrip())
    return root


def afresh(texts):
    """What a run that keeps nothing finds (the command, on the buffers as if saved)."""
    findings = runner.lint_run(sorted(texts), config_module.PerFile(), overrides=texts).findings
    return rows({path: [f for f in findings if os.path.abspath(f.path) == path] for path in texts})


def rows(by_path):
    return sorted((f.code, Path(f.path).name, f.line, f.message) for found in by_path.values() for f in found)


def test_the_next_run_keeps_the_models_and_finds_what_a_fresh_run_finds(proj, monkeypatch):
    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text()
    linter = BufferLinter()
    assert [(code, line) for code, _, line, _ in rows(linter.lint({helpers: text}))] == [("MS101", 2)]
    kept_model = project_index.project_for(helpers)
    edits = [
        "# typed, not saved\n" + text,  # lines move
        text.replace("return x\n", "y = x\n    return y\n"),  # new words, the same imports
        text.replace("x.asnumpy()", "x"),  # the finding goes
    ]
    for edited in edits:
        expected = afresh({helpers: edited})
        searches = []
        with monkeypatch.context() as patched:  # no buffer changes who imports whom: the kept importers hold
            patched.setattr(runner, "context_files", lambda *args: searches.append(args) or [])
            assert rows(linter.lint({helpers: edited})) == expected
        assert searches == [] and project_index.project_for(helpers) is kept_model


def test_a_buffer_that_imports_another_module_finds_its_importers_again(proj):
    plain, helpers = str(proj / "pkg" / "plain.py"), str(proj / "pkg" / "helpers.py")
    linter = BufferLinter()
    texts = {plain: (proj / "pkg" / "plain.py").read_text(), helpers: (proj / "pkg" / "helpers.py").read_text()}
    assert rows(linter.lint(texts)) == afresh(texts)
    # plain.py now imports the helper and calls it in its construct: a new importer, new reach
    texts[plain] = texts[plain].replace("from mindspore import nn\n", "from mindspore import nn\n\n"
                                        "from pkg.helpers import to_host\n").replace("return x", "return to_host(x)")
    found = rows(linter.lint(texts))
    assert found == afresh(texts)
    assert [(code, name) for code, name, _, _ in found] == [("MS101", "helpers.py")]
    assert "2 more routes" not in found[0][3] and "1 more route reaches it" in found[0][3]


def test_an_unsaved_import_in_a_module_outside_the_run_makes_it_an_importer(proj):
    plain, helpers = str(proj / "pkg" / "plain.py"), str(proj / "pkg" / "helpers.py")
    kept = runner.KeptModules()

    def run(overrides):
        found = runner.lint_run([helpers], config_module.PerFile(), overrides=overrides, kept=kept)
        return sorted((f.code, Path(f.path).name, f.line) for f in found.findings), sorted(found.context)

    calls = (proj / "pkg" / "plain.py").read_text().replace("from mindspore import nn\n", "from mindspore import nn\n\n"
                                                           "from pkg.helpers import to_host\n")
    calls = calls.replace("return x", "return to_host(x)")
    before = run({})
    assert plain not in before[1]
    # plain.py's buffer, not a file of the run, now imports the helper and calls it
    after = run({plain: calls})
    assert plain in after[1] and after[0] == [("MS101", "helpers.py", 2)]
    assert "1 more route reaches it" in runner.lint_run([helpers], config_module.PerFile(), overrides={plain: calls},
                                                        kept=kept).findings[0].message
    assert run({}) == before  # the buffer closed: the file on disk again


def test_a_change_on_disk_starts_the_next_run_afresh(proj):
    helpers = str(proj / "pkg" / "helpers.py")
    linter = BufferLinter()
    texts = {helpers: (proj / "pkg" / "helpers.py").read_text()}
    assert rows(linter.lint(texts)) == afresh(texts)
    kept = project_index.project_for(helpers)
    # model.py on disk stops calling the helper: its finding, reached from model.py, goes
    (proj / "pkg" / "model.py").write_text(textwrap.dedent(MODEL).lstrip().replace("return to_host(x)", "return x"))
    assert rows(linter.lint(texts)) == afresh(texts) == []
    assert project_index.project_for(helpers) is not kept


def test_a_buffer_back_to_its_file_is_read_from_the_file_again(proj):
    helpers, model = str(proj / "pkg" / "helpers.py"), str(proj / "pkg" / "model.py")
    linter = BufferLinter()
    on_disk = (proj / "pkg" / "model.py").read_text()
    texts = {helpers: (proj / "pkg" / "helpers.py").read_text(),
             model: on_disk.replace("return to_host(x)", "return x")}
    assert rows(linter.lint(texts)) == afresh(texts) == []
    texts[model] = on_disk  # undone in the editor: the buffer is the file again
    found = rows(linter.lint(texts))
    assert found == afresh(texts) and [code for code, *_ in found] == ["MS101"]


def test_a_buffer_that_changes_the_programs_mode_is_seen(proj):
    train, helpers = str(proj / "pkg" / "train.py"), str(proj / "pkg" / "helpers.py")
    linter = BufferLinter()
    texts = {train: (proj / "pkg" / "train.py").read_text(), helpers: (proj / "pkg" / "helpers.py").read_text()}
    assert [code for code, *_ in rows(linter.lint(texts))] == ["MS101"]
    texts[train] = texts[train].replace("GRAPH_MODE", "PYNATIVE_MODE")  # the only program runs PyNative
    assert rows(linter.lint(texts)) == afresh(texts) == []
    texts[train] = texts[train].replace("PYNATIVE_MODE", "GRAPH_MODE")
    assert [code for code, *_ in rows(linter.lint(texts))] == ["MS101"]


# -- Project.use_text: what a kept model brings up to date --------------------------------------
QUESTIONS = ("to_host", "passthrough", "Net", "asnumpy", "Plain", "y", "extra")


def answers(model: project_index.Project, paths):
    return ([model.mentioning(name, path) for name in QUESTIONS for path in paths],
            [model.attribute_callers(name, path) for name in QUESTIONS for path in paths],
            [model.writes_attribute(name) for name in ("flag", "value")], model.sets_flag("flag"),
            [model.all_importers(path) for path in paths], sorted(model.converting_modules()),
            [model.programs().identity(path) for path in paths])


@pytest.mark.parametrize("new_text", [
    HELPERS.replace("return x\n", "self.value = x\n    return extra(x)\n"),  # words and an attribute write
    "import pkg.plain\n" + HELPERS,  # an import: who imports whom changes
    HELPERS + "\nclass Flags:\n    def f(self, net):\n        net.add_flags(flag=True)\n",  # a flag set
    HELPERS + "\nimport mindspore as ms\nms.set_context(mode=ms.PYNATIVE_MODE)\n",  # a program's mode
    "",  # emptied
])
def test_a_kept_models_answers_for_a_new_text_are_a_fresh_models(proj, new_text):
    helpers = str(proj / "pkg" / "helpers.py")
    paths = sorted(str(p) for p in (proj / "pkg").glob("*.py"))
    kept = project_index.Project(str(proj))
    answers(kept, paths)  # every index built from the files
    kept.use_text(helpers, new_text.encode())
    fresh = project_index.Project(str(proj))
    fresh.use_text(helpers, new_text.encode())
    assert answers(kept, paths) == answers(fresh, paths)
    kept.use_text(helpers, (proj / "pkg" / "helpers.py").read_bytes())  # and back to the file
    assert answers(kept, paths) == answers(project_index.Project(str(proj)), paths)


# -- the buffers' own findings first -------------------------------------------------------------
QUIET = """
from mindspore import nn

from pkg.helpers import passthrough


class Quiet(nn.Cell):
    def construct(self, x):
        return passthrough(x)
"""


OWN_CELL = """

from mindspore import nn


class Own(nn.Cell):
    def construct(self, x):
        return x.asnumpy()
"""


def test_the_buffers_own_findings_come_first_when_the_importers_showed_nothing_in_them(proj):
    (proj / "pkg" / "model.py").write_text(textwrap.dedent(QUIET).lstrip())  # reaches passthrough only
    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text() + OWN_CELL  # the buffer's own finding
    linter = BufferLinter()
    early = []
    final = linter.lint({helpers: text}, early=early.append)
    assert rows(final) == afresh({helpers: text}) and [code for code, *_ in rows(final)] == ["MS101"]
    # the first run: once before its importers are found, once more before model.py's analysis
    assert [rows(found) for found in early] == [rows(final)] * 2
    early.clear()
    edited = text.replace("return x\n", "y = x\n    return y\n")  # passthrough changed: model.py runs again
    final = linter.lint({helpers: edited}, early=early.append)
    assert rows(final) == afresh({helpers: edited}) and [rows(found) for found in early] == [rows(final)]


def test_no_early_findings_while_an_importer_still_to_run_showed_something_in_the_buffer(proj):
    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text().replace("return x.asnumpy()", "return x")
    linter = BufferLinter()
    early = []
    assert rows(linter.lint({helpers: text}, early=early.append)) == []
    assert [rows(found) for found in early] == [[], []]
    edited = text.replace("    return x\n", "    return x.asnumpy()\n", 1)  # model.py reaches it: MS101
    early.clear()
    found = linter.lint({helpers: edited}, early=early.append)
    assert [code for code, *_ in rows(found)] == ["MS101"] and rows(found) == afresh({helpers: edited})
    assert [rows(partial) for partial in early] == [[]]  # (model.py had shown nothing: it came after)
    early.clear()
    moved = "# a comment\n" + edited.replace("x.asnumpy()", "x.asnumpy() + 1")
    assert rows(linter.lint({helpers: moved}, early=early.append)) == afresh({helpers: moved})
    assert early == []  # model.py showed its MS101 here last time: all of it at once


def test_the_first_run_gives_the_buffers_own_findings_before_it_finds_their_importers(proj, monkeypatch):
    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text() + OWN_CELL
    events = []
    original = runner.context_files
    monkeypatch.setattr(runner, "context_files", lambda *args: events.append("context") or original(*args))
    final = BufferLinter().lint({helpers: text}, early=lambda found: events.append(rows(found)))
    assert events[:2] == [[("MS101", "helpers.py", 14, rows(final)[1][3])], "context"]
    assert [code for code, *_ in rows(final)] == ["MS101", "MS101"]  # with model.py's, reached from it


def test_a_first_run_a_newer_edit_stops_still_leaves_the_models_for_the_next(proj, monkeypatch):
    """The server sends a first run's own findings before the importers are looked up; the editor's
    next edit then stops that run among the lookups.  What it built must still serve the next
    run, or every run would be a first run again."""
    from mslint.run.cache import caches_by_configuration

    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text() + OWN_CELL
    everything = sorted(str(path) for path in (proj / "pkg").glob("*.py"))
    runner.lint_run(everything, config_module.PerFile(), cache=caches_by_configuration())  # a command run
    linter = BufferLinter()
    stopped = []
    assert linter.lint({helpers: text}, outdated=lambda: bool(stopped), early=stopped.append) is None
    assert len(stopped) == 1  # the own findings went out; the lookups of the importers were stopped
    edited = "# typed\n" + text
    expected = afresh({helpers: edited})
    searches = []
    original = runner.context_files
    monkeypatch.setattr(runner, "context_files", lambda *args: searches.append(args) or original(*args))
    assert rows(linter.lint({helpers: edited})) == expected
    assert searches == []  # the stopped run had found the importers: kept, not found again


class _Stopped(Exception):
    pass


class _StopAtLookup:
    """A run's progress that stops it at its first file taken from the result cache."""

    def start(self, total):
        pass

    def advance(self, count=1):
        if count:
            raise _Stopped()


def test_a_buffer_edited_in_a_stopped_run_and_then_undone_is_read_from_its_file(proj):
    """A run a newer edit stops has already given the kept model its buffers' texts: the next
    run, with the buffer back to its file, must read the file again."""
    from mslint.run.cache import caches_by_configuration

    helpers = str(proj / "pkg" / "helpers.py")
    kept = runner.KeptModules()

    def run(overrides, progress=None):
        report = runner.lint_run([helpers], config_module.PerFile(), cache=caches_by_configuration(),
                                 overrides=overrides, kept=kept, progress=progress)
        return sorted((f.code, Path(f.path).name, f.line) for f in report.findings)

    assert run({}) == [("MS101", "helpers.py", 2)]  # (its importers' results are stored)
    edited = (proj / "pkg" / "helpers.py").read_text().replace("x.asnumpy()", "x")
    with pytest.raises(_Stopped):  # stopped among the lookups: the model has the buffer's text
        run({helpers: edited}, _StopAtLookup())
    assert run({}) == [("MS101", "helpers.py", 2)]  # the buffer undone: the file again
    assert project_index.project_for(helpers).text(helpers) == (proj / "pkg" / "helpers.py").read_bytes()


# -- found by this round's review ------------------------------------------------------------------
def test_a_module_added_in_a_folder_the_project_walk_skips_is_found_by_the_next_run(tmp_path, monkeypatch):
    """Import lookups reach folders no snapshot covers (here `dist/`, which the project walk
    skips): the file lookups are made afresh for every run, kept models or not."""
    monkeypatch.setattr(manifest, "RACY_SECONDS", 0.0)
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname='x'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "dist" / "__init__.py").write_text("")
    source = ("from mindspore import nn\n\nfrom dist.helperz import to_host\n\n\nclass Net(nn.Cell):\n"
              "    def construct(self, x):\n        return to_host(x)\n")
    (root / "pkg" / "model.py").write_text(source)
    model = str(root / "pkg" / "model.py")
    linter = BufferLinter()
    assert rows(linter.lint({model: source + "# 1\n"})) == []
    (root / "dist" / "helperz.py").write_text("def to_host(x):\n    return x.asnumpy()\n")
    found = rows(linter.lint({model: source + "# 2\n"}))
    assert found == afresh({model: source + "# 2\n"}) and [code for code, *_ in found] == ["MS101"]


def test_a_buffer_outside_the_run_that_gains_graph_code_joins_the_context(proj):
    """Whether an importer is in the run's context also depends on its text holding graph code:
    a buffer that is not a file of the run and gains a Cell, its imports unchanged, joins it."""
    helpers, plain = str(proj / "pkg" / "helpers.py"), str(proj / "pkg" / "plain.py")
    (proj / "pkg" / "base.py").write_text("from mindspore import nn\n\n\nclass Base(nn.Cell):\n    pass\n")
    (proj / "pkg" / "plain.py").write_text("X = 1\n")
    kept = runner.KeptModules()
    imports = "from pkg.base import Base\nfrom pkg.helpers import to_host\n\n\n"
    plain_function = imports + "def f(x):\n    return to_host(x)\n"
    plain_cell = imports + "class Net(Base):\n    def construct(self, x):\n        return to_host(x)\n"

    def run(overrides, kept_modules):
        report = runner.lint_run([helpers], config_module.PerFile(), overrides=overrides, kept=kept_modules)
        return sorted(Path(p).name for p in report.context), sorted((f.code, Path(f.path).name) for f in report.findings)

    run({plain: plain_function}, kept)
    assert run({plain: plain_cell}, kept) == run({plain: plain_cell}, None)
    assert "plain.py" in run({plain: plain_cell}, kept)[0]


def test_early_findings_hold_no_unused_suppression_an_importer_may_still_use(proj):
    (proj / "pyproject.toml").write_text("[project]\nname = 'example'\n\n[tool.mslint]\nextend-select = ['MS006']\n")
    helpers = str(proj / "pkg" / "helpers.py")
    text = (proj / "pkg" / "helpers.py").read_text().replace("x.asnumpy()", "x.asnumpy()  # mslint: disable=MS101")
    early = []
    assert rows(BufferLinter().lint({helpers: text}, early=early.append)) == afresh({helpers: text}) == []
    assert early and all(rows(found) == [] for found in early)  # not MS006: model.py's MS101 came after


@pytest.mark.parametrize("text", [
    b"import os\n\n\nclass A:\n    def f(self):\n        self.x = os.path.join('a')\n\n        return self.g(x)\n",
    b"a.b = 1\n\nc.d += 2\n\ne.f == 3\n\nnet.add_flags(\n\n    x=True)\n\nsetattr(net,\n\n 'y', 1)\n",
    b"x = 1\r\n\r\ny.z = 2\r\n\r\n\r\nprint(y.w(1))\r\n",
    b"\n\n\n",
    b"",
])
def test_what_a_buffer_text_says_is_found_per_paragraph_as_in_the_whole_text(text):
    """A buffer's words and written attributes are found per paragraph (index._TextRead)."""
    read = project_index._TextRead("/virtual/buffer.py", text)
    assert read.words == (set(project_index._BARE_NAME.findall(text)),
                          set(project_index._ATTRIBUTE_CALL.findall(text)) if b"(" in text else set())
    assert read.scan_part == project_index._scan_part(text)
