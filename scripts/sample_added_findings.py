"""Draw a stratified sample of the findings one mslint run adds over another, for review.

    python scripts/sample_added_findings.py --out sample.json \
        mindone=before/mindone.json:after/mindone.json mindocr=before/mindocr.json:after/mindocr.json

Each argument names a corpus and two `mslint --format json` outputs of it (before and
after a change).  A finding is "added" when its (path, line, code) is not in the before run.
Up to --per-rule findings of each rule are drawn with a fixed seed, so the same inputs give
the same sample (benchmarks/review/ keeps the samples and their verdicts).
"""
from __future__ import annotations

import argparse
import collections
import json
import random
from typing import Dict, List


def added(before: List[dict], after: List[dict]) -> List[dict]:
    seen = {(f["path"], f["line"], f["code"]) for f in before}
    return [f for f in after if (f["path"], f["line"], f["code"]) not in seen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="CORPUS=BEFORE.json:AFTER.json")
    parser.add_argument("--out", required=True)
    parser.add_argument("--per-rule", type=int, default=6)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    found: List[dict] = []
    for run in args.runs:
        corpus, files = run.split("=", 1)
        before_path, after_path = files.split(":", 1)
        with open(before_path, encoding="utf-8") as handle:
            before = json.load(handle)
        with open(after_path, encoding="utf-8") as handle:
            after = json.load(handle)
        found += [dict(f, corpus=corpus) for f in added(before, after)]
    by_rule: Dict[str, List[dict]] = collections.defaultdict(list)
    for finding in found:
        by_rule[finding["code"]].append(finding)
    rng = random.Random(args.seed)
    sample = []
    for code in sorted(by_rule):
        items = by_rule[code]
        rng.shuffle(items)
        sample += items[:args.per_rule]
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(sample, handle, indent=1)
    print(f"{len(found)} added, {len(sample)} sampled: " + ", ".join(f"{c} {len(v)}" for c, v in sorted(by_rule.items())))


if __name__ == "__main__":
    main()
