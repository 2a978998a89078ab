"""Reporters: findings in, text out.  They see only findings (and the rule registry);
`output` decides where the text goes (stdout or a file)."""
from __future__ import annotations

from typing import Callable, Dict, List, TextIO

from mslint.findings import Finding
from mslint.reporters import concise, github, json_reporter, sarif, text

Reporter = Callable[[List[Finding], TextIO, dict], None]
REPORTERS: Dict[str, Reporter] = {
    "text": text.report,
    "concise": concise.report,
    "json": json_reporter.report,
    "sarif": sarif.report,
    "github": github.report,
}
