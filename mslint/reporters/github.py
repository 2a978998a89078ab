"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,endLine=E,col=C,endColumn=D,title=MS101::message` (warning for
warnings, notice for info).  Escaping follows actions/toolkit: `%`, CR and LF in the
message; those and `:` and `,` in property values.  Columns are 1-based characters,
`endColumn` is exclusive as in every other mslint format; GitHub honours columns only
on one line, so a finding spanning lines gets line and endLine only.

GitHub shows at most ten annotations per level per step, so when
`$GITHUB_STEP_SUMMARY` is set every finding also goes into a Markdown table there.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import List, TextIO

from mslint.findings import Finding
from mslint.reporters import locations

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
SUMMARY_ROW_LIMIT = 1000  # a step summary holds at most 1 MiB


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    base = context.get("base") or locations.base_directory()
    for finding in findings:
        out.write(annotation(finding, base) + "\n")
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(step_summary(findings, base, context.get("files", 0)))


def annotation(finding: Finding, base: str) -> str:
    properties = [("file", locations.display_path(finding.path, base)), ("line", str(finding.line))]
    if finding.end_line is not None:
        properties.append(("endLine", str(finding.end_line)))
    if finding.end_line in (None, finding.line):
        text = locations.source_line(finding.path, finding.line)
        properties.append(("col", str(locations.character_column(text, finding.column))))
        if finding.end_column is not None and finding.end_line == finding.line:
            properties.append(("endColumn", str(locations.character_column(text, finding.end_column))))
    properties.append(("title", finding.code))
    message = f"{finding.symbol}: {finding.message}"
    if finding.rule.fix:
        message += f"\nhelp: {finding.rule.fix}"
    message += f"\ndocs: {finding.rule.url}"
    rendered = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    return f"::{_COMMAND[finding.rule.severity]} {rendered}::{escape_data(message)}"


def markdown_cell(text: str) -> str:
    """Text for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def step_summary(findings: List[Finding], base: str, file_count: int) -> str:
    from mslint.reporters.text import summary

    parts = ["## mslint\n", "", summary(findings, file_count), ""]
    if findings:
        counts = Counter(f.rule for f in findings)
        parts += ["| rule | severity | findings |", "|---|---|---:|"]
        for rule, count in sorted(counts.items(), key=lambda item: (-item[1], item[0].code)):
            parts.append(f"| [{rule.code}]({rule.url}) {rule.symbol} | {rule.severity} | {count} |")
        parts += ["", "| location | rule | message |", "|---|---|---|"]
        for finding in findings[:SUMMARY_ROW_LIMIT]:
            where = f"{locations.display_path(finding.path, base)}:{finding.line}"
            parts.append(f"| `{markdown_cell(where)}` | [{finding.code}]({finding.rule.url}) | "
                         f"{markdown_cell(finding.message)} |")
        if len(findings) > SUMMARY_ROW_LIMIT:
            parts.append(f"\n... and {len(findings) - SUMMARY_ROW_LIMIT} more (see the job log).")
    return "\n".join(parts) + "\n\n"
