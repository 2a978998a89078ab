"""Fuzzing, the fast part: a few hundred generated and mutated programs; none may make an
exception escape, put a finding outside the file, or give a multi-line message.
The long run (10,000+ programs) is `python scripts/fuzz.py`; docs/reliability.md has its result.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from mslint.config import Config
from mslint.run.runner import lint_paths

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "fuzz.py")
_spec = importlib.util.spec_from_file_location("mslint_fuzz_script", _SCRIPT)
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

SEEDS = fuzz.repository_seeds()


def test_the_seeds_are_the_rule_pages_and_fixtures():
    names = [name for name, _ in SEEDS]
    assert any(n.startswith("docs/rules/MS101.md#Example") for n in names)
    assert any(n.startswith("tests/fixtures/") for n in names)
    assert len(SEEDS) > 80


def test_mutations_are_deterministic_and_varied():
    first = list(fuzz.mutants(SEEDS, 50, seed=3))
    assert first == list(fuzz.mutants(SEEDS, 50, seed=3))
    steps = {part for name, _ in first for part in name.split("[")[1].split(" ")[0].split("+")}
    assert {"delete_statement", "duplicate_statement", "delete_lines", "truncate"} & steps
    assert len({data for _, data in first}) > 40


def test_300_mutants_of_real_files_no_escape(tmp_path):
    stats = fuzz.run(fuzz.mutants(SEEDS, 300, seed=1), str(tmp_path / "escapes"))
    assert stats["escapes"] == []
    assert stats["programs"] == 300
    # the run exercised both the parser errors and the rules (it cannot pass by doing nothing)
    assert stats["ms0xx"] > 30 and stats["with_findings"] > 30
    assert any(code.startswith(("MS1", "MS4", "MS7", "MS8")) for code in stats["codes"])


FUZZ_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))


def check_program(tmp_path, source: str) -> None:
    path = tmp_path / "generated.py"
    data = fuzz.with_cell(source).encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    findings = lint_paths([str(path)], Config(root=str(tmp_path)), jobs=1)
    assert fuzz.check_findings(findings, str(path), data) is None


@FUZZ_SETTINGS
@given(source=hypothesmith.from_grammar())
def test_hypothesmith_grammar_programs_no_escape(tmp_path_factory, source):
    check_program(tmp_path_factory.mktemp("grammar"), source)


@FUZZ_SETTINGS
@given(source=hypothesmith.from_node())
def test_hypothesmith_libcst_programs_no_escape(tmp_path_factory, source):
    check_program(tmp_path_factory.mktemp("node"), source)


def test_mutants_through_the_cli_every_file_reported(tmp_path):
    """40 mutants in one directory, linted by `python -m mslint --jobs 2`: no traceback, and each
    file that cannot be parsed has its MS0xx finding."""
    import ast

    unparsable = set()
    for index, (_, data) in enumerate(fuzz.mutants(SEEDS, 40, seed=7)):
        name = f"mutant{index:02d}.py"
        (tmp_path / name).write_bytes(data)
        try:
            ast.parse(data)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            unparsable.add(name)
    assert unparsable
    # --graph-mode always: whether some mutant sets PYNATIVE_MODE (and a note about withheld findings goes
    # to stderr) depends on which pages the seeds hold; the test is about tracebacks and MS0xx findings
    result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "--jobs", "2", "--graph-mode",
                             "always", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.stderr == "" and result.returncode in (0, 1)
    findings = json.loads(result.stdout)
    reported = {f["path"] for f in findings if f["code"].startswith("MS0")}
    assert unparsable <= reported


@pytest.mark.parametrize("mutator", fuzz.MUTATORS, ids=lambda m: m.__name__)
def test_each_mutator_survives_empty_and_one_line_input(mutator):
    import random

    for data in (b"", b"x", b"x = 1\n"):
        assert isinstance(mutator(random.Random(0), data), bytes)
