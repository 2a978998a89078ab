"""Drive the rules over files: discovery, reading, parsing, suppression, worker processes, cache.

A file that cannot be read or parsed becomes an MS0xx finding for that file; every
other file is still checked.  The linted code is parsed, never imported or run.

Speed (docs/performance.md has the measurements):
- a text pre-filter skips, before astroid builds anything, the files that cannot hold
  graph code or training setup (see `may_hold_graph_code`); they are still parsed with
  `ast`, so a syntax error is still reported;
- trees are built lean: no astroid transforms (brain plugins) and no inference of
  `self.x` assignments, which the qualified-name analysis never uses; star imports of
  project modules still fill the importing module's names;
- each project module is built once per process and shared by every file's analysis
  (bounded, so a large tree does not hold every module in memory);
- `jobs` worker processes take contiguous runs of files (modules of one package share
  their dependencies); the output is sorted, so it is the same for every job count;
- a result cache (mslint.run.cache) answers for files whose content, configuration and
  every project module their analysis read are unchanged.
"""
from __future__ import annotations

import ast
import contextlib
import copy
import gc
import logging
import math
import os
import re
import stat
import sys
from collections import OrderedDict
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from mslint.run import budget
from mslint.run import cache as cache_module
from mslint import config as config_module
from mslint import parsed
from mslint import reparse
from mslint.project import index as project
from mslint.project import module_files
from mslint.project import fact_workers
from mslint.run import routing
from mslint.run import scheduling
from mslint.run.cache import ResultCache
from mslint.project import module_memo
from mslint.analysis import kept_runs
from mslint.run import reused_statements
from mslint.run.kept_projects import KeptProjects
from mslint.findings import Finding
from mslint.fingerprint import astroid_version
from mslint.project.index import SKIPPED_DIRECTORIES  # noqa: F401 - part of this module's interface
from mslint.project.module_files import ReadLog, module_name_for_file
from mslint.rules import ANALYSIS_INCOMPLETE, FILE_UNREADABLE, SYNTAX_ERROR, USELESS_SUPPRESSION, registry
from mslint.suppression import Suppressions, useless_suppressions

log = logging.getLogger("mslint.run.runner")

SERIAL_BELOW = 8  # fewer files than this: worker processes cost more than they save
# Less source than this to analyse (after the cache): one process.  Starting workers and
# building each package's modules once per worker costs about a second, which ~1.5 MB of
# source (about 150 typical files) does not win back (docs/performance.md, "Worker processes").
PARALLEL_FROM_BYTES = 1_500_000
MAX_MODULES = 192  # project modules kept built per process (a bound on memory for large trees)
PREFILTER_VARIABLE = "MSLINT_PREFILTER"  # "0": analyse every file (to check the pre-filter)


# -- reading -------------------------------------------------------------------------------
def decode_source(data: bytes) -> str:
    """The file's text, decoded as Python does (coding cookie, BOM, else UTF-8)."""
    return parsed.decode(data)


