"""A run's manifest: the whole answer of a command run, kept with what the file system looked
like, so that the same run with nothing changed stats files instead of working.

The answer is what discovery found (files, paths left out, missing, warnings) and the run's
report (findings after suppression comments, the withheld count, warnings).  It is valid
while every path it depends on has the same status (modification and change times, size,
inode; or is still absent):

- every directory of the trees the run searched and of the projects of its files (walked
  as the project model walks them): a file added, removed or renamed changes its folder's
  times, so the file list, the project's layout and every import resolved inside them hold;
- every Python file of those trees, every `pyproject.toml` and `.gitignore` in them, and the
  files each analysis read outside them (its result-cache entry's dependencies);
- above those trees, up to the file system's root, the files a run looks for there (project
  markers, `pyproject.toml`, `.gitignore`, `.git/info/exclude`), and the folders an import
  lookup of an analysis searched outside them.  Of a lookup's search base only its presence
  counts, with the names the lookup tries in it (`mindcv/`, `mindcv.py`): such a base is
  often a busy folder (`/tmp`, a home folder) whose times change all day;
- above a project root without a marker, its parent folder and its scripts (one of them may
  import the root's package and so move the root up).

A run that saw a path change while it ran (its times are not older than the run's start, less
`RACY_SECONDS`, a bound on the file system's time granularity) writes no manifest; nor does a
run with an analysis cut short by its time budget, nor one whose snapshot would exceed
`MAX_PATHS` paths.  Everything else the answer depends on is
in the manifest's key: mslint's code, the working directory, the command line's settings, the
environment variables mslint reads.  A manifest that does not hold is ignored: the run then
works as before, through the per-file result cache, and writes a new one.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import tempfile
import time
from typing import Dict, Iterable, List, Optional, Sequence

from mslint.directories import PROJECT_MARKERS
from mslint.findings import Finding
from mslint.fingerprint import code_digest
from mslint.run.cache import _decode, _encode

FORMAT = 2
KEEP = 8  # manifests kept per cache directory (one per command line and working directory)
MAX_PATHS = 200_000  # a bound on a snapshot (a project root above a huge tree): past it, none is kept
RACY_SECONDS = 2.0
# what a run looks for in a folder above the trees it walks (project roots, configurations,
# ignore files); `.git/info/exclude` where a repository's top is
_LOOKED_FOR = PROJECT_MARKERS + (".gitignore", os.path.join(".git", "info", "exclude"))
_CONTENT_NAMES = ("pyproject.toml", ".gitignore")  # files read (not only looked for) in the trees
ENVIRONMENT = ("MSLINT_PREFILTER", "MSLINT_FILE_BUDGET", "MSLINT_CACHE_DIR")


def _status(path: str) -> Optional[List[int]]:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return [found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino]


def run_key(settings: Sequence) -> str:
    """The manifest's name for a run: its settings (JSON-able), the working directory, the
    environment mslint reads, and mslint's code."""
    document = [FORMAT, code_digest(), os.getcwd(), [os.environ.get(name) for name in ENVIRONMENT], list(settings)]
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=repr).encode()).hexdigest()[:24]


class Answer:
    """What a manifest holds for its run."""

    def __init__(self, document: dict):
        self.files: List[str] = document["files"]
        self.excluded: List[str] = document["excluded"]
        self.missing: List[str] = document["missing"]
        self.excluded_under: List[str] = document["excluded_under"]
        self.left_out: List[str] = document["left_out"]
        self.config_warnings: List[str] = document["config_warnings"]
        self.withheld: int = document["withheld"]
        self.context_files: int = document["context_files"]
        self.warnings = [tuple(item) for item in document["warnings"]]
        self.findings = [_decode_finding(item) for item in document["findings"]]


def load(directory: str, key: str) -> Optional[Answer]:
    """The answer of the manifest `key` in `directory`, if every path it depends on is as it was."""
    try:
        with open(os.path.join(directory, f"run-{key}.json"), encoding="utf-8") as handle:
            document = json.load(handle)
        if document.get("format") != FORMAT or not _unchanged(document["paths"], document["present"]):
            return None
        return Answer(document)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _unchanged(paths: Dict[str, Optional[List[int]]], present: Dict[str, bool]) -> bool:
    return (all(_status(path) == expected for path, expected in paths.items())
            and all(os.path.isdir(path) == expected for path, expected in present.items()))


def holds(snapshot: "Snapshot") -> bool:
    """Whether every path of a snapshot taken in this process is as it was."""
    return not snapshot.discarded and _unchanged(snapshot.paths, snapshot.present)


