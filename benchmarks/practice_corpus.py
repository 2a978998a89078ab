#!/usr/bin/env python3
"""The practice corpus: public MindSpore application repositories, split into two halves.

The corpus is application code (model zoos, course and tutorial repositories, contest and
student projects, converted PyTorch code, HF ports), not the library wheels that
scripts/run_corpora.py lints.  benchmarks/practice_corpus.toml records each repository's
name, commit, half and size; the code itself stays outside git.

Rules are tuned on the *tuning* half only.  Precision is measured on the *held-out* half, by
reviewers who did not see the tuning review.  The split was drawn once, by repository, before
mslint ran on any of it: the sorted names shuffled with random.Random(SEED), the first half
(rounded up) tuning.

    python benchmarks/practice_corpus.py split OWNER/NAME ...   # once: draw and record the split
    python benchmarks/practice_corpus.py extract [--half H]     # trees from /work/.mirror
    python benchmarks/practice_corpus.py run --half tuning --out DIR
    python benchmarks/practice_corpus.py counts DIR             # findings per rule
    python benchmarks/practice_corpus.py sample DIR --out FILE  # stratified review sample

`run` lints each repository of one half with `python -m mslint --format json --no-cache` in
its own process (the code is never imported), with the repository's tree as the working
directory, and writes DIR/<owner>+<name>.json.  Keep DIR outside this repository.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time

import mirror_trees

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "practice_corpus.toml")
SEED = 2026
SAMPLE_SEED = 2026
HALVES = ("tuning", "held-out")


def draw_split(repos: list[str], seed: int = SEED) -> dict[str, str]:
    """repository -> half: sorted names shuffled with the seed, the first half (rounded up) tuning."""
    names = sorted(set(repos))
    random.Random(seed).shuffle(names)
    cut = (len(names) + 1) // 2
    return {name: HALVES[0] if i < cut else HALVES[1] for i, name in enumerate(names)}


def read_manifest(path: str = MANIFEST) -> list[dict]:
    import tomllib  # 3.11+; these scripts are run by hand, not by the package

    with open(path, "rb") as handle:
        return tomllib.load(handle)["repository"]


def write_manifest(entries: list[dict], seed: int, path: str = MANIFEST) -> None:
    lines = [
        "# The practice corpus (benchmarks/practice_corpus.py; see benchmarks/README.md).",
        "# Names, commits and counts only: the code stays outside git.",
        f"# Split by repository: sorted names shuffled with random.Random({seed}), first half tuning.",
        "# Rules are tuned on the tuning half; precision is measured on the held-out half.",
        "",
        f"seed = {seed}",
        "",
    ]
    for entry in sorted(entries, key=lambda e: (HALVES.index(e["half"]), e["name"])):
        lines += [
            "[[repository]]",
            f"name = {mirror_trees.toml_string(entry['name'])}",
            f"commit = {mirror_trees.toml_string(entry['commit'])}",
            f"half = {mirror_trees.toml_string(entry['half'])}",
            f"kind = {mirror_trees.toml_string(entry['kind'])}",
            f"python_files = {entry['python_files']}",
            f"python_lines = {entry['python_lines']}",
            "",
        ]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))


def cmd_split(args) -> int:
    if os.path.exists(args.manifest) and not args.force:
        print(f"{args.manifest} exists: the split is drawn once (--force to draw it again)", file=sys.stderr)
        return 2
    kinds = dict(item.split("=", 1) for item in args.kind or [])
    entries = []
    for name, half in draw_split(args.repos, args.seed).items():
        gitdir = mirror_trees.git_dir(args.mirror, name)
        if gitdir is None:
            print(f"{name}: no mirror under {args.mirror}", file=sys.stderr)
            return 2
        commit = mirror_trees.head_commit(gitdir)
        dest = os.path.join(args.corpus, mirror_trees.folder_name(name))
        mirror_trees.extract(gitdir, commit, dest)
        files, lines = mirror_trees.count_python(dest)
        entries.append({"name": name, "commit": commit, "half": half, "kind": kinds.get(name, ""),
                        "python_files": files, "python_lines": lines})
        print(f"{half:9} {name:60} {files:6} files {lines:8} lines")
    write_manifest(entries, args.seed, args.manifest)
    return 0


def selected(entries: list[dict], half: str | None) -> list[dict]:
    return [e for e in entries if half in (None, e["half"])]


def cmd_extract(args) -> int:
    missing = 0
    for entry in selected(read_manifest(args.manifest), args.half):
        name, commit = entry["name"], entry["commit"]
        gitdir = mirror_trees.git_dir(args.mirror, name)
        if gitdir is None or not mirror_trees.has_commit(gitdir, commit):
            print(f"{name}: commit {commit[:12]} is not in {args.mirror}; fetch the repository first",
                  file=sys.stderr)
            missing += 1
            continue
        dest = os.path.join(args.corpus, mirror_trees.folder_name(name))
        mirror_trees.extract(gitdir, commit, dest)
        files, lines = mirror_trees.count_python(dest)
        same = "" if (files, lines) == (entry["python_files"], entry["python_lines"]) else "  (counts differ!)"
        print(f"{entry['half']:9} {name:60} {files:6} files {lines:8} lines{same}")
    return 1 if missing else 0


def cmd_run(args) -> int:
    out = os.path.abspath(args.out)
    if out == HERE or out.startswith(os.path.dirname(HERE) + os.sep):
        print("--out must be outside the repository (findings quote third-party code)", file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    failed = 0
    for entry in selected(read_manifest(args.manifest), args.half):
        tree = os.path.join(args.corpus, mirror_trees.folder_name(entry["name"]))
        if not os.path.isdir(tree):
            print(f"{entry['name']}: {tree} is missing; run `extract` first", file=sys.stderr)
            failed += 1
            continue
        report = os.path.join(out, mirror_trees.folder_name(entry["name"]) + ".json")
        command = [args.python, "-m", "mslint", "--format", "json", "--no-cache", "--exit-zero", "--quiet",
                   "--jobs", str(args.jobs), "--output-file", report, *args.mslint_args, "."]
        start = time.monotonic()
        result = subprocess.run(command, cwd=tree, stderr=subprocess.PIPE, text=True)
        seconds = time.monotonic() - start
        if result.returncode != 0 or not os.path.exists(report):
            print(f"{entry['name']}: mslint exited {result.returncode}: {result.stderr.strip()[-500:]}",
                  file=sys.stderr)
            failed += 1
            continue
        with open(report, encoding="utf-8") as handle:
            findings = json.load(handle)
        internal = sum(1 for f in findings if f["code"] == "MS003")
        unparsable = sum(1 for f in findings if f["code"] in ("MS001", "MS002"))
        # Only totals: nobody should see a held-out finding before its review.
        print(f"{entry['half']:9} {entry['name']:52} {len(findings):6} findings {internal:3} internal errors "
              f"{unparsable:4} files unparsable {seconds:7.1f} s")
    return 1 if failed else 0


def load_findings(folder: str) -> list[dict]:
    """Every finding of the JSON reports in folder, each with its repository added."""
    findings = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                for finding in json.load(handle):
                    finding["repository"] = name[:-len(".json")].replace("+", "/", 1)
                    findings.append(finding)
    return findings


def cmd_counts(args) -> int:
    findings = load_findings(args.results)
    per_rule = collections.Counter(f["code"] for f in findings)
    per_repo = collections.Counter(f["repository"] for f in findings)
    print(f"{len(findings)} findings in {len(per_repo)} repositories")
    for code, count in sorted(per_rule.items()):
        repos = len({f["repository"] for f in findings if f["code"] == code})
        print(f"{code}  {count:6}  in {repos} repositories")
    return 0


def draw_sample(findings: list[dict], per_rule: int, seed: int) -> list[dict]:
    """Up to per_rule findings of each rule, drawn with the seed from the findings in a fixed order."""
    by_rule = collections.defaultdict(list)
    for finding in sorted(findings, key=lambda f: (f["code"], f["repository"], f["path"], f["line"],
                                                   f["column"], f["message"])):
        by_rule[finding["code"]].append(finding)
    rng = random.Random(seed)
    sample = []
    for code in sorted(by_rule):
        group = by_rule[code]
        picked = rng.sample(range(len(group)), min(per_rule, len(group)))
        for index in sorted(picked):
            sample.append(dict(group[index], rule_total=len(group)))
    return sample


def cmd_sample(args) -> int:
    sample = draw_sample(load_findings(args.results), args.per_rule, args.seed)
    keep = ("repository", "path", "line", "column", "code", "severity", "message", "rule_total")
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump([{k: f[k] for k in keep} for f in sample], handle, indent=1, ensure_ascii=False)
    print(f"{len(sample)} findings of {len({f['code'] for f in sample})} rules -> {args.out}")
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=MANIFEST, help="the split (default: %(default)s)")
    parser.add_argument("--mirror", default=mirror_trees.DEFAULT_MIRROR,
                        help="where the fetched git mirrors are (default: %(default)s)")
    parser.add_argument("--corpus", default="/work/corpus",
                        help="where trees are extracted, outside git (default: %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)

    split = sub.add_parser("split", help="draw the split once and record it")
    split.add_argument("repos", nargs="+", metavar="OWNER/NAME")
    split.add_argument("--seed", type=int, default=SEED)
    split.add_argument("--kind", action="append", metavar="OWNER/NAME=KIND",
                       help="what kind of code a repository is (zoo, course, contest, x2ms, hf-port)")
    split.add_argument("--force", action="store_true", help="overwrite an existing split")
    split.set_defaults(func=cmd_split)

    extract = sub.add_parser("extract", help="extract the recorded commits from the mirrors")
    extract.add_argument("--half", choices=HALVES)
    extract.set_defaults(func=cmd_extract)

    run = sub.add_parser("run", help="lint one half; JSON reports to --out")
    run.add_argument("--half", choices=HALVES, required=True)
    run.add_argument("--out", required=True, help="folder for the reports, outside the repository")
    run.add_argument("--python", default=sys.executable, help="the Python that runs mslint")
    run.add_argument("--jobs", default=1, type=int, help="mslint --jobs (default 1: the machine is shared)")
    run.add_argument("mslint_args", nargs="*", metavar="-- MSLINT-ARG", help="more arguments for mslint")
    run.set_defaults(func=cmd_run)

    counts = sub.add_parser("counts", help="findings per rule in a results folder")
    counts.add_argument("results")
    counts.set_defaults(func=cmd_counts)

    sample = sub.add_parser("sample", help="a stratified sample for review")
    sample.add_argument("results")
    sample.add_argument("--out", required=True)
    sample.add_argument("--per-rule", type=int, default=10)
    sample.add_argument("--seed", type=int, default=SAMPLE_SEED)
    sample.set_defaults(func=cmd_sample)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return args.func(args)
    except (OSError, KeyError, ValueError) as error:  # a missing or malformed manifest, an unreadable report
        print(f"practice_corpus: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
