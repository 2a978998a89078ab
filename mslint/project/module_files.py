"""Where project modules are on disk: module names of files, the search for an imported
module's file (packages, namespace packages, src layouts), what kind a top-level name is,
and the hooks through which a run records what its analysis read.  No astroid here: the
command's warm path (every result cached) needs these and nothing that parses."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from mslint import data
from mslint.directories import PROJECT_MARKERS

MINDSPORE = "mindspore"  # never third-party: mindspore.numpy, mindspore.scipy, ops, mint
BUILTIN = "builtin"  # print, len, int: handled by the graph compiler itself
STDLIB = "stdlib"  # interpreted by JIT Fallback (MindSpore calls these third-party)
THIRD_PARTY = "third-party"  # whitelisted site-packages modules (numpy, scipy, ...)
PROJECT = "project"  # the user's own modules: compiled
UNKNOWN = "unknown"

_STDLIB_NAMES = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)


def module_name_for_file(path: str) -> str:
    """Dotted module name of a file: its stem, prefixed by every enclosing package."""
    directory, filename = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(filename)[0]
    parts = list(_package_parts(directory))
    if stem != "__init__":
        parts.append(stem)
    return ".".join(parts) or stem


@lru_cache(maxsize=4096)
def _package_parts(directory: str) -> Tuple[str, ...]:
    """The packages enclosing a directory's modules, outermost first (none: not a package)."""
    parts: List[str] = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        if not package:
            break
        parts.insert(0, package)
    return tuple(parts)


@lru_cache(maxsize=4096)
def _search_bases(directory: str) -> Tuple[str, ...]:
    """Directories an import in `directory` may resolve against: the directory itself
    (a script's sys.path[0]), its parents up to the project root, and the root's `src/`
    (a src layout: `pkg` lives in root/src/pkg and is imported as `pkg`)."""
    bases = []
    current = directory
    for _ in range(8):
        bases.append(current)
        if any(os.path.exists(os.path.join(current, m)) for m in PROJECT_MARKERS):
            source_layout = os.path.join(current, "src")
            if os.path.isdir(source_layout) and source_layout not in bases:
                bases.append(source_layout)
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return tuple(bases)


class ReadLog:
    """What one analysis read outside its own file: the project files it loaded, the
    results of its project-module lookups, and, of each loaded module, the top-level names
    it looked up (or that it read the whole module: its statements in order, or every
    name), and the names it searched the whole project for as written `X.name = ...`
    (mslint.project.index.Project.writes_attribute).  A result cache keys on all of them, so
    editing a base class's module, adding a module an import may now find, or writing
    `config.BN_MOMENTUM = ...` in any file invalidates the result; editing a function of a
    module that the analysis never looked up does not (mslint.run.cache)."""

    __slots__ = ("files", "lookups", "names", "whole", "searches", "_taken")

    def __init__(self):
        self.files: set = set()
        self.lookups: Dict[Tuple[str, str], Optional[str]] = {}
        self.names: Dict[str, set] = {}  # module file -> top-level names looked up in it
        self.whole: set = set()  # module files read as a whole
        # (project root, key) -> the answer of a project-wide search (mslint.project.index.Project.answer)
        self.searches: Dict[Tuple[str, str], object] = {}
        self._taken: set = set()  # ids of the logs `take` merged (each once)

    def take(self, other: Optional["ReadLog"]) -> None:
        """Merge another analysis's log, once: this analysis used a result that one computed
        (mslint.analysis.lattice.SharedResults), so it depends on what that one had read."""
        if other is None or other is self or id(other) in self._taken:
            return
        self._taken.add(id(other))  # (the shared result keeps `other` alive: its id stays its own)
        self.merge(other)

    def merge(self, other: "ReadLog") -> None:
        self.files |= other.files
        self.lookups.update(other.lookups)
        self.searches.update(other.searches)
        self.whole |= other.whole
        for path, names in other.names.items():
            mine = self.names.get(path)
            if mine is None:
                self.names[path] = set(names)
            else:
                mine |= names


def _read_name(path: str, name) -> None:
    log = HOOKS.log
    if log is not None:
        names = log.names.get(path)
        if names is None:
            log.names[path] = {name}
        else:
            names.add(name)


