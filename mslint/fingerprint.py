"""What identifies this mslint: its version, the Python and astroid it runs on, and a digest
of its own code and data.  Results computed by other code are never reused: the result cache
and the rule-metadata snapshot are both named by this digest."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from typing import Optional

from mslint import __version__

_PACKAGE_DIRECTORY = os.path.dirname(os.path.abspath(__file__))

_CODE_DIGEST: Optional[str] = None


def code_digest() -> str:
    """A digest of mslint's own code and data (the engine and every checker) and of the
    parser versions, so an upgrade or a local edit of a rule never reuses stale results."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        digest = hashlib.sha256(f"{__version__} {sys.version_info[:2]} {astroid_version()}".encode())
        for directory in sorted({_PACKAGE_DIRECTORY, _checkers_directory()}):
            for folder, subfolders, files in os.walk(directory):
                subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".json")):
                        with open(os.path.join(folder, name), "rb") as handle:
                            digest.update(name.encode() + b"\0" + handle.read())
        _CODE_DIGEST = digest.hexdigest()
    return _CODE_DIGEST


def _checkers_directory() -> str:
    # found, not imported: importing the checkers loads astroid, which a warm run never needs
    spec = importlib.util.find_spec("mslint.checkers")
    return os.path.abspath(list(spec.submodule_search_locations)[0])


_VERSION_LINE = re.compile(rb"""^__version__\s*=\s*["']([^"']+)["']""", re.MULTILINE)


def astroid_version() -> str:
    """astroid's version, read from its __pkginfo__.py (importing astroid, or asking
    importlib.metadata, costs a warm run more than all its other work)."""
    try:
        spec = importlib.util.find_spec("astroid")
        with open(os.path.join(os.path.dirname(spec.origin), "__pkginfo__.py"), "rb") as handle:
            found = _VERSION_LINE.search(handle.read())
        return found.group(1).decode() if found else "?"
    except (AttributeError, ImportError, OSError, TypeError):  # not found: the digest still covers mslint
        return "?"
