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
from typing import Dict, List, Optional, Tuple

from astroid import nodes
from pylint.checkers import BaseChecker
from pylint.constants import WarningScope
from pylint.interfaces import HIGH

from mslint import config as config_module
from mslint.context import ModuleContext
from mslint.engine import check_module
from mslint.findings import Finding
from mslint.cache import ResultCache, cache_directory
from mslint.resolve import module_name_for_file
from mslint.runner import GC_THRESHOLDS, may_hold_graph_code, unsuppressed
from mslint.rules import BAD_CONFIGURATION, TOOL_RULES, Rule, registry
from mslint.scope import NodeIndex

CHECKER_NAME = "mslint"


class _RunState:
    """What the checkers of one pylint run share: configs by directory, the current module's findings."""

    def __init__(self):
        self.configs: Dict[str, config_module.Config] = {}
        self.reported_config_errors: set = set()
        self.module = None
        self.findings: List[Finding] = []
        self.walking = None  # the module whose nodes `walked` holds (pylint's walk, in progress or done)
        self.walked: list = []
        self.caches: Dict[str, Optional[ResultCache]] = {}

    def cached_findings(self, module, path: str, config: config_module.Config,
                        source: bytes) -> Optional[List[Finding]]:
        """The command's cached findings for this source of the file, if its result cache holds
        valid ones.

        The plugin only reads the cache: pylint builds star-imported modules itself, so the
        plugin cannot record every module an analysis read, which a cache entry needs."""
        directory = cache_directory(config.root)
        namespace = ResultCache.namespace(config)
        key = os.path.join(directory, namespace)  # one cache file, loaded once
        if key not in self.caches:
            self.caches[key] = ResultCache(directory, namespace) if os.path.isdir(directory) else None
        cache = self.caches[key]
        if cache is None or not module.file or not os.path.isfile(module.file):
            return None
        digest = cache.hashes.remember(module.file, source)
        return cache.lookup(path, digest, module_name_for_file(module.file))

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


def _module_findings(linter, module) -> List[Finding]:
    """Every mslint finding for the module pylint is visiting, computed once per module."""
    if _STATE.module is module:
        return _STATE.findings
    path = module.file or module.name
    config, error = _STATE.config_for(path)
    enabled = config_module.enabled_rules(config, path)
    for rule in registry():
        if not linter.is_message_enabled(rule.pylint_id):
            enabled[rule.code] = False
    data = _source_bytes(module)
    source = data.decode("utf-8", errors="replace")
    findings = []
    cached = _STATE.cached_findings(module, path, config, data)
    if cached is not None:
        findings = [f for f in cached if enabled.get(f.code)]
    elif may_hold_graph_code(source, config):  # the command's text pre-filter (mslint.runner)
        saved = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)  # astroid-heavy work: see mslint.runner
        index = NodeIndex(module, _STATE.walked, WALKED_TYPES) if _STATE.walking is module else None
        try:
            findings = check_module(ModuleContext(module, path, config, index), enabled)
        finally:
            gc.set_threshold(*saved)
    if error and error not in _STATE.reported_config_errors:
        _STATE.reported_config_errors.add(error)
        findings.append(Finding(BAD_CONFIGURATION, path, 1, 0, None, None, error))
    findings = unsuppressed(findings, source, config, path, honour_pylint=False)
    _STATE.module, _STATE.findings = module, sorted(findings, key=Finding.sort_key)
    _STATE.walking, _STATE.walked = None, []
    return _STATE.findings


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


# The node types the analysis asks a module for (mslint.scope.NodeIndex.of); any other type
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