def read_bytes(path: str) -> bytes:
    """A regular file's bytes; opened non-blocking, so a FIFO or device named *.py cannot hang
    the run (it is refused as not a regular file)."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError("not a regular file (a FIFO, device or socket?)")
        return handle.read()


def read_source(path: str) -> str:
    return decode_source(read_bytes(path))


def _read(path: str) -> Tuple[Optional[bytes], Optional[str], Optional[Finding]]:
    """(bytes, text, None) or (bytes or None, None, the MS0xx finding saying why it cannot be read)."""
    try:
        data = read_bytes(path)
    except OSError as error:
        return None, None, Finding(FILE_UNREADABLE, path, 1, 0, None, None,
                                   f"cannot read the file: {error.strerror or error}")
    try:
        return data, decode_source(data), None
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        return data, None, Finding(FILE_UNREADABLE, path, 1, 0, None, None, f"cannot decode the file: {error}")


# -- the pre-filter --------------------------------------------------------------------------
# A module reports graph-scope findings only for roots it holds itself: a Cell subclass
# (a class with a base: the base may be a project class that never mentions mindspore),
# a function decorated with jit (its qualified name goes through an import of mindspore,
# or is one of extra-jit-decorators), or a jit(...) / ms_function(...) call.  Program-level
# rules look for calls whose qualified names start with "mindspore".  So a file whose text
# has no "mindspore", no "jit", no "ms_function", no extra-jit-decorator name and no class
# statement with a base other than `object` cannot yield a finding; it is only parsed (for
# syntax errors).  Other modules still load it lazily when they resolve names into it.
_PREFILTER_TEXT = r"mindspore|ms_function|jit|^[ \t]*class[ \t]+\w+[ \t]*\([ \t]*(?!(?:object[ \t]*)?\))"
_PREFILTERS: Dict[Tuple[str, ...], "re.Pattern"] = {}


def may_hold_graph_code(source: str, config: config_module.Config) -> bool:
    """False only when the text shows the file cannot yield a finding (see above)."""
    if os.environ.get(PREFILTER_VARIABLE) == "0":
        return True
    key = tuple(config.extra_jit_decorators)
    if key not in _PREFILTERS:
        extra = "".join(f"|{re.escape(name.rsplit('.', 1)[-1])}" for name in key)
        _PREFILTERS[key] = re.compile(_PREFILTER_TEXT + extra, re.MULTILINE)
    return _PREFILTERS[key].search(source) is not None


# -- building trees --------------------------------------------------------------------------
def _bootstrap_astroid() -> None:
    """astroid's builtins module, built once per process before the first lean tree, as astroid
    builds it except for one thing: the `__class__` of each of the ~3000 builtin methods (a
    handful of classes: method_descriptor, wrapper_descriptor, builtin_function_or_method...)
    is one ClassDef per class, shared, instead of a new one per method.  That was about half
    of the bootstrap, which is most of the cost of a run that analyses a file or two; the
    analysis never asks a builtin method for its class.  (pylint, and the plugin, build
    theirs as usual: this runs only where the command builds its lean trees.)"""
    import astroid
    from astroid import raw_building

    inspect_builder = getattr(raw_building, "InspectBuilder", None)
    if getattr(inspect_builder, "bootstrapped", False):
        return
    original = getattr(raw_building, "_add_dunder_class", None)
    if original is None:  # an astroid without the hook: its own bootstrap, at its own cost
        astroid.MANAGER.bootstrap()
        return
    built: Dict[type, object] = {}

    def shared_dunder_class(func, parent, member) -> None:
        kind = member.__class__
        known = built.get(kind)
        if known is not None:
            func.instance_attrs["__class__"] = [known]
            return
        original(func, parent, member)
        made = func.instance_attrs.get("__class__")
        if made:
            built[kind] = made[0]

    raw_building._add_dunder_class = shared_dunder_class
    try:
        astroid.MANAGER.bootstrap()
    finally:
        raw_building._add_dunder_class = original


def _lean_builder_class():
    """An AstroidBuilder without transforms and without inferring `self.x` assignments (the
    analysis resolves qualified names and never infers); star imports of project modules
    are resolved through the project's files, so they fill names whatever the sys.path."""
    import astroid
    from astroid.builder import AstroidBuilder

    from mslint.project import resolve

    class LeanBuilder(AstroidBuilder):
        def __init__(self, store: "_ModuleStore", path: Optional[str]):
            super().__init__(astroid.MANAGER, apply_transforms=False)
            self._store = store
            self._path = os.path.abspath(path) if path else None

        def _post_build(self, module, builder, encoding):
            if self._path is not None:  # a star-import cycle finds the module being built, as in astroid
                self._store.building[self._path] = module
            return super()._post_build(module, builder, encoding)

        def add_from_names_to_locals(self, node, global_names):
            if not any(name == "*" for name, _ in node.names):
                return super().add_from_names_to_locals(node, global_names)
            absolute = resolve.absolute_import_name(node)
            directory = os.path.dirname(os.path.abspath(node.root().file or "."))
            target = resolve.find_project_file(absolute, directory) if absolute else None
            imported = resolve.load_module(target) if target and os.path.isfile(target) else None
            if imported is None:
                return super().add_from_names_to_locals(node, global_names)
            cache = astroid.MANAGER.astroid_cache
            missing = object()
            previous = cache.get(absolute, missing)
            cache[absolute] = imported  # what astroid's own star-import handling will find
            try:
                return super().add_from_names_to_locals(node, global_names)
            finally:
                if previous is missing:
                    cache.pop(absolute, None)
                else:
                    cache[absolute] = previous

        def delayed_assattr(self, node):
            return None

        def _data_build(self, data, modname, path, **options):
            # the tree the syntax check or the project's facts parsed from this text, if any,
            # with the buffer's unchanged definitions marked for reuse (mslint.run.reused_statements);
            # `options` passes on what newer astroids add (4.4: is_stub)
            from astroid import builder, rebuilder

            original = builder._parse_string
            last = self._store.last_trees.get(self._path) if self._path is not None else None
            if last is not None:
                reused_statements.install(rebuilder.TreeRebuilder)
            buffer = self._path is not None and self._path in self._store.buffers
            builder._parse_string = _shared_tree_parser(original, _buffer_take(self._path, last) if buffer else parsed.take)
            try:
                return super()._data_build(data, modname, path, **options)
            finally:
                builder._parse_string = original

    return LeanBuilder


_LEAN_BUILDER_FITS = [True]
# a text that goes through every override of the lean builder (parse, post-build, a from-import,
# an attribute assigned on self), to tell a builder that does not fit astroid from a file's own bug
_PROBE = "from os import path\n\n\nclass Probe:\n    def f(self):\n        self.x = path\n"


def _plain_builder(store: "_ModuleStore", path: Optional[str]):
    """astroid's own builder, without transforms (the fallback of _ModuleStore._string_build)."""
    import astroid
    from astroid.builder import AstroidBuilder

    return AstroidBuilder(astroid.MANAGER, apply_transforms=False)


def _buffer_take(path: str, last: Optional[reused_statements.LastTree]) -> Callable[[str], object]:
    """parsed.take for a buffer's build: its unchanged definitions marked for reuse (`last`),
    and the statements the builder will not change kept for its next parse (mslint.reparse)."""
    def take(text: str):
        tree = parsed.take(text)
        every = list(tree.body)
        lines = reparse.source_lines(text)
        if last is not None:
            tree = last.mark(tree, text, lines)
        shared = reparse.kept_here(path)
        for index, statement in enumerate(tree.body):  # (a kept one the builder would change: a copy)
            if id(statement) in shared and isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                tree.body[index] = copy.deepcopy(statement)
        reparse.remember(path, lines, [statement for statement, now in zip(every, tree.body)
                                      if now is not statement or not reparse.may_change(statement, lines)],
                         every, tree.type_ignores)
        return tree
    return take


