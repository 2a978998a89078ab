"""The rule pages (docs/rules/MSxxx.md): finding, reading and taking them apart.

The pages ship inside the package (as `mslint.rule_docs`), so `mslint --explain` works
from a wheel; the tests run the examples the pages show.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional

REQUIRED_HEADINGS = (
    "What it does",
    "Why it matters in graph mode",
    "What MindSpore does",
    "Example",
    "Use instead",
    "Options",
    "References",
)
_REPO_DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "rules")
_FENCE_RE = re.compile(r"```python\n(.*?)```", re.S)
MARKER_RE = re.compile(r"#\s*\[(MS\d{3}(?:\s*,\s*MS\d{3})*)\]")


def _package_docs() -> str:
    """Where a wheel install puts the pages (an editable install uses the repository's docs/)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "rule_docs")


def page_path(code: str) -> Optional[str]:
    for directory in (_package_docs(), _REPO_DOCS):
        if directory:
            candidate = os.path.join(directory, f"{code}.md")
            if os.path.isfile(candidate):
                return candidate
    return None


def read_page(code: str) -> Optional[str]:
    path = page_path(code)
    if path is None:
        return None
    with open(path, encoding="utf-8") as handle:
        return handle.read()


_COMMENT_RE = re.compile(r"\n?<!--.*?-->\n?", re.S)


def for_reading(text: str) -> str:
    """The page as a person reads it: without the HTML comments (the machine-readable
    claim blocks the MindSpore tests run)."""
    return _COMMENT_RE.sub("\n", text)


def sections(text: str) -> Dict[str, str]:
    """'## Heading' -> the text below it, up to the next '## '."""
    found: Dict[str, str] = {}
    current = None
    lines: List[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if current is not None:
                found[current] = "\n".join(lines).strip()
            current, lines = line[3:].strip(), []
        elif current is not None:
            lines.append(line)
    if current is not None:
        found[current] = "\n".join(lines).strip()
    return found


def python_blocks(section_text: str) -> List[str]:
    return _FENCE_RE.findall(section_text)


def marked_lines(code: str) -> Dict[int, List[str]]:
    """1-based line -> rule codes its `# [MS101]` marker names."""
    marks = {}
    for number, line in enumerate(code.splitlines(), start=1):
        match = MARKER_RE.search(line)
        if match:
            marks[number] = [c.strip() for c in match.group(1).split(",")]
    return marks
