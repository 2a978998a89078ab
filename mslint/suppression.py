"""Inline suppression comments: `# mslint: disable=...`, pylint's own `# pylint: disable=...`
and ruff's / flake8's `# noqa: MS101`.

The first two accept rule codes (MS101), code prefixes (MS1, MS10), symbols
(tensor-to-numpy-in-graph), pylint ids (E8101), `mslint` or `all`, comma-separated:

* at the end of a line: that line;
* `disable-next=` on a line of its own: the next line;
* `disable=` on a line of its own: from there to the end of the enclosing block (the
  first later line indented less), as pylint does; `enable=` on its own line ends it.

`# noqa: MS101, MS102` suppresses those rules (codes and prefixes; other tools' codes such as
E501 are theirs and left alone) on its own line, and a bare `# noqa` every rule there, as in ruff.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from mslint.findings import Finding
from mslint.rules import USELESS_SUPPRESSION, Registry

_PRAGMA_RE = re.compile(r"#\s*(mslint|pylint)\s*:\s*(disable-next|disable|enable)\s*=\s*([\w\-, ]+)")
# ruff's grammar: `# noqa`, or `# noqa:` and codes separated by commas or spaces (case-insensitive noqa)
_NOQA_RE = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_ANY_PRAGMA_RE = re.compile(f"{_PRAGMA_RE.pattern}|{_NOQA_RE.pattern}", re.IGNORECASE)
BARE_NOQA = "noqa"  # the name a bare `# noqa` pragma has


@dataclass
class Pragma:
    """One name in one `disable` / `disable-next` comment, and whether it suppressed anything."""

    tool: str  # "mslint", "pylint" or "noqa"
    action: str  # "disable" or "disable-next"
    name: str  # as written: MS101, a symbol, E8101, all
    codes: Set[str]  # the rule codes it names (empty: names no rule)
    line: int
    column: int  # 0-based character offset of the name in the line
    scope: str  # "line", "next line" or "block"
    used: Set[str] = field(default_factory=set)  # codes it suppressed a finding of


class Suppressions:
    """Which rules are suppressed on which lines of one file, and which pragmas did it."""

    def __init__(self, source: str, rules: Registry, honour_pylint: bool = True):
        self._lines: Dict[int, List[Tuple[str, Pragma]]] = {}  # line -> (code, pragma) for exactly that line
        self._ranges: List[Tuple[int, int, str, Pragma]] = []  # (first, last, code, pragma)
        self.pragmas: List[Pragma] = []
        self._parse(source, rules, honour_pylint)

    def is_suppressed(self, code: str, line: int, by_name_only: bool = False) -> bool:
        """Whether a finding of `code` on `line` is suppressed; marks the pragmas that do it.
        `by_name_only`: only pragmas naming that one rule count (not `all`)."""
        suppressed = False
        candidates = list(self._lines.get(line, ()))
        candidates += [(c, p) for first, last, c, p in self._ranges if first <= line <= last]
        for suppressed_code, pragma in candidates:
            if suppressed_code == code and (not by_name_only or pragma.codes == {code}):
                pragma.used.add(code)
                suppressed = True
        return suppressed

    def unused(self, tool: str = "mslint") -> List[Pragma]:
        """`tool`'s disable pragmas that suppressed no finding (or name no rule)."""
        return [p for p in self.pragmas if p.tool == tool and not p.used]

    def unknown(self) -> List[Pragma]:
        """Names that look like mslint's and name no rule (`disable=MS999`, `# noqa: MS999`, a
        misspelt symbol); pylint's pragmas and other tools' noqa codes are not ours to judge."""
        return [p for p in self.pragmas if not p.codes and (
            p.tool == "mslint" or (p.tool == "noqa" and p.name.upper().startswith("MS")))]

    # -- parsing -----------------------------------------------------------------------
    def _parse_noqa(self, line_number: int, column: int, text: str, rules: Registry) -> None:
        """`# noqa` (every rule) or `# noqa: CODE, CODE` on this line, wherever the comment is."""
        match = _NOQA_RE.search(text)
        if match is None:
            return
        if match.group("codes") is None:
            names = [(match.start(), BARE_NOQA)]
            everything = {rule.code for rule in rules}
        else:
            start = match.start("codes")
            names = [(start + found.start(), found.group()) for found in re.finditer(r"[A-Za-z]+[0-9]+",
                                                                                    match.group("codes"))]
            everything = None
        for offset, name in names:
            codes = everything if everything is not None else _codes(name, rules)
            pragma = Pragma("noqa", "disable", name, codes, line_number, column + offset, "line")
            self.pragmas.append(pragma)
            for code in sorted(codes):
                self._lines.setdefault(line_number, []).append((code, pragma))

    def _parse(self, source: str, rules: Registry, honour_pylint: bool) -> None:
        if not _ANY_PRAGMA_RE.search(source):  # no pragma anywhere: nothing to tokenize
            return
        lines = source.splitlines()
        for line_number, column, text, own_line in _comments(source):
            self._parse_noqa(line_number, column, text, rules)
            for match in _PRAGMA_RE.finditer(text):
                tool, action, names = match.groups()
                if tool == "pylint" and not honour_pylint:
                    continue
                if action == "enable":  # on its own line: cut open ranges short
                    codes = _codes(names, rules)
                    self._ranges = [(first, min(last, line_number - 1) if first <= line_number <= last
                                     and code in codes else last, code, pragma)
                                    for first, last, code, pragma in self._ranges]
                    continue
                scope = "next line" if action == "disable-next" else "block" if own_line else "line"
                last = _block_end(lines, line_number, column) if scope == "block" else None
                names_start = column + match.start(3)
                for offset, name in _names(names):
                    pragma = Pragma(tool, action, name, _codes(name, rules), line_number, names_start + offset, scope)
                    self.pragmas.append(pragma)
                    for code in sorted(pragma.codes):
                        if scope == "block":
                            self._ranges.append((line_number, last, code, pragma))
                        else:
                            target = line_number + 1 if scope == "next line" else line_number
                            self._lines.setdefault(target, []).append((code, pragma))


