""".gitignore matching for file discovery, without git.

mslint parses the ignore files itself rather than asking `git check-ignore`: it then works
where git is not installed or the tree is not a repository (an unpacked release, a CI image
without git, a test's temporary directory), costs no subprocess, and gives the same answer
whatever git's version.  Read: every `.gitignore` from the top directory (the repository's
root, else the project root) down to the file, and `.git/info/exclude`.  Not read: the
global excludes file (`core.excludesFile`), which describes one person's machine.

Semantics as gitignore(5): blank lines and `#` comments skipped, `!` re-includes, a
trailing `/` matches only directories, a pattern with a `/` before its end is anchored to
its file's directory (else it matches a name at any depth), `*` and `?` stop at `/`, `**`
spans directories, `[...]` is a character class; the last matching pattern wins, deeper
files after shallower ones.  A file inside an ignored directory is ignored.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from mslint import globs
from mslint.directories import nearest_directory_with

Pattern = Tuple["re.Pattern", bool, bool]  # (regex on the path relative to the file's directory, negated, dirs only)


def parse(text: str) -> List[Pattern]:
    patterns = []
    for line in text.splitlines():
        if not line.endswith("\\ "):
            line = line.rstrip(" \t")
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\"):  # \# and \! stand for themselves
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = globs.translate(line)
        regex = ("^" if anchored else "^(?:.*/)?") + body + "$"
        patterns.append((re.compile(regex, re.DOTALL), negated, directory_only))
    return patterns


class _Level:
    """One directory's patterns, with one regex for "does any of them match?" per kind of
    entry: most entries match none, and one search is much cheaper than one per pattern."""

    __slots__ = ("prefix", "patterns", "any_file", "any_directory")

    def __init__(self, directory: str, patterns: List[Pattern]):
        self.prefix = len(directory.rstrip(os.sep)) + 1  # the path relative to it starts there
        self.patterns = patterns
        for_files = [p for p in patterns if not p[2]]
        self.any_file = _any_of(for_files)
        self.any_directory = self.any_file if len(for_files) == len(patterns) else _any_of(patterns)

    def verdict(self, relative: str, is_directory: bool) -> Optional[bool]:
        """The last matching pattern's say (True ignored, False re-included), None if none matches."""
        quick = self.any_directory if is_directory else self.any_file
        if quick is None or not quick.match(relative):
            return None
        for regex, negated, directory_only in reversed(self.patterns):
            if (is_directory or not directory_only) and regex.match(relative):
                return not negated
        return None


def _any_of(patterns: List[Pattern]) -> Optional["re.Pattern"]:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{regex.pattern})" for regex, _, _ in patterns), re.DOTALL)


class Gitignore:
    """Answers "is this path ignored?" for paths under `top`, reading each ignore file once."""

    def __init__(self, top: str):
        self.top = os.path.abspath(top)
        self._patterns: Dict[str, List[Pattern]] = {}
        self._levels: Dict[str, Tuple[_Level, ...]] = {}  # directory -> its and its parents' patterns, deepest first

    @classmethod
    def for_path(cls, path: str) -> "Gitignore":
        """The matcher for a linted path: ignore files from its repository's root down, else
        from its project root (pyproject.toml, setup.cfg, setup.py), else from the path itself."""
        from mslint.config import find_project_root

        start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)))
        return cls(nearest_directory_with(start, (".git",)) or find_project_root(start) or start)

    def _load(self, directory: str) -> List[Pattern]:
        if directory not in self._patterns:
            found: List[Pattern] = []
            names = [".gitignore"] + ([os.path.join(".git", "info", "exclude")] if directory == self.top else [])
            for name in names:
                try:
                    with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                except OSError:
                    continue
                # info/exclude is shallower than .gitignore: it goes first, so .gitignore wins
                found = parse(text) + found
            self._patterns[directory] = found
        return self._patterns[directory]

    def _chain(self, directory: str) -> Tuple[_Level, ...]:
        """The directories from `directory` up to `top` that have patterns, deepest first."""
        levels = self._levels.get(directory)
        if levels is None:
            parent = os.path.dirname(directory)
            above = () if directory == self.top or parent == directory else self._chain(parent)
            own = self._load(directory)
            levels = ((_Level(directory, own),) if own else ()) + above
            self._levels[directory] = levels
        return levels

    def _matches(self, absolute: str, is_directory: bool) -> Optional[bool]:
        """What the ignore files say about this one path (not its parents): True ignored,
        False re-included, None nothing.  The last matching pattern decides, and deeper files
        come after shallower ones: so the deepest file with a match decides."""
        for level in self._chain(os.path.dirname(absolute)):
            relative = absolute[level.prefix:]
            if os.sep != "/":
                relative = relative.replace(os.sep, "/")
            verdict = level.verdict(relative, is_directory)
            if verdict is not None:
                return verdict
        return None

    def is_ignored(self, path: str, is_directory: Optional[bool] = None) -> bool:
        """Whether the path, or a directory holding it below `top`, is ignored."""
        absolute = os.path.abspath(path)
        if os.path.relpath(absolute, self.top).split(os.sep)[0] == os.pardir:
            return False  # outside the tree the ignore files describe
        if is_directory is None:
            is_directory = os.path.isdir(absolute)
        current, current_is_directory = absolute, is_directory
        ancestors = []
        while current != self.top and os.path.dirname(current) != current:
            ancestors.append((current, current_is_directory))
            current, current_is_directory = os.path.dirname(current), True
        return any(self._matches(p, d) for p, d in reversed(ancestors))

    def ignores_entry(self, path: str, is_directory: bool) -> bool:
        """During a walk from above (parents already checked): whether this entry is ignored."""
        return bool(self._matches(os.path.abspath(path), is_directory))
