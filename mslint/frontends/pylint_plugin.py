"""The pylint front-end: thin checkers that report what the shared engine finds.

One checker per rule family (pylint wants each checker's ids in one band: E81xx, E82xx,
...), all named `mslint`, so `--disable=all --enable=mslint` runs exactly mslint.  The
analysis of a module is computed once, when pylint leaves the module, and shared by every
family's checker; the MS0 checker collects, during pylint's own walk of the tree, the nodes
the analysis looks up by type, so the analysis does not walk the tree a second time.
"""
from __future__ import annotations

import gc
import os
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from astroid import nodes
from pylint.checkers import BaseChecker
from pylint.constants import WarningScope
from pylint.interfaces import HIGH

from mslint import config as config_module
from mslint.analysis import lattice
from mslint.project import index as project
from mslint.project import module_files
from mslint.run import routing
from mslint.analysis.context import ModuleContext
from mslint.run.engine import check_module
from mslint.findings import Finding
from mslint.directories import cache_directory
from mslint.run.cache import ResultCache, content_hash
from mslint.project.resolve import module_name_for_file
from mslint.run.runner import GC_THRESHOLDS, decode_source, may_hold_graph_code, read_bytes, unsuppressed
from mslint.rules import BAD_CONFIGURATION, TOOL_RULES, Rule, registry
from mslint.analysis.scope import NodeIndex

CHECKER_NAME = "mslint"


class _RunState:
    """What the checkers of one pylint run share: configs by directory, the files of the run,
    every module analysis made so far, and the current module's findings."""

    def __init__(self):
        self.configs: Dict[str, config_module.Config] = {}
        self.reported_config_errors: set = set()
        self.module = None
        self.findings: List[Finding] = []
        self.walking = None  # the module whose nodes `walked` holds (pylint's walk, in progress or done)
        self.walked: list = []
        self.caches: Dict[str, Optional[ResultCache]] = {}
        self.analyses: Dict[tuple, List[Finding]] = {}  # (file, content hash, rules) -> its analysis
        # importer -> (bytes, text) or None (unreadable): read once a run, however many of the
        # modules it imports pylint visits
        self.importer_sources: Dict[str, Optional[Tuple[bytes, str, str]]] = {}
        self.enabled_keys: Dict[int, tuple] = {}
        self.fingerprints: Dict[int, tuple] = {}
        self.built: Optional[Dict[str, object]] = None  # file -> the astroid tree pylint built
        self.built_from = 0  # the size of astroid's cache when `built` was listed
        self.linter = None

    def cache_for(self, config: config_module.Config) -> Optional[ResultCache]:
        """The command's result cache for this configuration, if it exists (loaded once)."""
        directory = cache_directory(config.root)
        namespace = ResultCache.namespace(config)
        key = os.path.join(directory, namespace)
        if key not in self.caches:
            self.caches[key] = ResultCache(directory, namespace) if os.path.isdir(directory) else None
        return self.caches[key]

    def config_for(self, path: str) -> Tuple[config_module.Config, Optional[str]]:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self.configs:
            error = None
            try:
                found = config_module.discover(directory)
            except config_module.ConfigError as problem:
                found, error = config_module.Config(root=directory), str(problem)
            self.configs[directory] = found
            if error:
                return found, error
        return self.configs[directory], None


_STATE = _RunState()


def _start_run(linter) -> None:
    """A new pylint run (a new linter, or a worker's copy of it) starts afresh: the files on
    disk may have changed since the last one."""
    global _STATE
    if _STATE.linter is not linter:
        _STATE = _RunState()
        _STATE.linter = linter
        project.forget_projects()
        lattice.SHARED.forget()  # results keyed by the last run's trees
    if module_files.HOOKS.loader is None:  # (not inside a command's run in this process)
        module_files.HOOKS.built = _astroid_holds


def _source_bytes(module) -> bytes:
    """The source pylint is checking: what it was given (an editor's buffer), else the file."""
    data = getattr(module, "file_bytes", None)
    if data is None and module.file and os.path.isfile(module.file):
        try:
            with open(module.file, "rb") as handle:
                data = handle.read()
        except OSError:
            data = None
    if isinstance(data, str):
        return data.encode("utf-8")
    return data or b""


def _analysis(path: str, data: bytes, config: config_module.Config, enabled: Dict[str, bool],
              compute, digest: Optional[str] = None) -> List[Finding]:
    """A module's analysis (its roots' findings, wherever they are), computed once per run:
    from the command's cache when it holds it, else by `compute()`."""
    absolute = os.path.abspath(path)
    digest = digest or content_hash(data)
    key = (absolute, digest, _fingerprint(config), _enabled_key(enabled))
    if key not in _STATE.analyses:
        cache = _STATE.cache_for(config)
        identity = project.analysis_identity(absolute, module_name_for_file(absolute))
        found = cache.lookup(absolute, digest, identity) if cache is not None else None
        if found is None:
            found = compute()
        _STATE.analyses[key] = [f for f in found if enabled.get(f.code)]
    return _STATE.analyses[key]