def _shared_tree_parser(original, take: Callable[[str], object] = parsed.take):
    """A stand-in for astroid's `builder._parse_string` that returns the shared tree (as
    `take` hands it over), in the shape this astroid returns: astroid 4.0.x returns (tree,
    parser module), later ones return the tree alone (the probe parses an empty text once a
    build)."""
    probe = original("")
    if isinstance(probe, tuple):
        parser_module = probe[1]  # the same operator tables whatever the text
        return lambda text, *args, **options: (take(text), parser_module)
    return lambda text, *args, **options: take(text)  # (whatever else a new astroid passes)


class _ModuleStore:
    """Project modules built in this process, each with what its build read (star imports)."""

    def __init__(self, limit: Optional[int] = None, record: bool = True):
        self.limit = MAX_MODULES if limit is None else limit
        self.record = record  # modules tell analyses which of their names they read (for the result cache)
        self.modules: "OrderedDict[str, Tuple[object, ReadLog, int]]" = OrderedDict()
        self.building: Dict[str, object] = {}
        self.overrides: Dict[str, str] = {}  # absolute path -> the text to build instead of the file's
        # the files open in an editor (the overrides, and those whose text is the file's): their
        # modules keep facts for the next edit (module_memo.BUFFER, mslint.analysis.kept_runs)
        self.buffers: Set[str] = set()
        self.names: Dict[str, str] = {}  # absolute path -> the module name it was built as
        # a buffer's last module and text, whose unchanged definitions its next build reuses
        # (mslint.run.reused_statements); kept even once `modules` forgets it
        self.last_trees: Dict[str, reused_statements.LastTree] = {}
        self._builder = None
        self._evicted = 0

    def build(self, path: str, source: str):
        """A lean astroid module of `source`; raises astroid's errors."""
        import astroid

        if self._builder is None:
            _bootstrap_astroid()
            self._builder = _lean_builder_class() if _LEAN_BUILDER_FITS[0] else _plain_builder
        absolute = os.path.abspath(path)
        outer, module_files.HOOKS.log = module_files.HOOKS.log, ReadLog()
        self.names[absolute] = module_name_for_file(path)
        try:
            module = self._string_build(path, source, self.names[absolute])
        finally:
            log, module_files.HOOKS.log = module_files.HOOKS.log, outer
            self.building.pop(absolute, None)
            last = self.last_trees.pop(absolute, None)
        if last is not None and last.reused:
            reused_statements.forget_node_memos()
        if absolute in self.buffers and self._builder is not _plain_builder:
            self.last_trees[absolute] = reused_statements.LastTree(module, source)
            module.__dict__[module_memo.BUFFER] = True  # facts kept on its statements (module_memo)
        cache = astroid.MANAGER.astroid_cache
        if cache.get(module.name) is module:  # project modules live here, not in astroid's cache
            del cache[module.name]
        if self.record:
            module_files.record_reads(module, absolute)  # which of its names each analysis reads
        self.modules[absolute] = (module, log, hash(source))
        if outer is not None:
            outer.merge(log)
        return module

    def _string_build(self, path: str, source: str, name: str):
        """The lean builder's tree; astroid's own builder's when the lean one does not fit
        the installed astroid.  The lean builder overrides private methods of astroid's
        builder, which a new astroid may change (4.4 added an argument): when it fails with a
        TypeError or AttributeError, and fails the same way on a small probe text that uses
        each override, the process uses astroid's builder from then on (slower, and star
        imports of project modules resolve as astroid resolves them) and says so once, rather
        than failing every file.  A failure the probe does not repeat is this file's own (an
        internal error for it); it does not change how other files are built."""
        try:
            return self._builder(self, path).string_build(source, name, path)
        except (TypeError, AttributeError) as error:
            if self._builder is _plain_builder or self._lean_builder_fits():
                raise
            self.building.pop(os.path.abspath(path), None)
            module = _plain_builder(self, path).string_build(source, name, path)  # raises: not the lean one's fault
            log.warning("mslint: its fast tree builder does not fit astroid %s (%s: %s); using astroid's own "
                        "builder, which is slower", astroid_version(), type(error).__name__, error)
            self._builder = _plain_builder
            _LEAN_BUILDER_FITS[0] = False  # (for this process's later stores too: one warning)
            return module

    def _lean_builder_fits(self) -> bool:
        """Whether the lean builder builds a probe that goes through each of its overrides."""
        import astroid

        try:
            self._builder(self, None).string_build(_PROBE, "mslint_lean_builder_probe", None)
        except (TypeError, AttributeError):
            return False
        finally:
            astroid.MANAGER.astroid_cache.pop("mslint_lean_builder_probe", None)
        return True

    def holds(self, path: str) -> bool:
        """Whether the file's module is built and kept (asking for it costs nothing)."""
        return os.path.abspath(path) in self.modules

    def get(self, path: str, source: Optional[str] = None):
        """The module of a project file (built if needed); None if it cannot be read or parsed."""
        absolute = os.path.abspath(path)
        if absolute in self.building:  # (a star-import cycle) its names are not all bound yet
            if module_files.HOOKS.log is not None:
                module_files.HOOKS.log.files.add(absolute)
                module_files.HOOKS.log.whole.add(absolute)
            return self.building[absolute]
        loading = source is None  # (another module's analysis loads it: a failure is the file's own to report)
        if loading:
            source = self.overrides.get(absolute)
        item = self.modules.get(absolute)
        if item is not None and (source is None or item[2] == hash(source)):
            self.modules.move_to_end(absolute)
            if module_files.HOOKS.log is not None:
                module_files.HOOKS.log.merge(item[1])
            return item[0]
        if not loading:
            return self.build(path, source)
        try:
            return self.build(path, read_source(path) if source is None else source)
        except Exception:  # noqa: BLE001 - unreadable or unparsable: the file's own lint run reports it
            return None

    def refresh(self, overrides: Dict[str, str], buffers: Iterable[str] = ()) -> None:
        """For a new run that reads `overrides` instead of those files, with `buffers` open:
        forget every module whose text is not what the run reads, whose name changed, or whose
        build read a forgotten module or looked up a project module that is now found elsewhere
        (star imports copy names out of other modules' trees)."""
        self.overrides = dict(overrides)
        self.buffers = set(buffers) | set(self.overrides)
        for path in [path for path in self.last_trees if path not in self.buffers]:
            del self.last_trees[path]  # a closed buffer
            kept_runs.KEPT.drop(path)
        stale = set()
        for path, (_, _, digest) in self.modules.items():
            text = self.overrides.get(path)
            if text is None:
                try:
                    text = read_source(path)
                except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
                    text = None
            if text is None or hash(text) != digest or self.names.get(path) != module_name_for_file(path):
                stale.add(path)
        differ = set(stale)  # the modules whose text, name or lookups differ (not only what they copy)
        changed = True
        while changed:
            changed = False
            for path, (_, log, _) in self.modules.items():
                if path in stale:
                    continue
                if any(module_files._find_project_file(dotted, directory) != found
                       for (dotted, directory), found in log.lookups.items()):
                    differ.add(path)
                elif not log.files & stale:
                    continue
                stale.add(path)
                changed = True
        for path in stale:
            del self.modules[path]
            self.names.pop(path, None)
        # (a module built again only because it star-imports a changed one imports that one:
        # a kept run of the changed one that read it is not used, see kept_runs)
        kept_runs.KEPT.other_modules_changed(differ)

    def trim(self) -> None:
        if len(self.modules) > self.limit:
            from mslint.analysis import lattice

            lattice.SHARED.forget()  # its keys hold the trees about to be dropped
            kept_runs.KEPT.forget()
        while len(self.modules) > self.limit:
            self.names.pop(self.modules.popitem(last=False)[0], None)
            self._evicted += 1
        if self._evicted >= self.limit:
            self._evicted = 0
            gc.collect()


