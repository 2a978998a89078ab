"""`mslint --fix`, `--unsafe-fixes`, `--diff`, `--fix-only`: applying findings' fixes to files.

Fixes are applied in passes: apply every applicable fix that does not overlap another, check
that the text still compiles, lint the new text again (a fix may make room for another one,
or the analysis may now see something else), and stop when nothing more applies.  Nothing is
written until the passes are done; a file is written only when it changed, atomically, in its
own encoding (BOM and coding cookie kept), newline style and permissions, and never when it
changed on disk since it was read.
"""
from __future__ import annotations

import difflib
import hashlib
import io
import os
import stat
import tempfile
import tokenize
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mslint.findings import Finding
from mslint.fixes import Fix, applicable, apply_fixes, parses
from mslint.rules import INTERNAL_ERROR
from mslint.run.runner import lint_paths, lint_run, lint_sources, read_bytes

MAX_PASSES = 4  # every fix so far settles in one pass; a few more catch fixes that make room for others


@dataclass
class Outcome:
    findings: List[Finding]  # what is left after fixing, and any problem fixing a file
    fixed: Counter = field(default_factory=Counter)  # rule code -> fixes applied
    changes: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # path -> (text before, text after)
    # (path, why) of each fixed file that could not be written (read-only, changed on disk, a full disk):
    # an error of the command, not a finding about the code
    not_written: List[Tuple[str, str]] = field(default_factory=list)

    @property
    def fixed_count(self) -> int:
        return sum(self.fixed.values())


