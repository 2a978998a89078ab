"""The result cache's dependencies finer than a file: an analysis depends on the top-level names
it looked up in another project module (and the statements that bind them), not on the whole
module; and every edit that can change its findings is still seen.

Each test compares the cached run with a run without the cache; none times anything.
"""
from __future__ import annotations

import json
import os

import pytest

from mslint.run import runner
from mslint.directories import ENVIRONMENT_VARIABLE
from mslint.run.cache import ModuleParts
from mslint.frontends.cli import main

HELPERS = """
import numpy as np

SCALE = 3


def unused(x):
    return x


def to_numpy(x):
    return x.asnumpy() + SCALE
"""

NET = """
from mindspore import nn

from helpers import to_numpy


class Net(nn.Cell):
    def construct(self, x):
        return to_numpy(x)
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(directory))
    return directory


@pytest.fixture
def analysed(monkeypatch):
    """The files each run analysed (the others' results came from the cache)."""
    seen = []
    original = runner._analyse

    def counting(path, source, config):
        seen.append(os.path.basename(path))
        return original(path, source, config)

    monkeypatch.setattr(runner, "_analyse", counting)
    return seen


def lint(capsys, *paths):
    """(cached run's findings, the same run's without the cache), as JSON rows."""
    main(["--format", "json", "--jobs", "1", *paths])
    cached = capsys.readouterr().out
    main(["--format", "json", "--jobs", "1", "--no-cache", *paths])
    uncached = capsys.readouterr().out
    return json.loads(cached), json.loads(uncached)


def rows(findings):
    return [(f["path"], f["line"], f["code"], f["message"]) for f in findings]


def test_a_helper_module_edit_away_from_what_the_analysis_read_reuses_the_result(project, capsys, cache_dir,
                                                                               analysed, monkeypatch):
    project.write("helpers.py", HELPERS)
    project.write("net.py", NET)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "net.py")
    assert [(code, "helpers.py:11" in message) for _, _, code, message in rows(first)] == [("MS101", True)]
    analysed.clear()
    with open("helpers.py", "a", encoding="utf-8") as handle:
        handle.write("\n\ndef added(x):\n    return x.asnumpy()\n# and a comment\n")
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached == first
    assert analysed.count("net.py") == 1  # only the run without the cache analysed it


def test_an_edit_that_only_moves_the_helpers_lines_is_seen(project, capsys, cache_dir, analysed, monkeypatch):
    project.write("helpers.py", HELPERS)
    project.write("net.py", NET)
    monkeypatch.chdir(project.root)
    lint(capsys, "net.py")
    project.write("helpers.py", HELPERS.replace("    return x\n", "    y = x\n    return y\n", 1))
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached
    assert "helpers.py:12" in rows(cached)[0][3]


def test_an_edit_of_a_function_the_helper_calls_in_its_module_is_seen(project, capsys, cache_dir, monkeypatch):
    project.write("helpers.py", """
        def inner(x):
            return x.asnumpy()


        def to_numpy(x):
            return inner(x)
        """)
    project.write("net.py", NET)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "net.py")
    assert [code for _, _, code, _ in rows(first)] == ["MS101"]
    project.write("helpers.py", """
        def inner(x):
            return x + 1


        def to_numpy(x):
            return inner(x)
        """)
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached == []


def test_a_module_constant_the_helper_reads_is_part_of_what_it_read(project, capsys, cache_dir, analysed,
                                                                    monkeypatch):
    project.write("helpers.py", HELPERS)
    project.write("net.py", NET)
    monkeypatch.chdir(project.root)
    lint(capsys, "net.py")
    analysed.clear()
    project.write("helpers.py", HELPERS.replace("SCALE = 3", "SCALE = 4"))
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached
    assert analysed.count("net.py") == 2  # SCALE is read by to_numpy: analysed again


