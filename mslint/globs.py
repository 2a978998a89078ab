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
    out = []
    position = 0
    while position < len(pattern):
        if pattern.startswith("**/", position) and (position == 0 or pattern[position - 1] == "/"):
            out.append("(?:.*/)?")  # zero or more directories
            position += 3
        elif pattern.startswith("/**", position) and position + 3 == len(pattern):
            out.append("(?:/.*)?")
            position += 3
        elif pattern[position] == "*":
            out.append(".*")
            position += 1
        elif pattern[position] == "?":
            out.append(".")
            position += 1
        elif pattern[position] == "[":
            end = pattern.find("]", position + 2 if pattern[position + 1:position + 2] in ("!", "]") else position + 1)
            if end < 0:
                out.append(re.escape("["))
                position += 1
                continue
            body = pattern[position + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            position = end + 1
        else:
            out.append(re.escape(pattern[position]))
            position += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)