def _fingerprint(config: config_module.Config) -> str:
    # (a run's configurations are kept in _STATE.configs, so their ids stay theirs)
    known = _STATE.fingerprints.get(id(config))
    if known is None or known[0] is not config:
        known = _STATE.fingerprints[id(config)] = (config, config.fingerprint())
    return known[1]


def _enabled_key(enabled: Dict[str, bool]) -> tuple:
    key = _STATE.enabled_keys.get(id(enabled))
    if key is None or key[0] is not enabled:
        key = (enabled, tuple(sorted(code for code, on in enabled.items() if on)))
        _STATE.enabled_keys = {id(enabled): key}  # one module's selection at a time
    return key[1]


def _own_analysis(module, path: str, source: str, config, enabled) -> List[Finding]:
    """The analysis of pylint's current module, on pylint's own tree."""
    if not may_hold_graph_code(source, config):  # the command's text pre-filter (mslint.run.runner)
        return []
    index = NodeIndex(module, _STATE.walked, WALKED_TYPES) if _STATE.walking is module else None
    return check_module(ModuleContext(module, path, config, index), enabled)


def _context_analysis(path: str, config, enabled) -> List[Finding]:
    """The analysis of another module whose graph code may reach the current one, on the tree
    pylint built for it (pylint builds every file of a serial run before linting any) or,
    for a module outside the run, on one astroid builds as pylint would."""
    if path not in _STATE.importer_sources:
        try:
            data = read_bytes(path)
            _STATE.importer_sources[path] = (data, decode_source(data), content_hash(data))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            _STATE.importer_sources[path] = None  # its own lint reports it
    if _STATE.importer_sources[path] is None:
        return []
    data, source, digest = _STATE.importer_sources[path]
    if not may_hold_graph_code(source, config):
        return []

    def compute() -> List[Finding]:
        module = _built_module(path)
        if module is None:
            return []
        return check_module(ModuleContext(module, path, config), enabled)

    return _analysis(path, data, config, enabled, compute, digest)


def _astroid_holds(path: str) -> bool:
    """Whether astroid's manager holds the module it would return for `path` (pylint built it):
    loading it builds nothing, so the callers' search need not parse its text first to see
    whether it names a definition (mslint.analysis.caller_values)."""
    import astroid

    found = astroid.MANAGER.astroid_cache.get(module_name_for_file(path))
    return found is not None and getattr(found, "file", None) is not None \
        and os.path.abspath(found.file) == os.path.abspath(path)


def _built_module(path: str):
    """pylint's (astroid's) tree of a file: the one already built if there is one."""
    import astroid

    absolute = os.path.abspath(path)
    cache = astroid.MANAGER.astroid_cache
    if _STATE.built is None or (absolute not in _STATE.built and len(cache) != _STATE.built_from):
        _STATE.built = {os.path.abspath(m.file): m for m in list(cache.values()) if getattr(m, "file", None)}
        _STATE.built_from = len(cache)
    found = _STATE.built.get(absolute)
    if found is None:
        try:
            found = astroid.MANAGER.ast_from_file(absolute, module_name_for_file(absolute), source=True)
        except Exception:  # noqa: BLE001 - unreadable or unparsable: its own lint reports it
            return None
        _STATE.built[absolute] = found
    return found


def _module_findings(linter, module) -> List[Finding]:
    """Every mslint finding for the module pylint is visiting, computed once per module: from
    its own analysis and those of the project modules that import it (their graph code may
    reach its helpers), routed as the command routes them (mslint.run.routing)."""
    _start_run(linter)
    if _STATE.module is module:
        return _STATE.findings
    path = module.file or module.name
    absolute = os.path.abspath(path)
    config, error = _STATE.config_for(path)
    enabled = config_module.enabled_rules(config)
    for rule in registry():
        if not linter.is_message_enabled(rule.pylint_id):
            enabled[rule.code] = False
    data = _source_bytes(module)
    source = data.decode("utf-8", errors="replace")
    cache = _STATE.cache_for(config)
    if cache is not None and module.file:
        # the text pylint checks (`--from-stdin`: the editor's buffer) is this file's content
        # for the whole run: a cached analysis of an importer that read the file on disk no
        # longer matches, and is made again on the buffer (its findings carry the buffer's lines)
        cache.hashes.use(absolute, data)
    raw = list(_analysis(path, data, config, enabled,
                         lambda: _own_analysis(module, path, source, config, enabled)))
    if module.file:
        model = project.project_for(absolute)
        for importer in model.all_importers(absolute):
            raw.extend(_context_analysis(importer, config, enabled))
    run_paths = {p: p for p in _run_files(linter)}
    run_paths[absolute] = absolute
    routed = routing.route(raw, run_paths, lambda p: project.project_for(p).contains(p))
    findings = [replace(f, path=path) for f in routed if f.path == absolute]
    kept, _ = routing.withheld(findings)
    per_file = config_module.enabled_rules(config, path)
    findings = [f for f in kept if per_file.get(f.code)]
    if error and error not in _STATE.reported_config_errors:
        _STATE.reported_config_errors.add(error)
        findings.append(Finding(BAD_CONFIGURATION, path, 1, 0, None, None, error))
    findings = unsuppressed(findings, source, config, path, honour_pylint=False)
    _STATE.module, _STATE.findings = module, sorted(findings, key=Finding.sort_key)
    _STATE.walking, _STATE.walked = None, []
    return _STATE.findings


