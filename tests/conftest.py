"""Shared test helpers: lint a source string the way `mslint` does."""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Dict, Iterable, List, Optional

import pytest

from mslint.config import Config
from mslint.findings import Finding
from mslint.rules import registry
from mslint.run.runner import lint_file


@pytest.fixture(autouse=True)
def _user_cache_directory_is_temporary(tmp_path_factory, monkeypatch):
    """A run in a directory outside any project caches in the user's cache directory
    (mslint.run.cache): a temporary one during the tests, for this process and the commands it runs."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "user-cache"))


def default_and(*codes: str) -> tuple:
    """Selectors for the default rule set plus some default-off rules."""
    return tuple(r.code for r in registry() if r.default_enabled) + tuple(codes)


class Project:
    """A throw-away project directory: write modules, lint them."""

    def __init__(self, root: Path):
        self.root = root
        (root / "pyproject.toml").write_text("[project]\nname = 'example'\n")

    def write(self, relative: str, source: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return path

    def lint(self, relative: str, select: Optional[Iterable[str]] = None, **settings) -> List[Finding]:
        config = Config(root=str(self.root), select=tuple(select) if select is not None else None, **settings)
        return lint_file(str(self.root / relative), config)

    def lint_source(self, source: str, relative: str = "example.py", **kwargs) -> List[Finding]:
        self.write(relative, source)
        return self.lint(relative, **kwargs)


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def codes_by_line(findings: Iterable[Finding]) -> Dict[int, List[str]]:
    found: Dict[int, List[str]] = {}
    for finding in findings:
        found.setdefault(finding.line, []).append(finding.code)
    return {line: sorted(codes) for line, codes in found.items()}


def only(findings: Iterable[Finding], code: str) -> List[Finding]:
    return [f for f in findings if f.code == code]


def afresh_rows(texts: Dict[str, str]) -> list:
    """(code, file name, line, message) of what a run that keeps nothing finds: the command, on
    the buffers' texts as if saved (what the language server's kept runs must match)."""
    from mslint import config as config_module
    from mslint.run import runner

    findings = runner.lint_run(sorted(texts), config_module.PerFile(), overrides=texts).findings
    return sorted((f.code, Path(f.path).name, f.line, f.message) for f in findings)


def finding_rows(by_path: Dict[str, List[Finding]]) -> list:
    """The same rows for a BufferLinter's path -> findings."""
    return sorted((f.code, Path(f.path).name, f.line, f.message) for found in by_path.values() for f in found)


def values_of(tmp_path, source):
    """name -> lattice value of every `probe(name=expr)` call in the graph code of `source`, as
    rules see it through ModuleContext.value."""
    import astroid
    from astroid import nodes

    from mslint.analysis.context import ModuleContext

    path = tmp_path / "probe_module.py"
    path.write_text(textwrap.dedent(source))
    module = astroid.parse(path.read_text(), module_name="probe_module", path=str(path))
    context = ModuleContext(module, str(path), Config(root=str(tmp_path)))
    found = {}
    for call, gf in context.graph_nodes(nodes.Call):
        if isinstance(call.func, nodes.Name) and call.func.name == "probe":
            for keyword in call.keywords:
                found[keyword.arg] = context.value(keyword.value, gf)
    return found
