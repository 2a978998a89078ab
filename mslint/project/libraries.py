"""Classes of installed libraries, found and read without importing the library.

A model built on `mindnlp.transformers.modeling_utils.PreTrainedModel` is a Cell only if that
class is one; when the library is installed, its source says so.  The library is located
the way Python's path finder would (importlib.machinery.PathFinder on the top package, which
looks at sys.path without executing anything), its modules are parsed by astroid, and its
bases are walked with the same resolver the project uses.  Answers are memoised per process.
"""
from __future__ import annotations

import importlib.machinery
import os
from functools import lru_cache
from typing import Dict, List, Optional

from astroid import nodes

from mslint.project import resolve

_MAX_MODULE_DEPTH = 12


@lru_cache(maxsize=1024)
def _top_package_locations(top: str) -> tuple:
    """Where an installed top-level module or package `top` lives: its file or its directories."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(top)
    except (ImportError, ValueError, OSError):  # a broken sys.path entry or name
        return ()
    if spec is None:
        return ()
    if spec.submodule_search_locations:
        return tuple(spec.submodule_search_locations)
    return (spec.origin,) if spec.origin and spec.origin.endswith(".py") else ()


def module_file(dotted: str) -> Optional[str]:
    """The source file of an installed library's module (`pkg/__init__.py` for a package)."""
    parts = dotted.split(".")
    if len(parts) > _MAX_MODULE_DEPTH or not all(part.isidentifier() for part in parts):
        return None
    locations = _top_package_locations(parts[0])
    if len(parts) == 1:
        for location in locations:
            if location.endswith(".py"):
                return location
            init = os.path.join(location, "__init__.py")
            if os.path.isfile(init):
                return init
        return None
    for location in locations:
        if location.endswith(".py"):
            continue  # a plain module has no submodules
        candidate = os.path.join(location, *parts[1:])
        if os.path.isfile(candidate + ".py"):
            return candidate + ".py"
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return os.path.join(candidate, "__init__.py")
    return None


class LibraryClasses:
    """Whether a library class (by qualified name) is an nn.Cell, from the library's source."""

    def __init__(self):
        from mslint.project.classes import ClassIndex  # (classes imports this module)

        self._resolver = resolve.Resolver()
        self._classes = ClassIndex(self._resolver, libraries=self)
        self._answers: Dict[str, Optional[bool]] = {}

    def is_cell(self, qualname: str) -> Optional[bool]:
        """True or False when the library is installed and defines the class; None otherwise."""
        if qualname not in self._answers:
            self._answers[qualname] = None  # a cycle through the libraries' imports ends here
            with resolve.outside_the_project():
                definition = self.class_definition(qualname)
                self._answers[qualname] = self._classes.is_cell(definition) if definition is not None else None
        return self._answers[qualname]

    def class_definition(self, qualname: str) -> Optional[nodes.ClassDef]:
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            path = module_file(".".join(parts[:cut]))
            if path is None:
                continue
            module = self._resolver.module_at(path)
            if module is None:
                return None
            found = self._resolver.member(module, parts[cut:])
            return found if isinstance(found, nodes.ClassDef) else None
        return None


_LIBRARIES: List[LibraryClasses] = []


def library_classes() -> LibraryClasses:
    """The process's one LibraryClasses (a library's source does not change during a run)."""
    if not _LIBRARIES:
        _LIBRARIES.append(LibraryClasses())
    return _LIBRARIES[0]


def clear() -> None:
    _LIBRARIES.clear()
    _top_package_locations.cache_clear()
