"""`--format json`: one JSON array, an object per finding (keys fixed by design.md)."""
from __future__ import annotations

import json
from typing import List, TextIO

from mslint.findings import Finding


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    json.dump([f.as_dict() for f in findings], out, indent=2, sort_keys=False, ensure_ascii=False)
    out.write("\n")
