"""Finding the directory above a path that holds a marker (.git, pyproject.toml, ...)."""
from __future__ import annotations

import os
from typing import Iterable, Optional

# what marks the root of a project: its configuration, its packaging, its repository
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


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
