"""A baseline: the findings a project already has, so that only new ones fail a build.

`--write-baseline FILE` records every current finding; `--baseline FILE` then reports only
the findings it does not record.  A finding is recorded by rule, path (relative to the
baseline file's directory) and the SARIF fingerprint (mslint.reporters.sarif), which hashes
the flagged line's text and how many equal lines precede it, never the line number: adding
or removing code elsewhere keeps a finding known.  Multiplicity counts: with two identical
findings recorded, a third one on an identical line is new.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import List, Tuple

from mslint.atomic import write_atomically
from mslint.config import ConfigError
from mslint.findings import Finding
from mslint.reporters.locations import display_path
from mslint.reporters.sarif import fingerprints

FORMAT = 1
Key = Tuple[str, str, str]


def _keys(findings: List[Finding], baseline_path: str) -> List[Key]:
    base = os.path.dirname(os.path.abspath(baseline_path))
    return [(f.code, display_path(f.path, base), fingerprint)
            for f, fingerprint in zip(findings, fingerprints(findings, base))]


def write(findings: List[Finding], path: str) -> None:
    entries = [{"code": code, "path": where, "fingerprint": fingerprint}
               for code, where, fingerprint in sorted(_keys(findings, path))]
    text = json.dumps({"mslint-baseline": FORMAT, "findings": entries}, indent=1, ensure_ascii=False) + "\n"
    write_atomically(path, text.encode("utf-8"))


def read(path: str) -> Counter:
    """The recorded findings (key -> how many); ConfigError for a missing or malformed file."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the baseline: {error.strerror or error}") from None
    except ValueError as error:
        raise ConfigError(f"{path}: not a baseline file (invalid JSON: {error})") from None
    if not isinstance(document, dict) or document.get("mslint-baseline") != FORMAT \
            or not isinstance(document.get("findings"), list):
        raise ConfigError(f"{path}: not an mslint baseline file (write one with --write-baseline)")
    try:
        return Counter((e["code"], e["path"], e["fingerprint"]) for e in document["findings"])
    except (KeyError, TypeError):
        raise ConfigError(f"{path}: malformed baseline entry (write it again with --write-baseline)") from None


def new_findings(findings: List[Finding], path: str) -> List[Finding]:
    """The findings the baseline at `path` does not record (each record absorbs one finding)."""
    known = read(path)
    kept = []
    for finding, key in zip(findings, _keys(findings, path)):
        if known[key] > 0:
            known[key] -= 1
        else:
            kept.append(finding)
    return kept
