"""`--format json`: one JSON array, an object per finding (keys fixed by design.md)."""
from __future__ import annotations

import json
from typing import List, Optional, TextIO

from mslint.findings import Finding
from mslint.reporters import locations
from mslint.reporters.sarif import fingerprints


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    locations.clear_cache()
    objects = []
    for finding, fingerprint in zip(findings, fingerprints(findings, context.get("base"))):
        item = finding.as_dict()
        item["fix"] = fix_object(finding)
        url = item.pop("url")
        item["fingerprint"] = fingerprint
        item["url"] = url
        objects.append(item)
    json.dump(objects, out, indent=2, sort_keys=False, ensure_ascii=False)
    out.write("\n")


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
