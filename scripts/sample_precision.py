"""Draw the per-rule precision sample of mslint's findings on the PyPI corpora, for review.

    python scripts/sample_precision.py --out benchmarks/review/precision-sample.json \\
        mindcv=.corpora/results/mindcv.json mindocr=.corpora/results/mindocr.json ...

Each argument names a corpus and its `mslint --format json` output (scripts/run_corpora.py
writes them to <cache>/results/).  For every rule, up to --per-rule findings are drawn with
a fixed seed (2026): the corpora take turns (round-robin, in the order given), each giving a
finding drawn at random from its own findings of that rule, so one large corpus does not
fill a rule's sample.  The same inputs give the same sample.  Paths are written relative to
the corpus directory (the part after `src/<corpus>/` when present).  The sample holds each
rule's total count too, for a precision weighted by volume.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
from typing import Dict, List, Tuple


def relative(path: str, corpus: str) -> str:
    marker = f"/src/{corpus}/"
    return path.split(marker, 1)[1] if marker in path else path


def take_in_turns(pools: Dict[str, List[dict]], limit: int, rng: random.Random) -> List[Tuple[str, dict]]:
    """Up to `limit` (corpus, item) pairs: each pool shuffled, then the corpora taking turns in
    the order given, each giving its next item, so that one large corpus does not fill the
    sample (the pools are emptied as they give)."""
    for pool in pools.values():
        rng.shuffle(pool)
    taken: List[Tuple[str, dict]] = []
    while len(taken) < limit and any(pools.values()):
        for corpus in pools:
            if pools[corpus] and len(taken) < limit:
                taken.append((corpus, pools[corpus].pop()))
    return taken


def draw(by_corpus: Dict[str, List[dict]], per_rule: int, seed: int) -> List[dict]:
    rng = random.Random(seed)
    codes = sorted({f["code"] for findings in by_corpus.values() for f in findings})
    sample: List[dict] = []
    for code in codes:
        pools = {corpus: [f for f in findings if f["code"] == code] for corpus, findings in by_corpus.items()}
        sample += [dict(finding, corpus=corpus, path=relative(finding["path"], corpus))
                   for corpus, finding in take_in_turns(pools, per_rule, rng)]
    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="CORPUS=RESULTS.json")
    parser.add_argument("--out", required=True)
    parser.add_argument("--per-rule", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    by_corpus: Dict[str, List[dict]] = {}
    for run in args.runs:
        corpus, path = run.split("=", 1)
        with open(path, encoding="utf-8") as handle:
            by_corpus[corpus] = json.load(handle)
    totals = collections.Counter(f["code"] for findings in by_corpus.values() for f in findings)
    sample = draw(by_corpus, args.per_rule, args.seed)
    keep = ("corpus", "code", "symbol", "path", "line", "column", "message")
    document = {"seed": args.seed, "per_rule": args.per_rule, "totals": dict(sorted(totals.items())),
                "findings": [{key: f.get(key) for key in keep} for f in sample]}
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    print(f"{len(sample)} findings of {len(totals)} rules -> {args.out}")


if __name__ == "__main__":
    main()
