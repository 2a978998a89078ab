"""[tool.mslint] loading and validation, shared by the CLI and the pylint plugin."""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Tuple

from mslint import globs
from mslint.directories import PROJECT_MARKERS, nearest_directory_with



def _toml():
    """tomllib (tomli before 3.11), imported when a pyproject.toml is read: a run in a tree
    without one does not pay for it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on older interpreters only
        import tomli as tomllib
    return tomllib

SUPPORTED_TARGET_VERSIONS = ("1.6", "1.7", "1.8", "1.9", "1.10", "2.0", "2.1", "2.2", "2.3", "2.4", "2.5",
                             "2.6", "2.7", "2.8", "2.9", "2.10")
DEFAULT_TARGET_VERSION = "2.10"
NEWEST_TARGET_VERSION = SUPPORTED_TARGET_VERSIONS[-1]
DEFAULT_ALLOWED_CONSTANT_CALLS = ("math.sqrt", "math.log", "math.ceil", "math.floor")


class ConfigError(Exception):
    """A configuration problem, already phrased for the user (file and key named)."""


@dataclass(frozen=True)
class Config:
    select: Optional[Tuple[str, ...]] = None  # None: the default rule set
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    # the command line's selection, applied after the file's (see enabled_rules)
    cli_select: Optional[Tuple[str, ...]] = None
    cli_extend_select: Tuple[str, ...] = ()
    cli_ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    jobs: Optional[int] = None  # None: decided from the work (mslint.run.runner)
    target_version: str = DEFAULT_TARGET_VERSION
    graph_mode: str = "auto"
    syntax_level: str = "lax"
    allowed_constant_calls: Tuple[str, ...] = DEFAULT_ALLOWED_CONSTANT_CALLS
    extra_jit_decorators: Tuple[str, ...] = ()
    extra_cell_bases: Tuple[str, ...] = ()  # qualified names of library classes to treat as Cells
    docs_url: Optional[str] = None  # where rule pages are published (mslint.rules.page_url); not in findings
    source: Optional[str] = None  # the pyproject.toml it came from
    root: str = field(default_factory=os.getcwd)  # patterns are relative to this directory
    # one-line notes for the user (a target-version newer than mslint knows); not a setting
    warnings: Tuple[str, ...] = field(default=(), compare=False)

    def with_overrides(self, **changes) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def target_at_least(self, version: str) -> bool:
        return _version_tuple(self.target_version) >= _version_tuple(version)

    def fingerprint(self) -> str:
        """A stable text of every setting that changes findings (for caches)."""
        return repr((self.selection_layers(), self.per_file_ignores, self.target_version, self.graph_mode,
                     self.syntax_level, self.allowed_constant_calls, self.extra_jit_decorators,
                     self.extra_cell_bases))

    def selection_layers(self) -> Tuple[Tuple[Optional[Tuple[str, ...]], Tuple[str, ...], Tuple[str, ...]], ...]:
        """(select, extend-select, ignore) of the file, then of the command line."""
        return ((self.select, self.extend_select, self.ignore),
                (self.cli_select, self.cli_extend_select, self.cli_ignore))

    def ignored_for(self, path: str) -> Tuple[str, ...]:
        """Selectors per-file-ignores applies to this file."""
        if not self.per_file_ignores:
            return ()
        relative = _relative(path, self.root)
        found: List[str] = []
        for pattern, selectors in self.per_file_ignores:
            if globs.matches(relative, pattern):
                found.extend(selectors)
        return tuple(found)

    def unmatched_globs(self, files, left_out) -> List[str]:
        """The `exclude`, `extend-exclude` and `per-file-ignores` globs that match nothing in a run:
        no path it left out (`left_out`), no file it linted (`files`).  A typo, or a glob written
        against another directory than this configuration's."""
        left = [_relative(path, self.root) for path in left_out]
        linted = [_relative(path, self.root) for path in files]
        unmatched = [f"exclude {pattern!r}" for pattern in self.exclude + self.extend_exclude
                     if not any(globs.matches(path, pattern) for path in left)]
        unmatched += [f"per-file-ignores {pattern!r}" for pattern, _ in self.per_file_ignores
                      if not any(globs.matches(path, pattern) for path in linted)]
        return unmatched

    def is_excluded(self, path: str) -> bool:
        if not self.exclude and not self.extend_exclude:
            return False
        relative = _relative(path, self.root)
        return any(globs.matches(relative, p) for p in self.exclude + self.extend_exclude)


