"""The globs of `exclude`, `extend-exclude` and `per-file-ignores`, matched as ruff and .gitignore do.

A pattern is relative to the directory of the configuration that holds it:

- `./tests/*` is `tests/*` (a leading `./` says "here", which every pattern already means), and
  `/build` is this directory's `build` only;
- `**/` matches zero or more directories (`**/tests/*` matches `tests/test_model.py` and
  `a/b/tests/x.py`), a trailing `/**` everything below, `a/**/b` zero or more directories between;
- `*` and `?` also match `/` (`tests/*` matches `tests/unit/test_x.py`, as `exclude` always did);
- a pattern that matches a directory matches everything under it (`legacy`, `tests/`);
- a pattern without a `/` matches a file or directory name at any depth (`*_pb2.py`, `build`).
"""
from __future__ import annotations

import functools
import re
from typing import Optional


def matches(relative: str, pattern: str) -> bool:
    """Whether the '/'-separated path `relative` (relative to the pattern's directory) matches."""
    pattern = normalized(pattern)
    anchored = pattern.startswith("/")  # `/build`: this directory's build only, as in .gitignore
    pattern = pattern.lstrip("/")
    if not pattern:
        return False
    expression = _compiled(pattern)
    if expression.match(relative):
        return True
    parts = relative.split("/")
    if any(expression.match("/".join(parts[:end])) for end in range(1, len(parts))):
        return True  # a directory on the way: everything under it
    return not anchored and "/" not in pattern and any(expression.match(part) for part in parts)


def normalized(pattern: str) -> str:
    pattern = pattern.replace("\\", "/").strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern.rstrip("/")


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> "re.Pattern":
    return re.compile(translate(pattern, star_crosses_slash=True) + r"\Z", re.DOTALL)


def translate(glob: str, star_crosses_slash: bool = False) -> str:
    """A regular expression (without anchors) for a glob: `**/` is zero or more directories, a
    trailing `/**` everything inside, `[...]` a class (`[!...]` negated), `\\x` the character x.
    `*` and `?` stop at `/` as in .gitignore, unless `star_crosses_slash` (mslint's own globs)."""
    star, one = (".*", ".") if star_crosses_slash else ("[^/]*", "[^/]")
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):  # zero or more directories
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):  # everything inside
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append(star)
            i += 1
        elif glob[i] == "?":
            out.append(one)
            i += 1
        elif glob[i] == "[" and _class_end(glob, i) is not None:
            end = _class_end(glob, i)
            content = glob[i + 1:end]
            if content[:1] in ("!", "^"):
                content = "^" + content[1:]
            out.append("[" + content.replace("\\", "\\\\") + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def _class_end(glob: str, start: int) -> Optional[int]:
    """The index of the `]` closing the character class opened at `start`, or None."""
    position = start + 1
    if glob[position:position + 1] in ("!", "^"):
        position += 1
    if glob[position:position + 1] == "]":  # a leading ] is part of the class
        position += 1
    end = glob.find("]", position)
    return end if end != -1 else None
