"""Run mslint on real MindSpore projects and print a table of what it finds.

    python scripts/run_corpora.py                          # every corpus, default rules
    python scripts/run_corpora.py mindcv mindyolo          # some of them
    python scripts/run_corpora.py --select MS805,MS802 mindone
    python scripts/run_corpora.py --mindspore-python /work/venv/bin/python mindspore

The projects' wheels are downloaded with `pip download --no-deps` into a cache directory
outside git (default: .corpora/ at the repository root, git-ignored) and extracted there;
nothing of theirs is ever committed.  MindSpore's own Python package is linted where it is
installed: give its directory with --mindspore, or a Python that imports it with
--mindspore-python.  Each corpus is linted by `python -m mslint --format json` in a
subprocess (the code is never imported).  The table (project, files, lines, findings per
rule, MS0xx internal errors, seconds) is printed and written, with every finding, to
<cache>/results/.  This is a measurement, not a unit test: the big corpora take minutes.
The review of the findings is docs/real-world.md.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

# name -> (pip requirement, directories inside the wheel to lint)
WHEELS = {
    "mindcv": ("mindcv==0.3.0", ["mindcv"]),
    "mindocr": ("mindocr==0.5.0", ["mindocr"]),
    "mindyolo": ("mindyolo==0.5.0", ["mindyolo"]),
    "mindone": ("mindone==0.5.0", ["mindone"]),
    "mindnlp": ("mindnlp==0.5.1", ["mindnlp", "mindtorch"]),
}
CORPORA = list(WHEELS) + ["mindspore"]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", metavar="CORPUS",
                        help=f"which corpora (default: all of {', '.join(CORPORA)})")
    parser.add_argument("--cache", default=os.path.join(ROOT, ".corpora"),
                        help="where wheels are downloaded and extracted (default: .corpora/)")
    parser.add_argument("--src", help="a directory that already holds extracted wheels as <name>/<package>/ "
                                      "(skips the download for the corpora found there)")
    parser.add_argument("--mindspore", help="directory of MindSpore's installed Python package")
    parser.add_argument("--mindspore-python", help="a Python that imports mindspore (to find its package)")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs mslint (default: this one)")
    parser.add_argument("--select", help="passed to mslint --select")
    parser.add_argument("--graph-mode", choices=("auto", "always", "never"), help="passed to mslint --graph-mode")
    parser.add_argument("--jobs", default="1", help="passed to mslint --jobs (default 1: the machine is shared)")
    args = parser.parse_args(argv)
    unknown = [c for c in args.corpora if c not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)} (choose from {', '.join(CORPORA)})")
    return args


def fetch(name: str, cache: str, src: str | None) -> list[str]:
    """The directories to lint for one wheel, downloading and extracting it when needed."""
    requirement, packages = WHEELS[name]
    if src:
        found = [os.path.join(src, name, p) for p in packages]
        if all(os.path.isdir(d) for d in found):
            return found
    target = os.path.join(cache, "src", name)
    found = [os.path.join(target, p) for p in packages]
    if all(os.path.isdir(d) for d in found):
        return found
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    wheel = _wheel_file(wheels, requirement)
    if wheel is None:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "--dest", wheels, requirement], check=True)
        wheel = _wheel_file(wheels, requirement)
    if wheel is None:
        raise SystemExit(f"pip download {requirement}: no wheel in {wheels}")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return found


def _wheel_file(directory: str, requirement: str) -> str | None:
    name, version = requirement.split("==")
    prefix = f"{name.replace('-', '_')}-{version}-"
    for entry in sorted(os.listdir(directory)):
        if entry.startswith(prefix) and entry.endswith(".whl"):
            return os.path.join(directory, entry)
    return None


def mindspore_dir(args) -> str:
    if args.mindspore:
        return args.mindspore
    python = args.mindspore_python or "/work/venv/bin/python"
    out = subprocess.run([python, "-c", "import mindspore, os; print(os.path.dirname(mindspore.__file__))"],
                         capture_output=True, text=True, cwd=_scratch(args.cache))
    if out.returncode != 0:
        raise SystemExit(f"{python} cannot import mindspore; give --mindspore DIR\n{out.stderr[-2000:]}")
    return out.stdout.strip().splitlines()[-1]


def _scratch(cache: str) -> str:
    """MindSpore writes rank_0/ log folders into the working directory: keep them in the cache."""
    path = os.path.join(cache, "scratch")
    os.makedirs(path, exist_ok=True)
    return path


def count(paths: list[str]) -> tuple[int, int]:
    files = lines = 0
    for path in paths:
        for directory, subdirectories, names in os.walk(path):
            subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
            for name in names:
                if name.endswith(".py"):
                    files += 1
                    with open(os.path.join(directory, name), "rb") as handle:
                        lines += sum(1 for _ in handle)
    return files, lines


def lint(paths: list[str], args) -> tuple[list[dict], float, str]:
    """(findings, seconds, crash): crash is the reason when mslint failed as a whole."""
    command = [args.python, "-m", "mslint", "--format", "json", "--exit-zero", "--jobs", args.jobs]
    if args.select:
        command += ["--select", args.select]
    if args.graph_mode:
        command += ["--graph-mode", args.graph_mode]
    start = time.monotonic()
    done = subprocess.run(command + paths, capture_output=True, text=True, cwd=_scratch(args.cache))
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        return [], elapsed, f"mslint exited {done.returncode}: {done.stderr[-2000:]}"
    try:
        return json.loads(done.stdout), elapsed, ""
    except json.JSONDecodeError as error:
        return [], elapsed, f"mslint printed no JSON ({error}): {done.stderr[-2000:]}"


def table(rows: list[dict]) -> str:
    codes = sorted({code for row in rows for code in row["per_rule"] if not code.startswith("MS0")})
    head = ["project", "files", "lines"] + codes + ["MS0xx", "seconds"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["project"], str(row["files"]), str(row["lines"])]
        cells += [str(row["per_rule"].get(code, "")) for code in codes]
        cells += [str(row["internal"]) + (" CRASH" if row["crash"] else ""), f"{row['seconds']:.0f}"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.cache = os.path.abspath(args.cache)
    results = os.path.join(args.cache, "results")
    os.makedirs(results, exist_ok=True)
    rows = []
    for name in args.corpora or CORPORA:
        paths = [mindspore_dir(args)] if name == "mindspore" else fetch(name, args.cache, args.src)
        files, lines = count(paths)
        print(f"{name}: linting {files} files, {lines} lines ...", file=sys.stderr, flush=True)
        findings, seconds, crash = lint(paths, args)
        per_rule = collections.Counter(f["code"] for f in findings)
        rows.append({"project": name, "files": files, "lines": lines, "seconds": seconds,
                     "per_rule": dict(sorted(per_rule.items())), "crash": crash,
                     "internal": sum(n for code, n in per_rule.items() if code.startswith("MS0"))})
        with open(os.path.join(results, f"{name}.json"), "w", encoding="utf-8") as handle:
            json.dump(findings, handle, indent=1)
        if crash:
            print(f"{name}: {crash}", file=sys.stderr)
    text = table(rows)
    print(text)
    with open(os.path.join(results, "table.md"), "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return 1 if any(row["crash"] or row["internal"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
