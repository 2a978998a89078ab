"""Which files a run lints: the paths given, searched recursively for `*.py`.

Skipped while searching: VCS, virtual-environment, build and cache directories, what
`exclude` / `extend-exclude` name, and (unless turned off) what `.gitignore` ignores.  A
path named on the command line is always linted, unless `--force-exclude` (for
pre-commit, which names every staged file) makes the exclusions apply to it too.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence

from mslint import config as config_module
from mslint.project import index as project
from mslint.run.gitignore import Gitignore

class UsageError(Exception):
    """A problem with the command line itself (exit status 2)."""


def discover(paths: Sequence[str], config, respect_gitignore: bool = True,
             force_exclude: bool = False, excluded_by_name: Optional[List[str]] = None) -> List[str]:
    """The Python files to lint, sorted.  `config`: one configuration, or a function giving
    each path's (its `exclude` applies).  The named paths --force-exclude leaves out are
    appended to `excluded_by_name` if given."""
    config_for = config if callable(config) else (lambda path, _config=config: _config)
    found = set()
    matchers: Dict[str, Gitignore] = {}

    def gitignore_for(path: str):
        if not respect_gitignore:
            return None
        matcher = Gitignore.for_path(path)
        return matchers.setdefault(matcher.top, matcher)

    for path in paths:
        if not os.path.exists(path) and not os.path.islink(path):
            raise UsageError(f"{path}: no such file or directory")
        gitignore = gitignore_for(path)
        if force_exclude and _excluded_by_name(path, config_for(path), gitignore):
            if excluded_by_name is not None:
                excluded_by_name.append(path)
            continue
        if os.path.isfile(path):
            found.add(os.path.normpath(path))
            continue
        for directory, subdirectories, files in os.walk(path):
            subdirectories[:] = sorted(
                d for d in subdirectories
                if not project.skipped_directory(directory, d)
                and not config_for(os.path.join(directory, d)).is_excluded(os.path.join(directory, d))
                and not (gitignore and gitignore.ignores_entry(os.path.join(directory, d), True))
            )
            for name in files:
                full = os.path.normpath(os.path.join(directory, name))
                if name.endswith(".py") and not config_for(full).is_excluded(full) \
                        and not (gitignore and gitignore.ignores_entry(full, False)):
                    found.add(full)
    return sorted(found)


def _excluded_by_name(path: str, config: config_module.Config, gitignore) -> bool:
    """--force-exclude: the path or a directory above it (below the project) is excluded or ignored."""
    absolute = os.path.abspath(path)
    current = absolute
    while True:
        if config.is_excluded(current):
            return True
        parent = os.path.dirname(current)
        if parent == current or os.path.relpath(parent, config.root).startswith(os.pardir) or parent == config.root:
            break
        current = parent
    return bool(gitignore and gitignore.is_ignored(absolute))


def empty_paths(paths: Sequence[str], files: Sequence[str]) -> List[str]:
    """The given paths under which no file was found (a mistyped directory, an empty one)."""
    absolute_files = [os.path.abspath(f) for f in files]
    empty = []
    for path in paths:
        prefix = os.path.abspath(path)
        if not any(f == prefix or f.startswith(prefix.rstrip(os.sep) + os.sep) for f in absolute_files):
            empty.append(path)
    return empty