def test_a_name_a_star_import_now_brings_in_is_seen(project, capsys, cache_dir, monkeypatch):
    project.write("helpers.py", "import numpy as np\n")
    project.write("net.py", NET.replace("from helpers import to_numpy", "from helpers import *"))
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "net.py")
    assert first == []
    project.write("helpers.py", HELPERS)
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached
    assert [code for _, _, code, _ in rows(cached)] == ["MS101"]


def test_a_name_the_module_did_not_bind_before_is_seen(project, capsys, cache_dir, monkeypatch):
    project.write("helpers.py", "import numpy as np\n")
    project.write("net.py", NET.replace("from helpers import to_numpy", "import helpers").replace(
        "return to_numpy(x)", "return helpers.to_numpy(x)"))
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "net.py")
    assert first == []
    with open(project.root / "helpers.py", "a", encoding="utf-8") as handle:
        handle.write(HELPERS.replace("import numpy as np", ""))
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached
    assert [code for _, _, code, _ in rows(cached)] == ["MS101"]


def test_a_base_class_change_in_a_module_of_other_code_is_seen(project, capsys, cache_dir, monkeypatch):
    project.write("bases.py", """
        from mindspore import nn


        def unrelated():
            return 1


        class Base(nn.Cell):
            pass
        """)
    project.write("net.py", """
        import numpy as np

        from bases import Base


        class Net(Base):
            def construct(self, x):
                return np.sum(x)
        """)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "net.py")
    assert [code for _, _, code, _ in rows(first)] == ["MS102"]
    project.write("bases.py", """
        from mindspore import nn


        def unrelated():
            return 1


        class Base:
            pass
        """)
    cached, uncached = lint(capsys, "net.py")
    assert cached == uncached == []


def _base_and_two_subclasses(project) -> None:
    """m.Base stores n.make() on self in __init__; a.py and b.py each subclass it and use it in
    construct (MS103 while make() returns a NumPy array)."""
    project.write("m.py", """
        from mindspore import nn

        from n import make


        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = make()
        """)
    for name in ("a", "b"):
        project.write(f"{name}.py", f"""
            import numpy as np

            from m import Base


            class Net{name}(Base):
                def construct(self, x):
                    return np.sum(self.w)
            """)


def test_facts_computed_through_another_module_are_seen_by_every_file(project, capsys, cache_dir, monkeypatch):
    """Two files whose analyses reach the same base class and, through its __init__, a helper of a
    third module: both see the helper's edit."""
    project.write("n.py", """
        import mindspore as ms
        import numpy as np


        def make():
            return np.ones(3)
        """)
    _base_and_two_subclasses(project)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "a.py", "b.py")
    assert [code for _, _, code, _ in rows(first)] == ["MS103", "MS103"]
    project.write("n.py", """
        import mindspore as ms
        import numpy as np


        def make():
            return ms.Tensor(np.ones(3))
        """)
    cached, uncached = lint(capsys, "a.py", "b.py")
    assert cached == uncached == []


def test_a_result_one_file_takes_from_another_brings_what_that_one_read(project, capsys, cache_dir, monkeypatch):
    """b.py's analysis takes the return value of n.make that a.py's analysis computed
    (lattice.SHARED); computing it read o.py, which b.py never looks at itself.  An edit of o.py
    must still reach b.py's cached result."""
    project.write("o.py", """
        import numpy as np


        def deep():
            return np.ones(3)
        """)
    project.write("n.py", """
        from o import deep


        def make():
            return deep()
        """)
    _base_and_two_subclasses(project)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "a.py", "b.py")
    assert [(os.path.basename(path), code) for path, _, code, _ in rows(first)] == [("a.py", "MS103"),
                                                                                    ("b.py", "MS103")]
    project.write("o.py", """
        import mindspore as ms
        import numpy as np


        def deep():
            return ms.Tensor(np.ones(3))
        """)
    cached, uncached = lint(capsys, "a.py", "b.py")
    assert cached == uncached == []


