"""`--output-format text`: `path:line:col: CODE symbol message`, the flagged source line with
a caret under the span, a `help:` line, and the reach chain.  Columns are 1-based characters."""
from __future__ import annotations

import os

from collections import Counter
from typing import List, Optional, TextIO

from mslint.findings import Finding
from mslint.fixes import applicable, fixable_summary
from mslint.reporters import locations
from mslint.reporters.style import SEVERITY_STYLE, paint


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    color = context.get("color", False)
    for finding in findings:
        text = locations.source_line(finding.path, finding.line)
        out.write(headline(finding, text, color, context.get("unsafe_fixes", False)) + "\n")
        out.writelines(line + "\n" for line in source_context(finding, text, color))
        if finding.rule.fix:
            out.write(f"    {paint('help:', 'bold', color)} {finding.rule.fix}\n")
        if finding.reach:
            out.write(f"    {paint('reach:', 'bold', color)} {' -> '.join(finding.reach)}\n")
        for related in finding.related:
            column = locations.character_column(locations.source_line(related.path, related.line), related.column)
            out.write(f"    {paint('related:', 'bold', color)} {locations.display_path(related.path, os.getcwd())}:"
                      f"{related.line}:{column}: {related.message}\n")
    out.writelines(line + "\n" for line in closing_lines(findings, context))


def closing_lines(findings: List[Finding], context: dict) -> List[str]:
    """The summary, and how many findings were withheld (nothing with --quiet)."""
    if context.get("quiet"):
        return []
    lines = [summary(findings, context.get("files", 0))]
    if context.get("withheld"):
        lines.append(withheld_note(context["withheld"]))
    fixable = fixable_summary(findings, context.get("unsafe_fixes", False))
    if fixable:
        lines.append(fixable)
    return lines


def withheld_note(count: int) -> str:
    """The line that says findings were withheld because the program never compiles the code."""
    findings = "finding" if count == 1 else "findings"
    return (f"{count} more {findings} withheld: in code compiled only in GRAPH_MODE, and every program that "
            "runs it runs PyNative (a program that sets no mode runs PyNative; --graph-mode always shows them).")


def headline(finding: Finding, text: Optional[str], color: bool = False, unsafe_fixes: bool = False,
             message: Optional[str] = None) -> str:
    """`path:line:col: CODE symbol message` (or the `message` given), the column in characters;
    `CODE [*]` when --fix (with --unsafe-fixes: also an unsafe fix) would fix it, as ruff marks it."""
    where = f"{finding.path}:{finding.line}:{locations.character_column(text, finding.column)}:"
    code = paint(finding.code, SEVERITY_STYLE[finding.rule.severity], color)
    mark = " [*]" if applicable(finding, unsafe_fixes) else ""
    said = finding.message if message is None else message
    return f"{paint(where, 'bold', color)} {code}{mark} {finding.symbol} {said}"


def source_context(finding: Finding, text: Optional[str], color: bool = False) -> List[str]:
    """The flagged line and a caret line under the span (to the line's end for a multi-line span)."""
    if text is None or not text.strip():
        return []
    start = locations.character_column(text, finding.column) - 1
    if finding.end_line == finding.line and finding.end_column is not None:
        end = locations.character_column(text, finding.end_column) - 1
    else:
        end = len(text.rstrip())
    end = max(end, start + 1)
    gutter = str(finding.line)
    padding = "".join(c if c == "\t" else " " for c in text[:start])  # tabs kept: the caret lines up
    bar = paint("|", "blue", color)
    return [f"{gutter:>6} {bar} {text.rstrip()}",
            f"{'':>6} {bar} {padding}{paint('^' * (end - start), SEVERITY_STYLE[finding.rule.severity], color)}"]


def summary(findings: List[Finding], file_count: int) -> str:
    files = f"{file_count} file" + ("" if file_count == 1 else "s")
    if not findings:
        return f"All checks passed ({files} checked)."
    severities = Counter(f.rule.severity for f in findings)
    parts = [f"{severities[s]} {s}" + ("" if severities[s] == 1 or s == "info" else "s")
             for s in ("error", "warning", "info") if severities[s]]
    problem = "problem" if len(findings) == 1 else "problems"
    affected = len({f.path for f in findings})
    return f"Found {len(findings)} {problem} ({', '.join(parts)}) in {affected} of {files}."
