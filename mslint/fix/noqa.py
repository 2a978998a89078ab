"""`--add-noqa`: a `# mslint: disable=CODE` comment on the line of every current finding.

A comment already on the line is kept: the new one follows it, or, when it is itself an
`# mslint: disable=` comment, the codes are added to it.  A line that continues with a
backslash cannot end with a comment: it gets `# mslint: disable-next=CODE` on a line of its
own above it (unless that line would itself split a backslash continuation).  A line that
ends inside a multi-line string cannot take a comment without changing the program: such
findings are left alone and listed.  The file is written only if it
still parses, atomically, with its encoding, line endings and permissions.  Running it
again adds nothing: the findings it marked are suppressed.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from mslint.atomic import write_atomically
from mslint.findings import Finding

_BACKSLASH = "the line continues with a backslash"
_DISABLE_NEXT_RE = re.compile(r"^(\s*)#\s*mslint\s*:\s*disable-next\s*=\s*([\w\-]+(?:\s*,\s*[\w\-]+)*)\s*$")
_DISABLE_RE = re.compile(r"#\s*mslint\s*:\s*disable\s*=\s*([\w\-]+(?:\s*,\s*[\w\-]+)*)")
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_FILE_LEVEL = ("MS001", "MS002")  # the file cannot be read or parsed: no line to mark


@dataclass
class Outcome:
    comments: int = 0  # suppression comments added or extended
    files: int = 0
    skipped: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, why)


def add_noqa(findings: List[Finding]) -> Outcome:
    outcome = Outcome()
    by_file: Dict[str, Dict[int, List[str]]] = defaultdict(lambda: defaultdict(list))
    for finding in findings:
        if finding.code not in _FILE_LEVEL and finding.code not in by_file[finding.path][finding.line]:
            by_file[finding.path][finding.line].append(finding.code)
    for path, codes_by_line in sorted(by_file.items()):
        if codes_by_line:
            _add_to_file(path, codes_by_line, outcome)
    return outcome


def _add_to_file(path: str, codes_by_line: Dict[int, List[str]], outcome: Outcome) -> None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        why = f"cannot read the file: {getattr(error, 'strerror', None) or error}"
        outcome.skipped.extend((path, line, why) for line in sorted(codes_by_line))
        return
    lines = _LINE_RE.findall(text)  # as Python counts lines (not str.splitlines: form feeds)
    try:
        blocked, comments = _scan(text)
    except (tokenize.TokenError, SyntaxError):
        outcome.skipped.extend((path, line, "the file cannot be tokenized") for line in sorted(codes_by_line))
        return
    changed = 0
    for line_number, codes in sorted(codes_by_line.items()):
        if not 1 <= line_number <= len(lines):
            continue
        if blocked.get(line_number) == _BACKSLASH and not _continues(lines, line_number - 1):
            changed += _add_next_line_comment(lines, line_number, codes)
            continue
        if line_number in blocked:
            outcome.skipped.append((path, line_number, blocked[line_number]))
            continue
        updated = _with_codes(lines[line_number - 1], codes, comments.get(line_number))
        if updated != lines[line_number - 1]:
            lines[line_number - 1] = updated
            changed += 1
    if not changed:
        return
    new_text = "".join(lines)
    try:
        ast.parse(new_text)
    except (SyntaxError, ValueError):  # never leave a file that does not parse
        outcome.skipped.extend((path, line, "the comments would not parse") for line in sorted(codes_by_line))
        return
    try:
        write_atomically(path, new_text.encode(encoding))
    except OSError as error:
        outcome.skipped.extend((path, line, f"cannot write the file: {error.strerror or error}")
                               for line in sorted(codes_by_line))
        return
    outcome.comments += changed
    outcome.files += 1


def _with_codes(line: str, codes: List[str], comment_start: Optional[int]) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    existing = _DISABLE_RE.search(body, comment_start) if comment_start is not None else None
    if existing:
        present = {name.strip().upper() for name in existing.group(1).split(",")}
        missing = [code for code in codes if code not in present]
        if not missing:
            return line
        end = existing.end(1)
        return body[:end] + "," + ",".join(missing) + body[end:] + ending
    return body.rstrip() + "  # mslint: disable=" + ",".join(codes) + ending


def _continues(lines: List[str], line_number: int) -> bool:
    """Line `line_number` (1-based) ends with a backslash: a comment line after it would split the statement."""
    return 1 <= line_number <= len(lines) and lines[line_number - 1].rstrip("\r\n").endswith("\\")


def _add_next_line_comment(lines: List[str], line_number: int, codes: List[str]) -> int:
    """`# mslint: disable-next=CODES` above the line (or the codes added to one already there);
    1 if something changed.  The comment is joined to the line's text, so later line numbers hold."""
    line = lines[line_number - 1]
    body = line.rstrip("\r\n")
    ending = line[len(body):] or "\n"
    previous = lines[line_number - 2] if line_number > 1 else ""
    existing = _DISABLE_NEXT_RE.match(previous.rstrip("\r\n"))
    if existing:
        present = {name.strip().upper() for name in existing.group(2).split(",")}
        missing = [code for code in codes if code not in present]
        if not missing:
            return 0
        end = existing.end(2)
        lines[line_number - 2] = previous[:end] + "," + ",".join(missing) + previous[end:]
        return 1
    indent = body[:len(body) - len(body.lstrip())]
    lines[line_number - 1] = f"{indent}# mslint: disable-next={','.join(codes)}{ending}{line}"
    return 1


def _scan(text: str) -> Tuple[Dict[int, str], Dict[int, int]]:
    """(lines that cannot end with a comment -> why, line -> column where its comment starts)."""
    blocked: Dict[int, str] = {}
    comments: Dict[int, int] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
        elif token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            for line in range(token.start[0], token.end[0]):
                blocked[line] = "the line ends inside a multi-line string"
    for number, line in enumerate(_LINE_RE.findall(text), start=1):
        if line.rstrip("\r\n").endswith("\\") and number not in blocked and number not in comments:
            blocked[number] = _BACKSLASH
    return blocked, comments
