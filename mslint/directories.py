"""Where things are: the directory above a path that holds a project marker (.git,
pyproject.toml, ...), and where mslint keeps its caches."""
from __future__ import annotations

import os
import sys
from typing import Iterable, Optional

# what marks the root of a project: its configuration, its packaging, its repository
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
CACHE_DIRECTORY_NAME = ".mslint_cache"
ENVIRONMENT_VARIABLE = "MSLINT_CACHE_DIR"


def nearest_directory_with(start: str, markers: Iterable[str]) -> Optional[str]:
    """The nearest directory from `start` upwards holding any of `markers`, or None."""
    markers = tuple(markers)
    directory = os.path.abspath(start)
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in markers):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def cache_directory(root: str) -> str:
    """MSLINT_CACHE_DIR if set; else .mslint_cache/ in the configuration's root when that is a
    project's root (it holds pyproject.toml, setup.cfg, setup.py or .git: see
    config.find_project_root); else the user's cache directory, so that linting a loose
    directory never leaves a cache folder in it."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        return explicit
    if any(os.path.exists(os.path.join(root, marker)) for marker in PROJECT_MARKERS):
        return os.path.join(root, CACHE_DIRECTORY_NAME)
    return os.path.join(user_cache_directory(), "mslint")


def user_cache_directory() -> str:
    """The platform's per-user cache directory (XDG on Linux)."""
    if sys.platform == "win32":
        return os.environ.get("LOCALAPPDATA") or os.path.expanduser(os.path.join("~", "AppData", "Local"))
    if sys.platform == "darwin":
        return os.path.expanduser(os.path.join("~", "Library", "Caches"))
    return os.environ.get("XDG_CACHE_HOME") or os.path.expanduser(os.path.join("~", ".cache"))