def useless_suppressions(suppressions: Suppressions, enabled: Dict[str, bool], path: str,
                         source: str) -> List[Finding]:
    """MS006 findings: `# mslint:` disable pragmas that suppressed nothing.

    Call it after every other finding went through `suppressions.is_suppressed`.  A name
    is judged only when a rule it names ran on this file (a pragma for a rule that is
    not selected may serve another configuration); a name that is no rule is always
    useless.  `# mslint: disable=unused-suppression` (by that name, not `all`) keeps a
    pragma on its line on purpose.
    """
    lines = source.splitlines()
    findings = []
    # a noqa naming other tools' codes, or a bare one, serves them too: only its mslint codes are judged
    unused = suppressions.unused("mslint") + [p for p in suppressions.unused("noqa")
                                               if p.name != BARE_NOQA and p.name.upper().startswith("MS")]
    keepers = [p for p in unused if p.codes == {USELESS_SUPPRESSION.code}]
    for pragma in unused:
        if pragma.codes == {USELESS_SUPPRESSION.code}:
            continue  # a keeper: judged last, by whether it kept an MS006 finding quiet
        finding = _useless(pragma, enabled, path, lines)
        if finding and not suppressions.is_suppressed(finding.code, finding.line, by_name_only=True):
            findings.append(finding)
    findings.extend(f for f in (_useless(p, enabled, path, lines) for p in keepers if not p.used) if f)
    return findings


def _useless(pragma: Pragma, enabled: Dict[str, bool], path: str, lines: List[str]) -> Optional[Finding]:
    spelled = f"`# noqa: {pragma.name}`" if pragma.tool == "noqa" else f"`# mslint: {pragma.action}={pragma.name}`"
    if not pragma.codes:
        message = f"{spelled} names no mslint rule: it suppresses nothing"
    elif any(enabled.get(code) for code in pragma.codes):
        where = {"line": "on this line", "next line": "on the next line", "block": "in this block"}[pragma.scope]
        which = "no finding" if len(pragma.codes) > 1 else f"no {next(iter(pragma.codes))} finding"
        message = f"{spelled} suppresses nothing: there is {which} {where}"
    else:
        return None
    text = lines[pragma.line - 1] if pragma.line <= len(lines) else ""
    start = len(text[:pragma.column].encode("utf-8"))
    end = start + len(pragma.name.encode("utf-8"))
    return Finding(USELESS_SUPPRESSION, path, pragma.line, start, pragma.line, end, message)


def _names(names: str):
    """(offset, name) for each comma-separated name."""
    offset = 0
    for raw in names.split(","):
        name = raw.strip()
        if name:
            yield offset + raw.index(name), name
        offset += len(raw) + 1


def _codes(names: str, rules: Registry) -> Set[str]:
    codes: Set[str] = set()
    for raw in names.split(","):
        name = raw.strip()
        if not name:
            continue
        if name.lower() in ("all", "mslint"):
            return {rule.code for rule in rules}
        codes.update(rule.code for rule in rules.matching(name))  # a code, a prefix (MS1), a symbol, a pylint id
    return codes


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
