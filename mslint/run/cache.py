"""The result cache: a file's findings, reused while nothing they depend on has changed.

An entry is keyed by the file's absolute path and holds, besides the findings (before
suppression comments, which each front-end applies its own way):
- the SHA-256 of the file's content and its analysis identity (the dotted module name, the
  program's mode, which modules convert tensors: project.index.analysis_identity);
- of every other project module the analysis read (base classes, helpers, modules
  star-imported): its SHA-256 and, unless the analysis read it as a whole, the top-level
  names it looked up in it and a digest of the statements that bind them (see
  `ModuleParts`), so editing a base class's module invalidates its subclasses', and editing a
  function of a helper module that no analysis of a file looked up does not;
- every project-module lookup the analysis made and its answer (a new file can make an
  import resolve to the project where it did not before);
- every name it searched the whole project for as written `X.name = ...` and the answer (a
  module constant read at lint time counts only while no file can change it).
The cache file itself is named by the configuration's fingerprint (and its root, when
per-file-ignores patterns are relative to it), the mslint version and a digest of mslint's
own source, so a change to any of them starts afresh.

This module does not import astroid: a run that finds everything in the cache never
builds a tree.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections import OrderedDict
from typing import Dict, Iterable, List, Optional, Set, Tuple

from mslint import parsed
from mslint.directories import cache_directory
from mslint.fingerprint import code_digest
from mslint.findings import CallSite, Finding, Related
from mslint.fixes import Fix
from mslint.project.module_files import SPELLED
from mslint.rules import registry
from mslint.run import routing

FORMAT = 7  # 3: findings in other files (helpers reached from this file's roots), call chains, mode marks; 4: fixes;
# 5: a dependency's names read and their statements' digest; 6: project-wide searches for `X.name =`;
# 7: related locations


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ModuleParts:
    """A module's top-level statements, for the digest of the part of it that an analysis
    looking up some of its top-level names may have read.

    The part is every statement that may bind one of those names, and, again, every statement
    that may bind a name those statements mention (a helper's body reads the module's
    imports and constants, a method's decorator, another helper), and always the docstring,
    the `__future__` imports and the star imports (which may bind any name).  A statement
    counts by its lines' text (from its first decorator to its last line) and where they are,
    so a change that only moves the part's lines changes the digest (findings and call chains
    carry them).  "May bind" over-approximates astroid's module locals: a function or class
    binds its name, the names it declares `global` and any `:=` target; an import binds
    what it imports; any other statement every identifier in its text.  "Mention" is every
    identifier in the text.  Only `ast` is used: a warm run checks digests without astroid."""

    def __init__(self, data: bytes):
        text = parsed.decode(data)
        body = parsed.tree(text).body  # (raises on a syntax error; shared with the text's other readers)
        lines = _LINE_BREAK.split(text)  # numbered as Python's parser numbers them
        self._segments: List[bytes] = []
        self._texts: List[bytes] = []  # the same statements' text without where they are
        self._binders: Dict[str, List[int]] = {}
        self._mentions: List[frozenset] = []
        self._always: List[int] = []
        for index, statement in enumerate(body):
            first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])
            text = "\n".join(lines[first - 1:statement.end_lineno])
            self._texts.append(text.encode("utf-8", "surrogatepass"))
            self._segments.append(f"{index}:{first}:{statement.end_lineno}\n".encode() + self._texts[-1])
            mentioned = frozenset(_IDENTIFIER.findall(text))
            self._mentions.append(mentioned)
            for name in _binders(statement, mentioned, text):
                self._binders.setdefault(name, []).append(index)
            if (index == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)) or \
                    ("import" in mentioned and _has_star_or_future_import(statement)):
                self._always.append(index)

    def digest(self, names: Iterable[str], placed: bool = True) -> str:
        """The part's digest; with `placed=False`, of its text only (the same wherever its lines are)."""
        selected = set(self._always)
        pending = []
        for name in names:
            if name.startswith(SPELLED):  # the statements that spell it (mslint.analysis.mentions)
                bare = name[len(SPELLED):]
                for index, mentioned in enumerate(self._mentions):
                    if bare in mentioned and index not in selected:
                        selected.add(index)
                        pending.extend(mentioned)
            else:
                pending.append(name)
        seen = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            for index in self._binders.get(name, ()):
                if index not in selected:
                    selected.add(index)
                    pending.extend(self._mentions[index])
        digest = hashlib.sha256()
        pieces = self._segments if placed else self._texts
        for index in sorted(selected):
            digest.update(pieces[index])
            digest.update(b"\0")
        return digest.hexdigest()


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def _binders(statement: ast.stmt, mentioned: frozenset, text: str) -> set:
    """The module-level names a top-level statement may bind (an over-approximation)."""
    if isinstance(statement, _SCOPES):
        names = {statement.name}
        if "global" in mentioned or ":=" in text:
            for node in ast.walk(statement):
                if isinstance(node, ast.Global):
                    names.update(node.names)
                elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                    names.add(node.target.id)
        return names
    if isinstance(statement, ast.Import):
        return {alias.asname or alias.name.split(".")[0] for alias in statement.names}
    if isinstance(statement, ast.ImportFrom):
        return {alias.asname or alias.name for alias in statement.names if alias.name != "*"}
    return set(mentioned)


