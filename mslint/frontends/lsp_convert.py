"""mslint's findings in the Language Server Protocol's terms: diagnostics, quick fixes, hovers.

Pure functions of findings and document texts (the server in mslint/frontends/server.py does the I/O).
Findings hold 1-based lines and 0-based UTF-8 byte columns; LSP positions are 0-based lines
and columns counted in the code units of the encoding the client and server agreed on at
initialisation (UTF-8 bytes, UTF-16 code units, the protocol's default, or UTF-32 code points).
Every column is converted through the text of its line, and a column that would fall inside
a character is moved back to that character's start, so no range or edit splits one.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Iterable, List, Optional, Sequence
from urllib.parse import quote, unquote, urlparse

from lsprotocol import types as lsp

from mslint import fixes as fixes_module
from mslint.findings import Finding

SOURCE = "mslint"
FIX_ALL_KIND = "source.fixAll.mslint"
_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "info": lsp.DiagnosticSeverity.Information}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PRAGMA = re.compile(r"#\s*mslint\s*:\s*disable\s*=\s*([\w\-, ]+)")


# -- paths and positions ------------------------------------------------------------------------
def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return os.path.abspath(unquote(parsed.path)) if parsed.scheme == "file" else uri


def path_to_uri(path: str) -> str:
    return "file://" + quote(os.path.abspath(path))


def lines_of(text: str) -> List[str]:
    """The lines of a text as Python's tokenizer splits them (\\r\\n, \\r or \\n), without breaks."""
    return _LINE_BREAK.split(text)


UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"  # lsp.PositionEncodingKind's values
ENCODINGS = (UTF8, UTF16, UTF32)


