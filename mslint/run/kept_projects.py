"""The project models of a long-lived process's last run, kept for its next run while the file
system stays as that run saw it (the language server: one run per edit).

A run starts from nothing: it walks each project, reads every file's imports and facts, finds
the importers of its files, and answers the project-wide searches that every result-cache entry
recorded.  On a large project that is seconds (mindone, 1,729 files: about 6 s of each edit of
one model file, against 0.2 s for its own analysis), and an edit changes none of it but what
the edited buffer itself says.  So the server's runs keep:

- the project models (mslint.project.index.Project), brought up to date for each buffer's
  new text by `Project.use_text`, which redoes only what that text changes;
- what the run read from the files of its context (their bytes and text);
- the importers of the run's files (its context), while no buffer changes its imports.

They are used while a snapshot of the paths the last run depended on holds (mslint.run.manifest:
the same paths a command run's manifest checks, every one with the same status); when one
changed, or a file was saved, the run starts from nothing again, and keeps what it built.

An edit still makes every analysis of the context that read what it changed run again (in
mindone, most model files read most of each other's modules: an edit in one makes dozens run).
So they also remember whether each context file's findings showed in the run's files: when
none of the analyses still to run showed anything the last time, the run hands out the files'
own findings before it runs them (runner.lint_run's `early`), and the server shows those first.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mslint.findings import Finding
from mslint.project import index as project
from mslint.run import manifest
from mslint.run.routing import may_show


class KeptProjects:
    """What one run leaves for the next (see the module's docstring)."""

    def __init__(self):
        self._snapshot: Optional[manifest.Snapshot] = None
        self._snapshot_covers: tuple = ()  # (the run's files, its context) when it was taken
        self._projects: Dict[str, project.Project] = {}
        self._roots: Dict[str, str] = {}
        self._reads: Dict[str, Tuple[Optional[bytes], Optional[str], Optional[Finding]]] = {}
        self._contexts: Dict[tuple, List[str]] = {}
        self._overridden: Sequence[str] = ()
        self._started_ns = 0
        self._showed: Dict[str, bool] = {}  # context file -> whether its last findings showed in the run
        self._showed_for: Tuple[str, ...] = ()  # the run's files they are for

    def start(self, overrides: Dict[str, bytes]) -> bool:
        """Before a run: the kept models if the file system is as the last run saw it (True),
        else a fresh start (False).  A file the last run read from an editor's text and this
        one reads from disk is read from disk again."""
        self._started_ns = manifest.now_ns()
        if self._snapshot is None or not manifest.holds(self._snapshot):
            self.forget()
            self._overridden = sorted(overrides)
            return False
        project.restore_projects(self._projects, self._roots)
        for path in self._overridden:
            if path not in overrides:
                model = project.project_for(path)
                model.use_text(path, project.read_regular(path) or b"")
        self._overridden = sorted(overrides)  # (the run gives the models these texts at once)
        return True

    def read(self, path: str, reader: Callable[[str], tuple]) -> tuple:
        """A context file's (bytes, text, problem), read once while the snapshot holds."""
        found = self._reads.get(path)
        if found is None:
            found = self._reads[path] = reader(path)
        return found

    def context(self, run_paths: Dict[str, str], overrides: Dict[str, bytes], find: Callable[[], List[str]]
                ) -> List[str]:
        """The run's context files: found again only when a buffer changed who imports whom, or
        the text of a buffer that is not a file of the run changed (it may be an importer now)."""
        outside = tuple(sorted((path, hash(text)) for path, text in overrides.items() if path not in run_paths))
        key = tuple(sorted(run_paths)) + outside + tuple(
            (root, model.imports_version) for root, model in sorted(project.projects_of(run_paths).items()))
        if key not in self._contexts:
            self._contexts.clear()
            self._contexts[key] = find()
        return list(self._contexts[key])

    def showed(self, path: str, findings: Sequence[Finding], run_paths: Dict[str, str]) -> None:
        """What a context file's analysis (or its cached result) found: whether the run shows any."""
        if self._showed_for != tuple(sorted(run_paths)):  # (what shows depends on the run's files)
            self._showed, self._showed_for = {}, tuple(sorted(run_paths))
        if os.path.abspath(path) not in run_paths:
            self._showed[os.path.abspath(path)] = any(may_show(finding, run_paths) for finding in findings)

    def may_show_early(self, pending: Sequence[tuple]) -> bool:
        """Whether a run may show the findings of its files before it analyses these context
        files: none of them showed anything in the run's files the last time (or was never seen),
        so what the run shows next is what it shows now, unless this edit gave one something."""
        return not any(self._showed.get(os.path.abspath(item[0]), False) for item in pending)

    def keep(self, files: Sequence[str], context: Sequence[str], config_for, cache_for, stored: bool = False) -> None:
        """Keep the run's models, with the snapshot of what they read (once the run has found its
        context and looked its files up in the result cache: what its analyses then read of the
        project is the models' and the cache's, read already).  A run that used the kept models
        for the same files and context, and `stored` no result, read nothing the snapshot it
        started from does not cover: that one is kept (taking one costs a walk of the project)."""
        covered = (tuple(files), tuple(context))
        if self._snapshot is not None and self._snapshot_covers == covered and not stored:
            return
        snapshot = manifest.snapshot_of_run(self._started_ns, (), context, files, config_for, cache_for, None)
        if snapshot.discarded:  # a path changed while the run read it, or too many paths
            self.forget()
            return
        self._snapshot, self._snapshot_covers = snapshot, covered
        self._projects, self._roots = project.current_projects()

    def forget(self) -> None:
        self._snapshot = None
        self._projects, self._roots = {}, {}
        self._reads.clear()
        self._contexts.clear()
        self._overridden = ()