def _has_star_or_future_import(statement: ast.stmt) -> bool:
    if isinstance(statement, _SCOPES):
        return False
    return any(isinstance(node, ast.ImportFrom) and (node.module == "__future__" or
                                                     any(alias.name == "*" for alias in node.names))
               for node in ast.walk(statement))


def module_parts(data: bytes) -> Optional[ModuleParts]:
    """ModuleParts of a file's bytes; None when they do not decode or parse."""
    try:
        return ModuleParts(data)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, MemoryError, RecursionError):
        return None


def part_names(names: Iterable) -> List[str]:
    """The names a dependency's part digest is taken over, in the order the digest reads them."""
    return sorted({str(name) for name in names})


# A worker's ModuleParts of the files its analyses read, by path (the newest few: a package's
# modules read the same ones), with the content hash they were made from.
_WORKER_PARTS: "OrderedDict[str, Tuple[str, Optional[ModuleParts]]]" = OrderedDict()
_WORKER_PARTS_KEPT = 256


def dependency_parts(path: str, names_read: Dict[str, Iterable], whole_read: Iterable[str]
                     ) -> Dict[str, Tuple[str, Optional[str]]]:
    """In the worker process that analysed `path`: (content hash, part digest or None when the
    file does not parse) of each dependency it read only some names of, as `store` would make
    them.  The parent uses a digest only when the hash is the one its run read (else it makes
    it again), so the serial part of a parallel run does not parse every dependency again."""
    whole = set(whole_read)
    found = {}
    for dependency, names in names_read.items():
        if dependency in whole or dependency == path:
            continue
        data = _file_bytes(dependency)
        if data is None:
            continue
        digest = content_hash(data)
        known = _WORKER_PARTS.get(dependency)
        if known is None or known[0] != digest:
            known = _WORKER_PARTS[dependency] = (digest, module_parts(data))
            while len(_WORKER_PARTS) > _WORKER_PARTS_KEPT:
                _WORKER_PARTS.popitem(last=False)
        else:
            _WORKER_PARTS.move_to_end(dependency)
        found[dependency] = (digest, known[1].digest(part_names(names)) if known[1] is not None else None)
    return found


class FileHashes:
    """Content hashes of files, each read once per run (None: the file cannot be read)."""

    def __init__(self):
        self._hashes: Dict[str, Optional[str]] = {}
        self._parts: Dict[str, Optional[ModuleParts]] = {}
        self._used: Dict[str, bytes] = {}  # path -> the text it reads as, its parts not yet made
        self._buffers: Set[str] = set()  # the files read as another text than on disk (use)
        self._disk_parts: Dict[str, Optional[ModuleParts]] = {}  # ModuleParts of such a file on disk

    def parts_digest(self, path: str, names: Iterable[str]) -> Optional[str]:
        """The digest of the part of a module that looking up `names` may read (see ModuleParts);
        None when the file cannot be read or parsed, or changed since it was hashed."""
        path = os.path.abspath(path)
        if path not in self._parts:
            self._parts[path] = None
            data = self._used.pop(path, None)
            if data is None:
                data = _file_bytes(path)
            if data is not None and content_hash(data) == self.get(path):
                self._parts[path] = module_parts(data)
        parts = self._parts[path]
        return parts.digest(names) if parts is not None else None

    def only_moved(self, path: str, names: Iterable[str], recorded: str) -> bool:
        """Whether a file read as another text than on disk (use) holds, of the part of the file
        on disk that looking up `names` reads and whose digest was `recorded`, the same text,
        moved at most (an editor's buffer with lines inserted or removed elsewhere)."""
        path = os.path.abspath(path)
        if path not in self._buffers:
            return False
        if path not in self._disk_parts:
            data = _file_bytes(path)
            self._disk_parts[path] = module_parts(data) if data is not None else None
        on_disk = self._disk_parts[path]
        if on_disk is None or on_disk.digest(names) != recorded or self.parts_digest(path, names) is None:
            return False
        return self._parts[path].digest(names, placed=False) == on_disk.digest(names, placed=False)

    def remember(self, path: str, data: bytes) -> str:
        digest = content_hash(data)
        self._hashes[os.path.abspath(path)] = digest
        return digest

    def use(self, path: str, data: bytes) -> None:
        """For this run the file reads as `data`, not as on disk (an editor's unsaved buffer):
        entries are checked against its hash and its parts, so an entry that read only parts
        of it that the buffer left as they were (text and lines) still holds."""
        path = os.path.abspath(path)
        self.remember(path, data)
        self._parts.pop(path, None)
        self._used[path] = data  # (its parts are made when an entry asks: most runs never do)
        self._buffers.add(path)

    def get(self, path: str) -> Optional[str]:
        path = os.path.abspath(path)
        if path not in self._hashes:
            data = _file_bytes(path)
            self._hashes[path] = content_hash(data) if data is not None else None
        return self._hashes[path]


