#!/usr/bin/env python3
"""Per-program counts of findings on extracted repositories (the practice corpus): for each
repository, how many findings are in code that a program compiles (a program that may run in
graph mode, or jit code), how many are withheld (code compiled only in GRAPH_MODE, reached
only by PyNative programs), and how many are in library code (no program imports it).

  python benchmarks/program_counts.py /work/corpus/owner+name [...]
  python benchmarks/program_counts.py --results /work/results/heldout-DATE [--corpus /work/corpus]

The second form classifies the findings of a `practice_corpus.py run` (which runs with --quiet,
so the withheld counts are not known there: the column says so).

Each repository is linted with `mslint --format json` (its own cache directory, in a
temporary folder), and each finding's file is classified with the program model
(mslint.project.programs).  Prints a Markdown table for docs/real-world.md.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Dict, List

from mslint.project import index as project

_WITHHELD = re.compile(r"(\d+) more findings? withheld")


def counts(repository: str) -> Dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="mslint-programs-") as cache:
        result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "--exit-zero", "."],
                                cwd=repository, capture_output=True, text=True,
                                env=dict(os.environ, MSLINT_CACHE_DIR=cache))
    findings = json.loads(result.stdout or "[]")
    withheld = _WITHHELD.search(result.stderr)
    found = {"programs": 0, "compiled": 0, "pynative": 0, "library": 0,
             "withheld": int(withheld.group(1)) if withheld else 0, "internal": 0}
    roots = set()
    for finding in findings:
        if finding["code"] == "MS003":
            found["internal"] += 1
        path = os.path.join(repository, finding["path"])
        model = project.project_for(path)
        roots.add(model.root)
        found[_kind(model.programs(), path)] += 1
    found["programs"] = sum(len(project.project_at(root).programs().programs) for root in roots)
    return found


def _kind(programs, path: str) -> str:
    """compiled: a program that may run graph mode reaches the module; pynative: only PyNative
    programs do (what is reported there is jit code); library: no program does."""
    if not programs.programs_of(path):
        return "library"
    return "pynative" if programs.mode_of(path) else "compiled"


def from_results(folder: str, corpus: str) -> Dict[str, Dict[str, int]]:
    """Per repository: findings in code that programs compile, and in library code."""
    found: Dict[str, Dict[str, int]] = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        repository = os.path.join(corpus, name[:-5])
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            findings = json.load(handle)
        counted = {"programs": 0, "compiled": 0, "pynative": 0, "library": 0, "withheld": -1, "internal": 0}
        roots = set()
        for finding in findings:
            counted["internal"] += finding["code"] == "MS003"
            path = os.path.join(repository, finding["path"])
            model = project.project_for(path)
            roots.add(model.root)
            counted[_kind(model.programs(), path)] += 1
        counted["programs"] = sum(len(project.project_at(root).programs().programs) for root in roots)
        found[name[:-5]] = counted
    return found


def main(argv: List[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    if argv[0] == "--results":
        corpus = argv[argv.index("--corpus") + 1] if "--corpus" in argv else "/work/corpus"
        rows = from_results(argv[1], corpus)
        _table(rows)
        return 0
    _table({os.path.basename(r.rstrip(os.sep)): counts(os.path.abspath(r)) for r in argv})
    return 0


def _table(rows: Dict[str, Dict[str, int]]) -> None:
    print("| repository | programs | in modules a graph-mode program runs | in modules only PyNative programs run "
          "(jit code) | withheld (PyNative-only programs) | in library code | internal errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    total = {"programs": 0, "compiled": 0, "pynative": 0, "withheld": 0, "library": 0, "internal": 0}
    for name, found in rows.items():
        for key in total:
            total[key] += max(found[key], 0)
        withheld = found["withheld"] if found["withheld"] >= 0 else "not recorded"
        print(f"| {name} | {found['programs']} | {found['compiled']} | {found['pynative']} | {withheld} "
              f"| {found['library']} | {found['internal']} |")
    print(f"| **total** | {total['programs']} | {total['compiled']} | {total['pynative']} | {total['withheld']} "
          f"| {total['library']} | {total['internal']} |")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
