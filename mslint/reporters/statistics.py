"""`--statistics`: how many findings each rule has, most frequent first (as ruff's)."""
from __future__ import annotations

import json
from collections import Counter
from typing import List, TextIO

from mslint.findings import Finding

FORMATS = ("text", "json")


def counts(findings: List[Finding]) -> List[dict]:
    per_rule = Counter(f.rule for f in findings)
    ordered = sorted(per_rule.items(), key=lambda item: (-item[1], item[0].code))
    return [{"code": rule.code, "symbol": rule.symbol, "severity": rule.severity, "count": count}
            for rule, count in ordered]


def report(findings: List[Finding], out: TextIO, output_format: str, file_count: int = 0) -> None:
    rows = counts(findings)
    if output_format == "json":
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    if not rows:
        out.write(f"0 findings in {file_count} file{'' if file_count == 1 else 's'}\n")
        return
    count_width = max(len(str(row["count"])) for row in rows)
    symbol_width = max(len(row["symbol"]) for row in rows)
    for row in rows:
        out.write(f"{row['count']:>{count_width}}  {row['code']}  {row['symbol']:<{symbol_width}}  {row['severity']}\n")
