"""The project model: where a project starts, its Python files, who imports whom, and the
modes its programs set.

Graph scope is a property of the program, not of a file: a helper in `utils.py` is compiled
when a Cell in `model.py` calls it, and whether a plain `construct` is compiled at all is
decided by `set_context(mode=...)` in `train.py`.  This index answers the two questions
that needs, cheaply (the standard library's `ast`, no astroid tree, never importing the code):

- which project modules may import a file, directly or through others (so linting
  `utils.py` alone also runs the analyses of the modules whose graph code reaches it);
- which modes the project's programs set (`graph-mode = auto` decides per program).
"""
from __future__ import annotations

import bisect
import functools
import hashlib
import os
import re
import stat
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from mslint.project import module_files, program_facts
from mslint.project import programs as programs_module
from mslint.project.program_facts import GRAPH, PYNATIVE, UNKNOWN_MODE  # noqa: F401 - re-exported
from mslint.directories import PROJECT_MARKERS

# Directories never worth descending into: VCS, virtual environments, builds, caches.
SKIPPED_DIRECTORIES = frozenset({
    ".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".mslint_cache",
    ".tox", ".nox", ".eggs", "build", "dist", "node_modules", "site-packages", ".venv", "venv", ".ipynb_checkpoints",
})
MAX_PROJECT_FILES = 20000  # a bound on the walk, so a project root above a huge tree cannot stall a run



class _StoreSetting:
    """Whether the program facts are kept in the cache directory (a run without a cache keeps none)."""
    enabled = False


STORE = _StoreSetting()


def project_root(path: str) -> str:
    """The nearest directory at or above `path` holding pyproject.toml, setup.cfg, setup.py or
    .git; without one, the directory that holds the file's top-level package (or the file)."""
    path = os.path.abspath(path)
    start = path if os.path.isdir(path) else os.path.dirname(path)
    return _root_of_directory(start)


_ROOTS: Dict[str, str] = {}


def _root_of_directory(start: str) -> str:
    if start in _ROOTS:
        return _ROOTS[start]
    current = start
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            break
        parent = os.path.dirname(current)
        if parent == current:  # no marker anywhere above: see _top_without_marker
            current = _top_without_marker(start)
            break
        current = parent
    _ROOTS[start] = current
    return current


def _top_without_marker(start: str) -> str:
    """Without a project marker: the top of the package chain, and above a folder of plain
    modules its parent when a script there imports it (a model zoo's `src/` without
    `__init__.py` is imported by `train.py` beside it as `src.network`), so that the programs
    that import a module are in its project whether or not a `.git` sits above them."""
    current = start
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            return current
        if not (os.path.isfile(os.path.join(current, "__init__.py")) or _imported_from_parent(current)):
            return current
        current = parent


_SCRIPTS_READ = 200  # a bound on the scripts read beside a folder (a crowded /tmp must not stall a run)


def _imported_from_parent(directory: str) -> bool:
    """Whether a module in the parent directory imports `directory` as a package."""
    name = os.path.basename(directory)
    parent = os.path.dirname(directory)
    if not name.isidentifier():
        return False
    pattern = re.compile(rb"^[ \t]*(?:from|import)[ \t]+" + re.escape(name.encode()) + rb"\b", re.MULTILINE)
    try:
        scripts = sorted(n for n in os.listdir(parent) if n.endswith(".py"))[:_SCRIPTS_READ]
    except OSError:
        return False
    for script in scripts:
        try:
            with open(os.path.join(parent, script), "rb") as handle:
                if pattern.search(handle.read(1 << 20)):
                    return True
        except OSError:
            continue
    return False


def skipped_directory(directory: str, name: str) -> bool:
    """Whether a walk of the project leaves out this subdirectory (VCS, environments, builds)."""
    return (name in SKIPPED_DIRECTORIES or name.endswith(".egg-info")
            or os.path.isfile(os.path.join(directory, name, "pyvenv.cfg")))