class KeptModules:
    """Project modules kept built from one run to the next, for a long-lived process (the
    language server): each is used again while the text it was built from, and what its
    build read, are unchanged (see _ModuleStore.refresh); the others are built again.
    Every edit would otherwise build every project module its analyses load afresh."""

    def __init__(self):
        self.store: Optional[_ModuleStore] = None
        self.projects = KeptProjects()  # and the project models, while the file system is unchanged
        self.buffers: Set[str] = set()  # the files of the last run: those open in the editor


_STORE: Optional[_ModuleStore] = None
# Astroid trees are millions of small objects with parent links: the default collector
# thresholds spend a third of the run in collections that free nothing.  During a run,
# collect rarely, and fully after evicting as many modules as are kept (their trees are cycles,
# so only a full collection frees them; each one walks every tree still kept, so a collection
# after every quarter of that number spent a third of a cold run collecting: 26 of 87 s of CPU
# on 1,553 files, against 15 of 76 s now, for 18% more peak memory).
GC_THRESHOLDS = (50000, 20, 100)
_SAVED_GC: List[tuple] = []


def _start_session(record: bool = False, overrides: Optional[Dict[str, str]] = None,
                   kept: Optional[KeptModules] = None) -> None:
    """A module store, loaded through the lean builder (also in each worker process): a
    fresh one, or the kept one with what is still valid of the last run's modules.

    `record`: the run stores results in the result cache, so each analysis records what it
    reads (project modules tell it which of their names it reads; a result one analysis takes
    from another, lattice.SHARED, brings that one's reads along).
    `overrides`: absolute path -> text read instead of the file on disk."""
    global _STORE
    from mslint.analysis import lattice

    lattice.SHARED.forget()
    kept_runs.KEPT.new_run()
    if kept is None:
        _STORE = _ModuleStore(record=record)
        _STORE.overrides = dict(overrides or {})
    else:
        if kept.store is None:
            kept.store = _ModuleStore(record=True)  # (whether or not this run records: a later one may)
        _STORE = kept.store
        _STORE.refresh(overrides or {}, kept.buffers)
    module_files.HOOKS.loader = _STORE.get
    module_files.HOOKS.built = _STORE.holds
    module_files.HOOKS.log = None
    _SAVED_GC.append(gc.get_threshold())
    gc.set_threshold(*GC_THRESHOLDS)


@contextlib.contextmanager
def _session(record: bool = False, overrides: Optional[Dict[str, str]] = None,
             kept: Optional[KeptModules] = None):
    """_start_session, and _end_session however the block ends."""
    _start_session(record, overrides, kept)
    try:
        yield
    finally:
        _end_session()


def _end_session() -> None:
    global _STORE
    from mslint.analysis import lattice

    lattice.SHARED.forget()
    _STORE = None
    module_files.HOOKS.loader = None
    module_files.HOOKS.built = None
    module_files.HOOKS.log = None
    if _SAVED_GC:
        gc.set_threshold(*_SAVED_GC.pop())


