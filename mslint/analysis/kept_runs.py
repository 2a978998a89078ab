"""Interpreter runs of a buffer's functions, kept from one edit to the next (the language server).

An edit of a 3,000-line model file used to run the interpreter over every graph function the
file reaches again: about half of each edit's time, though a keystroke in one method changes
what few of those runs compute.  A run's result depends on its function's code, its self class,
its depth and its parameters' values (its key), and on whatever that code reaches in its
module, which it can only reach by a name: a name it spells, the names those definitions
spell, and so on.  So each kept run carries its *closure*: the top-level statements that bind
a name spelled (as a name, an attribute or a word in a string) by its function's statement,
its class's, those of the nodes its parameters hold, and transitively by every statement so
found; and every word those statements spell.

The builder reuses the node of every top-level statement whose text is unchanged (one that
only moved gets its line numbers moved: mslint.run.reused_statements), so after an edit a kept
run still holds when no statement of its closure was replaced and no word it spells is bound
by other statements than before.
Everything else it read is outside the buffer's text and checked as a whole:

- its analysis's reads of other files (mslint.project.module_files.ReadLog): a hit takes that
  log, so the result cache and the importers see them as before; the module lookups and
  project-wide searches in it are asked again (once a run), and any other module built again
  since drops the kept runs (the runner tells: `other_modules_changed`), as does an evicted
  module (`forget`);
- what the module says as a whole: the modules it imports (whether it imports MindSpore) and
  its `global` statements: a change to either drops every kept run of the module;
- code of other modules that names the buffer's names in its own text: a kept run is not used
  when its analysis loaded a module that imports the buffer and the run may have run that
  module's code (the run's *reach*: the files its closure's imports name, the modules of the
  classes its parameters hold, all they import in turn, and the modules of a package it
  imports).  A module that only uses the buffer's classes (a parent cell, a subclass) is no
  reason; one the buffer imports back is.

A kept run is used as its analysis would have computed it: it brings the call answers it left
in that analysis (Interpreter.replay: a later call alike in kind is answered as it would have
been) and the count of calls it followed (Interpreter._follows).

Only pure runs are kept (Interpreter.impure unchanged: no recursion guard read), and only
those of the analysed module's own functions, computed by its own analysis, in a buffer
(mslint.project.module_memo.BUFFER): the command keeps nothing.
"""
from __future__ import annotations

import copy
import functools
import os
import re
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from mslint.project import module_files
from mslint.project.index import project_at, project_for
from mslint.project.module_memo import BUFFER, statement_memo, top_statement

if TYPE_CHECKING:  # (astroid is imported when a tree is built: the runner imports this module before)
    from astroid import nodes

LIMIT = 20_000  # kept runs per module: a bound for a long session
# once a module keeps more than UNUSED_AFTER_SIZE runs, those its last UNUSED_BUILDS builds'
# analyses did not use go (kept runs of a code whose parameters changed are never asked again)
UNUSED_AFTER_SIZE = 500
UNUSED_BUILDS = 2
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Kept:
    __slots__ = ("values", "follows", "journal", "log", "statements", "spelled", "reach", "used")

    def __init__(self, values, follows: int, journal: List[tuple], log, statements: FrozenSet,
                 spelled: FrozenSet[str], reach: FrozenSet[str]):
        self.values = values  # the run's FunctionValues
        self.follows = follows  # the calls it followed or cut (Interpreter._follows)
        self.journal = journal  # the call answers it left in its analysis (Interpreter._answered)
        self.log = log  # the ReadLog of the analysis that computed it
        self.statements = statements  # its closure (see above)
        self.spelled = spelled
        self.reach = reach  # the other project files whose code it may run (see _reach)
        self.used = 0  # the module's last build whose analysis ran it or used it (_ModuleRuns.builds)