SUB_CELL = """
    import numpy as np
    from mindspore import nn


    class Sub(nn.Cell):
        def construct(self, x, k):
            return x + np.zeros(k).sum()
    """

PARENT_OF_SUB = """
    from mindspore import nn

    from sub import Sub


    class P(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = Sub()

        def construct(self, x):
            return self.s(x, {argument})
    """


def test_what_a_parent_passes_is_seen_when_another_analysis_walked_the_parent_first(project, capsys, cache_dir,
                                                                                   monkeypatch):
    """sub.py's analysis reads what P passes its sub-cell through facts kept on p.py's module
    (the names it spells), which p.py's own analysis, earlier in the run, computed.  Editing
    P's construct must still reach sub.py's cached result."""
    project.write("sub.py", SUB_CELL)
    parent = PARENT_OF_SUB
    project.write("p.py", parent.format(argument="3"))
    monkeypatch.chdir(project.root)
    first, uncached = lint(capsys, "p.py", "sub.py")
    assert first == uncached
    assert [(os.path.basename(path), code) for path, _, code, _ in rows(first)] == [("sub.py", "MS103")]  # k: 3
    project.write("p.py", parent.format(argument="x"))
    cached, uncached = lint(capsys, "p.py", "sub.py")
    assert [(os.path.basename(path), code) for path, _, code, _ in rows(uncached)] == [("sub.py", "MS102")]  # a tensor
    assert cached == uncached


def test_a_search_of_a_module_for_a_name_depends_on_the_statements_that_spell_it(project, capsys, cache_dir,
                                                                               analysed, monkeypatch):
    """sub.py's analysis searches p.py for its parents (the statements that spell `Sub` and the
    attribute that holds it), not the whole module: a function added to p.py that spells neither
    leaves sub.py's result as it was; a change in what spells them does not."""
    project.write("sub.py", SUB_CELL)
    parent = PARENT_OF_SUB
    project.write("p.py", parent.format(argument="3"))
    monkeypatch.chdir(project.root)
    first, uncached = lint(capsys, "sub.py")
    assert first == uncached and [code for _, _, code, _ in rows(first)] == ["MS103"]
    unrelated = "\n\n    def unrelated(y):\n        return y + 1\n"
    project.write("p.py", parent.format(argument="3") + unrelated)
    analysed.clear()
    cached, uncached = lint(capsys, "sub.py")
    assert cached == uncached == first
    assert analysed[0] == "p.py"  # (the one run with the cache: p.py, an importer, changed)
    assert analysed.count("sub.py") == 1  # only the run without the cache analysed it
    project.write("p.py", parent.format(argument="x") + unrelated)
    cached, uncached = lint(capsys, "sub.py")
    assert cached == uncached and [code for _, _, code, _ in rows(cached)] == ["MS102"]


BN_CONFIG = """
BN_MOMENTUM = 0.1
UNRELATED = 1
"""

BN_MODEL = """
from mindspore import nn

import config
from config import BN_MOMENTUM


class Stem(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)
        self.b = nn.BatchNorm2d(8, momentum=config.BN_MOMENTUM)

    def construct(self, x):
        return self.b(self.a(x))
"""


def test_an_edit_of_a_constant_read_from_config_changes_the_finding(project, capsys, cache_dir, analysed,
                                                                     monkeypatch):
    # issue 14 item 16: MS704 reads BN_MOMENTUM in config.py, so editing it there must invalidate
    project.write("config.py", BN_CONFIG)
    project.write("model.py", BN_MODEL)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "model.py")
    assert [(line, code, " is 0.1 (BN_MOMENTUM = 0.1 in config, line 1)." in message)
            for _, line, code, message in rows(first)] == [(10, "MS704", True), (11, "MS704", True)]

    analysed.clear()
    project.write("config.py", BN_CONFIG.replace("UNRELATED = 1", "UNRELATED = 2"))
    cached, uncached = lint(capsys, "model.py")
    assert cached == uncached == first
    assert analysed.count("model.py") == 1  # only the run without the cache: UNRELATED was not read

    project.write("config.py", BN_CONFIG.replace("BN_MOMENTUM = 0.1", "BN_MOMENTUM = 0.9"))
    cached, uncached = lint(capsys, "model.py")
    assert cached == uncached == []

    project.write("config.py", BN_CONFIG.replace("BN_MOMENTUM = 0.1", "BN_MOMENTUM = 0.01"))
    cached, uncached = lint(capsys, "model.py")
    assert cached == uncached
    assert [" is 0.01 (BN_MOMENTUM = 0.01 in config, line 1)." in message
            for _, _, _, message in rows(cached)] == [True, True]


