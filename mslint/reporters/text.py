"""`--format text`: `path:line:col: CODE symbol message`, a `help:` line, and the reach chain."""
from __future__ import annotations

from collections import Counter
from typing import List, TextIO

from mslint.findings import Finding
from mslint.fixes import applicable, fixable_summary


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    unsafe = context.get("unsafe_fixes", False)
    for finding in findings:
        mark = " [*]" if applicable(finding, unsafe) else ""  # ruff's mark: --fix would fix it
        out.write(f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.code}{mark} {finding.symbol} "
                  f"{finding.message}\n")
        if finding.rule.fix:
            out.write(f"    help: {finding.rule.fix}\n")
        if finding.reach:
            out.write(f"    reach: {' -> '.join(finding.reach)}\n")
    out.write(summary(findings, context.get("files", 0)) + "\n")
    fixable = fixable_summary(findings, unsafe)
    if fixable:
        out.write(fixable + "\n")


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
