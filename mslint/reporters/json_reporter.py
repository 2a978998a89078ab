"""`--output-format json`: one JSON array, an object per finding (keys fixed by design.md).
Columns are 1-based characters, as in the text format."""
from __future__ import annotations

import json
from typing import List, TextIO

from mslint.findings import Finding
from mslint.reporters import locations


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    json.dump([as_dict(f) for f in findings], out, indent=2, sort_keys=False, ensure_ascii=False)
    out.write("\n")


def as_dict(finding: Finding) -> dict:
    """Finding.as_dict with the columns in characters (the finding holds UTF-8 byte offsets)."""
    item = finding.as_dict()
    text = locations.source_line(finding.path, finding.line)
    item["column"] = locations.character_column(text, finding.column)
    if finding.end_column is not None:
        end_text = text if finding.end_line == finding.line else locations.source_line(finding.path,
                                                                                        finding.end_line)
        item["end_column"] = locations.character_column(end_text, finding.end_column)
    return item