def test_a_new_write_of_the_constant_in_another_file_is_seen(project, capsys, cache_dir, monkeypatch):
    # `config.BN_MOMENTUM = 0.9` in any file means the constant may change: the analysis searched
    # the whole project for such a write, and the cache asks the question again
    project.write("config.py", BN_CONFIG)
    project.write("model.py", BN_MODEL)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "model.py")
    assert [code for _, _, code, _ in rows(first)] == ["MS704", "MS704"]
    project.write("train.py", """
        import config

        config.BN_MOMENTUM = 0.9
        """)
    cached, uncached = lint(capsys, "model.py")
    assert cached == uncached == []
    os.remove(project.root / "train.py")
    cached, uncached = lint(capsys, "model.py")
    assert cached == uncached == first


# -- the digest of what looking names up may read ------------------------------------------------
MODULE = '''
"""Docstring."""
from __future__ import annotations

import os.path as osp
import collections.abc

LIMIT = 3


def helper(x):
    return osp.join(x, LIMIT)


def other(x):
    return x


@decorate
def decorated():
    global LATE
    LATE = 1
'''


def digest(source: str, *names: str) -> str:
    return ModuleParts(source.encode()).digest(names)


def test_the_digest_follows_the_statements_a_name_reaches():
    base = digest(MODULE, "helper")
    assert digest(MODULE.replace("return x\n", "return x + 1\n"), "helper") == base  # other's body
    assert digest(MODULE + "\ndef added():\n    pass\n", "helper") == base
    assert digest(MODULE.replace("LIMIT = 3", "LIMIT = 4"), "helper") != base  # read through helper
    assert digest(MODULE.replace("os.path as osp", "posixpath as osp"), "helper") != base
    assert digest(MODULE.replace('"""Docstring."""', '"""Other."""'), "helper") != base
    assert digest(MODULE.replace("import collections.abc", "import collections.abc\nimport sys"), "helper") != base
    assert digest(MODULE + "\nhelper = other\n", "helper") != base  # a later binding
    assert digest(MODULE, "other") != digest(MODULE.replace("return x\n", "return x + 1\n"), "other")


def test_the_digest_counts_every_way_a_statement_may_bind_a_name():
    assert digest(MODULE, "LATE") != digest(MODULE.replace("LATE = 1", "LATE = 2"), "LATE")  # global
    assert digest(MODULE, "collections") != digest(MODULE.replace("collections.abc", "collections.x"),
                                                   "collections")
    assert digest(MODULE, "missing") != digest(MODULE + "\nif True:\n    missing = 1\n", "missing")
    assert digest(MODULE, "missing") != digest(MODULE + "\n@(missing := deco)\ndef f():\n    pass\n", "missing")
    starred = MODULE + "\nfrom elsewhere import *\n"
    assert digest(starred, "anything") != digest(starred.replace("elsewhere", "other_place"), "anything")
    assert digest(MODULE, "decorated") != digest(MODULE + "\ndecorate = None\n", "decorated")  # its decorator


def test_the_digest_counts_positions():
    moved = MODULE.replace("LIMIT = 3\n", "LIMIT = 3\n\n")
    assert digest(moved, "helper") != digest(MODULE, "helper")
    assert digest(MODULE + "\n\n# a comment\n", "helper") == digest(MODULE, "helper")


