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


class Gitignore:
    """Answers "is this path ignored?" for paths under `top`, reading each ignore file once."""

    def __init__(self, top: str):
        self.top = os.path.abspath(top)
        self._patterns: Dict[str, List[Pattern]] = {}

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

    def _matches(self, absolute: str, is_directory: bool) -> Optional[bool]:
        """What the ignore files say about this one path (not its parents): True ignored,
        False re-included, None nothing."""
        verdict = None
        directory = os.path.dirname(absolute)
        chain = []
        while True:
            chain.append(directory)
            if directory == self.top or os.path.dirname(directory) == directory:
                break
            directory = os.path.dirname(directory)
        for directory in reversed(chain):  # shallow to deep: deeper files decide last
            relative = os.path.relpath(absolute, directory).replace(os.sep, "/")
            for regex, negated, directory_only in self._load(directory):
                if directory_only and not is_directory:
                    continue
                if regex.match(relative):
                    verdict = not negated
        return verdict

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