class Project:
    """One project root: its files, read once, and the questions asked of them (memoised)."""

    def __init__(self, root: str):
        self.root = root
        self._files: Optional[List[str]] = None
        self._texts: Dict[str, Optional[bytes]] = {}
        self._imports: Dict[str, FrozenSet[str]] = {}
        self._programs: Optional[programs_module.ProgramModel] = None
        self._facts_store: Optional[program_facts.FactStore] = None
        self._layout_digest: Optional[str] = None
        self._marker_directories: Set[str] = set()
        self._importers: Optional[Dict[str, Set[str]]] = None
        self._all_importers: Dict[str, List[str]] = {}  # target -> all_importers(target)
        self._converting: Optional[Dict[str, FrozenSet[str]]] = None
        self._attribute_writes: Dict[str, bool] = {}
        self._listings: Dict[str, List[str]] = {}
        self._words: Optional[Tuple[Dict[bytes, List[str]], Dict[bytes, List[str]]]] = None
        self._scan: Optional[Tuple[Set[bytes], List[bytes]]] = None  # see _scanned
        self._scan_parts: Dict[str, Tuple[FrozenSet[bytes], Tuple[bytes, ...]]] = {}  # each file's part of it
        self._files_as_set: Optional[FrozenSet[str]] = None
        self._text_reads: Dict[str, _TextRead] = {}  # path -> what use_text read of its last text
        self.imports_version = 0  # how many times a text given to use_text changed the imports
        self._converting_digest: Optional[str] = None

    # -- files -------------------------------------------------------------------------------
    def files(self) -> List[str]:
        """Every Python file of the project (absolute, sorted), up to MAX_PROJECT_FILES."""
        if self._files is None:
            found: List[str] = []
            for directory, subdirectories, names in os.walk(self.root):
                if any(marker in names or marker in subdirectories for marker in PROJECT_MARKERS):
                    self._marker_directories.add(directory)
                subdirectories[:] = sorted(d for d in subdirectories if not skipped_directory(directory, d))
                found.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
                if len(found) >= MAX_PROJECT_FILES:
                    break
            self._files = sorted(found[:MAX_PROJECT_FILES])
        return self._files

    def text(self, path: str) -> Optional[bytes]:
        """A file's bytes (None when it is not a readable regular file: a FIFO must not hang us)."""
        if path not in self._texts:
            self._texts[path] = read_regular(path)
        return self._texts[path]

    def _peek(self, path: str) -> Optional[bytes]:
        """A file's bytes, read and not kept when they are not kept already: the program facts
        read every file once (and keep what they found in the cache directory)."""
        return self._texts[path] if path in self._texts else read_regular(path)

    def use_text(self, path: str, data: bytes) -> None:
        """Read `path` as `data`, not from its file (an editor's unsaved buffer: mslint server).
        A model kept from an earlier run (mslint.run.kept_projects) may have read the file as
        another text: what it found from that text is brought up to date, and only that."""
        path = os.path.abspath(path)
        before = self._peek(path) or b""
        self._texts[path] = data
        store = self._store()
        facts_wanted = path in self._imports or self._programs is not None or self._converting is not None
        old = self._read_of(path, before, facts_wanted)
        store.bypass(path)  # its stored facts are the file's, not this text's
        if before == data:
            return
        new = self._read_of(path, data, facts_wanted)
        self._attribute_writes.clear()
        if path in self._file_set():
            self._update_words(path, old.words, new.words)
            if self._scan is not None:
                self._scan_parts[path] = new.scan_part
                self._scan = _joined_scan(self._scan_parts.values())
        if old.facts is None or new.facts is None:
            return
        if new.facts.imports != old.facts.imports:
            self._imports.pop(path, None)  # who imports whom changed: every answer built on it goes
            self._importers = None
            self._all_importers.clear()
            self._listings.clear()
            self.imports_version += 1
        if new.facts != old.facts or self._programs is not None and self._may_be_a_script(path) and (
                old.top_level_work(store) != new.top_level_work(store)):
            self._programs = None
        if new.facts.converting_names != old.facts.converting_names:
            self._converting = None
            self._converting_digest = None

    def _read_of(self, path: str, text: bytes, with_facts: bool) -> "_TextRead":
        """What use_text reads of one text of a file: kept for the file's last text (the text
        before an edit is the one the edit before it gave)."""
        known = self._text_reads.get(path)
        if known is None or known.text != text:
            known = _TextRead(path, text)
        if with_facts and known.facts is None:
            known.facts = program_facts.read_facts(text, path)
        self._text_reads[path] = known
        return known

    def _file_set(self) -> FrozenSet[str]:
        if self._files_as_set is None:
            self._files_as_set = frozenset(self.files())
        return self._files_as_set

    def _may_be_a_script(self, path: str) -> bool:
        """Whether the program model may ask if the file does work at its top level (only for
        a file no other file imports: mslint.project.programs)."""
        return not self.all_importers(path)

    def _update_words(self, path: str, before: Tuple[Set[bytes], Set[bytes]], after: Tuple[Set[bytes], Set[bytes]]
                      ) -> None:
        """Keep the word index (_word_files) and the searches answered from it true for a file's
        new text; `before` and `after`: the words of its two texts (_TextRead.words)."""
        changed = set()
        for position in (0, 1):
            old, new = before[position], after[position]
            changed |= old ^ new
            if self._words is None:
                continue
            index = self._words[position]
            try:
                for word in old - new:
                    index[word].remove(path)
            except (KeyError, ValueError):  # (the index read another text: made again when asked)
                self._words = None
                self._listings.clear()
                return
            for word in new - old:
                bisect.insort(index.setdefault(word, []), path)
        for key in [key for key in self._listings if _listing_name(key) in changed]:
            del self._listings[key]

    def writes_attribute(self, name: str) -> bool:
        """Whether some file of the project writes `X.name = ...` (also augmented) or
        `setattr(..., "name", ...)`: a module constant `name` may then change.  A running
        analysis records the question and its answer (the result cache asks it again)."""
        if not (name.isascii() and name.isidentifier()):
            return self._searched(name, rb"[\w)\]][ \t]*\.[ \t]*" + re.escape(name.encode())
                                  + rb"[ \t]*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=)"
                                  rb"|setattr\s*\([^)]*[\"']" + re.escape(name.encode()) + rb"[\"']")
        written, calls = self._scanned()
        return self._searched(name, rb"setattr\s*\([^)]*[\"']" + re.escape(name.encode()) + rb"[\"']",
                              texts=calls, found=name.encode() in written)

    def sets_flag(self, name: str) -> bool:
        """Whether some file of the project changes attribute `name` from outside its class
        between compilations: `add_flags(name=...)`, `add_flags_recursive(name=...)` or
        `setattr(..., "name", ...)` (incremental inference's `is_first_iteration`)."""
        return self._searched("flag:" + name, rb"add_flags(?:_recursive)?\s*\([^)]*\b" + re.escape(name.encode())
                              + rb"\s*=|setattr\s*\([^)]*[\"']" + re.escape(name.encode()) + rb"[\"']",
                              texts=self._scanned()[1])

    def mentioning(self, name: str, module: str) -> List[str]:
        """The project files that may use the class `name` of `module`: the module itself and the
        files that import it (directly or through others) whose text holds the identifier (not as
        an attribute: `x.name`; sorted).  A running analysis records the question and its answer
        (the result cache asks it again)."""
        return self._listed(f"mentions:{name}@{module}", name, module, attribute_call=False)

    def attribute_callers(self, name: str, module: str) -> List[str]:
        """The files among `module` and its importers whose text calls an attribute `name`
        (`net.loss(...)`, `self.loss(...)`)."""
        return self._listed(f"calls:{name}@{module}", name, module, attribute_call=True)

    def answer(self, key: str):
        """A recorded project-wide search asked again (the result cache checks its entries so)."""
        if key.startswith("flag:"):
            return self.sets_flag(key[5:])
        for prefix, search in (("mentions:", self.mentioning), ("calls:", self.attribute_callers)):
            if key.startswith(prefix):
                name, _, module = key[len(prefix):].partition("@")
                return search(name, module)
        return self.writes_attribute(key)

    def _listed(self, key: str, name: str, module: str, attribute_call: bool) -> List[str]:
        if key not in self._listings:
            candidates = self._word_files()[attribute_call].get(name.encode(), [])
            users = set(self.all_importers(module)) | {module} if candidates else set()
            self._listings[key] = [file for file in candidates if file in users]
        if module_files.HOOKS.log is not None:
            module_files.HOOKS.log.searches[(self.root, key)] = list(self._listings[key])
        return list(self._listings[key])

    def _word_files(self) -> Tuple[Dict[bytes, List[str]], Dict[bytes, List[str]]]:
        """For every identifier, the project files (in order) that spell it other than as an
        attribute (`name`, not `x.name`), and those that call it as an attribute (`x.name(`):
        one pass over the texts, the first time a search asks.  A search used to compile and
        run a pattern per name over its candidates; a run that checks the result cache's
        entries asks hundreds of them."""
        if self._words is None:
            bare: Dict[bytes, List[str]] = {}
            called: Dict[bytes, List[str]] = {}
            for file in self.files():
                read = self._buffer_read(file)
                if read is not None:  # (a buffer's words are known already)
                    bare_words, called_words = read.words
                else:
                    text = self._peek(file) or b""  # not kept: see _scanned
                    bare_words = set(_BARE_NAME.findall(text))
                    called_words = set(_ATTRIBUTE_CALL.findall(text)) if b"(" in text else ()
                for word in bare_words:
                    bare.setdefault(word, []).append(file)
                for word in called_words:
                    called.setdefault(word, []).append(file)
            self._words = (bare, called)
        return self._words

    def _buffer_read(self, path: str) -> Optional["_TextRead"]:
        """What use_text read of a buffer's current text (None for a file read from disk)."""
        read = self._text_reads.get(path)
        return read if read is not None and path in self._texts and read.text is self._texts[path] else None

    def _scanned(self) -> Tuple[Set[bytes], List[bytes]]:
        """One pass over the project's files for the two searches above: the attribute names
        written as `X.name = ...`, and the text of every add_flags / add_flags_recursive /
        setattr call up to its first ')' (where a match of their patterns must lie).  A file
        not read yet is read and not kept (a worker process has no other use for it)."""
        if self._scan is None:
            self._scan_parts = {file: read.scan_part if read is not None else _scan_part(self._peek(file))
                                for file, read in ((file, self._buffer_read(file)) for file in self.files())}
            self._scan = _joined_scan(self._scan_parts.values())
        return self._scan

    def _searched(self, key: str, pattern: bytes, texts: Optional[Iterable[bytes]] = None,
                  found: bool = False) -> bool:
        """Whether some project file matches `pattern` (memoised under `key`); a running
        analysis records the question and its answer (the result cache asks it again).
        `texts`: the parts of the files that may hold a match, when known; `found`: a match
        is already known."""
        if key not in self._attribute_writes:
            compiled = re.compile(pattern)
            if texts is None:
                texts = (self.text(file) or b"" for file in self.files())
            self._attribute_writes[key] = found or any(compiled.search(text) for text in texts)
        found = self._attribute_writes[key]
        if module_files.HOOKS.log is not None:
            module_files.HOOKS.log.searches[(self.root, key)] = found
        return found

    def contains(self, path: str) -> bool:
        path = os.path.abspath(path)
        return path == self.root or path.startswith(self.root.rstrip(os.sep) + os.sep)

    # -- imports -----------------------------------------------------------------------------
    def imports_of(self, path: str) -> FrozenSet[str]:
        """The project files a module imports (anywhere in it: functions too), resolved as the
        analysis resolves names; packages on the way count (importing a.b runs a/__init__)."""
        if path not in self._imports:
            self._imports[path] = frozenset(self._resolved_imports(path))
        return self._imports[path]

    def _resolved_imports(self, path: str) -> Set[str]:
        facts = self.facts(path)  # (first: the store reuses its resolution only once it knows the file is unchanged)
        return set(self._store().resolved_imports(path, self._layout(), lambda: self._resolve(path, facts)))

    def _layout(self) -> str:
        """What import resolution depends on besides a file's own text: the project's files and
        the directories holding project markers (where the search for a module stops)."""
        if self._layout_digest is None:
            digest = hashlib.sha256()
            for path in self.files():
                digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
            for directory in sorted(self._marker_directories):
                digest.update(b"marker:" + directory.encode("utf-8", "surrogateescape") + b"\0")
            self._layout_digest = digest.hexdigest()
        return self._layout_digest

    def facts(self, path: str) -> program_facts.FileFacts:
        """What the file says about programs: imports, a __main__ block, set_context modes."""
        return self._store().facts(path, self._peek)

    def unread_facts(self) -> List[str]:
        """The files whose program facts the first question would read from their text: none
        stored for their size and modification time, and no text given (use_text)."""
        return [path for path in self._store().unread(self.files()) if path not in self._texts]

    def read_facts_and_imports(self, path: str) -> Tuple[Optional[Tuple[int, int]], program_facts.FileFacts,
                                                         FrozenSet[str]]:
        """(signature, facts, imported project files) of a file, read as `facts` and
        `imports_of` read them, for `install_facts` in another process (mslint.project.fact_workers)."""
        signature = program_facts._signature(path)  # (first: a later change gives a newer one)
        facts = program_facts.read_facts(read_regular(path), path)
        return signature, facts, frozenset(self._resolve(path, facts))

    def install_facts(self, found: Iterable[Tuple[str, Optional[Tuple[int, int]], program_facts.FileFacts,
                                                  FrozenSet[str]]]) -> None:
        """Keep what read_facts_and_imports found (path first) as if this process had read it."""
        store, layout = self._store(), self._layout()
        for path, signature, facts, imported in found:
            store.install(path, signature, facts, layout, imported)

    def _store(self) -> program_facts.FactStore:
        if self._facts_store is None:
            self._facts_store = program_facts.FactStore(self.root, STORE.enabled)
        return self._facts_store

    def _resolve(self, path: str, facts: program_facts.FileFacts) -> Set[str]:
        directory = os.path.dirname(path)
        found: Set[str] = set()
        for level, module, names in facts.imports:
            if level:
                found.update(_relative_files(directory, level, module or None, list(names)))
            elif not names:
                found.update(self._module_files(module, directory))
            else:
                found.update(self._module_files(module, directory))
                for name in names:
                    found.update(self._module_files(f"{module}.{name}", directory))
        found.discard(path)
        return {f for f in found if self.contains(f)}

    @staticmethod
    def _module_files(dotted: str, directory: str) -> Set[str]:
        parts = dotted.split(".")
        found = set()
        for cut in range(1, len(parts) + 1):
            located = module_files.find_project_file(".".join(parts[:cut]), directory)
            if located is not None and os.path.isfile(located):  # (not a namespace package's directory)
                found.add(os.path.abspath(located))
        return found

    def importers(self, targets: Iterable[str], candidates: Iterable[str], direct: bool = False) -> List[str]:
        """The candidate files that import a target, directly or through other project files
        (sorted; with `direct`, only those that import one themselves).  A file's text must name a target's module before it is parsed: an import
        of `pkg/helpers.py` says `helpers`, and one of a package's `__init__` says the
        package's name or is relative."""
        wanted = {os.path.abspath(t) for t in targets}
        remaining = sorted(set(os.path.abspath(c) for c in candidates) - wanted)
        found: Set[str] = set()
        frontier = set(wanted)
        while frontier and remaining:
            pattern = _names_pattern(frontier)
            reached = set()
            for path in remaining:
                text = self.text(path)
                if text is None or not pattern.search(text):
                    continue
                if self.imports_of(path) & frontier:
                    reached.add(path)
            found |= reached
            remaining = [p for p in remaining if p not in reached]
            frontier = reached if not direct else set()
        return sorted(found)

    def all_importers(self, target: str) -> List[str]:
        """Every project file that imports `target`, directly or through others (sorted), from
        one import graph of the whole project, built once: for a process that asks about
        many files (the pylint plugin)."""
        if self._importers is None:
            reverse: Dict[str, Set[str]] = {}
            for path in self.files():
                for imported in self.imports_of(path):
                    reverse.setdefault(imported, set()).add(path)
            self._importers = reverse
        target = os.path.abspath(target)
        known = self._all_importers.get(target)
        if known is None:  # (every class of a module asks: a module most of the project imports is walked once)
            found: Set[str] = set()
            frontier = [target]
            while frontier:
                current = frontier.pop()
                for importer in self._importers.get(current, ()):
                    if importer not in found and importer != target:
                        found.add(importer)
                        frontier.append(importer)
            known = self._all_importers[target] = sorted(found)
        return list(known)

    def converting_modules(self) -> Dict[str, FrozenSet[str]]:
        """The project files that define a `construct` and have a class that converts a tensor to
        a host value (`.asnumpy()`, `.numpy()`, `.tolist()`) in its own body, each with the names
        of the classes such classes build and store on self: where a parent cell may hand a NumPy
        array to a sub-cell (mslint.analysis.parent_cells).  Read with `ast`, so that only the few modules
        that may hold such a parent are ever built with astroid."""
        if self._converting is None:
            self._converting = {}
            for path in self.files():
                names = self.facts(path).converting_names
                if names:
                    self._converting[path] = names
        return self._converting

    def converting_digest(self) -> str:
        """A digest of converting_modules() (computed once: every analysis identity holds it)."""
        if self._converting_digest is None:
            digest = hashlib.sha256()
            for converting, names in sorted(self.converting_modules().items()):
                digest.update(converting.encode() + b"\0" + " ".join(sorted(names)).encode() + b"\0")
            self._converting_digest = digest.hexdigest()[:16]
        return self._converting_digest

    # -- programs ----------------------------------------------------------------------------
    def programs(self) -> programs_module.ProgramModel:
        """The project's programs, their modes, and which modules each reaches (built once)."""
        if self._programs is None:
            self._programs = programs_module.build_model(self.root, self.files(), self._store(), self._peek,
                                                         lambda path, facts: self.imports_of(path))
        return self._programs


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# an identifier not written as an attribute (mentioning), and one called as an attribute (attribute_callers)
_BARE_NAME = re.compile(rb"(?<![\w.])([A-Za-z_]\w*)")
_ATTRIBUTE_CALL = re.compile(rb"\.[ \t]*([A-Za-z_]\w*)[ \t]*\(")
# an add_flags / add_flags_recursive / setattr call up to its first ')': where sets_flag looks
_FLAG_CALL = re.compile(rb"(?:add_flags(?:_recursive)?|setattr)\s*\([^)]*")
# `X.name = ...` (also augmented): the name written (writes_attribute)
_ATTRIBUTE_WRITE = re.compile(rb"[\w)\]][ \t]*\.[ \t]*(\w+)[ \t]*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=)")


