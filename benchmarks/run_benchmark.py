#!/usr/bin/env python3
"""Measure mslint against pylint's floor on real MindSpore code.

Fetches the PyPI wheels of mindcv 0.3.0 and mindyolo 0.5.0 (mindocr 0.5.0 with --only; and mindone
0.5.0 for the memory run) with `pip download --no-deps` into a cache directory outside
git (default: .corpora/ in the repository, which is git-ignored), extracts them, and
measures on the same files, in one run:

  (a) pylint --disable=all --enable=C0304            pylint's floor (parse, walk, one message)
  (b) mslint --no-cache
  (c) mslint with a warm cache
  (d) mslint after editing one helper module that most model modules import
      (mindcv/models/helpers.py: a new top-level function appended; restored afterwards);
      the edited module is analysed again, and every module whose analysis looked up
      something the edit changed.  Two more edits are measured the same way, with no
      target: a comment appended, and a statement added to the helper the dependents read
  (e) pylint --load-plugins=mslint --disable=all --enable=C0304,mslint, with the cache a
      `mslint` run left (the edit of (d) undone), and with no cache to read
  (a') pylint's floor again, with the collector thresholds that loading the plugin sets for
      the run (mslint.frontends.pylint_plugin.collect_rarely): e0/a' is what mslint's own
      analysis adds, apart from the collections the plugin saves pylint (no target)

(b) is measured first: mslint's default --jobs uses the cores the last minute's load leaves
idle, and the runs of (a) and (e) leave about one core's load, which a developer's shell
does not have.  A machine shared with other work makes single timings jitter by several percent, so every
measured run is repeated --repeat times (default 5; (a) and (e) without a cache to read,
the two closest to each other, alternately) and the fastest of each counts, as timeit
does: the work is the same every time, so a slower run measured other processes' work too.
mslint's bytecode is written first, as installing its wheel does.  It prints the ratios
b/a, c/a, d/a, e/a (wall clock and CPU time) and each run's peak memory: the largest single process (wait4's ru_maxrss) and, with psutil, the sum over
the process tree.  It checks that (b), (c), (d) and a --jobs 1 run without the text
pre-filter report the same findings (the edit inside a helper, which moves lines, is
compared with a --no-cache run on the edited file).  With --write it records the table in
docs/performance.md.  Run it from the repository, with mslint and pylint installed in
the interpreter running it:

  python benchmarks/run_benchmark.py --write
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from typing import Dict, List, Optional, Tuple

from mslint.run.runner import available_cores  # (the policy of mslint's default --jobs)

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = (("mindcv", "0.3.0"), ("mindyolo", "0.5.0"), ("mindocr", "0.5.0"))
DEFAULT_CORPORA = ("mindcv", "mindyolo")
MEMORY_CORPUS = ("mindone", "0.5.0")
EDITED_FILE = "mindcv/models/helpers.py"  # (d): a helper module many models import, as a user would edit one
# The edits of (d), each made, measured and undone in turn.  The target is for the first, a
# change of code (a new function; the result cache need not analyse again the modules whose
# analyses did not look up what changed).  The others show the two ends: a comment appended
# (what (d) was until the cache's dependencies became finer than a file), and a new statement
# in the body of make_divisible, the function every dependent's analysis reads (so they are
# all analysed again).
EDITS = (
    ("d", "a new top-level function appended", "function"),
    ("d_comment", "a comment appended", "comment"),
    ("d_body", "a statement added to `make_divisible`, which the dependents' analyses read", "body"),
)
_BODY_ANCHOR = b"    if not min_value:\n        min_value = divisor\n"


def edited_text(original: bytes, kind: str) -> Optional[bytes]:
    """The helper module's text after an edit of (d) (None: this version has no place for it)."""
    if kind == "function":
        return original + b"\n\ndef benchmark_edit(x):\n    return x + 1\n"
    if kind == "comment":
        return original + b"# edited by the benchmark\n"
    if _BODY_ANCHOR not in original:
        return None
    return original.replace(_BODY_ANCHOR, b"    divisor = int(divisor)\n" + _BODY_ANCHOR, 1)
