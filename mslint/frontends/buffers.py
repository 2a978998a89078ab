"""Lint an editor's open buffers as the command would lint them if they were saved.

The language server (mslint/frontends/server.py) hands over the texts of its open Python
documents; this module runs them through the command's own run (`runner.lint_run`), with
the unsaved texts as overrides, so importers outside the open files, the project model and
routing all see the buffers.  The result cache answers for the files whose analysis read
no part of an unsaved buffer that differs from its file; when every buffer matches its file,
the findings are exactly `mslint --format json` on those files.

A buffer that does not parse shows MS001 and nothing else, and the other files keep their
last good state: their analyses read the buffer's last text that parsed.  A run can be
told that it is outdated (a newer edit came in); it then stops between files and says so.
"""
from __future__ import annotations

import logging
import os
import threading
from typing import Callable, Dict, List, Optional, Tuple

from mslint import config as config_module
from mslint import reparse
from mslint.findings import Finding

log = logging.getLogger("mslint.frontends.buffers")


class Outdated(Exception):
    """A newer edit made this run's results useless."""


class _StopWhenOutdated:
    """A run's progress that stops the run (between files) once it is outdated."""

    def __init__(self, outdated: Callable[[], bool]):
        self.outdated = outdated

    def start(self, total: int) -> None:
        self.advance(0)

    def advance(self, count: int = 1) -> None:
        if self.outdated():
            raise Outdated()


class BufferLinter:
    """Findings for a set of buffers, one run at a time, remembering each buffer's last good text."""

    def __init__(self):
        self.lock = threading.Lock()
        self.last_good: Dict[str, str] = {}  # path -> the buffer's last text that parsed
        self._parsed: Dict[str, Tuple[int, Optional[Finding]]] = {}  # path -> (hash of text, its MS001 or None)
        self._modules = None  # the project modules kept built between runs (runner.KeptModules)

    def forget(self, path: str) -> None:
        """The buffer was closed."""
        self.last_good.pop(path, None)
        self._parsed.pop(path, None)
        reparse.forget(os.path.abspath(path))  # (its statements kept for the next parse)

    def syntax_problem(self, path: str, text: str) -> Optional[Finding]:
        from mslint.run import runner

        key = hash(text)
        known = self._parsed.get(path)
        if known is None or known[0] != key:
            known = (key, runner.syntax_problem(path, text))
            self._parsed[path] = known
        if known[1] is None:
            self.last_good[path] = text
        return known[1]

    def lint(self, texts: Dict[str, str], outdated: Callable[[], bool] = lambda: False,
             early: Optional[Callable[[Dict[str, List[Finding]]], None]] = None
             ) -> Optional[Dict[str, List[Finding]]]:
        """path -> findings for every buffer (every path has an entry), or None when the run
        became outdated before it finished.  `early` may get the same, without what the
        analyses of importers still to run add (see runner.lint_run), before the run ends."""
        from mslint.rules import BAD_CONFIGURATION, INTERNAL_ERROR
        from mslint.run import runner
        from mslint.run.cache import caches_by_configuration

        by_path: Dict[str, List[Finding]] = {path: [] for path in texts}
        if not texts:
            return by_path
        with self.lock:
            if outdated():
                return None
            try:
                broken = {}
                analysed: Dict[str, str] = {}  # path -> the text the run reads for it
                for path, text in texts.items():
                    problem = self.syntax_problem(path, text)
                    if problem is not None:
                        broken[path] = problem
                    analysed[path] = self.last_good.get(path, text) if problem is not None else text
                overrides = {path: text for path, text in analysed.items() if _on_disk(path) != text}
                config_for = config_module.PerFile()  # afresh: an edited pyproject.toml applies now
                for path in texts:
                    config_for(path)
                if self._modules is None:
                    self._modules = runner.KeptModules()
                on_early = None if early is None else (
                    lambda found, _broken=dict(broken): early(_by_path(texts, found, _broken)))
                findings = runner.lint_run(sorted(texts), config_for, jobs=1, cache=caches_by_configuration(),
                                           progress=_StopWhenOutdated(outdated), overrides=overrides,
                                           kept=self._modules, early=on_early).findings
            except Outdated:
                return None
            except config_module.ConfigError as error:
                broken = {}
                findings = [Finding(BAD_CONFIGURATION, path, 1, 0, None, None, str(error)) for path in texts]
            except Exception as error:  # noqa: BLE001 - the server keeps serving
                log.exception("mslint failed")
                broken = {}
                findings = [Finding(INTERNAL_ERROR, path, 1, 0, None, None,
                                    f"mslint failed on this run: {type(error).__name__}: {error}") for path in texts]
        return _by_path(texts, findings, broken)


def _by_path(texts: Dict[str, str], findings: List[Finding], broken: Dict[str, Finding]) -> Dict[str, List[Finding]]:
    by_path: Dict[str, List[Finding]] = {path: [] for path in texts}
    for finding in findings:
        path = os.path.abspath(finding.path)
        if path in by_path and path not in broken:
            by_path[path].append(finding)
    for path, problem in broken.items():
        by_path[path] = [problem]  # its other findings are for its last good text
    return by_path


def _on_disk(path: str) -> Optional[str]:
    """The file's text as the run would decode it (None when it cannot be read or decoded)."""
    from mslint.run import runner

    try:
        return runner.read_source(path)
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
        return None