converts_tensors = program_facts.converts_tensors


class _TextRead:
    """What Project.use_text reads of one text of a file: its words as the word index counts
    them, its part of the project's scan (_scan_part), and (when asked) its program facts and
    whether it does work at its top level.

    An editor's buffer is read again after every keystroke: its words and written attribute
    names are found per paragraph (the text between blank lines), each paragraph's answer kept
    for its next text, which mostly repeats it (3,000 lines: 6 ms a keystroke, against under 1).
    The patterns match within a line, so the paragraphs' answers together are the text's."""

    def __init__(self, path: str, text: bytes):
        self.path = path
        self.text = text
        bare: Set[bytes] = set()
        called: Set[bytes] = set()
        written: Set[bytes] = set()
        for paragraph in text.split(b"\n\n"):
            found = _paragraph_words(paragraph)
            bare |= found[0]
            called |= found[1]
            written |= found[2]
        self.words = (bare, called)
        calls = tuple(_FLAG_CALL.findall(text)) if b"add_flags" in text or b"setattr" in text else ()
        self.scan_part = (frozenset(written), calls) if text else (frozenset(), ())
        self.facts: Optional[program_facts.FileFacts] = None
        self._top_level_work: Optional[bool] = None

    def top_level_work(self, store: program_facts.FactStore) -> bool:
        if self._top_level_work is None:
            self._top_level_work = bool(store.top_level_work(self.path, lambda _path: self.text))
        return self._top_level_work