class _ModuleRuns:
    """The kept runs of one buffer's functions, and the module they were last checked for."""

    def __init__(self, module: nodes.Module):
        self.module = module
        self.body: List[nodes.NodeNG] = list(list.__iter__(module.body))  # (no analysis's read)
        self.binders = _binders(module)
        self.imports = _imports(module)
        self.runs: Dict[tuple, _Kept] = {}
        self.builds = 0  # the buffer's builds followed
        self.closures: Dict[nodes.NodeNG, Tuple[FrozenSet, FrozenSet[str]]] = {}  # statement -> its closure
        self.unions: Dict[tuple, Tuple[FrozenSet, FrozenSet[str]]] = {}  # (starts, words) -> their closure

    def follow(self, module: nodes.Module) -> None:
        """The module built from the buffer's next text: keep the runs it leaves valid."""
        body = list(list.__iter__(module.body))
        now = set(body)
        removed = {statement for statement in self.body if statement not in now}
        before = set(self.body)
        added = [statement for statement in body if statement not in before]
        binders = _binders(module)
        imports = _imports(module)
        if imports != self.imports or any(_declares_global(statement) for statement in [*removed, *added]):
            self.runs.clear()
            self.closures.clear()
        elif removed or added:
            changed = {name for name in binders.keys() | self.binders.keys()
                       if not _same(binders.get(name, ()), self.binders.get(name, ()))}
            self.runs = {key: kept for key, kept in self.runs.items()
                         if kept.statements.isdisjoint(removed) and kept.spelled.isdisjoint(changed)}
            self.closures = {statement: found for statement, found in self.closures.items()
                             if found[0].isdisjoint(removed) and found[1].isdisjoint(changed)}
        self.module, self.body, self.binders, self.imports = module, body, binders, imports
        self.unions.clear()
        self.builds += 1
        if len(self.runs) > UNUSED_AFTER_SIZE:  # (runs whose parameters came from code since edited)
            self.runs = {key: kept for key, kept in self.runs.items() if kept.used >= self.builds - UNUSED_BUILDS}

    def closure(self, roots: Iterable) -> Tuple[FrozenSet, FrozenSet[str]]:
        """The closure of a run's roots: its nodes in this module (their statements' closures,
        kept per statement) and the words of dotted names in its values."""
        statements: Set[nodes.NodeNG] = set()
        spelled: Set[str] = set()
        starts: Set[nodes.NodeNG] = set()
        for root in roots:
            if isinstance(root, str):  # a class's dotted name in a value: its words may be looked up
                words = _words_of(root)
                spelled.update(words)
                starts.update(binding for word in words for binding in _bound(self.module, word))
            elif root.root() is self.module:
                starts.add(top_statement(root) or root)
        key = (frozenset(starts), frozenset(spelled))
        union = self.unions.get(key)
        if union is None:
            for start in starts:
                found = self.closures.get(start)
                if found is None:
                    found = self.closures[start] = _closure(self.module, start, self.closures)
                statements |= found[0]
                spelled |= found[1]
            union = self.unions[key] = (frozenset(statements), frozenset(spelled))
        return union