class Snapshot:
    """The status of every path a run's answer depends on (see the module's docstring)."""

    def __init__(self, started_ns: int):
        self.started_ns = started_ns
        self.paths: Dict[str, Optional[List[int]]] = {}
        self.present: Dict[str, bool] = {}  # folders of which only presence counts (search bases)
        self.walked: set = set()
        self.discarded = False

    def add(self, path: str) -> None:
        path = os.path.abspath(path)
        if path in self.paths or self.discarded:  # (a discarded snapshot is not kept: no need to go on)
            return
        status = _status(path)
        self.paths[path] = status
        if len(self.paths) > MAX_PATHS:
            self.discarded = True  # (not kept: checking it would cost what it saves)
        if status is not None and max(status[0], status[1]) >= self.started_ns - int(RACY_SECONDS * 1e9):
            self.discarded = True  # it changed while the run read it (or just before): its answer may not hold

    def walk(self, top: str) -> None:
        """A tree as the project model walks it: each folder, its Python files, the files read in it."""
        from mslint.project.index import skipped_directory

        top = os.path.abspath(top)
        if top in self.walked:
            return
        for directory, subdirectories, names in os.walk(top):
            if self.discarded:
                return
            if directory in self.walked and directory != top:
                subdirectories[:] = []
                continue
            self.walked.add(directory)
            self.add(directory)
            for name in subdirectories:
                if os.path.isfile(os.path.join(directory, name, "pyvenv.cfg")):
                    self.add(os.path.join(directory, name, "pyvenv.cfg"))
            subdirectories[:] = [d for d in subdirectories if not skipped_directory(directory, d)]
            for name in names:
                if name.endswith(".py") or name in _CONTENT_NAMES:
                    self.add(os.path.join(directory, name))
            if ".git" in subdirectories or os.path.isdir(os.path.join(directory, ".git")):
                self.add(os.path.join(directory, ".git", "info", "exclude"))

    def above(self, path: str) -> None:
        """The files looked for in every folder above `path` (outside the walked trees)."""
        directory = os.path.abspath(path)
        while True:
            if directory not in self.walked:
                for name in _LOOKED_FOR:
                    self.add(os.path.join(directory, name))
            parent = os.path.dirname(directory)
            if parent == directory:
                return
            directory = parent

    def folder_with_scripts(self, directory: str) -> None:
        """A folder's entries and its scripts (read to decide a marker-less project's root)."""
        self.add(directory)
        try:
            names = os.listdir(directory)
        except OSError:
            return
        for name in names:
            if name.endswith(".py"):
                self.add(os.path.join(directory, name))

    def lookup(self, dotted: str, directory: str, bases: Iterable[str]) -> None:
        """The folders an import lookup searched outside the walked trees, down to its candidates."""
        parts = dotted.split(".")
        for base in bases:
            if base in self.walked:
                continue
            current = base
            self.present[os.path.abspath(base)] = os.path.isdir(base)
            self.add(os.path.join(base, parts[0] + ".py"))  # (the other name it tries there is added below)
            for part in parts:
                current = os.path.join(current, part)
                if current in self.walked:
                    break
                if not part:  # ("" names the base itself: only its __init__.py counts, not its times)
                    self.add(os.path.join(current, "__init__.py"))
                    continue
                self.add(current)


def save(directory: str, key: str, snapshot: Snapshot, answer: dict) -> None:
    """Write the manifest (unless the snapshot was discarded: a path changed, or too many); keep the KEEP newest in `directory`."""
    if snapshot.discarded:
        return
    document = dict(answer, format=FORMAT, paths=snapshot.paths, present=snapshot.present)
    try:
        os.makedirs(directory, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".run-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(document, handle, separators=(",", ":"))
            os.replace(temporary, os.path.join(directory, f"run-{key}.json"))
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        older = sorted(glob.glob(os.path.join(directory, "run-*.json")), key=_modified, reverse=True)[KEEP:]
        for path in older:
            os.unlink(path)
    except OSError:
        return


def _modified(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def encode_findings(findings: Iterable[Finding]) -> list:
    return [[_encode(finding, ""), list(finding.origin) if finding.origin else None] for finding in findings]


def _decode_finding(item: list) -> Finding:
    encoded, origin = item
    finding = _decode("", encoded)
    if origin:
        from dataclasses import replace

        finding = replace(finding, origin=tuple(origin))
    return finding


def now_ns() -> int:
    return time.time_ns()


def snapshot_of_run(started_ns: int, paths: Sequence[str], context: Sequence[str], files: Sequence[str],
                    config_for, cache_for, explicit_config: Optional[str]) -> Snapshot:
    """What the answer of a run (which started at `started_ns`, searched `paths`, linted
    `files` and analysed `context` beside them) depends on: see the module's docstring."""
    from mslint.project import index as project
    from mslint.project.module_files import _search_bases

    snapshot = Snapshot(started_ns)
    for path in files:  # first: a file edited just before the run discards the snapshot at once
        snapshot.add(path)
    roots = project.known_roots()
    for path in list(paths) + roots:
        if os.path.isdir(path):
            snapshot.walk(path)
    for path in list(paths) + roots:
        snapshot.add(path)
        snapshot.above(path)
    for root in roots:
        if not any(os.path.exists(os.path.join(root, marker)) for marker in PROJECT_MARKERS):
            snapshot.folder_with_scripts(os.path.dirname(root))
    if explicit_config:
        snapshot.add(explicit_config)
    searched = set()
    for path in list(files) + list(context):
        if snapshot.discarded:
            break
        snapshot.add(path)
        cache = cache_for(config_for(path)) if cache_for is not None else None
        entry = cache.entries.get(os.path.abspath(path)) if cache is not None else None
        if not entry:
            continue
        for dependency in entry.get("deps", {}):
            snapshot.add(dependency)
        for dotted, directory, found in entry.get("lookups", ()):
            if (dotted, directory) not in searched:
                searched.add((dotted, directory))
                snapshot.lookup(dotted, directory, _search_bases(directory))
            if found:
                snapshot.add(found)
    return snapshot
