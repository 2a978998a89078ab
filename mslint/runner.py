"""Drive the rules over files: discovery, reading, parsing, suppression, worker processes.

A file that cannot be read or parsed becomes an MS0xx finding for that file; every
other file is still checked.  The linted code is parsed, never imported or run.
"""
from __future__ import annotations

import io
import os
import stat
import sys
import tokenize
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable, List, Sequence, Tuple

import astroid
from astroid.builder import AstroidBuilder

from mslint import budget
from mslint import config as config_module
from mslint.context import ModuleContext
from mslint.engine import check_module, internal_error
from mslint.findings import Finding
from mslint.resolve import module_name_for_file
from mslint.rules import ANALYSIS_INCOMPLETE, FILE_UNREADABLE, SYNTAX_ERROR, USELESS_SUPPRESSION, registry
from mslint.suppression import Suppressions, useless_suppressions

# Directories never worth descending into: VCS, virtual environments, builds, caches.
SKIPPED_DIRECTORIES = frozenset({
    ".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".mslint_cache",
    ".tox", ".nox", ".eggs", "build", "dist", "node_modules", "site-packages", ".venv", "venv", ".ipynb_checkpoints",
})
SERIAL_BELOW = 8  # fewer files than this: worker processes cost more than they save


class UsageError(Exception):
    """A problem with the command line itself (exit status 2)."""


def discover(paths: Sequence[str], config: config_module.Config) -> List[str]:
    """The Python files to lint, sorted; explicitly named files are always included."""
    found = set()
    for path in paths:
        if not os.path.exists(path) and not os.path.islink(path):
            raise UsageError(f"{path}: no such file or directory")
        if os.path.isfile(path):
            found.add(os.path.normpath(path))
            continue
        for directory, subdirectories, files in os.walk(path):
            subdirectories[:] = sorted(
                d for d in subdirectories
                if d not in SKIPPED_DIRECTORIES and not d.endswith(".egg-info")
                and not os.path.isfile(os.path.join(directory, d, "pyvenv.cfg"))
                and not config.is_excluded(os.path.join(directory, d))
            )
            for name in files:
                full = os.path.normpath(os.path.join(directory, name))
                if name.endswith(".py") and not config.is_excluded(full):
                    found.add(full)
    return sorted(found)


def read_source(path: str) -> str:
    """The file's text, decoded as Python does (coding cookie, BOM, else UTF-8)."""
    # non-blocking open and a regular-file check: a FIFO or device named *.py must not hang the run
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError("not a regular file (a FIFO, device or socket?)")
        data = handle.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


@budget.bounded  # a pathological file becomes MS004 instead of hanging the run (mslint/budget.py)
def lint_file(path: str, config: config_module.Config) -> List[Finding]:
    """Every finding for one file, sorted, after suppression comments."""
    try:
        source = read_source(path)
    except OSError as error:
        return [Finding(FILE_UNREADABLE, path, 1, 0, None, None, f"cannot read the file: {error.strerror or error}")]
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        return [Finding(FILE_UNREADABLE, path, 1, 0, None, None, f"cannot decode the file: {error}")]
    try:
        modname = module_name_for_file(path)
        module = AstroidBuilder(astroid.MANAGER).string_build(source, modname, os.path.abspath(path))
        # astroid keeps the first module cached under a name; the resolver must see this one (the file as
        # it is now), not one an earlier run or another file's analysis loaded
        astroid.MANAGER.astroid_cache[modname] = module
    except astroid.AstroidSyntaxError as error:
        return [_syntax_error(path, error)]
    except RecursionError:
        return [Finding(ANALYSIS_INCOMPLETE, path, 1, 0, None, None,
                        "analysis incomplete: the file is nested too deeply to parse; no rule checked it")]
    except (ValueError, TypeError, MemoryError) as error:  # NUL bytes and other unparsable input
        return [Finding(SYNTAX_ERROR, path, 1, 0, None, None, f"cannot parse the file: {error}")]
    except Exception as error:  # noqa: BLE001 - astroid's own bugs stay one file's problem
        return [internal_error(path, None, error)]
    enabled = config_module.enabled_rules(config, path)
    findings = check_module(ModuleContext(module, path, config), enabled)
    suppressions = Suppressions(source, registry())
    findings = [f for f in findings if not suppressions.is_suppressed(f.code, f.line)]
    if enabled.get(USELESS_SUPPRESSION.code):
        findings.extend(useless_suppressions(suppressions, enabled, path, source))
    return sorted(findings, key=Finding.sort_key)


def _syntax_error(path: str, error: astroid.AstroidSyntaxError) -> Finding:
    cause = getattr(error, "error", None)
    if not isinstance(cause, SyntaxError):  # CPython's parser itself gave up: MemoryError on very deep nesting
        reason = f"Python's parser gave up ({type(cause).__name__}): the code is nested too deeply"
        return Finding(SYNTAX_ERROR, path, 1, 0, None, None, f"cannot parse the file: {reason}")
    line = getattr(cause, "lineno", None) or 1
    column = max((getattr(cause, "offset", None) or 1) - 1, 0)
    reason = " ".join(str(getattr(cause, "msg", None) or error).split())  # one line, whatever the parser said
    return Finding(SYNTAX_ERROR, path, line, column, None, None, f"cannot parse the file: {reason}")


def _lint_many(task: Tuple[Tuple[str, ...], config_module.Config]) -> List[Finding]:
    paths, config = task
    results: List[Finding] = []
    for path in paths:
        results.extend(lint_file(path, config))
    return results


def lint_paths(files: Iterable[str], config: config_module.Config, jobs: int = 1) -> List[Finding]:
    """Findings for all files, in a deterministic order whatever the number of jobs."""
    files = list(files)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        if jobs <= 1 or len(files) < SERIAL_BELOW:
            findings = _lint_many((tuple(files), config))
        else:
            findings = _lint_parallel(files, config, jobs)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(findings, key=Finding.sort_key)


def _lint_parallel(files: List[str], config: config_module.Config, jobs: int) -> List[Finding]:
    # small interleaved chunks balance large and small files across workers
    chunk_count = min(len(files), jobs * 8)
    chunks = [tuple(files[i::chunk_count]) for i in range(chunk_count)]
    findings: List[Finding] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(_lint_many, [(chunk, config) for chunk in chunks]):
            findings.extend(result)
    return findings