@functools.lru_cache(maxsize=50_000)
def _paragraph_words(paragraph: bytes) -> Tuple[FrozenSet[bytes], FrozenSet[bytes], FrozenSet[bytes]]:
    """A paragraph's bare names, called attributes and written attributes (see _TextRead)."""
    return (frozenset(_BARE_NAME.findall(paragraph)),
            frozenset(_ATTRIBUTE_CALL.findall(paragraph)) if b"(" in paragraph else frozenset(),
            frozenset(_ATTRIBUTE_WRITE.findall(paragraph)))


def _scan_part(text: Optional[bytes]) -> Tuple[FrozenSet[bytes], Tuple[bytes, ...]]:
    """One file's part of Project._scanned: the attribute names it writes, its flag-setting calls."""
    if not text:
        return frozenset(), ()
    calls = tuple(_FLAG_CALL.findall(text)) if b"add_flags" in text or b"setattr" in text else ()
    return frozenset(_ATTRIBUTE_WRITE.findall(text)), calls


def _joined_scan(parts: Iterable[Tuple[FrozenSet[bytes], Tuple[bytes, ...]]]) -> Tuple[Set[bytes], List[bytes]]:
    written: Set[bytes] = set()
    calls: List[bytes] = []
    for names, found in parts:
        written.update(names)
        calls.extend(found)
    return written, calls