# -- the files of the run ---------------------------------------------------------------------
# A finding in a helper belongs to the helper's file when pylint lints that file too, and to
# the call in the current file when it does not.  pylint does not tell a checker which files
# it will lint, so the plugin records them where pylint lists them (before the workers of
# `-j N` are forked, so they inherit the list on the linter).  Without it (another pylint,
# `--from-stdin`), the run is taken to be the current file alone.
_RUN_FILES_ATTRIBUTE = "_mslint_run_files"


def _run_files(linter) -> frozenset:
    return getattr(linter, _RUN_FILES_ATTRIBUTE, None) or frozenset()


def record_run_files() -> None:
    from pylint.lint import PyLinter

    original = getattr(PyLinter, "_iterate_file_descrs", None)
    if original is None or getattr(original, "_mslint_records", False):
        return

    def iterate_file_descrs(self, *args, **kwargs):
        items = list(original(self, *args, **kwargs))
        setattr(self, _RUN_FILES_ATTRIBUTE, frozenset(os.path.abspath(item.filepath) for item in items))
        return iter(items)

    iterate_file_descrs._mslint_records = True
    PyLinter._iterate_file_descrs = iterate_file_descrs


def _msgs(rules) -> dict:
    # Every message is enabled as far as pylint knows: [tool.mslint] (select/ignore, defaults)
    # decides which rules run, so both front-ends report the same findings; pylint's own
    # --disable and pragmas still turn messages off.
    return {
        rule.pylint_id: ("%s", rule.symbol, f"{rule.summary} Fix: {rule.fix} ({rule.url})",
                         {"scope": WarningScope.LINE})  # findings carry positions, not nodes
        for rule in rules
    }


def _fixable(finding: Finding) -> str:
    """pylint cannot apply fixes: the message says which command does."""
    if finding.fix is None:
        return ""
    return " (fixable: mslint --fix)" if finding.fix.applicability == "safe" else \
        " (fixable: mslint --fix --unsafe-fixes)"


class _FamilyChecker(BaseChecker):
    name = CHECKER_NAME
    rules: Tuple[Rule, ...] = ()

    def leave_module(self, node) -> None:
        codes = {rule.code for rule in self.rules}
        for finding in _module_findings(self.linter, node):
            if finding.code in codes:
                self.add_message(
                    finding.rule.symbol, line=finding.line, col_offset=finding.column,
                    end_lineno=finding.end_line, end_col_offset=finding.end_column,
                    args=(finding.message + _fixable(finding),),
                    confidence=HIGH,
                )


def checker_for_family(family) -> type:
    """A pylint checker class reporting a family module's RULES."""
    rules = tuple(family.RULES)
    return type(f"Mslint{rules[0].family}Checker", (_FamilyChecker,), {"rules": rules, "msgs": _msgs(rules)})


# The node types the analysis asks a module for (mslint.analysis.scope.NodeIndex.of); any other type
# makes the index walk the tree itself, so this list only has to be complete to be fast.
WALKED_TYPES = frozenset({nodes.Call, nodes.ClassDef, nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.AssignAttr,
                          nodes.Import, nodes.ImportFrom, nodes.Attribute})


class ToolChecker(_FamilyChecker):
    """MS0xx: internal errors, incomplete analyses, bad configuration; and the node collector.

    (The collector lives here because pylint only walks with checkers that have an enabled
    message; with every MS0 message disabled, the analysis walks the tree itself.)"""

    rules = TOOL_RULES
    msgs = _msgs(TOOL_RULES)

    def visit_module(self, node) -> None:
        _STATE.walking, _STATE.walked = node, []

    def _collect(self, node) -> None:
        _STATE.walked.append(node)


for _kind in WALKED_TYPES:  # pylint calls visit_<class name in lower case>
    setattr(ToolChecker, f"visit_{_kind.__name__.lower()}", ToolChecker._collect)
del _kind


def register(linter) -> None:
    """pylint's plugin entry point (`mslint.register` delegates here): one checker per rule
    family, all under the checker name `mslint`, and the hook that records the run's files."""
    from mslint.checkers import FAMILIES

    linter.register_checker(ToolChecker(linter))
    for family in FAMILIES:
        linter.register_checker(checker_for_family(family)(linter))
    record_run_files()
    collect_rarely()


def collect_rarely() -> None:
    """Raise the collector's thresholds to the command's for the rest of the pylint run (never
    lower one the process set higher).

    pylint keeps every module astroid builds until it exits, so a full collection walks every
    tree and frees almost nothing: on mindcv + mindyolo, pylint's floor alone (no plugin) spent
    7.4 of 19 s in 14 full collections.  With the command's thresholds the whole run collects
    in under 2 s and peaks about 15% higher (209 against 183 MB); see docs/performance.md."""
    gc.set_threshold(*(max(current, wanted) for current, wanted in zip(gc.get_threshold(), GC_THRESHOLDS)))
