"""Fixes: text edits a rule attaches to a finding, and applying them to a file's text safely.

Positions are those of findings: 1-based lines, 0-based UTF-8 byte columns (astroid's
col_offset), so an edit is computed straight from a node of the parsed tree.  Applying
converts them to character offsets line by line (a line with non-ASCII text has fewer
characters than bytes), so comments and formatting around an edit are kept exactly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

SAFE, UNSAFE = "safe", "unsafe"

# Rules that can attach a fix, and what kind (shown by --list-rules; the rule pages say why).
FIXABLE: Dict[str, str] = {
    "MS801": SAFE,
    "MS813": SAFE,  # mindspore.common.api -> mindspore / mindspore.graph.api: the same objects
    "MS703": UNSAFE,  # the value reads as a drop rate: p=<value> or p=1 - <value> is a human's call
    "MS711": SAFE,  # a keep rate: p=1 - k keeps what the layer does
    "MS704": UNSAFE,
    "MS701": SAFE,
    "MS709": SAFE,
    "MS504": SAFE,
    "MS802": UNSAFE,
    "MS501": UNSAFE,
    "MS601": UNSAFE,
    "MS807": UNSAFE,
}

# Only these line breaks end a line for Python's tokenizer (str.splitlines also splits on \f, \x1c...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column) with `content`."""
    line: int
    column: int  # 0-based UTF-8 byte offset, like Finding.column
    end_line: int
    end_column: int
    content: str

    def as_tuple(self) -> list:
        return [self.line, self.column, self.end_line, self.end_column, self.content]


@dataclass(frozen=True)
class Fix:
    applicability: str  # SAFE: behaviour kept or restored exactly as documented; UNSAFE: needs a human look
    message: str
    edits: Tuple[Edit, ...]

    def encode(self) -> list:
        """A JSON-ready form (the result cache stores it)."""
        return [self.applicability, self.message, [e.as_tuple() for e in self.edits]]

    @classmethod
    def decode(cls, item) -> Optional["Fix"]:
        if not item:
            return None
        applicability, message, edits = item
        return cls(applicability, message, tuple(Edit(*e) for e in edits))


def applicable(finding, unsafe: bool) -> bool:
    """Whether --fix applies this finding's fix (unsafe ones only with --unsafe-fixes)."""
    return finding.fix is not None and (unsafe or finding.fix.applicability == SAFE)


def fixable_summary(findings: Sequence, unsafe: bool) -> Optional[str]:
    """The line under the text report saying how many findings a flag would fix."""
    ready = sum(1 for f in findings if applicable(f, unsafe))
    hidden = sum(1 for f in findings if f.fix is not None and not applicable(f, unsafe))
    parts = []
    if ready:
        flag = "mslint --fix --unsafe-fixes" if unsafe else "mslint --fix"
        parts.append(f"[*] {ready} fixable with `{flag}`.")
    if hidden:
        parts.append(f"{hidden}{' more' if ready else ''} fixable with `mslint --fix --unsafe-fixes` "
                     "(unsafe fixes: review them).")
    return " ".join(parts) or None


# -- edits from nodes ------------------------------------------------------------------------
def replace_node(node, content: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, content)


def insert_after(node, content: str) -> Edit:
    return Edit(node.end_lineno, node.end_col_offset, node.end_lineno, node.end_col_offset, content)


def insert_before(node, content: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.lineno, node.col_offset, content)


def fix(applicability: str, message: str, *edits: Edit) -> Fix:
    return Fix(applicability, message, tuple(edits))


# -- the source text, for edits the tree has no node for (the names of an import) ------------
def source_lines(ctx) -> Optional[List[str]]:
    """The module's lines as the linter parsed them (no BOM; line breaks removed), or None."""
    if "fix.lines" not in ctx.memo:
        ctx.memo["fix.lines"] = _read_lines(ctx.module)
    return ctx.memo["fix.lines"]


def _read_lines(module) -> Optional[List[str]]:
    import io
    import tokenize

    try:
        with module.stream() as stream:
            data = stream.read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except Exception:  # noqa: BLE001 - no text, no fix: the finding stays
        return None
    return _LINE_BREAK.split(text[1:] if text.startswith("\ufeff") else text)


@dataclass(frozen=True)
class Token:
    kind: int  # tokenize's token type
    string: str
    line: int
    column: int  # 0-based UTF-8 byte offset, as node positions
    end_line: int
    end_column: int

    def edit(self, content: str) -> Edit:
        return Edit(self.line, self.column, self.end_line, self.end_column, content)