# the project model's targets (issue: one project, one analysis)
TARGETS = {"b/a": 0.25, "c/a": 0.02, "d/a": 0.05, "e/a": 1.10}
MEMORY_TARGET = 1 << 30
DOC = os.path.join(REPOSITORY, "docs", "performance.md")
PREFILTER = "MSLINT_PREFILTER"
BEGIN, END = "<!-- benchmark:begin -->", "<!-- benchmark:end -->"

try:
    import psutil
except ImportError:  # the tree-wide peak is then not measured
    psutil = None


# -- corpora -----------------------------------------------------------------------------------
def fetch(name: str, version: str, cache: str) -> str:
    """The extracted wheel's directory (downloaded and extracted once)."""
    target = os.path.join(cache, "src", f"{name}-{version}")
    if os.path.isdir(target):
        return target
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    prefix = f"{name}-{version}-"
    found = [w for w in os.listdir(wheels) if w.startswith(prefix) and w.endswith(".whl")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "-d", wheels, f"{name}=={version}"], check=True)
        found = [w for w in os.listdir(wheels) if w.startswith(prefix) and w.endswith(".whl")]
    temporary = target + ".partial"
    shutil.rmtree(temporary, ignore_errors=True)
    with zipfile.ZipFile(os.path.join(wheels, found[0])) as archive:
        archive.extractall(temporary)
    os.replace(temporary, target)
    return target


def packages(directory: str) -> List[str]:
    """The top-level packages of an extracted wheel, relative to the corpora's src/."""
    base = os.path.basename(directory)
    return sorted(os.path.join(base, entry) for entry in os.listdir(directory)
                  if os.path.isfile(os.path.join(directory, entry, "__init__.py")))


def count_lines(root: str, targets: List[str]) -> Tuple[int, int]:
    files = lines = 0
    for target in targets:
        for folder, _, names in os.walk(os.path.join(root, target)):
            for name in names:
                if name.endswith(".py"):
                    files += 1
                    with open(os.path.join(folder, name), "rb") as handle:
                        lines += handle.read().count(b"\n")
    return files, lines


# -- measuring ---------------------------------------------------------------------------------
class Run:
    def __init__(self, label: str, wall: float, cpu: float, max_rss: int, tree_rss: Optional[int], output: str):
        self.label, self.wall, self.cpu, self.max_rss, self.tree_rss, self.output = \
            label, wall, cpu, max_rss, tree_rss, output


def measure(label: str, command: List[str], cwd: str, env: Dict[str, str]) -> Run:
    """Run a command; wall time, CPU time of it and its children, peak memory."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        peak = [0]
        done = threading.Event()
        if psutil is not None:
            threading.Thread(target=_sample_tree, args=(process.pid, peak, done), daemon=True).start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    runs_pylint = "pylint" in command or (command[1:2] == ["-c"] and "run_pylint()" in command[2])
    if not 0 <= process.returncode < (32 if runs_pylint else 2):  # mslint: 0/1; pylint: bit flags
        raise SystemExit(f"{label}: {' '.join(command)} exited {process.returncode}:\n{output[-2000:]}")
    run = Run(label, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
              peak[0] if psutil is not None else None, output)
    print(f"  {label:<34} {wall:7.2f} s wall {run.cpu:7.2f} s cpu  peak {_mib(run.max_rss)}"
          + (f" (tree {_mib(run.tree_rss)})" if run.tree_rss else ""), flush=True)
    return run


def fastest_run(label: str, runs: List[Run]) -> Run:
    """The fastest wall and CPU times of repeated runs of one command; peak memory the largest."""
    fastest = min(runs, key=lambda r: r.wall)
    tree = [r.tree_rss for r in runs if r.tree_rss]
    return Run(label, fastest.wall, min(r.cpu for r in runs), max(r.max_rss for r in runs),
               max(tree) if tree else None, fastest.output)


def _sample_tree(pid: int, peak: List[int], done: threading.Event) -> None:
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not done.is_set():
        try:
            total = root.memory_info().rss
            for child in root.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
        except psutil.Error:
            return
        peak[0] = max(peak[0], total)
        done.wait(0.05)


def _mib(size: Optional[int]) -> str:
    return "-" if not size else f"{size / (1 << 20):.0f} MiB"


def findings_of(output: str) -> List[str]:
    """mslint's JSON findings as sortable lines (the 'files' summary is not part of them)."""
    start = output.index("[")
    return sorted(json.dumps(item, sort_keys=True) for item in json.loads(output[start:]))