POST = """
import numpy as np
from mindspore import nn


class Post(nn.Cell):
    def construct(self, arr):
        return np.einsum("ij->i", arr)
"""

PARENT = """
import mindspore as ms
from mindspore import nn
from post import Post


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.post = Post()

    def construct(self, x):
        host = x.asnumpy()
        return ms.Tensor(self.post(host))
"""


def test_what_a_parent_cell_of_another_module_passes_its_sub_cell_is_part_of_what_it_read(
        project, capsys, cache_dir, monkeypatch):
    # post.py's analysis gives Post's input the host value Net passes (mslint.analysis.parent_cells)
    project.write("post.py", POST)
    project.write("model.py", PARENT)
    monkeypatch.chdir(project.root)
    first, _ = lint(capsys, "post.py")
    assert first == []
    project.write("model.py", PARENT.replace("self.post(host)", "self.post(x) + host"))
    cached, uncached = lint(capsys, "post.py")
    assert cached == uncached
    assert [(path, line, code) for path, line, code, _ in rows(cached)] == [("post.py", 7, "MS102")]


def test_a_new_parent_cell_that_passes_a_tensor_is_seen(project, capsys, cache_dir, monkeypatch):
    project.write("post.py", POST)
    project.write("model.py", PARENT)
    monkeypatch.chdir(project.root)
    assert lint(capsys, "post.py")[0] == []
    project.write("other.py", PARENT.replace("class Net", "class Other").replace("self.post(host)",
                                                                                 "self.post(x) + host"))
    cached, uncached = lint(capsys, "post.py")
    assert cached == uncached
    assert [(path, line, code) for path, line, code, _ in rows(cached)] == [("post.py", 7, "MS102")]


def _cache_entries(directory):
    """path -> entry of every results file in the cache directory."""
    entries = {}
    for name in sorted(os.listdir(directory)):
        if name.startswith("results-"):
            with open(directory / name, encoding="utf-8") as handle:
                entries.update(json.load(handle)["entries"])
    return entries


def test_a_parallel_run_stores_the_dependency_parts_its_workers_made(project, capsys, cache_dir, monkeypatch):
    """Workers make the part digests of what each analysis read, as the parent would have made
    them; the parent makes none."""
    from mslint.run.cache import FileHashes

    project.write("helpers.py", HELPERS)
    for index in range(runner.SERIAL_BELOW + 2):
        project.write(f"net{index}.py", NET)
    monkeypatch.chdir(project.root)
    main(["--format", "json", "--jobs", "1", "--no-cache", "."])
    serial = capsys.readouterr().out

    def in_the_parent(*_args):
        raise AssertionError("a part digest made in the parent of a parallel run")

    monkeypatch.setattr(FileHashes, "parts_digest", in_the_parent)
    main(["--format", "json", "--jobs", "2", "."])
    assert capsys.readouterr().out == serial
    parts = [(path, dependency[1], dependency[2]) for entry in _cache_entries(cache_dir).values()
             for path, dependency in entry["deps"].items() if isinstance(dependency, list)]
    assert len(parts) == runner.SERIAL_BELOW + 2  # each net*.py read two names of helpers.py
    for path, names, digest in parts:
        with open(path, "rb") as handle:
            assert ModuleParts(handle.read()).digest(names) == digest


def test_the_digest_of_a_spelled_name_covers_the_statements_that_spell_it():
    from mslint.project.module_files import SPELLED

    source = "def f(net):\n    return net.head(1)\n\n\ndef g(y):\n    return y\n"
    wanted = [SPELLED + "head"]
    base = ModuleParts(source.encode()).digest(wanted)
    assert ModuleParts(source.replace("return y", "return y + 1").encode()).digest(wanted) == base
    assert ModuleParts(source.replace("head(1)", "head(2)").encode()).digest(wanted) != base
    assert ModuleParts((source + "\n\nclass C:\n    head = 3\n").encode()).digest(wanted) != base