def _listing_name(key: str) -> bytes:
    """The name a search of Project._listed asks about ('mentions:Net@/p/model.py' -> b'Net')."""
    return key.partition(":")[2].partition("@")[0].encode()


def _names_pattern(paths: Iterable[str]) -> "re.Pattern":
    names = set()
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem == "__init__":
            names.add(os.path.basename(os.path.dirname(path)))
            names.add("from .")  # `from . import x`, `from .. import y` reach a package's __init__
        else:
            names.add(stem)
    return re.compile("|".join(re.escape(n) for n in sorted(names)).encode())


def _relative_files(directory: str, level: int, module: Optional[str], names: List[str]) -> Set[str]:
    """The files `from <dots><module> import <names>` may load, found by path from the importing file."""
    base = directory
    for _ in range(level - 1):
        base = os.path.dirname(base)
    parts = module.split(".") if module else []
    found = set()
    current = base
    for part in parts:
        current = os.path.join(current, part)
        found.update(_module_path(current))
    for name in names:
        found.update(_module_path(os.path.join(current, name)))
    found.update(_module_path(current) if not parts else ())
    return {os.path.abspath(f) for f in found}


def _module_path(stem: str) -> List[str]:
    if os.path.isfile(stem + ".py"):
        return [stem + ".py"]
    init = os.path.join(stem, "__init__.py")
    return [init] if os.path.isfile(init) else []


