"""The program facts of a large project read by worker processes (mslint.project.fact_workers):
the same model as reading them in the run's own process, and nothing read twice."""
from __future__ import annotations

import os

import pytest

from test_programs import two_programs

from mslint.project import fact_workers, index, program_facts


def _project(root) -> None:
    two_programs(root)
    (root / "pyproject.toml").write_text("[project]\nname = 'both'\n")  # one project of both apps


def _model(root: str):
    project = index.project_at(root)
    model = project.programs()
    return ({os.path.relpath(p.path, root): (sorted(p.modes), p.why) for p in model.programs},
            {os.path.relpath(path, root): model.mode_of(path) for path in project.files()},
            {os.path.relpath(path, root): sorted(os.path.relpath(i, root) for i in project.imports_of(path))
             for path in project.files()})


@pytest.fixture
def fresh_projects(monkeypatch):
    # (no facts kept in a cache directory: a run earlier in this process may have turned the
    # store on, and the model these tests build first would then leave every fact stored)
    monkeypatch.setattr(index.STORE, "enabled", False)
    index.forget_projects()
    yield
    index.forget_projects()


def test_workers_give_the_model_the_run_would_read_and_leave_nothing_to_read(tmp_path, monkeypatch, fresh_projects):
    _project(tmp_path)
    (tmp_path / "graph_app" / "helpers.py").write_text("import net\n\ndef unused():\n    return net\n")
    files = [str(path) for path in sorted(tmp_path.rglob("*.py"))]
    lazily = _model(str(tmp_path))
    index.forget_projects()

    monkeypatch.setattr(fact_workers, "PARALLEL_FROM", 1)
    fact_workers.read_in_workers(files, 2)
    assert index.project_at(str(tmp_path)).unread_facts() == []

    def read_again(*_args):
        raise AssertionError("read in the run's own process after the workers read it")

    monkeypatch.setattr(program_facts, "read_facts", read_again)
    monkeypatch.setattr(index.Project, "_resolve", read_again)
    assert _model(str(tmp_path)) == lazily
    assert lazily[0] == {"graph_app/train.py": (["graph"], "__main__ block"),
                         "pyn_app/train.py": (["pynative"], "top-level code")}


def test_a_file_changed_after_the_workers_read_it_is_read_again(tmp_path, monkeypatch, fresh_projects):
    _project(tmp_path)
    files = [str(path) for path in sorted(tmp_path.rglob("*.py"))]
    monkeypatch.setattr(fact_workers, "PARALLEL_FROM", 1)
    fact_workers.read_in_workers(files, 2)
    train = tmp_path / "pyn_app" / "train.py"
    train.write_text(train.read_text().replace("PYNATIVE_MODE", "GRAPH_MODE") + "# longer\n")
    assert index.project_at(str(tmp_path)).unread_facts() == [str(train)]
    assert index.program_mode(str(tmp_path / "pyn_app" / "net.py")) is None  # graph now: not PyNative-only


def test_few_unread_files_are_read_where_they_are_needed(tmp_path, monkeypatch, fresh_projects):
    _project(tmp_path)
    files = [str(path) for path in sorted(tmp_path.rglob("*.py"))]
    monkeypatch.setattr(fact_workers, "_map", lambda *_: pytest.fail("worker processes for four files"))
    fact_workers.read_in_workers(files, 2)
    assert len(index.project_at(str(tmp_path)).unread_facts()) == 4


def test_workers_that_cannot_start_leave_the_facts_to_be_read_where_needed(tmp_path, monkeypatch, fresh_projects,
                                                                           caplog):
    _project(tmp_path)
    files = [str(path) for path in sorted(tmp_path.rglob("*.py"))]
    lazily = _model(str(tmp_path))
    index.forget_projects()

    def no_processes(*_args):
        raise OSError("no process can be started here")
        yield  # (a generator, as _map is)

    monkeypatch.setattr(fact_workers, "PARALLEL_FROM", 1)
    monkeypatch.setattr(fact_workers, "_map", no_processes)
    fact_workers.read_in_workers(files, 2)
    assert "reading them here" in caplog.text
    assert _model(str(tmp_path)) == lazily
