#!/usr/bin/env python3
"""Cold, warm and one-edit runs of `mslint` on a zoo-sized tree, with the ratios the
programs issue sets (warm <= 3% of cold and <= 3 s, cold <= 60 s, peak memory <= 1 GiB on
2 cores).

The tree is assembled from public MindSpore repositories outside git (benchmarks/zoo_tree.py
records which, by commit; their code is never committed).  Every figure comes from this run:

  cold   mslint with an empty cache directory (it writes the cache)
  warm   mslint again, nothing changed
  edit   a comment appended to one module that many others import, then mslint

Each run is repeated --repeat times and the fastest counts (the work is the same; a slower
run measured other processes' work too).  Peak memory is the largest resident size of the
run's process tree, sampled every 50 ms with psutil when it is installed, else the largest
single process waited for so far (wait4's ru_maxrss: after the cold run, its largest worker).

  python benchmarks/zoo_run.py --tree /work/zoo [--repeat 1]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Optional, Tuple

from mslint.run.manifest import RACY_SECONDS

try:  # (the same sampler as run_benchmark.py's; it needs psutil)
    import psutil  # noqa: F401
    from run_benchmark import _sample_tree
except ImportError:
    _sample_tree = None


def count(tree: str) -> Tuple[int, int]:
    files = lines = 0
    for directory, subdirectories, names in os.walk(tree):
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]
        for name in names:
            if name.endswith(".py"):
                files += 1
                try:
                    with open(os.path.join(directory, name), "rb") as handle:
                        lines += handle.read().count(b"\n")
                except OSError:
                    pass
    return files, lines


def measure(command: List[str], cwd: str, env: Dict[str, str]) -> Tuple[float, int, str]:
    """(seconds, peak bytes, stdout) of one run."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()
    sampler = None
    if _sample_tree is not None:
        sampler = threading.Thread(target=_sample_tree, args=(process.pid, peak, done), daemon=True)
        sampler.start()
    out, err = process.communicate()
    seconds = time.monotonic() - started
    done.set()
    if sampler is not None:
        sampler.join()
    if process.returncode not in (0, 1):
        raise SystemExit(f"mslint failed ({process.returncode}): {err.decode(errors='replace')[-2000:]}")
    if sampler is not None:
        return seconds, peak[0], out.decode(errors="replace")
    # (the largest process this benchmark has waited for so far: after the cold run, its workers)
    single = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return seconds, single, out.decode(errors="replace")


def edited_module(tree: str) -> Optional[str]:
    """A module many others import: the most imported `utils.py`/`helpers.py`-like file."""
    for candidate in ("mindspore-lab+mindcv/mindcv/models/helpers.py", "mindcv/mindcv/models/helpers.py"):
        path = os.path.join(tree, candidate)
        if os.path.isfile(path):
            return path
    for directory, _, names in os.walk(tree):
        if "helpers.py" in names:
            return os.path.join(directory, "helpers.py")
    return None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default="/work/zoo", help="the assembled tree (benchmarks/zoo_tree.py)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind; the fastest counts")
    parser.add_argument("--jobs", type=int, default=0, help="mslint --jobs (default: mslint chooses)")
    args = parser.parse_args(argv)
    tree = os.path.abspath(args.tree)
    files, lines = count(tree)
    print(f"tree: {tree}: {files} Python files, {lines} lines; {os.cpu_count()} cores; "
          f"load {os.getloadavg()[0]:.1f}")
    cache = tempfile.mkdtemp(prefix="mslint-zoo-cache-")
    env = dict(os.environ, MSLINT_CACHE_DIR=cache)
    command = [sys.executable, "-m", "mslint", "--quiet", "--exit-zero", "--format", "json", "."]
    if args.jobs:
        command[3:3] = ["--jobs", str(args.jobs)]
    results: Dict[str, Tuple[float, int]] = {}
    outputs: Dict[str, str] = {}
    # A run writes no manifest when a file it read changed less than RACY_SECONDS before it
    # started (mslint/run/manifest.py); the last benchmark's edit is undone just before this one
    # starts, which sent every warm run through the per-file cache (4 s instead of 0.4 s).
    time.sleep(RACY_SECONDS)
    try:
        for label in ("cold", "warm"):
            best = None
            for _ in range(args.repeat):
                if label == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                    os.makedirs(cache)
                seconds, peak, out = measure(command, tree, env)
                if best is None or seconds < best[0]:
                    best = (seconds, peak)
                outputs[label] = out
            results[label] = best
        edited = edited_module(tree)
        if edited is not None:
            with open(edited, "rb") as handle:
                original = handle.read()
            try:
                with open(edited, "ab") as handle:
                    handle.write(b"\n# edited by the zoo benchmark\n")
                seconds, peak, _ = measure(command, tree, env)
                results["edit"] = (seconds, peak)
            finally:
                with open(edited, "wb") as handle:
                    handle.write(original)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    cold = results["cold"][0]
    print(f"{'run':<6} {'seconds':>9} {'of cold':>8} {'peak MiB':>9}")
    for label, (seconds, peak) in results.items():
        print(f"{label:<6} {seconds:9.2f} {seconds / cold:8.3f} {peak / 2**20:9.0f}")
    same = outputs.get("cold") == outputs.get("warm")
    print(f"warm findings identical to cold: {same}")
    warm = results["warm"][0]
    verdicts = {"cold <= 60 s": cold <= 60, "warm <= 3% of cold": warm <= 0.03 * cold, "warm <= 3 s": warm <= 3,
                "peak <= 1 GiB": max(p for _, p in results.values()) <= 2**30}
    for target, met in verdicts.items():
        print(f"  {target}: {'met' if met else 'NOT met'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
