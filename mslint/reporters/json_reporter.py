"""`--output-format json`: one JSON array, an object per finding (keys fixed by design.md).
Columns are 1-based characters, as in the text format."""
from __future__ import annotations

import json
import os
from typing import List, Optional, TextIO

from mslint.findings import Finding
from mslint.reporters import locations
from mslint.reporters.sarif import fingerprints


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    objects = []
    for finding, fingerprint in zip(findings, fingerprints(findings, context.get("base") or locations.base_directory())):
        item = as_dict(finding)
        item["fix"] = fix_object(finding)
        url = item.pop("url")
        item["fingerprint"] = fingerprint
        item["url"] = url
        objects.append(item)
    json.dump(objects, out, indent=2, sort_keys=False, ensure_ascii=False)
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
    for entry, related in zip(item["related"], finding.related):
        entry["path"] = locations.display_path(related.path, os.getcwd())
        entry["column"] = locations.character_column(locations.source_line(related.path, related.line),
                                                     related.column)
    return item


def fix_object(finding: Finding) -> Optional[dict]:
    """ruff's shape; columns are 1-based characters, as an editor applying the edit counts them."""
    if finding.fix is None:
        return None

    def position(line: int, byte_offset: int) -> dict:
        return {"line": line, "column": locations.character_column(locations.source_line(finding.path, line),
                                                                   byte_offset)}

    return {
        "applicability": finding.fix.applicability,
        "message": finding.fix.message,
        "edits": [{"content": e.content, "location": position(e.line, e.column),
                   "end_location": position(e.end_line, e.end_column)} for e in finding.fix.edits],
    }
