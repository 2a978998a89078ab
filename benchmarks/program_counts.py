#!/usr/bin/env python3
"""Per-program counts of findings on extracted repositories (the practice corpus): for each
repository, how many findings are in code that a program compiles (a program that may run in
graph mode, or jit code), how many are withheld (code compiled only in GRAPH_MODE, reached
only by PyNative programs), and how many are in library code (no program imports it).

  python benchmarks/program_counts.py /work/corpus/owner+name [...]

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
    found = {"programs": 0, "compiled": 0, "library": 0, "withheld": int(withheld.group(1)) if withheld else 0,
             "internal": 0}
    roots = set()
    for finding in findings:
        if finding["code"] == "MS003":
            found["internal"] += 1
        path = os.path.join(repository, finding["path"])
        model = project.project_for(path)
        roots.add(model.root)
        found["compiled" if model.programs().programs_of(path) else "library"] += 1
    found["programs"] = sum(len(project.project_at(root).programs().programs) for root in roots)
    return found


def main(argv: List[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    print("| repository | programs (with findings' projects) | findings in code its programs compile "
          "| withheld (PyNative-only programs) | in library code | internal errors |")
    print("|---|---:|---:|---:|---:|---:|")
    total = {"programs": 0, "compiled": 0, "withheld": 0, "library": 0, "internal": 0}
    for repository in argv:
        found = counts(os.path.abspath(repository))
        for key in total:
            total[key] += found[key]
        print(f"| {os.path.basename(repository.rstrip(os.sep))} | {found['programs']} | {found['compiled']} "
              f"| {found['withheld']} | {found['library']} | {found['internal']} |")
    print(f"| **total** | {total['programs']} | {total['compiled']} | {total['withheld']} | {total['library']} "
          f"| {total['internal']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