class KeptRuns:
    """Every buffer's kept runs (one table for the process, as lattice.SHARED)."""

    def __init__(self):
        self._modules: Dict[str, _ModuleRuns] = {}
        self._logs: Dict[int, tuple] = {}  # id(ReadLog) -> (it, whether its searches answer the same in this run)
        self._importers: Dict[int, tuple] = {}  # id(ReadLog) -> (it, the importers of its file its analysis loaded)
        self._imports: Dict[str, FrozenSet[str]] = {}  # file -> the project files it imports, transitively (this run)
        # import statement, or dotted name -> the project files it names (this run)
        self._targets: Dict[object, FrozenSet[str]] = {}
        self._reaches: Dict[FrozenSet[str], FrozenSet[str]] = {}  # files named -> what they import, transitively

    # -- what the runner says --------------------------------------------------------
    def forget(self) -> None:
        """Modules were evicted (their nodes may be built again): nothing kept holds."""
        self._modules.clear()
        self._logs.clear()
        self._importers.clear()

    def new_run(self) -> None:
        """A new run: the project-wide searches are asked again when a kept run is used."""
        self._logs.clear()
        self._imports.clear()
        self._targets.clear()
        self._reaches.clear()
        live = {id(kept.log) for runs in self._modules.values() for kept in runs.runs.values()}
        self._importers = {key: found for key, found in self._importers.items() if key in live}

    def drop(self, path: str) -> None:
        """A closed buffer: its module is built from the file from now on."""
        self._modules.pop(path, None)

    def other_modules_changed(self, paths: Iterable[str]) -> None:
        """These modules will be built again: runs kept for any other module may have read them."""
        changed = set(paths)
        for path in list(self._modules):
            if changed - {path}:
                del self._modules[path]

    # -- what the interpreter asks ---------------------------------------------------
    def recall(self, interpreter, key: tuple, module: nodes.Module):
        """The kept run under `key` (a copy bound to `interpreter`), or None."""
        runs = self._runs_of(module)
        kept = runs.runs.get(key) if runs is not None else None
        if kept is None:
            return None
        current = module_files.HOOKS.log
        if kept.log is not current:  # (kept by this same analysis: as good as its own memo)
            if self._may_run_an_importer(kept, module.file) or not self._still_holds(kept.log):
                return None
            if current is not None:
                current.take(kept.log)
        kept.used = runs.builds
        interpreter._follows += kept.follows
        interpreter.replay(kept.journal)
        values = copy.copy(kept.values)
        values.interpreter = interpreter
        return values

    def remember(self, key: tuple, module: nodes.Module, values, follows: int, journal: List[tuple],
                 roots: Iterable[nodes.NodeNG]) -> None:
        log = module_files.HOOKS.log
        if log is None:
            return
        runs = self._runs_of(module)
        if runs is None:
            runs = self._modules[module.file] = _ModuleRuns(module)
        if len(runs.runs) >= LIMIT:
            runs.runs.clear()
        roots = list(roots)
        statements, spelled = runs.closure(roots)
        reach = self._reach(module, statements, roots)
        kept = runs.runs[key] = _Kept(values, follows, journal, log, statements, spelled, reach)
        kept.used = runs.builds

    def kept(self, module: nodes.Module) -> int:
        """How many runs are kept for the module's file (for tests)."""
        runs = self._modules.get(module.file)
        return len(runs.runs) if runs is not None else 0

    def _runs_of(self, module: nodes.Module) -> Optional[_ModuleRuns]:
        runs = self._modules.get(module.file)
        if runs is not None and runs.module is not module:
            runs.follow(module)
        return runs

    def _still_holds(self, log) -> bool:
        """Whether every project module the log looked up is found where it was, and every
        project-wide search it recorded answers the same, in this run."""
        found = self._logs.get(id(log))
        if found is None:
            holds = all(module_files._find_project_file(dotted, directory) == path
                        for (dotted, directory), path in list(log.lookups.items())) and \
                all(project_at(root).answer(key) == answer for (root, key), answer in list(log.searches.items()))
            found = self._logs[id(log)] = (log, holds)  # (the log kept with it: its id stays its own)
        return found[1]

    def _may_run_an_importer(self, kept: _Kept, path: str) -> bool:
        """Whether the run may have run code of a module that imports its file, among those its
        analysis loaded: its reach, or a module of a package it imports (`import pkg` reaches
        `pkg.sub.f` through an attribute, whatever pkg/__init__.py imports)."""
        importers = self._loaded_importers(kept.log, path)
        if not importers:
            return False
        packages = tuple(os.path.dirname(file) + os.sep for file in kept.reach
                         if os.path.basename(file) == "__init__.py")
        return not kept.reach.isdisjoint(importers) or any(file.startswith(packages) for file in importers)

    def _loaded_importers(self, log, path: str) -> FrozenSet[str]:
        """The modules that import the file, among those the analysis that wrote the (finished)
        log loaded: their code may look up the file's names without the file spelling them."""
        found = self._importers.get(id(log))
        if found is None:
            loaded = [file for file in log.files if file != path]
            importers = frozenset(project_for(path).importers([path], loaded)) if loaded else frozenset()
            found = self._importers[id(log)] = (log, importers)
        return found[1]

    def _reach(self, module: nodes.Module, statements: FrozenSet, roots: List) -> FrozenSet[str]:
        """The project files whose code a run may run: those its closure's import statements name
        (in function bodies too), those of the nodes its key holds, and all they import in turn
        (project imports, a superset: packages on the way count).  A run calls another module's
        code only through a name it spells or a value it is given."""
        from astroid import nodes

        path = module.file
        files: Set[str] = set()
        for statement in statements:
            for node in statement_memo(statement, "kept_runs.imports",
                                       lambda: list(statement.nodes_of_class((nodes.Import, nodes.ImportFrom)))):
                files |= self._targets_of(node, path)
        directory = os.path.dirname(os.path.abspath(path))
        for root in roots:
            if not isinstance(root, str):
                if root.root() is not module and root.root().file:
                    files.add(root.root().file)
            elif "." in root:  # a class's dotted name: its methods may be run through it
                files |= self._modules_named(root, directory)
        key = frozenset(files)
        found = self._reaches.get(key)
        if found is None:
            reach: Set[str] = set()
            for file in files:
                reach |= self._imported_by(file, path)
            found = self._reaches[key] = frozenset(reach)
        return found

    def _targets_of(self, statement, path: str) -> FrozenSet[str]:
        """The project files an import statement names: `import a.b` names a and a.b; `from a.b
        import c` names a.b, and a.b.c if that is a module."""
        from astroid import nodes

        from mslint.project.resolve import absolute_import_name

        found = self._targets.get(statement)
        if found is None:
            if isinstance(statement, nodes.Import):
                dotted = [".".join(name.split(".")[:end]) for name, _ in statement.names
                          for end in range(1, name.count(".") + 2)]
            else:
                base = absolute_import_name(statement)
                dotted = [] if base is None else [base] + [f"{base}.{name}" for name, _ in statement.names]
            found = self._targets[statement] = _project_files(dotted, os.path.dirname(os.path.abspath(path)))
        return found

    def _modules_named(self, dotted: str, directory: str) -> FrozenSet[str]:
        """The project files of the modules a dotted name goes through (`pkg.net.Net`: pkg, pkg.net)."""
        found = self._targets.get(dotted)
        if found is None:
            parts = dotted.split(".")
            found = self._targets[dotted] = _project_files([".".join(parts[:end]) for end in range(1, len(parts))],
                                                           directory)
        return found

    def _imported_by(self, file: str, path: str) -> FrozenSet[str]:
        """`file` and the project files it imports, transitively (this run's project model)."""
        found = self._imports.get(file)
        if found is None:
            project = project_for(path)
            reached = {file}
            pending = [file]
            while pending:
                for imported in project.imports_of(pending.pop()):
                    if imported not in reached:
                        reached.add(imported)
                        pending.append(imported)
            found = self._imports[file] = frozenset(reached)
        return found


