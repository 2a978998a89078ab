#!/usr/bin/env python3
"""Assemble the zoo-sized performance tree from local git mirrors and count it.

The tree is public MindSpore code at the commits that benchmarks/zoo_tree.toml records: one
folder per repository (<owner>+<name>), optionally only some of its folders.  It is built for
timing runs (issue 25: at least 8,000 .py files and 1 M lines); nothing of it is committed.

    python benchmarks/zoo_tree.py                 # extract into /work/zoo and print the counts
    python benchmarks/zoo_tree.py --count-only    # count what is already there
    python benchmarks/zoo_tree.py --record        # write the mirrors' newest commits into the toml

The mirrors are the git directories the fetch tool leaves under /work/.mirror/<owner>+<name>/.
Snapshots lack files of 4 MiB and more; the counts are of what could be extracted.
"""
from __future__ import annotations

import argparse
import os
import sys

import mirror_trees

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "zoo_tree.toml")


def read_manifest(path: str) -> list[dict]:
    import tomllib  # 3.11+; these scripts are run by hand, not by the package

    with open(path, "rb") as handle:
        return tomllib.load(handle)["repository"]


def record(entries: list[dict], mirror: str, path: str) -> int:
    """Rewrite the manifest with each mirror's newest commit (names and paths kept)."""
    lines = [
        "# The zoo-sized performance tree (benchmarks/zoo_tree.py; see benchmarks/README.md).",
        "# Names, commits and the folders taken; the code stays outside git.",
        "",
    ]
    for entry in entries:
        gitdir = mirror_trees.git_dir(mirror, entry["name"])
        if gitdir is None:
            print(f"{entry['name']}: no mirror under {mirror}", file=sys.stderr)
            return 1
        lines += ["[[repository]]", f"name = {mirror_trees.toml_string(entry['name'])}",
                  f"commit = {mirror_trees.toml_string(mirror_trees.head_commit(gitdir))}"]
        if entry.get("paths"):
            lines.append("paths = [" + ", ".join(mirror_trees.toml_string(p) for p in entry["paths"]) + "]")
        lines.append("")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=MANIFEST, help="default: %(default)s")
    parser.add_argument("--mirror", default=mirror_trees.DEFAULT_MIRROR, help="default: %(default)s")
    parser.add_argument("--dest", default="/work/zoo", help="where the tree goes, outside git (default: %(default)s)")
    parser.add_argument("--count-only", action="store_true", help="count the tree already at --dest")
    parser.add_argument("--record", action="store_true", help="record the mirrors' newest commits")
    args = parser.parse_args(argv)
    try:
        entries = read_manifest(args.manifest)
    except (OSError, KeyError, ValueError) as error:  # tomllib's TOMLDecodeError is a ValueError
        print(f"zoo_tree: cannot read {args.manifest}: {error}", file=sys.stderr)
        return 2
    if args.record:
        return record(entries, args.mirror, args.manifest)

    total_files = total_lines = 0
    status = 0
    for entry in entries:
        folder = os.path.join(args.dest, mirror_trees.folder_name(entry["name"]))
        note = ""
        if not args.count_only:
            gitdir = mirror_trees.git_dir(args.mirror, entry["name"])
            if gitdir is None or not mirror_trees.has_commit(gitdir, entry["commit"]):
                print(f"{entry['name']}: commit {entry['commit'][:12]} is not in {args.mirror}; fetch it first",
                      file=sys.stderr)
                status = 1
                continue
            missing = mirror_trees.extract(gitdir, entry["commit"], folder, entry.get("paths"))
            note = f"  ({missing} files not in the snapshot)" if missing else ""
        files, lines = mirror_trees.count_python(folder) if os.path.isdir(folder) else (0, 0)
        total_files += files
        total_lines += lines
        print(f"{entry['name']:32} {files:6} .py files {lines:9} lines{note}")
    print(f"{'total':32} {total_files:6} .py files {total_lines:9} lines in {args.dest}")
    return status


if __name__ == "__main__":
    sys.exit(main())