# -- one file --------------------------------------------------------------------------------
class _Result:
    """One file's findings and what its analysis read (for the cache)."""

    __slots__ = ("path", "findings", "files_read", "lookups", "names_read", "whole_read", "searches", "parts")

    def __init__(self, path: str, findings: List[Finding], log: Optional[ReadLog] = None):
        self.path = path
        self.findings = findings
        self.files_read = sorted(log.files) if log is not None else []
        self.lookups = dict(log.lookups) if log is not None else {}
        self.names_read = {k: sorted(v, key=str) for k, v in log.names.items()} if log is not None else {}
        self.whole_read = sorted(log.whole) if log is not None else []
        self.searches = dict(log.searches) if log is not None else {}
        self.parts = None  # (a worker's: cache.dependency_parts)


def _out_of_time(path: str, budget_text: str) -> _Result:
    return _Result(path, [Finding(ANALYSIS_INCOMPLETE, path, 1, 0, None, None,
                                  f"analysis incomplete: {budget_text} ran out before the file was parsed; "
                                  "no rule checked it")])


@budget.bounded(_out_of_time)  # a pathological file becomes MS004 instead of hanging the run (mslint/run/budget.py)
def _analyse(path: str, source: str, config: config_module.Config) -> _Result:
    """The findings of one readable file, before suppression comments; needs a session."""
    import astroid

    from mslint.analysis.context import ModuleContext
    from mslint.run.engine import check_module, internal_error

    log = ReadLog()
    module_files.HOOKS.log = log
    try:
        try:
            if may_hold_graph_code(source, config):
                module = _STORE.get(path, source)
            else:
                _check_syntax(source, path)
                return _Result(path, [], log)
        except astroid.AstroidSyntaxError as error:
            return _Result(path, [_syntax_error(path, error)], log)
        except RecursionError:
            return _Result(path, [Finding(ANALYSIS_INCOMPLETE, path, 1, 0, None, None,
                                          "analysis incomplete: the file is nested too deeply to parse; "
                                          "no rule checked it")], log)
        except (ValueError, MemoryError) as error:  # NUL bytes and other unparsable input
            return _Result(path, [Finding(SYNTAX_ERROR, path, 1, 0, None, None, f"cannot parse the file: {error}")],
                           log)
        except Exception as error:  # noqa: BLE001 - astroid's own bugs stay one file's problem
            return _Result(path, [internal_error(path, None, error)], log)
        # the rules the configuration turns on; per-file-ignores apply to the file a finding is
        # reported in, once the run has routed it (a helper's finding may belong elsewhere)
        enabled = config_module.enabled_rules(config)
        findings = check_module(ModuleContext(module, path, config), enabled)
    finally:
        module_files.HOOKS.log = None
        _STORE.trim()
    return _Result(path, sorted(findings, key=Finding.sort_key), log)


def unsuppressed(findings: List[Finding], source: str, config: config_module.Config, path: str,
                 honour_pylint: bool = True) -> List[Finding]:
    """The findings no suppression comment of the file turns off, plus (when MS006 is
    selected, in the command) the `# mslint:` comments that turned nothing off."""
    enabled = config_module.enabled_rules(config, path)
    report_unused = honour_pylint and enabled.get(USELESS_SUPPRESSION.code)
    if not findings and not report_unused:
        return findings
    suppressions = Suppressions(source, registry(), honour_pylint=honour_pylint)
    kept = [f for f in findings if not suppressions.is_suppressed(f.code, f.line)]
    if report_unused:
        kept = sorted(kept + useless_suppressions(suppressions, enabled, path, source), key=Finding.sort_key)
    return kept


# a comment that may name an mslint rule: an mslint pragma, or a noqa comment naming MS codes (what
# Suppressions.unknown judges)
_MAY_NAME_OUR_RULES = re.compile(r"mslint\s*:|noqa\s*:[^\n]*?\bMS", re.IGNORECASE)


def _may_name_our_rules(source: str) -> bool:
    """_MAY_NAME_OUR_RULES.search, after a test that turns most files away much faster: every
    match holds 'mslint' or 'noqa' in some case (casefold folds as the pattern's IGNORECASE
    does).  On a tree of 1.5 M lines: 0.16 s instead of 0.95 s."""
    folded = source.casefold()
    return ("mslint" in folded or "noqa" in folded) and _MAY_NAME_OUR_RULES.search(source) is not None


def unknown_suppressions(files: Sequence[str], sources: Dict[str, str],
                         config_for: Callable[[str], config_module.Config]) -> List[Tuple[str, int, str]]:
    """A warning for each suppression comment naming no rule (`disable=MS999`), as ruff warns of
    an unknown code in a noqa: said even when MS006 is off (when it is on, MS006 reports it)."""
    warnings = []
    for path in files:
        source = sources.get(path)
        if source is None or not _may_name_our_rules(source) \
                or config_module.enabled_rules(config_for(path), path).get(USELESS_SUPPRESSION.code):
            continue  # (most files hold no comment that names an mslint rule: no tokenizing them)
        for pragma in Suppressions(source, registry()).unknown():
            spelled = f"# noqa: {pragma.name}" if pragma.tool == "noqa" else f"# mslint: {pragma.action}={pragma.name}"
            warnings.append((path, pragma.line, f"`{spelled}` names no mslint rule (see mslint --list-rules)"))
    return warnings


def _check_syntax(source: str, path: str) -> None:
    """Parse only (the tree is kept for the build that may follow: mslint.parsed), raising
    what astroid's builder would raise for this text."""
    import astroid

    modname = module_name_for_file(path)
    try:
        parsed.tree(source, keep=True, path=os.path.abspath(path))
    except (TypeError, ValueError, SyntaxError, MemoryError) as exc:
        raise astroid.AstroidSyntaxError("Parsing Python code failed:\n{error}", source=source, modname=modname,
                                         path=path, error=exc) from exc


