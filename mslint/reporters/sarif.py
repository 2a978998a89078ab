"""`--format sarif`: SARIF 2.1.0 as GitHub code scanning reads it.

* `tool.driver` describes every rule (help from its docs page), so a result's rule is
  always found by `ruleId` and `ruleIndex`;
* locations are repository-relative URIs (`uriBaseId` `%SRCROOT%`, see
  `locations.base_directory`) with 1-based regions counted in UTF-16 code units;
* `partialFingerprints` hash the rule, the file, the flagged line's normalized text and
  how many equal lines precede it, never the line number: inserting or deleting code
  elsewhere in the file keeps an alert the same alert.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import List, Optional, TextIO

from mslint import __version__, rule_pages
from mslint.findings import Finding
from mslint.reporters import locations
from mslint.rules import Rule, registry

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "mslintFingerprint/v1"
SOURCE_ROOT = "%SRCROOT%"

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "info": "recommendation"}
_FAMILY_TAGS = {
    "MS0": "tool", "MS1": "third-party-library", "MS2": "custom-type", "MS3": "concurrency",
    "MS4": "dynamic-shape", "MS5": "gradient", "MS6": "mixed-precision", "MS7": "migration",
    "MS8": "graph-syntax",
}
_MAX_DESCRIPTION = 1024  # GitHub truncates longer descriptions


def report(findings: List[Finding], out: TextIO, context: dict) -> None:
    json.dump(sarif_log(findings, context.get("base")), out, indent=2, ensure_ascii=False)
    out.write("\n")


def sarif_log(findings: List[Finding], base: Optional[str] = None) -> dict:
    locations.clear_cache()
    base = base or locations.base_directory()
    rules = list(registry())
    index = {rule.code: position for position, rule in enumerate(rules)}
    for finding in findings:  # rules outside the registry (tests build their own) still get a descriptor
        if finding.code not in index:
            index[finding.code] = len(rules)
            rules.append(finding.rule)
    lines, keys, occurrences = _identities(findings, base)
    results = [_result(f, line, key, occurrence, index[f.code], base)
               for f, line, key, occurrence in zip(findings, lines, keys, occurrences)]
    run = {
        "tool": {
            "driver": {
                "name": "mslint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_descriptor(rule) for rule in rules],
            }
        },
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": _directory_uri(base)}},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _identities(findings: List[Finding], base: str):
    """Per finding: its line's text, its (code, path, normalized line) key, and how many
    equal keys precede it: what the fingerprint hashes."""
    lines = [locations.source_line(f.path, f.line) for f in findings]
    keys = [(f.code, locations.display_path(f.path, base), locations.normalized(line))
            for f, line in zip(findings, lines)]
    return lines, keys, locations.occurrence_indices(keys)


def fingerprints(findings: List[Finding], base: str) -> List[str]:
    """The line-independent fingerprint of each finding (paths relative to `base`), as in
    `partialFingerprints`; the baseline file uses the same."""
    _, keys, occurrences = _identities(findings, base)
    return [fingerprint(*key, occurrence) for key, occurrence in zip(keys, occurrences)]


def rule_descriptor(rule: Rule) -> dict:
    page = rule_pages.read_page(rule.code)
    what = rule_pages.sections(page).get("What it does") if page else None
    # the page as `--explain` shows it: without the machine-readable claim blocks
    help_markdown = _without_title(rule_pages.for_reading(page)) if page else f"{rule.summary}\n\nFix: {rule.fix}"
    return {
        "id": rule.code,
        "name": rule.symbol,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _shorten(" ".join((what or rule.summary).split()))},
        "help": {"text": help_markdown, "markdown": help_markdown},  # the page reads as text too
        "helpUri": rule.url,
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.default_enabled},
        "properties": {
            "precision": _precision(rule),
            "problem.severity": _PROBLEM_SEVERITY[rule.severity],
            "tags": ["mindspore", "graph-mode", _FAMILY_TAGS.get(rule.family, rule.family.lower()), rule.symbol],
        },
    }


def _precision(rule: Rule) -> str:
    if rule.family == "MS0":
        return "very-high"  # facts about the file, not judgements about the code
    return "high" if rule.default_enabled else "medium"  # heuristic rules are off by default


def _result(finding: Finding, line_text: Optional[str], key: tuple, occurrence: int, rule_index: int,
            base: str) -> dict:
    uri = locations.relative_uri(finding.path, base)
    artifact = {"uri": uri, "uriBaseId": SOURCE_ROOT} if uri else {"uri": _file_uri(finding.path)}
    region = {"startLine": finding.line, "startColumn": locations.utf16_column(line_text, finding.column)}
    if finding.end_line is not None and finding.end_column is not None:
        end_text = line_text if finding.end_line == finding.line else locations.source_line(finding.path,
                                                                                              finding.end_line)
        region["endLine"] = finding.end_line
        region["endColumn"] = locations.utf16_column(end_text, finding.end_column)  # exclusive, as SARIF's
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[finding.rule.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(*key, occurrence)},
    }
    if finding.fix is not None:
        result["fixes"] = [_fix(finding, artifact)]
    if finding.related:
        result["relatedLocations"] = [_related_location(index, related, base)
                                      for index, related in enumerate(finding.related, start=1)]
    return result


def _related_location(index: int, related, base: str) -> dict:
    uri = locations.relative_uri(related.path, base)
    artifact = {"uri": uri, "uriBaseId": SOURCE_ROOT} if uri else {"uri": _file_uri(related.path)}
    column = locations.utf16_column(locations.source_line(related.path, related.line), related.column)
    return {"id": index, "message": {"text": related.message},
            "physicalLocation": {"artifactLocation": artifact,
                                 "region": {"startLine": related.line, "startColumn": column}}}


def _fix(finding: Finding, artifact: dict) -> dict:
    """A SARIF fix: the finding's edits as replacements of regions (UTF-16 columns, as the run says)."""
    def column(line: int, byte_offset: int) -> int:
        return locations.utf16_column(locations.source_line(finding.path, line), byte_offset)

    replacements = [{
        "deletedRegion": {"startLine": e.line, "startColumn": column(e.line, e.column),
                          "endLine": e.end_line, "endColumn": column(e.end_line, e.end_column)},
        "insertedContent": {"text": e.content},
    } for e in finding.fix.edits]
    return {"description": {"text": f"{finding.fix.message} ({finding.fix.applicability} fix)"},
            "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}


def fingerprint(code: str, path: str, normalized_line: str, occurrence: int) -> str:
    text = "\0".join((code, path, normalized_line, str(occurrence)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]  # a non-UTF-8 file name


def _without_title(page: str) -> str:
    lines = page.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip() + "\n"


def _shorten(text: str) -> str:
    if len(text) <= _MAX_DESCRIPTION:
        return text
    cut = text[:_MAX_DESCRIPTION - 1]
    sentence_end = cut.rfind(". ")
    return cut[:sentence_end + 1] if sentence_end > _MAX_DESCRIPTION // 2 else cut.rstrip() + "\u2026"


def _file_uri(path: str) -> str:
    import pathlib  # (only SARIF needs it: not imported by every run)

    return pathlib.Path(os.path.abspath(path)).as_uri()


def _directory_uri(path: str) -> str:
    uri = _file_uri(path)
    return uri if uri.endswith("/") else uri + "/"