def _file_bytes(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


# The entries each cache file held when this process last read or wrote it, by the file's
# signature: the language server makes a ResultCache per run (per edit), and a warm cache of
# a large project is megabytes of JSON (12 MB, 2,753 entries: about 0.1 s to load).
_LOADED: Dict[str, Tuple[Tuple[int, int, int], Dict[str, dict]]] = {}


def _file_signature(path: str) -> Optional[Tuple[int, int, int]]:
    """What changes when a file is written again (it is replaced: a new inode)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_mtime_ns, status.st_size


class ResultCache:
    """One cache file per (configuration, mslint code); entries by absolute path."""

    def __init__(self, directory: str, namespace: str):
        self.directory = directory
        self.path = os.path.join(directory, f"results-{namespace}.json")
        self.entries: Dict[str, dict] = {}
        self.changed = False
        self.hashes = FileHashes()
        self._load()

    @classmethod
    def for_config(cls, config) -> "ResultCache":
        return cls(cache_directory(config.root), cls.namespace(config))

    @staticmethod
    def namespace(config) -> str:
        """The cache file's name for a configuration (and this mslint)."""
        # the root matters only to per-file-ignores patterns (relative to it); without them, the
        # command and the plugin (which finds a configuration per directory) share one cache file
        root = os.path.abspath(config.root) if config.per_file_ignores else None
        key = json.dumps([FORMAT, config.fingerprint(), root, code_digest()])
        return content_hash(key.encode())[:20]

    def _load(self) -> None:
        signature = _file_signature(self.path)
        known = _LOADED.get(self.path)
        if signature is not None and known is not None and known[0] == signature:
            self.entries = dict(known[1])  # (entries are replaced, never changed in place)
            return
        try:
            with open(self.path, "r", encoding="utf-8") as handle:
                document = json.load(handle)
        except OSError:
            return
        except ValueError:
            document = None
        if isinstance(document, dict) and document.get("format") == FORMAT and isinstance(document.get("entries"), dict):
            self.entries = document["entries"]
        self._remember(signature)  # (a file of another format holds no entry for us either)

    def _remember(self, signature: Optional[Tuple[int, int, int]]) -> None:
        """Keep the entries as the file holds them now, for the next object of this file."""
        if signature is not None:
            _LOADED[self.path] = (signature, dict(self.entries))

    # -- lookups -------------------------------------------------------------------------
    def lookup(self, path: str, digest: str, module_name: str,
               unshown_in: Optional[Dict[str, str]] = None) -> Optional[List[Finding]]:
        """The cached findings for this file and content, if nothing they depend on changed.

        `unshown_in`: the files of a run that reads some files from an editor's buffers.  An
        entry also holds for such a run when the buffers only moved the parts of their files
        that the analysis read (lines inserted or removed elsewhere) and none of its findings
        is in, or reached through a call in, a file of the run: an analysis of the buffers'
        texts would find the same, moved, and the run would show none of it (mslint.run.routing)."""
        entry = self.entries.get(os.path.abspath(path))
        if not entry or entry.get("hash") != digest or entry.get("module") != module_name:
            return None
        moved = False
        for dependency, expected in entry.get("deps", {}).items():
            current = self.hashes.get(dependency)
            if isinstance(expected, str):  # read as a whole
                if current != expected:
                    return None
                continue
            try:
                whole, names, digest = expected
            except (TypeError, ValueError):
                return None
            if current != whole and (current is None or self.hashes.parts_digest(dependency, names) != digest):
                if unshown_in is None or not self.hashes.only_moved(dependency, names, digest):
                    return None
                moved = True
        if entry.get("lookups"):
            from mslint.project.module_files import _find_project_file

            for dotted, directory, expected in entry["lookups"]:
                if _find_project_file(dotted, directory) != expected:
                    return None
        if entry.get("searches"):
            from mslint.project.index import project_at

            for root, name, expected in entry["searches"]:
                model = project_at(root)
                answer = model.answer(name)
                if answer != expected:
                    return None
        try:
            findings = [_decode(path, item) for item in entry.get("findings", [])]
        except (KeyError, TypeError, ValueError):
            return None
        if moved and any(routing.may_show(finding, unshown_in) for finding in findings):
            return None
        return findings

    def store(self, path: str, digest: str, module_name: str, findings: Iterable[Finding],
              files_read: Iterable[str], lookups: Dict[Tuple[str, str], Optional[str]],
              names_read: Optional[Dict[str, Iterable[str]]] = None,
              whole_read: Optional[Iterable[str]] = None,
              searches: Optional[Dict[Tuple[str, str], bool]] = None,
              parts: Optional[Dict[str, Tuple[str, Optional[str]]]] = None) -> None:
        """`names_read`: the top-level names the analysis looked up in each module; a module
        in `whole_read`, or with no entry in `names_read` when that is None, counts whole.
        `searches`: (project root, key) -> the answer of a project-wide search (Project.answer).
        `parts`: what dependency_parts found in the worker that ran the analysis."""
        absolute = os.path.abspath(path)
        whole = set(whole_read or ())
        if names_read is None:
            names_read, whole = {}, set(files_read)
        deps = {}
        for dependency in sorted((set(files_read) | set(names_read) | whole) - {absolute}):
            dependency_hash = self.hashes.get(dependency)
            if dependency_hash is None:
                return  # a dependency vanished while we ran: do not cache a result we cannot check
            names = part_names(names_read.get(dependency, ()))
            given = (parts or {}).get(dependency)
            if dependency in whole:
                part = None
            elif given is not None and given[0] == dependency_hash:
                part = given[1]  # (made from the same content, in the worker)
            else:
                part = self.hashes.parts_digest(dependency, names)
            deps[dependency] = dependency_hash if part is None else [dependency_hash, names, part]
        self.entries[absolute] = {
            "hash": digest,
            "module": module_name,
            "deps": deps,
            "lookups": sorted([dotted, directory, found] for (dotted, directory), found in lookups.items()),
            "searches": sorted([root, name, found] for (root, name), found in (searches or {}).items()),
            "findings": [_encode(f, absolute) for f in findings],
        }
        self.changed = True

    # -- saving --------------------------------------------------------------------------
    def save(self) -> None:
        """Write the cache atomically; a cache that cannot be written is silently skipped."""
        if not self.changed:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            ignore = os.path.join(self.directory, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as handle:
                    handle.write("# created by mslint: the result cache is never committed\n*\n")
            import tempfile  # (a warm run saves nothing)

            descriptor, temporary = tempfile.mkstemp(prefix=".results-", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                    json.dump({"format": FORMAT, "entries": self.entries}, handle, separators=(",", ":"))
                os.replace(temporary, self.path)
                self._remember(_file_signature(self.path))
            except BaseException:
                if os.path.exists(temporary):
                    os.unlink(temporary)
                raise
        except OSError:
            return
        self.changed = False


def caches_by_configuration():
    """A function giving each configuration's result cache (one object per cache file), for one
    run: the objects remember file hashes, so a new run needs new ones."""
    opened = {}
    by_config = {}  # id -> (config, its cache): a configuration's key is computed once, not per file

    def cache_for(config) -> ResultCache:
        known = by_config.get(id(config))
        if known is not None and known[0] is config:
            return known[1]
        # one object per cache file: configurations without a file differ only in their root,
        # and two objects saving one file would each drop the other's entries
        key = (cache_directory(config.root), ResultCache.namespace(config))
        if key not in opened:
            opened[key] = ResultCache(*key)
        by_config[id(config)] = (config, opened[key])
        return opened[key]

    return cache_for


def _encode(finding: Finding, entry_path: str) -> list:
    # the path only when the finding is in another file than the analysed one (a helper's)
    other = finding.path if os.path.abspath(finding.path) != entry_path else None
    calls = [[c.path, c.line, c.column, c.end_line, c.end_column, c.callee] for c in finding.calls]
    return [finding.rule.code, finding.line, finding.column, finding.end_line, finding.end_column,
            finding.message, list(finding.reach), other, calls, finding.graph_mode_only,
            finding.fix.encode() if finding.fix else None,
            [[r.path, r.line, r.column, r.message] for r in finding.related]]


def _decode(path: str, item: list) -> Finding:
    code, line, column, end_line, end_column, message, reach, other, calls, graph_mode_only, fix, related = item
    rule = registry().get(code)
    if rule is None:
        raise KeyError(code)
    return Finding(rule, other or path, line, column, end_line, end_column, message, tuple(reach),
                   tuple(CallSite(*call) for call in calls), bool(graph_mode_only),
                   fix=Fix.decode(fix), related=tuple(Related(*r) for r in related))