def units(text: str, encoding: str = UTF16) -> int:
    """The length of a text in the code units of a position encoding."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def client_column(line_text: str, byte_column: Optional[int], encoding: str = UTF16) -> int:
    """The column, in the encoding's code units, of a 0-based UTF-8 byte offset into a line:
    clamped to the line, and moved back to the start of a character it would cut."""
    if not line_text or not byte_column or byte_column < 0:
        return 0
    prefix = line_text.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "ignore")
    return units(prefix, encoding)


def _position(lines: Sequence[str], line: int, column: Optional[int], encoding: str = UTF16) -> lsp.Position:
    index = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[index] if lines else ""
    return lsp.Position(line=index, character=client_column(text, column or 0, encoding))


def finding_range(finding: Finding, lines: Sequence[str], encoding: str = UTF16) -> lsp.Range:
    start = _position(lines, finding.line, finding.column, encoding)
    if finding.end_line is None or finding.end_column is None:
        index = start.line
        end = lsp.Position(line=index, character=units(lines[index] if lines else "", encoding))
    else:
        end = _position(lines, finding.end_line, finding.end_column, encoding)
    return lsp.Range(start=start, end=end)


# -- diagnostics --------------------------------------------------------------------------------
def diagnostic(finding: Finding, lines: Sequence[str], lines_of_file, encoding: str = UTF16) -> lsp.Diagnostic:
    """`lines_of_file(path)` gives another file's lines, for the call chain's locations."""
    related = []
    for call in finding.calls:
        call_lines = lines_of_file(call.path) or []
        call_range = lsp.Range(start=_position(call_lines, call.line, call.column, encoding),
                               end=_position(call_lines, call.end_line or call.line,
                                             call.end_column if call.end_column is not None else call.column,
                                             encoding))
        related.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=path_to_uri(call.path), range=call_range),
            message=f"graph code reaches this through the call of {call.callee}"))
    for place in finding.related:  # the downstream calls that need their own change (MS101)
        place_lines = lines_of_file(place.path) or []
        start = _position(place_lines, place.line, place.column, encoding)
        related.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=path_to_uri(place.path), range=lsp.Range(start=start, end=start)),
            message=place.message))
    tags = [lsp.DiagnosticTag.Deprecated] if "deprecated" in finding.rule.symbol else None
    return lsp.Diagnostic(
        range=finding_range(finding, lines, encoding),
        message=finding.message,
        severity=_SEVERITY.get(finding.rule.severity, lsp.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=lsp.CodeDescription(href=finding.rule.url),
        source=SOURCE,
        related_information=related or None,
        tags=tags,
        data={"symbol": finding.symbol, "fixable": finding.fix.applicability if finding.fix else None},
    )


# -- code actions -------------------------------------------------------------------------------
def _text_edits(fix: fixes_module.Fix, lines: Sequence[str], encoding: str) -> List[lsp.TextEdit]:
    edits = []
    for edit in fix.edits:
        start = _position(lines, edit.line, edit.column, encoding)
        end = _position(lines, edit.end_line, edit.end_column, encoding)
        edits.append(lsp.TextEdit(range=lsp.Range(start=start, end=end), new_text=edit.content))
    return edits


def quick_fix(finding: Finding, uri: str, lines: Sequence[str], diagnostic_: lsp.Diagnostic,
              encoding: str = UTF16) -> Optional[lsp.CodeAction]:
    if finding.fix is None:
        return None
    label = "" if finding.fix.applicability == fixes_module.SAFE else " (unsafe: review it)"
    return lsp.CodeAction(
        title=f"{finding.code}: {finding.fix.message}{label}",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic_],
        is_preferred=finding.fix.applicability == fixes_module.SAFE,
        edit=lsp.WorkspaceEdit(changes={uri: _text_edits(finding.fix, lines, encoding)}),
    )


def disable_for_line(finding: Finding, uri: str, lines: Sequence[str], diagnostic_: lsp.Diagnostic,
                     encoding: str = UTF16) -> lsp.CodeAction:
    """Append `# mslint: disable=CODE` to the finding's line, or the code to such a comment there."""
    index = min(max(finding.line - 1, 0), max(len(lines) - 1, 0))
    text = lines[index] if lines else ""
    existing = _PRAGMA.search(text)
    if existing is not None:
        codes = [c.strip() for c in existing.group(1).split(",") if c.strip()]
        start, end = existing.start(1), existing.end(1)
        new_text = ", ".join(codes + [finding.code])
        edit_range = lsp.Range(start=lsp.Position(line=index, character=units(text[:start], encoding)),
                               end=lsp.Position(line=index, character=units(text[:end], encoding)))
    else:
        stripped = text.rstrip()
        edit_range = lsp.Range(start=lsp.Position(line=index, character=units(stripped, encoding)),
                               end=lsp.Position(line=index, character=units(text, encoding)))
        new_text = f"  # mslint: disable={finding.code}"
    return lsp.CodeAction(
        title=f"Disable {finding.code} for this line",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic_],
        edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=edit_range, new_text=new_text)]}),
    )


def whole_document_edit(uri: str, before: str, after: str, encoding: str = UTF16) -> lsp.WorkspaceEdit:
    lines = lines_of(before)
    end = lsp.Position(line=len(lines) - 1, character=units(lines[-1], encoding))
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                                          end=end), new_text=after)]})


def overlaps(finding_range_: lsp.Range, requested: lsp.Range) -> bool:
    start = (finding_range_.start.line, finding_range_.start.character)
    end = (finding_range_.end.line, finding_range_.end.character)
    return not (end < (requested.start.line, requested.start.character)
                or (requested.end.line, requested.end.character) < start)


def contains(finding_range_: lsp.Range, position: lsp.Position) -> bool:
    point = (position.line, position.character)
    return (finding_range_.start.line, finding_range_.start.character) <= point <= \
        (finding_range_.end.line, finding_range_.end.character)


# -- hover --------------------------------------------------------------------------------------
def hover_text(findings: Iterable[Finding]) -> str:
    parts: List[str] = []
    seen: Dict[str, bool] = {}
    for finding in findings:
        rule = finding.rule
        if rule.code in seen:
            continue
        seen[rule.code] = True
        parts.append(f"**{rule.code} {rule.symbol}** ({rule.severity})\n\n{rule.summary}\n\n"
                     f"Fix: {rule.fix}\n\n[{rule.code} documentation]({rule.url})")
    return "\n\n---\n\n".join(parts)