def compile_mslint() -> None:
    """Write mslint's bytecode, as installing its wheel does: an editable install run with
    PYTHONDONTWRITEBYTECODE set would otherwise compile every module on every start, which
    a warm run would measure (pylint and astroid, installed by pip, are compiled already)."""
    import importlib.util

    directories = []
    for package in ("mslint", "mslint.checkers"):
        spec = importlib.util.find_spec(package)
        directories += list(spec.submodule_search_locations or [])
    subprocess.run([sys.executable, "-m", "compileall", "-q", *directories], check=True, stdout=subprocess.DEVNULL)


# -- the machine --------------------------------------------------------------------------------
def machine() -> Dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            memory = f"{int(handle.readline().split()[1]) / (1 << 20):.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    import astroid
    import pylint

    return {"cpu": cpu, "cores": str(cores), "memory": memory, "os": platform.platform(),
            "python": platform.python_version(), "pylint": pylint.__version__, "astroid": astroid.__version__,
            "load": " / ".join(f"{x:.1f}" for x in os.getloadavg())}


# -- the run ------------------------------------------------------------------------------------
def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=os.path.join(REPOSITORY, ".corpora"),
                        help="where wheels, sources and mslint's cache go (default: .corpora/)")
    parser.add_argument("--jobs", type=int, default=0, help="mslint --jobs (default: none given, so mslint chooses)")
    parser.add_argument("--only", nargs="*", help="corpora to use (default: mindcv mindyolo; mindocr too if named)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory run on mindone")
    parser.add_argument("--repeat", type=int, default=5,
                        help="times (a) and (e) without a cache are measured, alternately (default 5; the fastest counts)")
    parser.add_argument("--write", action="store_true", help="record the results in docs/performance.md")
    args = parser.parse_args(argv)

    cache = os.path.abspath(args.cache)
    chosen = [c for c in CORPORA if (c[0] in args.only if args.only else c[0] in DEFAULT_CORPORA)]
    src = os.path.join(cache, "src")
    targets: List[str] = []
    for name, version in chosen:
        targets += packages(fetch(name, version, cache))
    files, lines = count_lines(src, targets)
    bin_dir = os.path.dirname(sys.executable)
    mslint = [sys.executable, "-m", "mslint"]
    pylint = [sys.executable, "-m", "pylint"]
    # (a'): pylint with the thresholds the plugin sets when it loads (and nothing else of it)
    tuned_pylint = [sys.executable, "-c", "import gc, sys; from mslint.run.runner import GC_THRESHOLDS; "
                    "gc.set_threshold(*GC_THRESHOLDS); from pylint import run_pylint; sys.argv[0] = 'pylint'; "
                    "run_pylint()"]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    mslint_cache = os.path.join(cache, "mslint_cache")
    shutil.rmtree(mslint_cache, ignore_errors=True)
    env = dict(os.environ, MSLINT_CACHE_DIR=mslint_cache, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    env.pop(PREFILTER, None)
    print(f"corpora: {', '.join(f'{n} {v}' for n, v in chosen)}: {files} files, {lines} lines", flush=True)
    compile_mslint()
    host = machine()
    print(f"machine: {host['cpu']}, {host['cores']} cores, load {host['load']}", flush=True)

    runs: Dict[str, Run] = {}
    times = max(1, args.repeat)
    # (b) first: mslint's default --jobs takes the cores the last minute's load leaves idle, and
    # the runs of (a) and (e) leave about one core's load; a developer's shell has both cores
    workers = args.jobs or available_cores()
    runs["b"] = fastest_run("(b)", [measure("(b) mslint --no-cache", mslint + jobs + ["--no-cache", "--format", "json"]
                                            + targets, src, env) for _ in range(times)])
    plugin = pylint + ["--load-plugins=mslint", "--disable=all", "--enable=C0304,mslint"] + targets
    floors, plugins, tuned_floors = [], [], []
    empty = tempfile.mkdtemp(prefix="mslint-no-cache-")
    try:
        for _ in range(max(1, args.repeat)):
            floors.append(measure("(a) pylint floor", pylint + ["--disable=all", "--enable=C0304"] + targets, src, env))
            plugins.append(measure("(e) pylint + mslint, no cache to read", plugin, src,
                                   dict(env, MSLINT_CACHE_DIR=empty)))
            tuned_floors.append(measure("(a') pylint floor, the plugin's collector thresholds",
                                        tuned_pylint + ["--disable=all", "--enable=C0304"] + targets, src, env))
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    runs["a"], runs["e0"] = fastest_run("(a)", floors), fastest_run("(e0)", plugins)
    runs["a_tuned"] = fastest_run("(a')", tuned_floors)
    repeats = {"a": [r.wall for r in floors], "e0": [r.wall for r in plugins], "a_tuned": [r.wall for r in tuned_floors]}
    runs["fill"] = measure("    mslint, cold cache (fills it)", mslint + jobs + ["--format", "json"] + targets, src, env)
    runs["c"] = fastest_run("(c)", [measure("(c) mslint, warm cache", mslint + jobs + ["--format", "json"] + targets,
                                            src, env) for _ in range(times)])
    edited = os.path.join(src, next(t for t in targets if t.startswith("mindcv")), EDITED_FILE.split("/", 1)[1]) \
        if any(t.startswith("mindcv") for t in targets) else None
    reanalysed = 0
    if edited and os.path.isfile(edited):
        with open(edited, "rb") as handle:
            original = handle.read()
        reanalysed = _dependents(mslint_cache, edited)
        for key, description, kind in EDITS:
            text = edited_text(original, kind)
            if text is None:
                continue
            edits, rewarms = [], []
            for _ in range(times):
                try:
                    with open(edited, "wb") as handle:
                        handle.write(text)
                    edits.append(measure(f"({key}) mslint, {os.path.basename(edited)}: {kind}",
                                         mslint + jobs + ["--format", "json"] + targets, src, env))
                    if kind == "body" and len(edits) == 1:  # (lines move: its findings are compared with these)
                        runs[key + "_reference"] = measure("    mslint --no-cache on the edited file",
                                                           mslint + jobs + ["--no-cache", "--format", "json"]
                                                           + targets, src, env)
                finally:
                    with open(edited, "wb") as handle:
                        handle.write(original)
                # the cache again matches the files on disk, as after any `mslint` run (the one (d)
                # left holds the edited file's results, which (e) would otherwise analyse again)
                rewarms.append(measure("    mslint, after the edit is undone", mslint + jobs + ["--format", "json"]
                                       + targets, src, env))
            runs[key] = fastest_run(f"({key})", edits)
            if key == "d":
                runs["rewarm"] = fastest_run("", rewarms)
    runs["e"] = fastest_run("(e)", [measure("(e) pylint + mslint plugin", plugin, src, env) for _ in range(times)])
    runs["check"] = measure("    mslint --jobs 1, no pre-filter", mslint + ["--jobs", "1", "--no-cache", "--format",
                                                                           "json"] + targets,
                            src, dict(env, **{PREFILTER: "0"}))
    reference = findings_of(runs["b"].output)
    same = {key: findings_of(runs[key].output) == reference for key in ("fill", "c", "d", "d_comment", "rewarm",
                                                                         "check")
            if key in runs}
    if "d_body" in runs:
        same["d_body"] = findings_of(runs["d_body"].output) == findings_of(runs["d_body_reference"].output)
    plugin_counts = {key: sum(1 for line in runs[key].output.splitlines() if ": E8" in line or ": W8" in line
                              or ": C8" in line) for key in ("e", "e0")}

    memory = None
    if not args.no_memory:
        name, version = MEMORY_CORPUS
        memory_targets = packages(fetch(name, version, cache))
        memory_files, memory_lines = count_lines(src, memory_targets)
        print(f"memory run: {name} {version}: {memory_files} files, {memory_lines} lines", flush=True)
        memory = (name, version, memory_files, memory_lines,
                  measure(f"    mslint --no-cache on {name}", mslint + jobs + ["--no-cache", "--format", "json"]
                          + memory_targets, src, env))

    host["load after"] = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    ratios = {key: (runs[key].wall / runs["a"].wall, runs[key].cpu / runs["a"].cpu)
              for key in ("b", "c", "d", "d_comment", "d_body", "e", "e0") if key in runs}
    print()
    print(f"repeated runs, wall (s): (a) {repeats['a']}; (e) without a cache {repeats['e0']}; (a') {repeats['a_tuned']}")
    print(f"e0/a' (mslint's analysis, against a floor with the same collector thresholds): "
          f"{runs['e0'].wall / runs['a_tuned'].wall:.3f} (cpu {runs['e0'].cpu / runs['a_tuned'].cpu:.3f})  (not a target)")
    for key, (wall, cpu) in ratios.items():
        if key in ("d_comment", "d_body"):
            print(f"d/a ({dict((k, d) for k, d, _ in EDITS)[key]}): {wall:.3f} (cpu {cpu:.3f})  (not a target)")
            continue
        target = TARGETS[f"{key[0]}/a"]
        name = f"{key[0]}/a" + (" (plugin, no cache to read)" if key == "e0" else "")
        print(f"{name}: {wall:.3f} (cpu {cpu:.3f})  target <= {target}  {'ok' if wall <= target else 'MISSED'}")
    print(f"findings: {len(reference)} from mslint; the same with cache, after the edit and without the "
          f"pre-filter at --jobs 1: {same}; the plugin reported {plugin_counts} mslint messages")
    if memory:
        peak = memory[4].tree_rss or memory[4].max_rss
        print(f"peak memory on {memory[0]}: {_mib(peak)} (target <= 1024 MiB) "
              f"{'ok' if peak <= MEMORY_TARGET else 'MISSED'}")
    if args.write:
        _write(host, chosen, files, lines, runs, same, plugin_counts, reanalysed, memory, args.jobs, repeats,
               workers)
    return 0 if all(same.values()) else 1


def _dependents(cache_directory: str, edited: str) -> int:
    """How many files' cached results depend on the edited file (it included)."""
    count = 0  # (a dependency on some of its names counts, as one on the whole file)
    for name in os.listdir(cache_directory):
        if name.startswith("results-") and name.endswith(".json"):
            with open(os.path.join(cache_directory, name), encoding="utf-8") as handle:
                entries = json.load(handle)["entries"]
            count += sum(1 for path, entry in entries.items()
                         if path == os.path.abspath(edited) or os.path.abspath(edited) in entry.get("deps", {}))
    return count


def _write(host, chosen, files, lines, runs, same, plugin_counts, reanalysed, memory, jobs, repeats,
           workers) -> None:
    times = len(repeats["a"])
    rows = [("(a)", f"`pylint --disable=all --enable=C0304` (pylint's floor; fastest of {times})", "a"),
            ("(b)", f"`mslint --no-cache` (fastest of {times})", "b"),
            ("", "`mslint`, cold cache (fills it)", "fill"),
            ("(c)", f"`mslint`, warm cache (fastest of {times})", "c"),
            ("(d)", f"`mslint` after editing `{EDITED_FILE}`: {EDITS[0][1]} ({reanalysed} files depend on it; "
                    f"fastest of {times})", "d"),
            ("", f"`mslint` after the edit of (d) is undone", "rewarm"),
            ("", f"the same edited file: {EDITS[1][1]} (fastest of {times})", "d_comment"),
            ("", f"the same edited file: {EDITS[2][1]} (fastest of {times})", "d_body"),
            ("(e)", "`pylint --load-plugins=mslint --disable=all --enable=C0304,mslint` (the cache the run above left; "
                    f"fastest of {times})", "e"),
            ("(e)", f"the same with no cache to read (`MSLINT_CACHE_DIR` empty; fastest of {times})", "e0"),
            ("(a')", "pylint's floor with the collector thresholds loading the plugin sets (`gc.set_threshold"
                     f"(*GC_THRESHOLDS)` before `run_pylint()`; fastest of {times}); (e) without a cache against it: "
                     "{e0_tuned}", "a_tuned"),
            ("", "`mslint --jobs 1 --no-cache`, pre-filter off (`MSLINT_PREFILTER=0`)", "check")]
    table = ["| run | command | wall (s) | CPU (s) | ratio wall | ratio CPU | target | peak RSS, largest process | peak RSS, process tree |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for tag, text, key in rows:
        if key not in runs:
            continue
        run = runs[key]
        if key == "a_tuned":
            text = text.format(e0_tuned=f"{runs['e0'].wall / run.wall:.3f} wall, {runs['e0'].cpu / run.cpu:.3f} CPU")
        ratio_key = f"{key[0]}/a" if key in ("b", "c", "d", "e", "e0") else None  # (d_comment, d_body: no target)
        wall_ratio = f"{run.wall / runs['a'].wall:.3f}"
        cpu_ratio = f"{run.cpu / runs['a'].cpu:.3f}"
        target = f"<= {TARGETS[ratio_key]}" if ratio_key in TARGETS else ""
        table.append(f"| {tag} | {text} | {run.wall:.2f} | {run.cpu:.2f} | {wall_ratio} | {cpu_ratio} | {target} | "
                     f"{_mib(run.max_rss)} | {_mib(run.tree_rss)} |")
    corpora = ", ".join(f"{n} {v}" for n, v in chosen)
    text = [BEGIN, "",
            f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} by `python benchmarks/run_benchmark.py --write`, "
            + (f"mslint at `--jobs {jobs}`." if jobs else
               f"mslint at its default `--jobs` (the cores the last minute's load leaves idle: {workers} of "
               f"{host['cores']} when (b) started, the first runs). The CPU ratio of (b) is what one core "
               "would take."),
            "",
            f"- Corpora: {corpora} (PyPI wheels): {files} files, {lines} lines.",
            f"- Machine: {host['cpu']}, {host['cores']} cores, {host['memory']} RAM; {host['os']}; "
            f"Python {host['python']}, pylint {host['pylint']}, astroid {host['astroid']}.",
            f"- Load average (1/5/15 min) before the run {host['load']}, after {host['load after']}: other "
            "engineers' processes shared the machine during the measurement, so wall-clock times are noisy; "
            "the CPU-time ratios are steadier.",
            "", *table, ""]
    text.append(f"Each of the {times} alternate runs of (a), (e) without a cache and (a'), wall seconds: (a) "
                f"{', '.join(f'{t:.2f}' for t in repeats['a'])}; (e) {', '.join(f'{t:.2f}' for t in repeats['e0'])}; "
                f"(a') {', '.join(f'{t:.2f}' for t in repeats['a_tuned'])}.")
    text.append("")
    checks = ", ".join(f"{k}: {'same' if v else 'DIFFERENT'}" for k, v in same.items())
    text.append(f"Findings compared with (b): {checks}. Messages the plugin reported: "
                f"{plugin_counts['e']} (cache), {plugin_counts['e0']} (no cache); (b) found {len(findings_of(runs['b'].output))}.")
    if memory:
        name, version, memory_files, memory_lines, run = memory
        text += ["", f"Memory run: `mslint --no-cache` on {name} {version} ({memory_files} files, {memory_lines} lines): "
                 f"{run.wall:.1f} s wall, {run.cpu:.1f} s CPU, peak RSS {_mib(run.max_rss)} in the largest process, "
                 f"{_mib(run.tree_rss)} summed over the process tree (target <= 1024 MiB)."]
    text += ["", END]
    with open(DOC, encoding="utf-8") as handle:
        document = handle.read()
    start, end = document.index(BEGIN), document.index(END) + len(END)
    with open(DOC, "w", encoding="utf-8") as handle:
        handle.write(document[:start] + "\n".join(text) + document[end:])
    print(f"wrote {os.path.relpath(DOC)}")


if __name__ == "__main__":
    sys.exit(main())