def syntax_problem(path: str, source: str) -> Optional[Finding]:
    """The MS001 finding of a text that does not parse, or None when it parses (parsed only:
    the language server asks this of each edited buffer before a run)."""
    import astroid

    try:
        _check_syntax(source, path)
    except astroid.AstroidSyntaxError as error:
        return _syntax_error(path, error)
    except RecursionError:  # the run reports it (MS004)
        return None
    return None


def _syntax_error(path: str, error) -> Finding:
    cause = getattr(error, "error", None)
    if not isinstance(cause, SyntaxError):  # CPython's parser itself gave up: MemoryError on very deep nesting
        said = "the code is nested too deeply" if isinstance(cause, MemoryError) else str(cause)
        reason = f"Python's parser gave up ({type(cause).__name__}): {said}"
        return Finding(SYNTAX_ERROR, path, 1, 0, None, None, f"cannot parse the file: {reason}")
    line = getattr(cause, "lineno", None) or 1
    column = max((getattr(cause, "offset", None) or 1) - 1, 0)
    reason = " ".join(str(getattr(cause, "msg", None) or error).split())  # one line, whatever the parser said
    return Finding(SYNTAX_ERROR, path, line, column, None, None, f"cannot parse the file: {reason}")


def lint_file(path: str, config: config_module.Config) -> List[Finding]:
    """Every finding for one file, sorted, after suppression comments (no cache)."""
    return lint_paths([path], config)


# -- many files ------------------------------------------------------------------------------
class _RecursionLimit:
    def __enter__(self):
        self.limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.limit, 10000))

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.limit)


Configs = Union[config_module.Config, Callable[[str], config_module.Config]]
Caches = Union[None, ResultCache, Callable[[config_module.Config], Optional[ResultCache]]]


class Progress:
    """What a run tells about its progress (the command draws it; see mslint.frontends.progress)."""

    def start(self, total: int) -> None:
        """`total` files are to be done (the run's and the context files)."""

    def advance(self, count: int = 1) -> None:
        """`count` more files are done."""


def _lint_many(task: Tuple[Tuple[str, str, config_module.Config], ...],
               progress: Optional[Progress] = None) -> List[_Result]:
    results = []
    with _RecursionLimit():
        for path, source, config in task:
            results.append(_analyse(path, source, config))
            if progress is not None:
                progress.advance(1)
    return results


