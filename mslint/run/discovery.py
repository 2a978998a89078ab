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
             force_exclude: bool = False, excluded_by_name: Optional[List[str]] = None,
             missing: Optional[List[str]] = None, excluded_under: Optional[List[str]] = None,
             left_out: Optional[List[str]] = None) -> List[str]:
    """The Python files to lint, sorted.  `config`: one configuration, or a function giving
    each path's (its `exclude` applies).  The named paths --force-exclude leaves out are
    appended to `excluded_by_name` if given; paths that do not exist to `missing` (without
    that list they are a UsageError); the named directories in which exclusions or .gitignore
    left something out to `excluded_under`, and what they left out to `left_out`."""
    config_for = config if callable(config) else (lambda path, _config=config: _config)
    left_out_paths = left_out
    found = set()
    matchers: Dict[str, Gitignore] = {}

    def gitignore_for(path: str):
        if not respect_gitignore:
            return None
        matcher = Gitignore.for_path(path)
        return matchers.setdefault(matcher.top, matcher)

    for path in paths:
        if not os.path.exists(path) and not os.path.islink(path):
            if missing is None:
                raise UsageError(f"{path}: no such file or directory")
            missing.append(path)
            continue
        gitignore = gitignore_for(path)
        if force_exclude and _excluded_by_name(path, config_for(path), gitignore):
            if excluded_by_name is not None:
                excluded_by_name.append(path)
            continue
        if os.path.isfile(path):
            found.add(os.path.normpath(path))
            continue
        left_out = False
        for directory, subdirectories, files in os.walk(path):
            kept = [d for d in subdirectories if not project.skipped_directory(directory, d)]
            searched = sorted(d for d in kept if not _left_out(os.path.join(directory, d), True, config_for, gitignore))
            if len(searched) < len(kept):
                left_out = True
                if left_out_paths is not None:
                    left_out_paths.extend(os.path.join(directory, d) for d in kept if d not in searched)
            subdirectories[:] = searched
            folder_config = None  # a file's configuration is its folder's (found once per folder)
            for name in files:
                if not name.endswith(".py"):
                    continue
                full = os.path.normpath(os.path.join(directory, name))
                if folder_config is None:
                    folder_config = config_for(directory)
                if _left_out(full, False, lambda _path, _config=folder_config: _config, gitignore):
                    left_out = True
                    if left_out_paths is not None:
                        left_out_paths.append(full)
                else:
                    found.add(full)
        if left_out and excluded_under is not None:
            excluded_under.append(path)
    return sorted(found)


def _left_out(path: str, is_directory: bool, config_for, gitignore) -> bool:
    """Excluded by the configuration, or ignored by .gitignore."""
    return config_for(path).is_excluded(path) or bool(gitignore and gitignore.ignores_entry(path, is_directory))


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