def _read_whole(path: str) -> None:
    log = HOOKS.log
    if log is not None:
        log.whole.add(path)


# A name read of this form stands for the top-level statements whose text spells the name
# (mslint.analysis.mentions finds the Name and Attribute nodes spelled so): what an analysis
# that searched a module for a name read of it (mslint.run.cache.ModuleParts).
SPELLED = "\0spells "


def record_spelled(module, name: str) -> None:
    """The running analysis asked where a project module spells `name`."""
    body = module.__dict__.get("body")
    if HOOKS.log is not None and isinstance(body, RecordingBody):
        _read_name(body._path, SPELLED + name)


def record_whole_read(path: str) -> None:
    """The running analysis read a project file's text whole without building it (what its
    build and a walk of its statements would have recorded)."""
    log = HOOKS.log
    if log is not None:
        path = os.path.abspath(path)
        log.files.add(path)
        log.whole.add(path)


class RecordingLocals(dict):
    """A project module's top-level names (astroid's `Module.locals`), telling the running
    analysis's ReadLog which names it looks up; listing them, or reading their bindings
    wholesale, counts as reading the whole module."""

    __slots__ = ("_path",)

    def __init__(self, path: str, contents: dict):
        super().__init__(contents)
        self._path = path

    def __getitem__(self, name):
        _read_name(self._path, name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        _read_name(self._path, name)
        return dict.get(self, name, default)

    def __contains__(self, name):
        _read_name(self._path, name)
        return dict.__contains__(self, name)

    def setdefault(self, name, default=None):
        _read_name(self._path, name)
        return dict.setdefault(self, name, default)

    def __setitem__(self, name, value):
        _read_name(self._path, name)
        dict.__setitem__(self, name, value)

    def __delitem__(self, name):
        _read_name(self._path, name)
        dict.__delitem__(self, name)

    def pop(self, name, *default):
        _read_name(self._path, name)
        return dict.pop(self, name, *default)

    def __iter__(self):
        _read_whole(self._path)
        return dict.__iter__(self)

    def __len__(self):
        _read_whole(self._path)
        return dict.__len__(self)

    def __eq__(self, other):
        _read_whole(self._path)
        return dict.__eq__(self, other)

    __hash__ = None

    def keys(self):
        _read_whole(self._path)
        return dict.keys(self)

    def values(self):
        _read_whole(self._path)
        return dict.values(self)

    def items(self):
        _read_whole(self._path)
        return dict.items(self)

    def copy(self):
        _read_whole(self._path)
        return dict(dict.items(self))

    def update(self, *args, **kwargs):
        _read_whole(self._path)
        dict.update(self, *args, **kwargs)

    def popitem(self):
        _read_whole(self._path)
        return dict.popitem(self)

    def clear(self):
        _read_whole(self._path)
        dict.clear(self)

    def __reduce__(self):
        _read_whole(self._path)
        return (dict, (dict(dict.items(self)),))


class RecordingBody(list):
    """A project module's top-level statements (astroid's `Module.body`): reading them in any
    way counts as reading the whole module."""

    __slots__ = ("_path",)

    def __init__(self, path: str, contents: list):
        super().__init__(contents)
        self._path = path

    def __iter__(self):
        _read_whole(self._path)
        return list.__iter__(self)

    def __reversed__(self):
        _read_whole(self._path)
        return list.__reversed__(self)

    def __getitem__(self, index):
        _read_whole(self._path)
        return list.__getitem__(self, index)

    def __len__(self):
        _read_whole(self._path)
        return list.__len__(self)

    def __contains__(self, item):
        _read_whole(self._path)
        return list.__contains__(self, item)

    def __eq__(self, other):
        _read_whole(self._path)
        return list.__eq__(self, other)

    __hash__ = None

    def index(self, *args):
        _read_whole(self._path)
        return list.index(self, *args)

    def count(self, item):
        _read_whole(self._path)
        return list.count(self, item)

    def copy(self):
        _read_whole(self._path)
        return list(list.__iter__(self))

    def __reduce__(self):
        _read_whole(self._path)
        return (list, (list(list.__iter__(self)),))


@contextmanager
def unrecorded():
    """Read a module without recording it: for a walk whose answer, for each name asked about,
    depends only on statements that may bind that name (mslint.run.cache.ModuleParts), when the
    caller has looked the name up in the module (so it is recorded)."""
    saved, HOOKS.log = HOOKS.log, None
    try:
        yield
    finally:
        HOOKS.log = saved


def record_reads(module, path: str) -> None:
    """Make a built project module tell each analysis which of its top-level names it reads
    (see RecordingLocals); the module's own analysis records them too, and the cache leaves
    its own file out."""
    path = os.path.abspath(path)
    if not isinstance(module.locals, RecordingLocals):
        module.locals = module.globals = RecordingLocals(path, module.locals)
    if not isinstance(module.body, RecordingBody):
        module.body = RecordingBody(path, module.body)


class _Hooks:
    log: Optional[ReadLog] = None  # set while a runner records an analysis
    loader = None  # path -> Module; None: astroid's manager (the pylint plugin)
    built = None  # path -> whether the loader holds the file's module already (no new build to ask for)


HOOKS = _Hooks()


@contextmanager
def outside_the_project():
    """Read an installed library's modules: with astroid's own manager, and not recorded
    among what the project's analysis depends on (a result cache keys on project files)."""
    saved = HOOKS.log, HOOKS.loader
    HOOKS.log, HOOKS.loader = None, None
    try:
        yield
    finally:
        HOOKS.log, HOOKS.loader = saved


def find_project_file(dotted: str, from_directory: str) -> Optional[str]:
    """The source file of project module `dotted`, searched from a linted file's directory."""
    found = _find_project_file(dotted, from_directory)
    if HOOKS.log is not None:
        HOOKS.log.lookups[(dotted, from_directory)] = found
    return found


@lru_cache(maxsize=16384)
def _find_project_file(dotted: str, from_directory: str) -> Optional[str]:
    """The module's file, or for a namespace package (a directory without __init__.py, such as
    a model zoo's `src/`) the directory itself; None when it is not project code.

    As Python's path finder does, a module or regular package in any search base wins over a
    namespace directory in an earlier one, and in one base a regular package wins over a
    module of the same name (`utils/__init__.py` over `utils.py`)."""
    top = dotted.split(".")[0]
    if kind_of_top_level(top) in (MINDSPORE, STDLIB, THIRD_PARTY, BUILTIN):
        return None
    parts = dotted.split(".")
    namespace = None
    for base in _search_bases(from_directory):
        candidate = os.path.join(base, *parts)
        init = os.path.join(candidate, "__init__.py")
        if os.path.isfile(init):
            return init
        if os.path.isfile(candidate + ".py"):
            return candidate + ".py"
        if namespace is None and os.path.isdir(candidate):
            namespace = candidate
    return namespace


def clear_file_caches() -> None:
    """Forget what the file system looked like (a new run in the same process may see new files)."""
    _find_project_file.cache_clear()
    _search_bases.cache_clear()
    _package_parts.cache_clear()
    package_name.cache_clear()


def kind_of_top_level(top: str) -> str:
    if top == "mindspore":
        return MINDSPORE
    if top == "builtins":
        return BUILTIN
    if top in data.third_party_whitelist():
        return THIRD_PARTY
    if top in _STDLIB_NAMES:
        return STDLIB
    return UNKNOWN


def _ancestor(directory: str, levels: int) -> str:
    for _ in range(levels):
        directory = os.path.dirname(directory)
    return directory


@lru_cache(maxsize=4096)
def package_name(directory: str) -> Optional[str]:
    """The dotted name a directory is imported by: its name, prefixed by every enclosing
    regular package (a namespace package's name is its own; the import search walks up)."""
    name = os.path.basename(directory)
    if not name.isidentifier():
        return None
    parts = [name]
    parent = os.path.dirname(directory)
    while os.path.isfile(os.path.join(directory, "__init__.py")) and os.path.isfile(os.path.join(parent, "__init__.py")):
        directory, parent = parent, os.path.dirname(parent)
        if not os.path.basename(directory).isidentifier():
            break
        parts.insert(0, os.path.basename(directory))
    return ".".join(parts)
