"""Parsing an edited buffer again from the statements of its last parse that nobody changed.

The language server parses the whole buffer after every keystroke (on a 3,000-line file about
15 ms, a tenth of an edit).  Most of its top-level statements are the same text at the same
place as in the last parse, and a statement's tree depends only on its own text.  So a new
text is parsed as pieces: each top-level statement of the last parse whose lines are unchanged
is taken as it is, and the text between them (the gaps: what changed, and comments) is parsed
on its own, its line numbers moved to where it stands.  The pieces are one module's tree,
the same as a parse of the whole text gives, when:

- each gap parses on its own: a gap starts and ends at a top-level statement's boundary, so
  an open bracket or string, a decorator without its definition, an indented line that would
  belong to the statement before or an `else:` after it makes the gap fail to parse;
- no gap holds a `__future__` import (placed after other statements it is an error that a
  parse of the gap alone would not see).

Otherwise, and on any error, the whole text is parsed (which then reports the error).

Only statements no reader changed are kept: astroid's builder moves a docstring out of a
definition's body, so a definition is kept only when the builder reused its last node instead
of building it (mslint.run.reused_statements), and any other statement only when its text
spells no `def` or `class` (its tree has no docstring to move).  A kept definition that the
builder is to build after all (its last tree was dropped) is copied first: another text's
tree may hold it.  Statements that share a line (`a = 1; b = 2`) are never kept.
"""
from __future__ import annotations

import ast
import re
import threading
from collections import OrderedDict
from typing import Dict, Iterable, List, Optional, Tuple

KEPT = 4  # buffers whose last statements are kept (each costs a tree's memory)
Key = Tuple[int, int, str]  # first line, last line, their text

_LOCK = threading.Lock()
_SPELLS_A_DEFINITION = re.compile(r"\b(?:def|class)\b")
_TYPE_COMMENT = re.compile(r"#\s*type:")  # (such a gap is parsed with the whole text: see parsed.parse)


class _Kept:
    __slots__ = ("statements", "type_ignores")

    def __init__(self, statements: Dict[Key, ast.stmt], type_ignores: List[ast.TypeIgnore]):
        self.statements = statements
        self.type_ignores = type_ignores


_LAST: "OrderedDict[str, _Kept]" = OrderedDict()


def source_lines(text: str) -> List[str]:
    """The text's lines as Python's parser counts them (form feeds and Unicode separators
    do not end a line there, unlike in str.splitlines)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def first_line(statement: ast.stmt) -> int:
    """A statement's first line: its first decorator's, for a decorated definition."""
    decorators = getattr(statement, "decorator_list", None)
    return decorators[0].lineno if decorators else statement.lineno


def segment(lines: List[str], first: int, last: int) -> str:
    """The text of lines `first` to `last` (counted from 1, as the parser counts them)."""
    return "\n".join(lines[first - 1:last])


def statement_text(statement: ast.stmt, lines: List[str]) -> str:
    """A top-level statement's lines, from its first decorator's."""
    return segment(lines, first_line(statement), statement.end_lineno)


def remember(path: str, lines: List[str], statements: Iterable[ast.stmt], every: List[ast.stmt],
             type_ignores: List[ast.TypeIgnore]) -> None:
    """Keep `statements` (top-level statements of a tree that nobody will change; `lines` are
    its text's (source_lines), `every` its whole body, to tell which share a line) for the
    next parse of `path`."""
    shared = set()
    for before, after in zip(every, every[1:]):
        if before.end_lineno is None or before.end_lineno >= first_line(after):
            shared.update((id(before), id(after)))
    kept = {}
    for statement in statements:
        if id(statement) in shared or statement.end_lineno is None:
            continue
        kept[(first_line(statement), statement.end_lineno, statement_text(statement, lines))] = statement
    with _LOCK:
        _LAST[path] = _Kept(kept, list(type_ignores))
        _LAST.move_to_end(path)
        while len(_LAST) > KEPT:
            _LAST.popitem(last=False)


def kept_here(path: str) -> set:
    """The ids of the statements kept for `path` (they may stand in several texts' trees)."""
    with _LOCK:
        kept = _LAST.get(path)
    return set() if kept is None else {id(statement) for statement in kept.statements.values()}


def forget(path: str) -> None:
    with _LOCK:
        _LAST.pop(path, None)


def may_change(statement: ast.stmt, lines: List[str]) -> bool:
    """Whether astroid's builder may change the statement's tree when it builds it (it moves
    a definition's docstring out of its body): a definition, or text that spells one."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or statement.end_lineno is None:
        return True
    return _SPELLS_A_DEFINITION.search(statement_text(statement, lines)) is not None


def assemble(path: str, text: str) -> Optional[ast.Module]:
    """The tree of `text` from the kept statements of `path` and parses of the gaps between
    them (see above); None when that cannot be done, and the whole text is to be parsed."""
    with _LOCK:
        kept = _LAST.get(path)
    if kept is None or not kept.statements:
        return None
    try:
        return _assemble(kept, text)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None


_SHORT_TEXT = 200  # lines: below this, what is parsed one way or the other costs little


def _assemble(kept: _Kept, text: str) -> Optional[ast.Module]:
    lines = source_lines(text)
    taken = sorted(((first, last, statement) for (first, last, seg), statement in kept.statements.items()
                    if last <= len(lines) and segment(lines, first, last) == seg), key=lambda item: item[0])
    # a gap's parse and the shift of its line numbers cost about twice a parse of its lines:
    # in a long text whose kept statements hold less than half of it, parsing it whole is
    # faster (the first edit after opening a file: 70 ms against 28 on 3,000 lines)
    if len(lines) > _SHORT_TEXT and 2 * sum(last - first + 1 for first, last, _ in taken) < len(lines):
        return None
    body: List[ast.stmt] = []
    type_ignores = [ignore for ignore in kept.type_ignores
                    if any(first <= ignore.lineno <= last for first, last, _ in taken)]
    line = 1  # the first line of the next gap
    for first, last, statement in taken + [(len(lines) + 1, len(lines), None)]:
        if first > line:
            gap = _parse_gap(lines[line - 1:first - 1], line, first > len(lines))
            if gap is None:
                return None
            body.extend(gap.body)
            type_ignores.extend(gap.type_ignores)
        if statement is not None:
            body.append(statement)
        line = last + 1
    type_ignores.sort(key=lambda ignore: ignore.lineno)
    return ast.Module(body=body, type_ignores=type_ignores)


def _parse_gap(gap_lines: List[str], start: int, at_end: bool) -> Optional[ast.Module]:
    gap = "\n".join(gap_lines) + ("\n" if at_end else "")  # (the whole text is parsed with a newline added)
    if "__future__" in gap or _TYPE_COMMENT.search(gap):
        return None
    tree = ast.parse(gap + "\n", type_comments=True)
    if start > 1:
        ast.increment_lineno(tree, start - 1)
    return tree