def read_regular(path: str) -> Optional[bytes]:
    """A file's bytes; None when it is not a readable regular file (a FIFO must not hang us)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(descriptor, "rb") as handle:
            return handle.read() if stat.S_ISREG(os.fstat(descriptor).st_mode) else None
    except OSError:
        return None


def identifiers(source: bytes) -> FrozenSet[str]:
    """The identifier-shaped words of source text."""
    return frozenset(name.decode() for name in _IDENTIFIER.findall(source))


_PROJECTS: Dict[str, Project] = {}


def project_for(path: str) -> Project:
    """The Project a file belongs to (one object per root for the life of the process run)."""
    root = project_root(path)
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def program_mode(path: str) -> Optional[str]:
    """PYNATIVE when every program that reaches this module runs only PyNative (a plain
    construct in it is then never compiled unless jit code reaches it), else None."""
    return project_for(path).programs().mode_of(path)


def program_note(path: str) -> Optional[str]:
    """Which program compiles this module, when programs with different modes reach it."""
    return project_for(path).programs().mixed_note(path)


def analysis_identity(path: str, module_name: str, text: Optional[bytes] = None) -> str:
    """What a cached analysis of a file must match besides its content: its module name, the
    program's mode (it decides which constructs are roots), and, for a module that may define a
    construct, which modules convert tensors and the names they mention (one of them may now
    name one of its cells and pass it host values: mslint.analysis.parent_cells; what the
    analysis read of the modules that did name them is recorded as it reads them).  `text`: the
    file's bytes, when the caller has them (else they are read, and kept by the project)."""
    model = project_for(path)
    identity = module_name + model.programs().identity(path)
    if text is None:
        text = model.text(os.path.abspath(path)) or b""
    if b"construct" in text:
        identity += "|converting:" + model.converting_digest()
    return identity


def project_at(root: str) -> Project:
    """The Project whose root is `root` (the result cache asks it its recorded questions)."""
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def known_roots() -> List[str]:
    """The roots of the projects this run has looked at (sorted)."""
    return sorted(_PROJECTS)


def forget_projects() -> None:
    """A new run: the file system may have changed."""
    _PROJECTS.clear()
    _ROOTS.clear()


def current_projects() -> Tuple[Dict[str, Project], Dict[str, str]]:
    """(the project models by root, the roots found for directories) of this run, to restore
    in a later run that knows the file system is unchanged (mslint.run.kept_projects)."""
    return dict(_PROJECTS), dict(_ROOTS)


def restore_projects(projects: Dict[str, Project], roots: Dict[str, str]) -> None:
    _PROJECTS.clear()
    _PROJECTS.update(projects)
    _ROOTS.clear()
    _ROOTS.update(roots)


def projects_of(paths: Iterable[str]) -> Dict[str, Project]:
    """The projects of some files, by root."""
    found: Dict[str, Project] = {}
    for path in paths:
        project = project_for(path)
        found[project.root] = project
    return found
