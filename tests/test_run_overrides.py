"""`lint_run(..., overrides=...)`: texts that are not on disk (an editor's unsaved buffers)
take part in the run as if they were saved: in their own analyses, in the modules other
analyses load, and in the project model that finds the importers."""
from __future__ import annotations

import os

from mslint.config import Config
from mslint.run.runner import lint_run

HELPERS = """
def to_host(x):
    return x.asnumpy()
"""
MODEL = """
from mindspore import nn

from pkg.helpers import to_host


class Net(nn.Cell):
    def construct(self, x):
        return to_host(x)
"""


def rows(project, report):
    return sorted((os.path.relpath(f.path, project.root), f.line, f.code) for f in report.findings)


def lint(project, files, overrides=None):
    paths = [str(project.root / f) for f in files]
    texts = {str(project.root / f): text for f, text in (overrides or {}).items()}
    return lint_run(paths, Config(root=str(project.root)), overrides=texts)


def test_an_unsaved_helper_keeps_the_findings_its_importers_reach_at_its_own_lines(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/model.py", MODEL)
    assert rows(project, lint(project, ["pkg/helpers.py"])) == [("pkg/helpers.py", 2, "MS101")]
    shifted = "# typed, not saved\n\n" + HELPERS.lstrip()
    report = lint(project, ["pkg/helpers.py"], {"pkg/helpers.py": shifted})
    assert rows(project, report) == [("pkg/helpers.py", 4, "MS101")]
    assert report.context_files == 1  # model.py, read from disk
    fixed = lint(project, ["pkg/helpers.py"], {"pkg/helpers.py": shifted.replace(".asnumpy()", "")})
    assert rows(project, fixed) == []


def test_an_unsaved_import_makes_a_module_an_importer_and_its_graph_code_reaches_the_helper(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/model.py", MODEL.replace("from pkg.helpers import to_host\n", "")
                  .replace("return to_host(x)", "return x"))
    assert rows(project, lint(project, ["pkg/helpers.py"])) == []
    # model.py's buffer (not part of the run's files) now imports and calls the helper
    report = lint(project, ["pkg/helpers.py"], {"pkg/model.py": MODEL.lstrip()})
    assert rows(project, report) == [("pkg/helpers.py", 2, "MS101")]
    assert rows(project, lint(project, ["pkg/helpers.py"])) == []  # the disk is what the next run reads


def test_a_module_loaded_by_another_analysis_is_read_from_its_override(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS.replace("x.asnumpy()", "x"))
    project.write("pkg/model.py", MODEL)
    assert rows(project, lint(project, ["pkg/model.py"])) == []
    report = lint(project, ["pkg/model.py"], {"pkg/helpers.py": HELPERS.lstrip()})
    [finding] = report.findings  # at the call in model.py: helpers.py is not a file of the run
    assert (finding.code, finding.line) == ("MS101", 8) and "helpers.py:2" in finding.message


def test_with_the_result_cache_entries_are_checked_against_the_overrides_and_none_is_stored(project, monkeypatch):
    from mslint.run import runner
    from mslint.run.cache import ResultCache

    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/model.py", MODEL)
    project.write("pkg/other.py", MODEL.replace("class Net", "class Other"))  # imports the helper too
    project.write("pkg/unrelated.py", "from mindspore import nn\n\n\nclass Alone(nn.Cell):\n"
                                      "    def construct(self, x):\n        return x.asnumpy()\n")
    paths = [str(project.root / "pkg/helpers.py"), str(project.root / "pkg/unrelated.py")]
    config = Config(root=str(project.root))

    def run(overrides=None):
        cache = ResultCache(str(project.root / ".cache"), "test")
        report = lint_run(paths, config, cache=cache, overrides=overrides)
        return sorted((os.path.basename(f.path), f.line, f.code) for f in report.findings)

    on_disk = [("helpers.py", 2, "MS101"), ("unrelated.py", 6, "MS101")]
    assert run() == on_disk  # model.py's and other.py's analyses are stored
    analysed = []
    original = runner._analyse
    monkeypatch.setattr(runner, "_analyse", lambda path, *rest: analysed.append(os.path.basename(path))
                        or original(path, *rest))
    shifted = "# typed, not saved\n" + HELPERS.lstrip()
    assert run({paths[0]: shifted}) == [("helpers.py", 3, "MS101"), ("unrelated.py", 6, "MS101")]
    # the entries that read the helper are made again; unrelated.py's, which did not, is used
    assert sorted(analysed) == ["helpers.py", "model.py", "other.py"]
    analysed.clear()
    # a function added at the end leaves what model.py and other.py read of the helper as it was
    added = HELPERS.lstrip() + "\n\ndef to_device(x):\n    return x\n"
    assert run({paths[0]: added}) == on_disk and analysed == ["helpers.py"]
    analysed.clear()
    assert run() == on_disk and analysed == []  # the disk's entries are still there, still valid


def test_an_entry_that_only_saw_lines_move_in_a_buffer_holds_when_it_shows_nothing_there(project, monkeypatch):
    """An analysis that read parts of the buffer's file that the buffer only moved, and whose
    findings the run would not show (none in a file of the run, none reached through one), is
    not made again: made again, it would find the same, moved, and the run would drop it."""
    from mslint.run import runner
    from mslint.run.cache import ResultCache

    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS + "\n\ndef passthrough(x):\n    return x\n")
    project.write("pkg/model.py", MODEL)  # reaches to_host: its finding is in the helper
    project.write("pkg/quiet.py", MODEL.replace("to_host", "passthrough").replace("class Net", "class Quiet")
                  + "\n\ndef keep(x):\n    return x.asnumpy()\n")  # a finding, in quiet.py only
    paths = [str(project.root / "pkg/helpers.py")]
    config = Config(root=str(project.root))

    def run(overrides=None, cache=True):
        results = ResultCache(str(project.root / ".cache"), "test") if cache else None
        report = lint_run(paths, config, cache=results, overrides=overrides)
        return sorted((os.path.basename(f.path), f.line, f.code, f.message) for f in report.findings)

    run()  # the entries of model.py and quiet.py are stored
    analysed = []
    original = runner._analyse
    monkeypatch.setattr(runner, "_analyse", lambda path, *rest: analysed.append(os.path.basename(path))
                        or original(path, *rest))
    text = (project.root / "pkg/helpers.py").read_text()
    moved = "# typed, not saved\n\n" + text
    assert run({paths[0]: moved}) == run({paths[0]: moved}, cache=False)
    assert [line for _, line, _, _ in run({paths[0]: moved}, cache=False)] == [4]
    analysed.clear()
    run({paths[0]: moved})
    assert sorted(analysed) == ["helpers.py", "model.py"]  # quiet.py's entry holds: its passthrough only moved
    analysed.clear()
    changed = moved.replace("    return x\n", "    y = x\n    return y\n")  # passthrough's own text
    assert run({paths[0]: changed}) == run({paths[0]: changed}, cache=False)
    analysed.clear()
    run({paths[0]: changed})
    assert sorted(analysed) == ["helpers.py", "model.py", "quiet.py"]
