"""`mslint - --stdin-filename PATH`: lint the text on standard input as if it were that file.

Editors' generic linters and formatters' pipelines hand the unsaved buffer to the command on
stdin.  The text is linted as the file PATH of its project: PATH's configuration (the nearest
[tool.mslint]), its project model (the modules that import it, the helpers it calls) and
its suppression comments; nothing is read from PATH itself, which need not exist.  With
`--fix` (or `--fix-only`) the fixed text is written to stdout, as ruff does, and nothing on
disk changes.
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from typing import List, Tuple

from mslint.findings import Finding
from mslint.run.runner import RunReport, decode_source, lint_run

DEFAULT_NAME = "stdin.py"  # without --stdin-filename: a module of the working directory


class StdinError(Exception):
    """Standard input cannot be read as Python source."""


def read_stdin() -> str:
    try:
        return decode_source(sys.stdin.buffer.read())
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        raise StdinError(f"cannot decode standard input: {error}") from None


def lint_text(path: str, text: str, config_for) -> RunReport:
    """The run of one file whose text is `text` (its importers still analysed from disk)."""
    return lint_run([path], config_for, jobs=1, overrides={os.path.abspath(path): text})


def fix_text(path: str, text: str, config_for, unsafe: bool) -> Tuple[str, Counter, List[Finding]]:
    """(fixed text, rule code -> fixes applied, the findings that remain)."""
    from mslint.fix import apply

    return apply.fix_text(text, lambda current: lint_text(path, current, config_for).findings, unsafe)


def stdin_path(given: str) -> str:
    """The path the text is linted as; a directory is refused (the text is one module)."""
    if os.path.isdir(given):
        raise StdinError(f"--stdin-filename {given}: is a directory; name the file the text is")
    return given
