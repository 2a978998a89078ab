"""`--output-format concise`: one line per finding (`path:line:col: CODE symbol problem`, the
problem being the first sentence of the message) and the summary."""
from __future__ import annotations

from typing import List, TextIO

from mslint.findings import Finding
from mslint.messages import first_sentence
from mslint.reporters import locations
from mslint.reporters.text import closing_lines, headline


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    color = context.get("color", False)
    for finding in findings:
        out.write(headline(finding, locations.source_line(finding.path, finding.line), color,
                           context.get("unsafe_fixes", False), first_sentence(finding.message)) + "\n")
    out.writelines(line + "\n" for line in closing_lines(findings, context))