KEPT = KeptRuns()


def is_kept_module(module: Optional[nodes.Module]) -> bool:
    """Whether runs of this module's functions may be kept: a buffer's module."""
    return module is not None and bool(module.__dict__.get(BUFFER)) and bool(module.file)


def key_nodes(params: tuple) -> List:
    """The nodes, and the strings (class names, tags), that a key's parameter identities hold
    (lattice.params_identity)."""
    found: List = []
    pending = [identity for _, identity in params]
    while pending:
        _, tags, cls, node, elements = pending.pop()
        found.extend(tags)
        if cls is not None:
            found.append(cls)
        if node is not None:
            found.append(node)
        if elements:
            pending.extend(elements)
    return found


def _closure(module: nodes.Module, start: nodes.NodeNG, known: Dict[nodes.NodeNG, Tuple[FrozenSet, FrozenSet[str]]]
             ) -> Tuple[FrozenSet, FrozenSet[str]]:
    """The top-level statements a run that starts from `start` may read (see above), and the
    words they spell; `known`: the closures of other statements, taken whole when reached."""
    statements: Set[nodes.NodeNG] = set()
    spelled: Set[str] = set()
    pending = [start]
    while pending:
        statement = pending.pop()
        if statement in statements or statement is module:
            continue
        found = known.get(statement) if statement is not start else None
        if found is not None:
            statements |= found[0]
            spelled |= found[1]
            continue
        statements.add(statement)
        for word in statement_memo(statement, "kept_runs.words", lambda: _words(statement)):
            if word not in spelled:
                spelled.add(word)
                pending.extend(_bound(module, word))
    return frozenset(statements), frozenset(spelled)


@functools.lru_cache(maxsize=4096)
def _words_of(text: str) -> Tuple[str, ...]:
    return tuple(_WORD.findall(text))


def _project_files(dotted: Iterable[str], directory: str) -> FrozenSet[str]:
    """The project files of those module names that are project modules."""
    files = (module_files.find_project_file(name, directory) for name in dotted)
    return frozenset(file for file in files if file)


def _bound(module: nodes.Module, name: str) -> List[nodes.NodeNG]:
    """The top-level statements that bind `name` in the module (not an analysis's read)."""
    return _statements(dict.get(module.locals, name, ()))


def _statements(bindings) -> List[nodes.NodeNG]:
    return [top_statement(binding) or binding for binding in bindings]


def _words(statement: nodes.NodeNG) -> FrozenSet[str]:
    from astroid import nodes

    found: Set[str] = set()
    for node in statement.nodes_of_class((nodes.Name, nodes.Attribute, nodes.AssignName, nodes.Const)):
        if isinstance(node, nodes.Const):
            if isinstance(node.value, str):
                found.update(_WORD.findall(node.value))
        else:
            found.add(node.attrname if isinstance(node, nodes.Attribute) else node.name)
    return frozenset(found)


def _binders(module: nodes.Module) -> Dict[str, Tuple[nodes.NodeNG, ...]]:
    return {name: tuple(_statements(bindings)) for name, bindings in dict.items(module.locals)}


def _same(one: tuple, other: tuple) -> bool:
    return len(one) == len(other) and all(a is b for a, b in zip(one, other))


def _imports(module: nodes.Module) -> Tuple[str, ...]:
    from mslint.project.classes import top_level_imports

    return tuple(top_level_imports(list(list.__iter__(module.body))))


def _declares_global(statement: nodes.NodeNG) -> bool:
    from astroid import nodes

    return any(True for _ in statement.nodes_of_class(nodes.Global))  # (the statement itself included)
