"""[tool.mslint] loading and validation, shared by the CLI and the pylint plugin."""
from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older interpreters only
    import tomli as tomllib

SUPPORTED_TARGET_VERSIONS = ("1.6", "1.7", "1.8", "1.9", "1.10", "2.0", "2.1", "2.2", "2.3", "2.4", "2.5",
                             "2.6", "2.7", "2.8", "2.9", "2.10")
DEFAULT_TARGET_VERSION = "2.10"
DEFAULT_ALLOWED_CONSTANT_CALLS = ("math.sqrt", "math.log", "math.ceil", "math.floor")


class ConfigError(Exception):
    """A configuration problem, already phrased for the user (file and key named)."""


@dataclass(frozen=True)
class Config:
    select: Optional[Tuple[str, ...]] = None  # None: the default rule set
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = ()
    target_version: str = DEFAULT_TARGET_VERSION
    graph_mode: str = "auto"
    syntax_level: str = "lax"
    allowed_constant_calls: Tuple[str, ...] = DEFAULT_ALLOWED_CONSTANT_CALLS
    extra_jit_decorators: Tuple[str, ...] = ()
    extra_cell_bases: Tuple[str, ...] = ()  # qualified names of library classes to treat as Cells
    source: Optional[str] = None  # the pyproject.toml it came from
    root: str = field(default_factory=os.getcwd)  # patterns are relative to this directory

    def with_overrides(self, **changes) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def target_at_least(self, version: str) -> bool:
        return _version_tuple(self.target_version) >= _version_tuple(version)

    def fingerprint(self) -> str:
        """A stable text of every setting that changes findings (for caches)."""
        return repr((self.select, self.ignore, self.per_file_ignores, self.target_version, self.graph_mode,
                     self.syntax_level, self.allowed_constant_calls, self.extra_jit_decorators,
                     self.extra_cell_bases))

    def ignored_for(self, path: str) -> Tuple[str, ...]:
        """Selectors per-file-ignores applies to this file."""
        relative = _relative(path, self.root)
        found: List[str] = []
        for pattern, selectors in self.per_file_ignores:
            if _glob_match(relative, pattern):
                found.extend(selectors)
        return tuple(found)

    def is_excluded(self, path: str) -> bool:
        relative = _relative(path, self.root)
        name = os.path.basename(path.rstrip(os.sep))
        return any(_glob_match(relative, p) or fnmatch.fnmatch(name, p) for p in self.exclude)


def _version_tuple(text: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _relative(path: str, root: str) -> str:
    try:
        relative = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive on Windows
        relative = path
    return relative.replace(os.sep, "/")


def _glob_match(relative: str, pattern: str) -> bool:
    pattern = pattern.replace(os.sep, "/").rstrip("/")
    if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern + "/*"):
        return True
    # a pattern without a slash matches a file or directory name at any depth
    if "/" not in pattern:
        return any(fnmatch.fnmatch(part, pattern) for part in relative.split("/"))
    return False


_SELECTOR_RE = re.compile(r"^(MS\d{0,3}|[a-z0-9]+(-[a-z0-9]+)*)$")


def _error(source: str, key: str, problem: str) -> ConfigError:
    if source.startswith("--"):  # a command-line option, not a file
        return ConfigError(f"{source}: {problem}")
    return ConfigError(f"{source}: [tool.mslint] {key}: {problem}")


def _string_list(value, source: str, key: str) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _error(source, key, f"expected a list of strings, got {value!r}")
    return tuple(value)


def check_selectors(selectors, source: str, key: str) -> Tuple[str, ...]:
    """Rule codes, code prefixes (MS1, MS10) or symbols; each must name at least one rule."""
    from mslint.rules import registry

    rules = registry()
    checked = []
    for selector in _string_list(selectors, source, key):
        normalized = selector.strip()
        if normalized.upper().startswith("MS"):
            normalized = normalized.upper()
        if not _SELECTOR_RE.match(normalized) or not rules.matching(normalized):
            raise _error(source, key, f"{selector!r} is not a rule code, code prefix or rule symbol")
        checked.append(normalized)
    return tuple(checked)


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
    "select": lambda v, s, k: check_selectors(v, s, k),
    "ignore": lambda v, s, k: check_selectors(v, s, k),
    "per-file-ignores": _per_file_ignores,
    "exclude": _string_list,
    "target-version": lambda v, s, k: _choice(str(v), s, k, SUPPORTED_TARGET_VERSIONS),
    "graph-mode": lambda v, s, k: _choice(v, s, k, ("auto", "always", "never")),
    "syntax-level": lambda v, s, k: _choice(v, s, k, ("lax", "strict")),
    "allowed-constant-calls": _qualified_names,
    "extra-jit-decorators": _qualified_names,
    "extra-cell-bases": _qualified_names,
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
    return Config(source=source, root=root, **values)


def load_file(path: str) -> Optional[Config]:
    """The Config in a pyproject.toml, or None if it has no [tool.mslint] table."""
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
    return Config(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(os.path.abspath(start))))


class PerFile:
    """Each file's configuration: the nearest [tool.mslint] above it (`--config FILE` for every
    file when given), with the command line's settings applied on top; found once per directory."""

    def __init__(self, explicit: Optional[str] = None, overrides=None):
        self._overrides = overrides or (lambda config: config)
        self._explicit = self._overrides(discover(".", explicit)) if explicit is not None else None
        self._by_directory: Dict[str, Config] = {}

    def __call__(self, path: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        if directory not in self._by_directory:
            self._by_directory[directory] = self._overrides(discover(directory))
        return self._by_directory[directory]


def enabled_rules(config: Config, path: Optional[str] = None) -> Dict[str, bool]:
    """code -> enabled, after select, ignore and (for a file) per-file-ignores."""
    from mslint.rules import registry

    rules = registry()
    if config.select is None:
        enabled = {rule.code: rule.default_enabled for rule in rules}
    else:
        enabled = {rule.code: False for rule in rules}
        for selector in config.select:
            for rule in rules.matching(selector):
                enabled[rule.code] = True
    for rule in rules:  # the tool's own findings (unparsable file, internal error) stay on unless ignored
        if rule.code.startswith("MS0") and rule.default_enabled:
            enabled[rule.code] = True
    ignored = list(config.ignore) + (list(config.ignored_for(path)) if path else [])
    for selector in ignored:
        for rule in rules.matching(selector):
            enabled[rule.code] = False
    return enabled