def available_cores() -> int:
    """The cores this process may run on (a container's share: sched_getaffinity) that the
    last minute's load average leaves idle, at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows
        busy = 0.0
    return max(1, min(cores, math.ceil(cores - busy)))


def worker_count(pending: Sequence[Tuple[str, str, config_module.Config]], jobs: int = 0) -> int:
    """`jobs` if given, else decided from the work: one process for little source, the
    available cores for more."""
    if jobs > 0:
        return jobs
    if len(pending) < SERIAL_BELOW or sum(len(item[1]) for item in pending) < PARALLEL_FROM_BYTES:
        return 1
    return available_cores()


def lint_paths(files: Iterable[str], config: Configs, jobs: int = 1, cache: Caches = None) -> List[Finding]:
    """Findings for all files, in a deterministic order whatever the number of jobs;
    with a cache, files whose results are still valid are not analysed again."""
    return lint_run(files, config, jobs, cache).findings


class RunReport:
    """What a run reports: its findings, and how many were withheld because the code is
    compiled only in GRAPH_MODE and the project only ever runs PyNative."""

    def __init__(self, findings: List[Finding], withheld: int, files: int, context_files: int,
                 warnings: Sequence[Tuple[str, int, str]] = (), context: Sequence[str] = (), complete: bool = True):
        self.findings = findings
        self.withheld = withheld
        self.files = files
        self.context_files = context_files
        self.warnings = list(warnings)  # (path, line, what) for the user, beside the findings
        self.context = list(context)  # the project modules analysed beside the files (their importers)
        self.complete = complete  # False: an analysis ran out of its time budget (the answer may differ next time)


def lint_run(files: Iterable[str], config: Configs, jobs: int = 1, cache: Caches = None,
             progress: Optional[Progress] = None, overrides: Optional[Dict[str, str]] = None,
             kept: Optional[KeptModules] = None,
             early: Optional[Callable[[List[Finding]], None]] = None) -> RunReport:
    """Analyse the files, and the project modules outside them whose graph code may reach
    them (their importers); report each finding once, in a file of the run (mslint.run.routing).

    `config`: one configuration, or a function giving each file's (the nearest [tool.mslint]
    above it); `cache`: one result cache, or a function giving each configuration's; `jobs`
    0: decided from the work (`worker_count`); `progress` is told as files are done.

    `overrides`: path -> text for files whose text is not (yet) what is on disk, such as an
    editor's unsaved buffers.  The run reads them, everywhere, as if they were saved: their
    own analyses, the modules other analyses load, and the project model (who imports whom,
    modes).  Such a run is serial; it takes from the result cache the entries that still hold
    for the overridden texts (the cache checks them against the texts, not the files: an
    entry that read only parts of a file that the text leaves as they were holds), and
    stores nothing (its entries stand for files on disk).  `--fix` lints its fixed texts this way
    before writing them, and `mslint -` lints standard input.

    `kept`: a serial run takes the project modules still valid from the last run given the
    same object, and leaves its own there for the next (the language server's runs).

    `early`: with `kept`, when the files' own analyses are done and the analyses of their
    importers (the context) still to run showed nothing in these files the last time they ran
    (mslint.run.kept_projects), `early` gets the findings so far: the files' own, and those the
    cache had for the context.  The run then goes on, and its report has everything."""
    config_for = config if callable(config) else (lambda path, _config=config: _config)
    cache_for = cache if callable(cache) else (lambda _settings, _cache=cache: _cache)
    overrides = {os.path.abspath(path): text for path, text in (overrides or {}).items()}
    if overrides:
        jobs = 1
    override_bytes = {path: text.encode("utf-8", "surrogatepass") for path, text in overrides.items()}
    models = kept.projects if kept is not None else None
    reused = models is not None and models.start(override_bytes)
    module_files.clear_file_caches()  # (kept models too: lookups reach folders no snapshot covers)
    if not reused:
        project.forget_projects()
    project.STORE.enabled = cache is not None  # the program model is kept where the results are
    for path, data in override_bytes.items():
        project.project_for(path).use_text(path, data)
    files = list(files)
    run_paths = {os.path.abspath(path): path for path in files}
    if kept is not None:  # (the server's runs: their files are the buffers open in the editor)
        kept.buffers = set(run_paths)
    if jobs != 1:  # (a cold run on a large project: its program facts, read by several processes)
        fact_workers.read_in_workers(run_paths, jobs if jobs > 0 else available_cores())
    raw: List[Finding] = []
    pending: List[Tuple[str, str, config_module.Config]] = []
    stored: Dict[str, Tuple[ResultCache, str, str]] = {}
    sources: Dict[str, str] = {}
    used_caches: List[ResultCache] = []

    def look_up(path: str) -> None:
        """Read the file, and take its findings from the result cache or make it pending."""
        if os.path.abspath(path) in overrides:
            data, source, problem = override_bytes[os.path.abspath(path)], overrides[os.path.abspath(path)], None
        elif models is not None and path not in run_paths:
            data, source, problem = models.read(path, _read)
        else:
            data, source, problem = _read(path)
        if problem is not None:
            raw.append(problem)  # (a context file's problem is not this run's: routing drops it)
            return
        sources[path] = source
        settings = config_for(path)
        results = cache_for(settings)
        if results is not None:
            if results not in used_caches:
                used_caches.append(results)
                for overridden, text in override_bytes.items():
                    results.hashes.use(overridden, text)
            digest = results.hashes.remember(path, data)
            identity = project.analysis_identity(path, module_name_for_file(path), data)
            cached = results.lookup(path, digest, identity, run_paths if overrides else None)
            if cached is not None:
                raw.extend(cached)
                if models is not None:
                    models.showed(path, cached, run_paths)
                if progress is not None:
                    progress.advance(1)
                return
            if not overrides:
                stored[path] = (results, digest, identity)
        pending.append((path, source, settings))

    def find_context() -> List[str]:
        if models is None:
            return context_files(run_paths, config_for)
        return models.context(run_paths, override_bytes, lambda: context_files(run_paths, config_for))

    analysed: List[_Result] = []
    context: List[str] = []
    try:
        if early is not None and models is not None and not reused:
            # the server's first run on these files (or the first after a change on disk): their
            # own findings before their importers are even found, which in a large project takes
            # seconds; the importers' findings in them come with the run's end
            if progress is not None:
                progress.start(len(files))
            for path in files:
                look_up(path)
            if pending:
                with _session(bool(stored), overrides, kept):
                    analysed = _lint_many(tuple(pending), progress)
                pending.clear()
            early(_early_findings(raw, analysed, run_paths, sources, config_for))
            context = find_context()
            for path in context:
                look_up(path)
        else:
            context = find_context()
            if progress is not None:
                progress.start(len(files) + len(context))
            for path in files + context:
                look_up(path)
    except BaseException:  # (a newer edit stopped the run)
        if models is not None and not reused:  # what it built holds, and the next run needs it
            models.keep(files, context, config_for, cache_for)
        raise
    if models is not None:  # (before the analyses: a run a newer edit stops still leaves them)
        models.keep(files, context, config_for, cache_for)
    if pending:
        jobs = worker_count(pending, jobs)
        record = bool(stored)  # results to store: each analysis must record what its findings depend on
        if jobs <= 1 or len(pending) < SERIAL_BELOW:
            with _session(record, overrides, kept):
                own = [item for item in pending if os.path.abspath(item[0]) in run_paths]
                others = [item for item in pending if os.path.abspath(item[0]) not in run_paths]
                analysed += _lint_many(tuple(own), progress)
                if early is not None and others and models is not None and models.may_show_early(others):
                    early(_early_findings(raw, analysed, run_paths, sources, config_for))
                analysed += _lint_many(tuple(others), progress)
        else:
            analysed += _lint_parallel(pending, jobs, progress, record)
    for result in analysed:
        raw.extend(result.findings)
        if models is not None:
            models.showed(result.path, result.findings, run_paths)
        if result.path in stored and not any(f.rule is ANALYSIS_INCOMPLETE for f in result.findings):
            # an incomplete analysis depends on the machine's speed: analyse it again next time
            results, digest, identity = stored[result.path]
            results.store(result.path, digest, identity, result.findings, result.files_read, result.lookups,
                          result.names_read, result.whole_read, result.searches, result.parts)
    for results in used_caches:
        results.save()
    if models is not None and stored:  # the entries just stored hold lookups of their own
        models.keep(files, context, config_for, cache_for, stored=True)
    findings, withheld = report(raw, run_paths, sources, config_for)
    return RunReport(findings, withheld, len(files), len(context), unknown_suppressions(files, sources, config_for),
                     context, complete=not any(f.rule is ANALYSIS_INCOMPLETE for f in raw))


def _early_findings(raw: List[Finding], analysed: List[_Result], run_paths: Dict[str, str],
                    sources: Dict[str, str], config_for) -> List[Finding]:
    """What a run reports so far (lint_run's `early`), without unused suppressions: a comment
    may suppress a finding an importer still to run reaches the file with."""
    found = raw + [finding for result in analysed for finding in result.findings]
    return [f for f in report(found, run_paths, sources, config_for)[0] if f.rule is not USELESS_SUPPRESSION]


def lint_sources(sources: Sequence[Tuple[str, str]], config: Configs) -> List[Finding]:
    """Findings for (path, text) pairs whose text is not what is on disk (yet): `--fix` lints
    its fixed text again before writing, and `--diff` never writes.  No cache, one process;
    only these files are analysed (not their importers: a helper's finding reached only from
    another module's graph code is in the first, on-disk run, not in these re-runs)."""
    config_for = config if callable(config) else (lambda path, _config=config: _config)
    module_files.clear_file_caches()
    project.forget_projects()
    pending = tuple((path, text, config_for(path)) for path, text in sources)
    with _session():
        for path, text in sources:  # (each analysis then reads the others' texts, not the files on disk)
            try:
                _STORE.get(path, text)
            except Exception:  # noqa: BLE001 - unparsable: its own analysis reports it
                pass
        analysed = _lint_many(pending)
    raw = [finding for result in analysed for finding in result.findings]
    findings, _ = report(raw, {os.path.abspath(path): path for path, _ in sources}, dict(sources), config_for)
    return findings


def context_files(run_paths: Dict[str, str], config_for: Callable[[str], config_module.Config]) -> List[str]:
    """The project modules outside the run whose graph code may reach a file of the run: those
    that import one, directly or through other modules, and may hold graph code."""
    found: List[str] = []
    by_project: Dict[str, List[str]] = {}
    for absolute in run_paths:
        by_project.setdefault(project.project_for(absolute).root, []).append(absolute)
    for _, targets in sorted(by_project.items()):
        model = project.project_for(targets[0])
        outside = [path for path in model.files() if path not in run_paths and not config_for(path).is_excluded(path)]
        if not outside:
            continue
        for path in model.importers(targets, outside):
            text = model.text(path) or b""
            if may_hold_graph_code(text.decode("utf-8", errors="replace"), config_for(path)):
                found.append(path)
    return found


def report(raw: Iterable[Finding], run_paths: Dict[str, str], sources: Dict[str, str],
           config_for: Callable[[str], config_module.Config]) -> Tuple[List[Finding], int]:
    """(findings, how many withheld) from the findings of every analysis of a run: routed to
    the files of the run, filtered by each file's rules and suppression comments."""
    routed = routing.route(raw, run_paths, lambda path: project.project_for(path).contains(path))
    by_file: Dict[str, List[Finding]] = {shown: [] for shown in run_paths.values()}
    for finding in routed:
        by_file[finding.path].append(finding)
    findings: List[Finding] = []
    for shown, found in by_file.items():
        settings = config_for(shown)
        enabled = config_module.enabled_rules(settings, shown)
        found = [f for f in found if enabled.get(f.code)]
        source = sources.get(shown)
        findings.extend(unsuppressed(found, source, settings, shown) if source is not None else found)
    kept, held = routing.withheld(findings)
    return sorted(kept, key=Finding.sort_key), len(held)


def _lint_parallel(files: List[Tuple[str, str, config_module.Config]], jobs: int,
                   progress: Optional[Progress] = None, record: bool = False) -> List[_Result]:
    # each worker owns a contiguous run of the files (sorted by path: one package's modules
    # share dependencies, built once per worker) and steals from the others' ends when its
    # own is done (mslint.run.scheduling)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed  # (only a parallel run pays for importing it)

    runs = scheduling.split(files, [len(item[1]) for item in files], jobs)
    chunks = [chunk for run in runs for chunk in run]
    context = multiprocessing.get_context()
    claims = scheduling.claims_for(runs, context)
    done: List[Optional[List[_Result]]] = [None] * len(chunks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=context,
                             initializer=_start_worker, initargs=(record, chunks, claims)) as pool:
        for future in as_completed([pool.submit(_lint_claimed) for _ in chunks]):
            index, chunk_results = future.result()
            if index is not None:
                done[index] = chunk_results
                if progress is not None:
                    progress.advance(len(chunk_results))
    return [result for chunk_results in done for result in chunk_results or ()]


_CHUNKS: Sequence[Tuple[Tuple[str, str, config_module.Config], ...]] = ()  # a worker's copy of a run's chunks


def _start_worker(record: bool, chunks, claims) -> None:
    global _CHUNKS
    _start_session(record)
    _CHUNKS = chunks
    scheduling.join_worker(claims)


def _lint_claimed() -> Tuple[Optional[int], List[_Result]]:
    """In a worker: analyse the chunk it claims next (its own run's, or another's last); for
    the cache, with the digests of the parts of modules each analysis read (made here, in
    parallel, rather than one after the other in the parent)."""
    index = scheduling.next_chunk()
    if index is None:
        return None, []
    results = _lint_many(_CHUNKS[index])
    if _STORE.record:  # (the run stores its results)
        for result in results:
            result.parts = cache_module.dependency_parts(os.path.abspath(result.path), result.names_read,
                                                         result.whole_read)
    return index, results
