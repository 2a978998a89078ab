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
- the importers of the run's files (its context), while no buffer changes its imports;
- the file lookups' caches (mslint.project.module_files).

They are used while a snapshot of the paths the last run depended on holds (mslint.run.manifest:
the same paths a command run's manifest checks, every one with the same status); when one
changed, or a file was saved, the run starts from nothing again, and keeps what it built.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mslint.findings import Finding
from mslint.project import index as project
from mslint.project import module_files
from mslint.run import manifest


class KeptProjects:
    """What one run leaves for the next (see the module's docstring)."""

    def __init__(self):
        self._snapshot: Optional[manifest.Snapshot] = None
        self._projects: Dict[str, project.Project] = {}
        self._roots: Dict[str, str] = {}
        self._reads: Dict[str, Tuple[Optional[bytes], Optional[str], Optional[Finding]]] = {}
        self._contexts: Dict[tuple, List[str]] = {}
        self._overridden: Sequence[str] = ()
        self._started_ns = 0

    def start(self, overrides: Dict[str, bytes]) -> bool:
        """Before a run: the kept models if the file system is as the last run saw it (True),
        else a fresh start (False).  A file the last run read from an editor's text and this
        one reads from disk is read from disk again."""
        self._started_ns = manifest.now_ns()
        if self._snapshot is None or not manifest.holds(self._snapshot):
            self.forget()
            module_files.clear_file_caches()
            project.forget_projects()
            return False
        project.restore_projects(self._projects, self._roots)
        for path in self._overridden:
            if path not in overrides:
                model = project.project_for(path)
                model.use_text(path, project.read_regular(path) or b"")
        return True

    def read(self, path: str, reader: Callable[[str], tuple]) -> tuple:
        """A context file's (bytes, text, problem), read once while the snapshot holds."""
        found = self._reads.get(path)
        if found is None:
            found = self._reads[path] = reader(path)
        return found

    def context(self, run_paths: Dict[str, str], find: Callable[[], List[str]]) -> List[str]:
        """The run's context files: found again only when a buffer changed who imports whom."""
        key = tuple(sorted(run_paths)) + tuple(
            (root, model.imports_version) for root, model in sorted(project.projects_of(run_paths).items()))
        if key not in self._contexts:
            self._contexts.clear()
            self._contexts[key] = find()
        return list(self._contexts[key])

    def keep(self, files: Sequence[str], context: Sequence[str], config_for, cache_for,
             overrides: Dict[str, bytes]) -> None:
        """After a run that finished: keep its models, with the snapshot of what they read."""
        snapshot = manifest.snapshot_of_run(self._started_ns, (), context, files, config_for, cache_for, None)
        if snapshot.discarded:  # a path changed while the run read it, or too many paths
            self.forget()
            return
        self._snapshot = snapshot
        self._projects, self._roots = project.current_projects()
        self._overridden = sorted(overrides)

    def forget(self) -> None:
        self._snapshot = None
        self._projects, self._roots = {}, {}
        self._reads.clear()
        self._contexts.clear()
        self._overridden = ()
