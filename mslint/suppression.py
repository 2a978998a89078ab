"""Inline suppression comments: `# mslint: disable=...` and pylint's own `# pylint: disable=...`.

Both spellings accept rule codes (MS101), symbols (tensor-to-numpy-in-graph), pylint ids
(E8101), `mslint` or `all`, comma-separated:

* at the end of a line: that line;
* `disable-next=` on a line of its own: the next line;
* `disable=` on a line of its own: from there to the end of the enclosing block (the
  first later line indented less), as pylint does; `enable=` on its own line ends it.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Optional, Set, Tuple

from mslint.rules import Registry

_PRAGMA_RE = re.compile(r"#\s*(mslint|pylint)\s*:\s*(disable-next|disable|enable)\s*=\s*([\w\-, ]+)")


class Suppressions:
    """Which rules are suppressed on which lines of one file."""

    def __init__(self, source: str, rules: Registry, honour_pylint: bool = True):
        self._lines: Dict[int, Set[str]] = {}  # line -> codes suppressed on exactly that line
        self._ranges: List[Tuple[int, int, str]] = []  # (first, last, code)
        self._parse(source, rules, honour_pylint)

    def is_suppressed(self, code: str, line: int) -> bool:
        if code in self._lines.get(line, ()):
            return True
        return any(first <= line <= last and code == c for first, last, c in self._ranges)

    # -- parsing -----------------------------------------------------------------------
    def _parse(self, source: str, rules: Registry, honour_pylint: bool) -> None:
        if not _PRAGMA_RE.search(source):  # no pragma anywhere: nothing to tokenize
            return
        lines = source.splitlines()
        for line_number, column, text, own_line in _comments(source):
            for match in _PRAGMA_RE.finditer(text):
                tool, action, names = match.groups()
                if tool == "pylint" and not honour_pylint:
                    continue
                codes = _codes(names, rules)
                if not codes:
                    continue
                if action == "disable-next":
                    for code in codes:
                        self._lines.setdefault(line_number + 1, set()).add(code)
                elif action == "disable" and not own_line:
                    self._lines.setdefault(line_number, set()).update(codes)
                elif action == "disable":
                    last = _block_end(lines, line_number, column)
                    self._ranges.extend((line_number, last, code) for code in codes)
                else:  # enable on its own line: cut open ranges short
                    self._ranges = [(first, min(last, line_number - 1) if first <= line_number <= last
                                     and code in codes else last, code)
                                    for first, last, code in self._ranges]


def _codes(names: str, rules: Registry) -> Set[str]:
    codes: Set[str] = set()
    for raw in names.split(","):
        name = raw.strip()
        if not name:
            continue
        if name.lower() in ("all", "mslint"):
            return {rule.code for rule in rules}
        rule = rules.get(name) or _by_pylint_id(name, rules)
        if rule is not None:
            codes.add(rule.code)
    return codes


def _by_pylint_id(name: str, rules: Registry):
    for rule in rules:
        if rule.pylint_id == name.upper():
            return rule
    return None


def _comments(source: str):
    """(line, column, text, is the comment alone on its line) for every comment."""
    if "#" not in source:
        return
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = []
    previous_line_end: Optional[int] = None
    for token in tokens:
        if token.type == tokenize.COMMENT:
            row, column = token.start
            own_line = previous_line_end != row
            yield row, column, token.string, own_line
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            previous_line_end = token.end[0]


def _block_end(lines: List[str], line_number: int, column: int) -> int:
    """The last line of the block a comment at (line, column) sits in."""
    for index in range(line_number, len(lines)):
        text = lines[index]
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(text) - len(text.lstrip())
        if indent < column:
            return index  # 0-based index of the dedented line == 1-based number of the line before it
    return len(lines)
