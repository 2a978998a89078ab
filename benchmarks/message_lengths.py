"""How long findings' messages are, and how long their first sentence (issue 26).

Reads a folder of `mslint --format json` outputs (DIR/*.json, as
`python benchmarks/practice_corpus.py run --half tuning --out DIR` writes them) and prints, overall
and per rule: the median and longest first sentence (what `--output-format concise` shows), how
many are over 120 and over 200 characters, and the median and longest whole message.

    python benchmarks/message_lengths.py DIR [DIR ...]
    python benchmarks/message_lengths.py DIR --json        # the same figures as one JSON object

The first sentence is read as mslint.messages.first_sentence reads it: up to the first ". ". A
message written before messages had sentences is one long first sentence.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
from collections import defaultdict
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # run from a checkout without installing it

from mslint.messages import first_sentence  # noqa: E402

TARGET = 120  # issue 26: the median first sentence at most this long
LIMIT = 200  # ... and none longer than this


def messages(folders: List[str]) -> List[dict]:
    """Every finding of every report in the folders (the whole JSON object)."""
    found = []
    for folder in folders:
        paths = sorted(glob.glob(os.path.join(folder, "*.json")))
        if not paths:
            raise SystemExit(f"{folder}: no *.json reports")
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                try:
                    report = json.load(handle)
                except json.JSONDecodeError as error:
                    raise SystemExit(f"{path}: not a JSON report ({error})")
            if not isinstance(report, list):
                raise SystemExit(f"{path}: not an mslint --format json report (a list of findings)")
            found.extend(f for f in report if isinstance(f, dict) and "message" in f and "code" in f)
    return found


def figures(lengths: List[int], whole: List[int]) -> Dict[str, int]:
    return {"findings": len(lengths), "median_first": round(statistics.median(lengths)), "max_first": max(lengths),
            f"over_{TARGET}": sum(n > TARGET for n in lengths), f"over_{LIMIT}": sum(n > LIMIT for n in lengths),
            "median_message": round(statistics.median(whole)), "max_message": max(whole)}


def measure(findings: List[dict]) -> Dict[str, Dict[str, int]]:
    """{'all': figures, 'MS101': figures, ...}; empty when there are no findings."""
    if not findings:
        return {}
    first: Dict[str, List[int]] = defaultdict(list)
    whole: Dict[str, List[int]] = defaultdict(list)
    for finding in findings:
        for key in ("all", finding["code"]):
            first[key].append(len(first_sentence(finding["message"])))
            whole[key].append(len(finding["message"]))
    return {key: figures(first[key], whole[key]) for key in ["all"] + sorted(k for k in first if k != "all")}


def table(result: Dict[str, Dict[str, int]]) -> str:
    columns = ["findings", "median_first", "max_first", f"over_{TARGET}", f"over_{LIMIT}", "median_message",
               "max_message"]
    lines = ["| rule | " + " | ".join(c.replace("_", " ") for c in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for key, row in result.items():
        lines.append(f"| {key} | " + " | ".join(str(row[c]) for c in columns) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", metavar="DIR", help="folders of mslint --format json reports")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    result = measure(messages(args.folders))
    if not result:
        print("no findings")
        return 0
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    overall = result["all"]
    print(f"{overall['findings']} findings: first sentence median {overall['median_first']}, longest "
          f"{overall['max_first']}, {overall[f'over_{TARGET}']} over {TARGET}, {overall[f'over_{LIMIT}']} over "
          f"{LIMIT} (target: median <= {TARGET}, none over {LIMIT})")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
