"""What the CI reporters (sarif, github) need beyond a finding: repository-relative
paths, the text of the flagged line, and columns in the units each format counts.

Findings carry astroid's columns: 0-based UTF-8 byte offsets.  SARIF counts UTF-16
code units by default, GitHub annotations count characters; both are 1-based.
"""
from __future__ import annotations

import os
from functools import lru_cache
from typing import List, Optional

from mslint.directories import nearest_directory_with

_REPOSITORY_MARKERS = (".git", ".hg", ".svn")


def base_directory(start: Optional[str] = None) -> str:
    """The directory URIs are relative to: the root of the version-controlled work tree
    holding the working directory (what GitHub code scanning calls repository-relative),
    else the working directory itself."""
    start = os.path.abspath(start or os.getcwd())
    return nearest_directory_with(start, _REPOSITORY_MARKERS) or start


def relative_uri(path: str, base: str) -> Optional[str]:
    """`path` relative to `base` with forward slashes, or None when it lies outside `base`."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, base)
    except ValueError:  # another drive on Windows
        return None
    if relative == os.curdir or relative.split(os.sep)[0] == os.pardir:
        return None
    return relative.replace(os.sep, "/")


def display_path(path: str, base: str) -> str:
    """Repository-relative when possible, else the path as given (forward slashes)."""
    return relative_uri(path, base) or path.replace(os.sep, "/")


@lru_cache(maxsize=256)
def _lines(path: str) -> Optional[tuple]:
    try:
        from mslint.run.runner import read_source  # decodes as Python does (coding cookie, BOM)

        return tuple(read_source(path).splitlines())
    except Exception:  # noqa: BLE001 - unreadable files already are MS002 findings
        return None


def source_line(path: str, line: Optional[int]) -> Optional[str]:
    """The text of a 1-based line of a file, or None if unknown."""
    lines = _lines(os.path.abspath(path))
    if lines is None or not line or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def clear_cache() -> None:
    _lines.cache_clear()


def _prefix(text: Optional[str], byte_offset: int) -> Optional[str]:
    if text is None:
        return None
    data = text.encode("utf-8")
    if byte_offset > len(data):
        return None
    return data[:byte_offset].decode("utf-8", errors="ignore")


def utf16_column(text: Optional[str], byte_offset: int) -> int:
    """1-based UTF-16 column of a 0-based UTF-8 byte offset into `text`."""
    prefix = _prefix(text, byte_offset)
    if prefix is None:
        return byte_offset + 1
    return len(prefix.encode("utf-16-le")) // 2 + 1


def character_column(text: Optional[str], byte_offset: int) -> int:
    """1-based character column of a 0-based UTF-8 byte offset into `text`."""
    prefix = _prefix(text, byte_offset)
    return byte_offset + 1 if prefix is None else len(prefix) + 1


def normalized(text: Optional[str]) -> str:
    """A line's text with indentation and runs of blanks removed: moving or re-indenting
    code does not change it."""
    return " ".join((text or "").split())


def occurrence_indices(keys: List[tuple]) -> List[int]:
    """For each key, how many earlier keys were equal to it (0, 1, 2...)."""
    seen: dict = {}
    indices = []
    for key in keys:
        indices.append(seen.get(key, 0))
        seen[key] = indices[-1] + 1
    return indices