def statement_tokens(ctx, node) -> Optional[List[Token]]:
    """The tokens of a (simple) statement node, with node-style positions; None if unavailable."""
    import io
    import tokenize

    lines = source_lines(ctx)
    if lines is None or node.end_lineno is None or node.end_lineno > len(lines):
        return None
    chunk = lines[node.lineno - 1:node.end_lineno]
    first = chunk[0]
    prefix = first.encode("utf-8", "surrogatepass")[:node.col_offset].decode("utf-8", "surrogatepass")
    chunk = [" " * node.col_offset + first[len(prefix):]] + chunk[1:]  # ASCII prefix: bytes = characters
    tokens: List[Token] = []
    try:
        for kind, string, start, end, _ in tokenize.generate_tokens(io.StringIO("\n".join(chunk) + "\n").readline):
            line, end_line = start[0] + node.lineno - 1, end[0] + node.lineno - 1
            if (line, start[1]) >= (node.end_lineno, len(chunk[-1])):
                break
            if kind not in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING):
                continue  # indentation, comments and line breaks are not what an edit replaces
            tokens.append(Token(kind, string, line, _bytes(chunk[start[0] - 1], start[1]), end_line,
                                _bytes(chunk[end[0] - 1], end[1])))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # text after the statement on its last line: the statement's own tokens are already read
    end = (node.end_lineno, node.end_col_offset)
    return [t for t in tokens if (t.end_line, t.end_column) <= end]


def _bytes(line: str, character_column: int) -> int:
    return len(line[:character_column].encode("utf-8", "surrogatepass"))


def display_to_tuple(ctx, display, applicability: str, message: str) -> Optional[Fix]:
    """[A, B] or {A, B} -> (A, B), [A] -> (A,): only the brackets change, so comments and line
    breaks inside stay."""
    from dataclasses import replace

    edits = [Edit(display.lineno, display.col_offset, display.lineno, display.col_offset + 1, "("),
             Edit(display.end_lineno, display.end_col_offset - 1, display.end_lineno, display.end_col_offset, ")")]
    if len(display.elts) == 1:
        tokens = statement_tokens(ctx, display)
        if tokens is None:
            return None
        element = display.elts[0]
        if tokens[-2].string == ",":
            pass  # [A,] -> (A,)
        elif (element.end_lineno, element.end_col_offset) == (edits[1].line, edits[1].column):
            edits[1] = replace(edits[1], content=",)")  # (A) is A, (A,) is a tuple
        else:
            edits.insert(1, insert_after(element, ","))
    return fix(applicability, message, *edits)


# -- applying --------------------------------------------------------------------------------
class _Lines:
    """Character offsets of (line, byte column) positions in one text."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def offset(self, line: int, byte_column: int) -> Optional[int]:
        if not 1 <= line <= len(self.starts):
            return None
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        content = _LINE_BREAK.sub("", self.text[start:end])
        encoded = content.encode("utf-8", "surrogatepass")
        if byte_column > len(encoded):
            return None
        try:
            return start + len(encoded[:byte_column].decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:  # a column inside a character: not a position the parser gave
            return None


def character_range(lines: _Lines, edit: Edit) -> Optional[Tuple[int, int]]:
    start = lines.offset(edit.line, edit.column)
    end = lines.offset(edit.end_line, edit.end_column)
    if start is None or end is None or end < start:
        return None
    return start, end


def apply_fixes(text: str, fixes: Sequence[Fix]) -> Tuple[str, List[Fix], List[Fix]]:
    """(new text, fixes applied, fixes left out).  A fix is applied whole or not at all; one
    whose edits overlap an earlier fix's (or each other, or fall outside the text) is left out,
    and a later pass may apply it to the new text."""
    lines = _Lines(text)
    taken: List[Tuple[int, int]] = []
    replacements: List[Tuple[int, int, str]] = []
    applied: List[Fix] = []
    skipped: List[Fix] = []
    ordered = sorted(fixes, key=lambda f: min(((e.line, e.column) for e in f.edits), default=(0, 0)))
    for candidate in ordered:
        ranges = [character_range(lines, e) for e in candidate.edits]
        if not ranges or None in ranges or _overlapping(ranges, taken) or \
                any(_overlapping(ranges[i + 1:], [r]) for i, r in enumerate(ranges)):
            skipped.append(candidate)
            continue
        taken.extend(ranges)
        replacements.extend((start, end, e.content) for (start, end), e in zip(ranges, candidate.edits))
        applied.append(candidate)
    pieces = []
    position = 0
    for start, end, content in sorted(replacements, key=lambda r: (r[0], r[1])):
        pieces.append(text[position:start])
        pieces.append(content)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), applied, skipped


def _overlapping(ranges, others) -> bool:
    """Two ranges overlap when they share a character, or when both start at the same point
    (two insertions there would have no defined order)."""
    for start, end in ranges:
        for other_start, other_end in others:
            if start == other_start or (start < other_end and other_start < end):
                return True
    return False


def parses(text: str) -> Optional[str]:
    """None when `text` compiles as Python (nothing runs: compile only), else the reason."""
    try:
        compile(text, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {getattr(error, 'msg', None) or error}"
    return None