class SourceFile:
    """A file's text as the linter sees it (no BOM), and how to write text back the same way."""

    def __init__(self, path: str, data: bytes):
        self.path = path
        self.digest = hashlib.sha256(data).hexdigest()
        self.encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)  # utf-8-sig for a BOM
        self.text = data.decode(self.encoding)
        if self.text.startswith("\ufeff"):
            self.text = self.text[1:]
        first_break = next((i for i, c in enumerate(self.text) if c in "\r\n"), None)
        self.newline = "\n" if first_break is None else (
            "\r\n" if self.text.startswith("\r\n", first_break) else self.text[first_break])

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        return cls(path, read_bytes(path))

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)  # utf-8-sig writes the BOM back

    def write(self, text: str) -> Optional[str]:
        """Replace the file with `text`; None, or why it was not written."""
        target = os.path.realpath(self.path)  # a symlink keeps pointing at the fixed file
        try:
            data = self.encode(text)
            if hashlib.sha256(read_bytes(target)).hexdigest() != self.digest:
                return "the file changed on disk while mslint was fixing it; not written (run again)"
            mode = stat.S_IMODE(os.stat(target).st_mode)
            if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):  # root may write it: the mode says no
                return "the file is read-only; not written"
            descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".mslint-",
                                                     suffix=".tmp")
            try:
                with open(descriptor, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(temporary, mode)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise
        except (OSError, UnicodeEncodeError) as error:
            return f"cannot write the fixes: {getattr(error, 'strerror', None) or error}"
        return None


def fix_files(files: Sequence[str], config, jobs: int, cache, unsafe: bool, write: bool) -> Outcome:
    """Lint `files`, apply the applicable fixes (in memory; to disk when `write`), and return what
    remains.  With `write` False (--diff) nothing on disk changes.

    After each pass the whole run is linted again with the fixed texts (not only the fixed files:
    a helper's findings come from the analysis of the module whose graph code reaches it, and a
    file left out of the re-run would be "a file not in this run"), so what remains is what a
    plain run on the fixed tree reports."""
    findings = lint_paths(files, config, jobs=jobs, cache=cache)
    by_path = _by_path(findings)
    outcome = Outcome([])
    sources: Dict[str, SourceFile] = {}
    texts: Dict[str, str] = {}
    fixed: Dict[str, Counter] = {}
    problems: Dict[str, Finding] = {}  # a file whose fixes would not parse: left as it is
    for _ in range(MAX_PASSES):
        fixed_now = False
        for path in sorted(by_path):
            if path in problems or not any(applicable(f, unsafe) for f in by_path[path]):
                continue
            if path not in sources:
                try:
                    sources[path] = SourceFile.read(path)
                except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
                    continue  # the lint run could read it a moment ago; leave it as it is
                texts[path] = sources[path].text
            new_text, codes, problem = _one_pass(texts[path], by_path[path], sources[path].newline, unsafe)
            if problem is not None:
                problems[path] = problem
            elif new_text != texts[path]:
                texts[path] = new_text
                fixed.setdefault(path, Counter()).update(codes)
                fixed_now = True
        if not fixed_now:
            break
        changed = {os.path.abspath(path): text for path, text in texts.items() if text != sources[path].text}
        by_path = _by_path(lint_run(files, config, jobs=jobs, overrides=changed).findings)

    for path, problem in problems.items():
        by_path[path] = by_path.get(path, []) + [problem]
    for path, text in texts.items():
        if text == sources[path].text:
            continue
        reason = sources[path].write(text) if write else None
        if reason is not None:  # left as it was: its findings are the first run's
            by_path[path] = [f for f in findings if f.path == path]
            outcome.not_written.append((path, reason))
            continue
        outcome.changes[path] = (sources[path].text, text)
        outcome.fixed.update(fixed[path])
    outcome.findings = sorted((f for found in by_path.values() for f in found), key=Finding.sort_key)
    return outcome


def _by_path(findings: Sequence[Finding]) -> Dict[str, List[Finding]]:
    grouped: Dict[str, List[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.path, []).append(finding)
    return grouped


def fixed_text(path: str, text: str, config, unsafe: bool = True) -> str:
    """One text after every applicable fix, as `--fix` would leave it (nothing is written): the
    tests run rule pages' fixed Examples with MindSpore this way."""
    return fix_text(text, lambda current: lint_sources([(path, current)], config), unsafe)[0]


def fix_text(text: str, lint: Callable[[str], List[Finding]], unsafe: bool
             ) -> Tuple[str, Counter, List[Finding]]:
    """(fixed text, rule code -> fixes applied, what remains) for a text that is not written
    anywhere (`mslint - --fix` prints it); `lint(text)` gives a text's findings."""
    fixed: Counter = Counter()
    findings = lint(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    for _ in range(MAX_PASSES):
        new_text, codes, problem = _one_pass(text, findings, newline, unsafe)
        if problem is not None:
            return text, fixed, findings + [problem]
        if new_text == text:
            break
        text = new_text
        fixed.update(codes)
        findings = lint(text)
    return text, fixed, findings


def _one_pass(text: str, findings: List[Finding], newline: str, unsafe: bool
              ) -> Tuple[str, Counter, Optional[Finding]]:
    """(new text, rule code -> fixes applied, None) or (text, nothing, the problem) when the
    fixed text would not compile: then nothing of this pass is applied."""
    candidates = [f for f in findings if applicable(f, unsafe)]
    code_of = {id(f.fix): f.code for f in candidates}
    fixes = [_with_newline(f.fix, newline) for f in candidates]
    for original, adapted in zip(candidates, fixes):
        code_of[id(adapted)] = original.code
    new_text, applied, _ = apply_fixes(text, fixes)
    if not applied:
        return text, Counter(), None
    reason = parses(new_text)
    codes = Counter(code_of[id(f)] for f in applied)
    if reason is not None:
        path = candidates[0].path
        rules = ", ".join(sorted(codes))
        return text, Counter(), Finding(
            INTERNAL_ERROR, path, 1, 0, None, None,
            f"the fixes of {rules} would leave the file unparsable ({reason}); the file was left "
            "untouched (please report it)")
    return new_text, codes, None


def _with_newline(fix: Fix, newline: str) -> Fix:
    """Edits write '\\n'; a CRLF file gets CRLF line breaks in inserted text too."""
    if newline == "\n" or not any("\n" in e.content for e in fix.edits):
        return fix
    return replace(fix, edits=tuple(replace(e, content=e.content.replace("\n", newline)) for e in fix.edits))


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))


def fix_summary(outcome: Outcome) -> str:
    count = outcome.fixed_count
    if not count:
        return "No fixes to apply."  # as --diff says it
    return f"Fixed {count} problem{'s' if count != 1 else ''} in {len(outcome.changes)} " \
           f"file{'s' if len(outcome.changes) != 1 else ''}."