def _version_tuple(text: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _relative(path: str, root: str) -> str:
    try:
        relative = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive on Windows
        relative = path
    return relative.replace(os.sep, "/")


_SELECTOR_RE = re.compile(r"^(ALL|MS\d{0,3}|[EWC]8\d{3}|[a-z0-9]+(-[a-z0-9]+)*)$")


def _error(source: str, key: str, problem: str) -> ConfigError:
    if source.startswith("--"):  # a command-line option, not a file
        return ConfigError(f"{source}: {problem}")
    return ConfigError(f"{source}: [tool.mslint] {key}: {problem}")


def _string_list(value, source: str, key: str) -> Tuple[str, ...]:
    """A list of strings; a comma-separated string only from the command line (in a file,
    `select = "MS101"` is a mistake to name, as for any other wrong type)."""
    if isinstance(value, str) and source.startswith("--"):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    elif isinstance(value, str):
        raise _error(source, key, f"expected a list of strings, got the string {value!r}: write [{value!r}]"
                     .replace("'", '"'))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _error(source, key, f"expected a list of strings, got {value!r}")
    return tuple(value)


def check_selectors(selectors, source: str, key: str) -> Tuple[str, ...]:
    """Rule codes, code prefixes (MS1, MS10), symbols or pylint ids (E8101, kept as its code);
    each must name at least one rule."""
    from mslint.rules import registry

    rules = registry()
    checked = []
    for selector in _string_list(selectors, source, key):
        normalized = selector.strip()
        if normalized.upper().startswith("MS") or normalized.upper() == "ALL" or \
                re.match(r"^[ewc]8\d{3}$", normalized, re.I):
            normalized = normalized.upper()
        if not _SELECTOR_RE.match(normalized) or not rules.matching(normalized):
            raise _error(source, key, f"{selector!r} is not a rule code, code prefix, rule symbol or pylint id")
        if normalized[0] in "EWC":
            normalized = rules.get(normalized).code
        checked.append(normalized)
    return tuple(checked)


def check_target_version(value, source: str, key: str) -> Tuple[str, Tuple[str, ...]]:
    """A MindSpore version "X.Y" and the warnings it deserves: a TOML number is refused (2.10
    would be read as 2.1); a version newer than mslint knows is accepted with a warning."""
    if not isinstance(value, str):
        raise _error(source, key, f"expected a string such as \"{DEFAULT_TARGET_VERSION}\", got the number "
                                  f"{value!r}: quote it (TOML reads 2.10 as 2.1)")
    if not re.match(r"^\d+\.\d+$", value) or _version_tuple(value) < _version_tuple(SUPPORTED_TARGET_VERSIONS[0]):
        raise _error(source, key, f"expected a MindSpore version from \"{SUPPORTED_TARGET_VERSIONS[0]}\" on, "
                                  f"such as \"{DEFAULT_TARGET_VERSION}\", got {value!r}")
    if _version_tuple(value) > _version_tuple(NEWEST_TARGET_VERSION):
        where = source if source.startswith("--") else f"{source}: [tool.mslint] {key}"
        return value, (f"{where}: MindSpore {value} is newer than the newest version mslint knows "
                       f"({NEWEST_TARGET_VERSION}); checking as for {NEWEST_TARGET_VERSION}",)
    if value not in SUPPORTED_TARGET_VERSIONS:  # e.g. "2.03"
        raise _error(source, key, f"expected one of {', '.join(SUPPORTED_TARGET_VERSIONS)} "
                                  f"(or a newer version), got {value!r}")
    return value, ()


def _jobs(value, source: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _error(source, key, f"expected a number of worker processes (0: decided from the work), got {value!r}")
    return value


def _docs_url(value, source: str, key: str) -> str:
    if not isinstance(value, str) or not re.match(r"^(https?|file)://\S+$", value):
        raise _error(source, key, f"expected a URL such as \"https://example.org/mslint/rules/\" "
                                  f"(or with {{code}}: \"https://example.org/rules/{{code}}.html\"), got {value!r}")
    return value


def _choice(value, source: str, key: str, choices) -> str:
    if value not in choices:
        raise _error(source, key, f"expected one of {', '.join(choices)}, got {value!r}")
    return value


def _qualified_names(value, source: str, key: str) -> Tuple[str, ...]:
    names = _string_list(value, source, key)
    for name in names:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$", name):
            raise _error(source, key, f"{name!r} is not a dotted name such as 'math.sqrt'")
    return names


def _per_file_ignores(value, source: str, key: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise _error(source, key, f"expected a table of glob = [rule codes], got {value!r}")
    return tuple((pattern, check_selectors(codes, source, f"{key}.{pattern!r}")) for pattern, codes in value.items())


_KEYS = {
    "select": check_selectors,
    "extend-select": check_selectors,
    "ignore": check_selectors,
    "per-file-ignores": _per_file_ignores,
    "exclude": _string_list,
    "extend-exclude": _string_list,
    "target-version": check_target_version,
    "graph-mode": lambda v, s, k: _choice(v, s, k, ("auto", "always", "never")),
    "syntax-level": lambda v, s, k: _choice(v, s, k, ("lax", "strict")),
    "allowed-constant-calls": _qualified_names,
    "extra-jit-decorators": _qualified_names,
    "jobs": _jobs,
    "extra-cell-bases": _qualified_names,
    "docs-url": lambda v, s, k: _docs_url(v, s, k),
}
CONFIG_KEYS = tuple(_KEYS)


def parse_table(table: dict, source: str, root: str) -> Config:
    """A Config from the [tool.mslint] table of `source`; ConfigError names any bad key."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.mslint] must be a table")
    values = {}
    for key, value in table.items():
        if key not in _KEYS:
            hint = ""
            if key.replace("_", "-") in _KEYS:
                hint = f" (did you mean {key.replace('_', '-')!r}?)"
            raise _error(source, key, f"unknown key{hint}; known keys: {', '.join(CONFIG_KEYS)}")
        values[key.replace("-", "_")] = _KEYS[key](value, source, key)
    warnings: Tuple[str, ...] = ()
    if "target_version" in values:
        values["target_version"], warnings = values["target_version"]
    if values.get("jobs") == 0:
        values["jobs"] = None
    return Config(source=source, root=root, warnings=warnings, **values)


def load_file(path: str) -> Optional[Config]:
    """The Config in a pyproject.toml, or None if it has no [tool.mslint] table."""
    tomllib = _toml()
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError as error:  # TOML is UTF-8; tomllib lets the decoder's error through
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({error.reason} at byte {error.start})") from None
    table = document.get("tool", {}).get("mslint") if isinstance(document.get("tool"), dict) else None
    if table is None:
        return None
    return parse_table(table, path, os.path.dirname(os.path.abspath(path)))


def find_config_file(start: str) -> Optional[str]:
    """The nearest pyproject.toml with a [tool.mslint] table, from `start` upwards."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _mentions_mslint(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _mentions_mslint(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"tool.mslint" in handle.read()
    except OSError:
        return False


def discover(start: str, explicit: Optional[str] = None) -> Config:
    """The configuration for a run: `--config FILE`, else the nearest [tool.mslint], else defaults."""
    if explicit is not None:
        if not os.path.isfile(explicit):
            raise ConfigError(f"{explicit}: no such configuration file")
        found = load_file(explicit)
        if found is None:
            raise ConfigError(f"{explicit}: has no [tool.mslint] table")
        return found
    path = find_config_file(start)
    if path is not None:
        found = load_file(path)
        if found is not None:
            return found
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(os.path.abspath(start)))
    return Config(root=find_project_root(directory) or directory)


def find_project_root(start: str) -> Optional[str]:
    """The nearest directory from `start` upwards holding pyproject.toml, setup.cfg, setup.py or .git."""
    return nearest_directory_with(start, PROJECT_MARKERS)


class PerFile:
    """Each file's configuration: the nearest [tool.mslint] above it (`--config FILE` for every
    file when given), with the command line's settings applied on top; found once per directory."""

    def __init__(self, explicit: Optional[str] = None, overrides=None):
        self._overrides = overrides or (lambda config: config)
        self._explicit = self._overrides(discover(".", explicit)) if explicit is not None else None
        self._by_directory: Dict[str, Config] = {}
        # what discover() finds, remembered per directory and shared with the directories below
        # (a tree of thousands of folders would otherwise read each pyproject.toml above them
        # once per folder); one Config per configuration file or root, so caches keyed by it
        # compute its key once
        self._file_of: Dict[str, Optional[str]] = {}
        self._marker_of: Dict[str, Optional[str]] = {}
        self._loaded: Dict[Tuple[str, str], Config] = {}

    def __call__(self, path: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        if directory not in self._by_directory:
            self._by_directory[directory] = self._discover(directory)
        return self._by_directory[directory]

    def _discover(self, directory: str) -> Config:
        """discover(directory), from what was found for the directories above it."""
        path = self._config_file(directory)
        if path is not None:
            key = ("file", path)
            if key not in self._loaded:
                found = load_file(path)
                self._loaded[key] = self._overrides(found) if found is not None else None
            if self._loaded[key] is not None:
                return self._loaded[key]
        root = self._marker_directory(directory) or directory
        key = ("root", root)
        if key not in self._loaded:
            self._loaded[key] = self._overrides(Config(root=root))
        return self._loaded[key]

    def _config_file(self, directory: str) -> Optional[str]:
        """find_config_file(directory), memoised up the tree."""
        if directory not in self._file_of:
            candidate = os.path.join(directory, "pyproject.toml")
            parent = os.path.dirname(directory)
            if os.path.isfile(candidate) and _mentions_mslint(candidate):
                self._file_of[directory] = candidate
            else:
                self._file_of[directory] = None if parent == directory else self._config_file(parent)
        return self._file_of[directory]

    def _marker_directory(self, directory: str) -> Optional[str]:
        """find_project_root(directory), memoised up the tree."""
        if directory not in self._marker_of:
            parent = os.path.dirname(directory)
            if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
                self._marker_of[directory] = directory
            else:
                self._marker_of[directory] = None if parent == directory else self._marker_directory(parent)
        return self._marker_of[directory]

    def warnings(self) -> List[str]:
        """The warnings of every configuration found so far, each once, in order."""
        found = [self._explicit] if self._explicit is not None else list(self._by_directory.values())
        return list(dict.fromkeys(warning for config in found for warning in config.warnings))


def enabled_rules(config: Config, path: Optional[str] = None) -> Dict[str, bool]:
    """code -> enabled.  The defaults, then the file's selection, then the command line's
    (docs/configuration.md, "Which rules run"): in each, `select` starts afresh from the
    rules it names, `extend-select` adds, `ignore` removes; a prefix turns on every rule
    under it, off-by-default ones included, only where it is selected.  Per-file-ignores last."""
    from mslint.rules import registry

    rules = registry()
    memo = _ENABLED.get(id(config))
    if memo is not None and memo[0] is config:
        enabled = dict(memo[1])
    else:
        enabled = _enabled_by_selection(config, rules)
        if len(_ENABLED) >= 256:  # a long-lived process (the plugin, the server) sees configurations change
            _ENABLED.clear()
        _ENABLED[id(config)] = (config, dict(enabled))  # (the config is kept: its id is not reused)
    if path:
        for selector in config.ignored_for(path):
            for rule in rules.matching(selector):
                enabled[rule.code] = False
    return enabled


# configuration -> its rule selection: a run asks once per file, for a handful of configurations
_ENABLED: Dict[int, Tuple[Config, Dict[str, bool]]] = {}


def _enabled_by_selection(config: Config, rules) -> Dict[str, bool]:
    enabled = {rule.code: rule.default_enabled for rule in rules}

    def turn(selectors, state: bool) -> None:
        for selector in selectors:
            for rule in rules.matching(selector):
                enabled[rule.code] = state

    for select, extend_select, ignore in config.selection_layers():
        if select is not None:
            enabled = {rule.code: False for rule in rules}
            # the tool's own findings (unparsable file, internal error) stay on unless ignored
            turn([rule.code for rule in rules if rule.code.startswith("MS0") and rule.default_enabled], True)
        # as in ruff: the less specific selectors first, so the more specific one wins
        # (`--select MS103 --ignore MS1` runs MS103); of two equally specific ones, ignore
        steps = [(_specificity(s), 0, s, True) for s in tuple(select or ()) + tuple(extend_select)]
        steps += [(_specificity(s), 1, s, False) for s in ignore]
        for _, _, selector, state in sorted(steps, key=lambda step: step[:2]):
            turn([selector], state)
    return enabled


def _specificity(selector: str) -> int:
    """ALL < MS < MS1 < MS10 < one rule (a code, a symbol, a pylint id)."""
    text = selector.strip().upper()
    if text == "ALL":
        return 0
    prefix = re.fullmatch(r"MS(\d{0,2})", text)
    return 1 + len(prefix.group(1)) if prefix else 4
