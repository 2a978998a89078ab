"""Extract public repositories from local git mirrors, and count their Python files and lines.

Shared by practice_corpus.py and zoo_tree.py.  A mirror is a git directory that the session's
fetch tool left under /work/.mirror/<owner>+<name>/ (either repo/ itself or repo/.git).  Trees
are extracted file by file from a recorded commit into folders outside this repository; their
code is never committed here, only names, commits and counts.
"""
from __future__ import annotations

import os
import shutil
import importlib.util
import subprocess


def _load_run_corpora():
    """scripts/run_corpora.py, whose file count the corpus tables use (scripts/ is not a package)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "run_corpora.py")
    spec = importlib.util.spec_from_file_location("mslint_run_corpora", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_corpora = _load_run_corpora()

DEFAULT_MIRROR = "/work/.mirror"


def folder_name(repo: str) -> str:
    """'owner/name' -> 'owner+name', the folder name used for mirrors and extracted trees."""
    return repo.replace("/", "+")


def git_dir(mirror_root: str, repo: str) -> str | None:
    """The mirror's git directory, or None when the repository was not fetched here."""
    base = os.path.join(mirror_root, folder_name(repo), "repo")
    for candidate in (os.path.join(base, ".git"), base):
        if os.path.isfile(os.path.join(candidate, "HEAD")):
            return candidate
    return None


def head_commit(gitdir: str) -> str:
    return _git(gitdir, "rev-parse", "HEAD").strip()


def has_commit(gitdir: str, commit: str) -> bool:
    result = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", f"{commit}^{{commit}}"],
                            capture_output=True)
    return result.returncode == 0


def extract(gitdir: str, commit: str, dest: str, subdirs: list[str] | None = None) -> int:
    """Replace dest with the tree of commit (only subdirs, when given); return how many files
    the mirror lacks.

    Snapshots leave out files of 4 MiB and more (and Git LFS content), so `git archive` would
    stop at the first missing blob: each file is written on its own, and missing ones skipped.
    Symbolic links and submodules are skipped too (a link could point out of dest).
    """
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    listing = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", commit, "--",
                              *(subdirs or [])], check=True, capture_output=True).stdout
    files = []
    for record in listing.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob" and mode in (b"100644", b"100755"):
                files.append((sha, os.fsdecode(path)))
    missing = 0
    with subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as batch:
        for sha, path in files:
            batch.stdin.write(sha + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if header[-1] == b"missing":
                missing += 1
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after each object
            target = os.path.normpath(os.path.join(dest, path))
            if not target.startswith(os.path.join(dest, "")):
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
        batch.stdin.close()
    return missing


def count_python(root: str) -> tuple[int, int]:
    """(number of .py files, number of lines in them) under root: the count the corpus table uses."""
    return run_corpora.count([root])


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True).stdout


def toml_string(value: str) -> str:
    """A TOML basic string (names and paths here hold no control characters)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
