"""One `ast` parse of a text for everything that reads it during a run.

The language server lints the edited buffer on every change, and four readers parsed the
same text in turn: the syntax check, the project's program facts, the result cache's
module parts and astroid's builder (on a 3,000-line file, about 30 ms each on this
machine).  They now share one tree.  The tree is parsed as astroid parses (type comments
on; off again when a misplaced `# type:` comment is what fails), so every reader sees
exactly what astroid would see.

Readers must not change the tree, except astroid's builder, which moves a docstring out
of its node's body: it `take`s the tree, which forgets it, so nobody reads it afterwards.
Only the last few texts the syntax check parsed are kept (a run over a large tree must not
hold every tree).
"""
from __future__ import annotations

import ast
import io
import re
import threading
import tokenize
from collections import OrderedDict
from typing import Optional, Union

from mslint import reparse

KEPT = 4  # texts whose trees are kept: the buffers being edited
_TREES: "OrderedDict[str, ast.Module]" = OrderedDict()
_LOCK = threading.Lock()  # the server lints in a worker thread, and computes fix-all in its main one
_TYPE_COMMENT = re.compile(r"#\s+type:")


def tree(source: Union[str, bytes], keep: bool = False, path: Optional[str] = None) -> ast.Module:
    """The text's tree: the kept one if there is one, else parsed (and kept with `keep`:
    the syntax check keeps the tree of the text about to be built; a reader of many files,
    whose trees nobody reads again, does not).  With `path`, an edited buffer's text may be
    parsed from the unchanged statements of its last parse (mslint.reparse).  Raises what `ast.parse` raises (SyntaxError,
    ValueError, MemoryError, RecursionError).  Bytes are decoded as Python decodes a source
    file (which may raise UnicodeDecodeError, or SyntaxError for an unknown coding)."""
    text = decode(source) if isinstance(source, bytes) else source
    with _LOCK:
        found = _TREES.get(text)
        if found is not None:
            _TREES.move_to_end(text)
            return found
    found = reparse.assemble(path, text) if path is not None else None  # (an edited buffer: see mslint.reparse)
    if found is None:
        found = parse(text)
    if keep:
        keep_tree(text, found)
    return found


def keep_tree(text: str, found: ast.Module) -> None:
    """Keep a tree a reader parsed, for the builder that is about to build the same text."""
    with _LOCK:
        _TREES[text] = found
        while len(_TREES) > KEPT:
            _TREES.popitem(last=False)


def take(text: str) -> ast.Module:
    """The text's tree for a reader that changes it (astroid's builder): the shared one,
    which is then forgotten, or a new one."""
    with _LOCK:
        found = _TREES.pop(text, None)
    return found if found is not None else parse(text)


def parse(text: str) -> ast.Module:
    """`ast.parse` as astroid's builder calls it."""
    try:
        return ast.parse(text + "\n", type_comments=True)
    except SyntaxError as error:
        if not _TYPE_COMMENT.search(error.text or ""):
            raise
        return ast.parse(text + "\n", type_comments=False)


def decode(data: bytes) -> str:
    """A source file's text: decoded by its coding cookie or BOM, else as UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text
