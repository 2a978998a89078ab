"""Fuzz mslint: lint generated and mutated programs; no exception may escape.

Inputs:
  * programs hypothesmith generates (from the Python grammar, and from libcst nodes), each
    followed by a Cell whose `construct` calls every top-level function and class, so the
    graph-scope rules look inside them;
  * mutations of real MindSpore-style files: lines deleted, duplicated, swapped, re-indented,
    truncated mid-line, bytes flipped, NUL or non-UTF-8 bytes inserted; and statements (at any
    depth) deleted, duplicated or moved into another block, which keeps the program parsable so
    that the rules, not only the parser, see the damage.  Seeds: the examples of
    docs/rules/*.md, tests/fixtures, and any directories given with --corpus (e.g.
    /work/corpora/src; those files are read, never copied into the repository).

Every program is written to a scratch directory and linted the way `mslint` lints a file
(`lint_paths`, with the per-file time budget).  An *escape* is any exception that leaves
it, a finding whose message spans lines or whose position is outside the file, or
findings out of order.  Escapes are saved to --escapes for reproduction.

    python scripts/fuzz.py --mutations 8000 --hypothesmith 2000 --corpus /work/corpora/src
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from mslint import rule_pages  # noqa: E402
from mslint.config import Config  # noqa: E402
from mslint.findings import Finding  # noqa: E402
from mslint.run.runner import lint_paths  # noqa: E402

CELL_HEADER = "import mindspore as ms\nfrom mindspore import nn, ops\nimport numpy as np\n"


# -- seeds ------------------------------------------------------------------------------
def repository_seeds() -> List[Tuple[str, bytes]]:
    """The rule pages' example blocks and the test fixtures: small, MindSpore-style, all rules covered."""
    seeds = []
    docs = os.path.join(ROOT, "docs", "rules")
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(docs, name), encoding="utf-8") as handle:
            page = handle.read()
        for heading, body in sorted(rule_pages.sections(page).items()):
            for index, block in enumerate(rule_pages.python_blocks(body)):
                seeds.append((f"docs/rules/{name}#{heading}.{index}", block.encode("utf-8")))
    fixtures = os.path.join(ROOT, "tests", "fixtures")
    seeds.extend(_python_files(fixtures, ROOT))
    return seeds


def corpus_seeds(directories: Sequence[str]) -> List[Tuple[str, bytes]]:
    seeds = []
    for directory in directories:
        seeds.extend(_python_files(directory, directory))
    return seeds


def _python_files(directory: str, relative_to: str) -> List[Tuple[str, bytes]]:
    found = []
    for base, subdirectories, files in os.walk(directory):
        subdirectories.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(base, name)
                try:
                    with open(path, "rb") as handle:
                        found.append((os.path.relpath(path, relative_to), handle.read()))
                except OSError:
                    continue
    return found


# -- mutations --------------------------------------------------------------------------
def _lines(data: bytes) -> List[bytes]:
    return data.splitlines(keepends=True) or [b""]


def delete_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    del lines[start:start + rng.choice((1, 1, 1, 2, 5))]
    return b"".join(lines)


def duplicate_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    block = lines[start:start + rng.choice((1, 1, 3))]
    at = rng.randrange(len(lines) + 1)
    return b"".join(lines[:at] + block + lines[at:])


def swap_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def reindent_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    stripped = lines[i].lstrip(b" \t")
    lines[i] = b" " * rng.choice((0, 2, 4, 8, 12, 3)) + stripped
    return b"".join(lines)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def truncate_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)] + b"\n"
    return b"".join(lines)


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    buffer = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 4))):
        buffer[rng.randrange(len(buffer))] = rng.choice(b"()[]{}:=.,'\"#\\ \n\tx0")
    return bytes(buffer)


def insert_bytes(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice((b"\x00", b"\xff\xfe", b"\xe9", b"\r", b"\x0c", b"\xef\xbb\xbf", b"# coding: latin-1\n",
                       b"\\\n", b'"""', b"(", b"lambda: ", b"yield ", b"await ", b"async ", b"*"))
    return data[:at] + junk + data[at:]


def splice(rng: random.Random, data: bytes, other: bytes) -> bytes:
    """The head of one seed on the tail of another."""
    a, b = _lines(data), _lines(other)
    return b"".join(a[:rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):])


def _statement_lists(tree) -> List[list]:
    import ast

    lists = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                lists.append(value)
    return lists


def _statement_mutation(action: str):
    """Delete, duplicate or move one statement (any depth): the result still parses, so the rules
    see it; a seed that does not parse gets a line mutation instead."""

    def mutate(rng: random.Random, data: bytes) -> bytes:
        import ast
        import copy

        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return delete_lines(rng, data)
        lists = _statement_lists(tree)
        if not lists:
            return insert_bytes(rng, data)
        body = rng.choice(lists)
        i = rng.randrange(len(body))
        if action == "delete":
            if len(body) > 1:
                del body[i]
            else:
                body[i] = ast.Pass()
        elif action == "duplicate":
            body.insert(rng.randrange(len(body) + 1), copy.deepcopy(body[i]))
        else:  # move it into another block (possibly another function or class)
            statement = body.pop(i) if len(body) > 1 else copy.deepcopy(body[i])
            target = rng.choice(lists)
            target.insert(rng.randrange(len(target) + 1), statement)
        try:
            return ast.unparse(ast.fix_missing_locations(tree)).encode("utf-8", "surrogatepass")
        except Exception:  # noqa: BLE001 - unparse has its own limits; fall back to a line mutation
            return delete_lines(rng, data)

    mutate.__name__ = f"{action}_statement"
    return mutate


delete_statement = _statement_mutation("delete")
duplicate_statement = _statement_mutation("duplicate")
move_statement = _statement_mutation("move")


MUTATORS: Tuple[Callable[[random.Random, bytes], bytes], ...] = (
    delete_lines, duplicate_lines, swap_lines, reindent_line, truncate, truncate_line, flip_bytes, insert_bytes,
    delete_statement, delete_statement, duplicate_statement, duplicate_statement, move_statement, move_statement,
    delete_statement, duplicate_statement,
)


def mutants(seeds: Sequence[Tuple[str, bytes]], count: int, seed: int = 0) -> Iterator[Tuple[str, bytes]]:
    """`count` mutants of the seeds, 1-3 mutations each; the same every run for the same seed."""
    rng = random.Random(seed)
    for index in range(count):
        name, data = seeds[index % len(seeds)]
        steps = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            if rng.random() < 0.05:
                data = splice(rng, data, rng.choice(seeds)[1])
                steps.append("splice")
            else:
                mutator = rng.choice(MUTATORS)
                data = mutator(rng, data)
                steps.append(mutator.__name__)
        yield f"{name} [{'+'.join(steps)} #{index}]", data


# -- hypothesmith -----------------------------------------------------------------------
def with_cell(source: str) -> str:
    """The generated program, then a Cell whose construct calls each top-level def and class."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return source
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    calls = "".join(f"        x = {name}(x)\n" for name in names) or "        x = x\n"
    return f"{CELL_HEADER}{source}\n\nclass FuzzNet(nn.Cell):\n    def construct(self, x):\n{calls}        return x\n"


def hypothesmith_programs(count: int, seed: int = 0) -> Iterator[Tuple[str, bytes]]:
    """`count` programs from hypothesmith (half from the grammar, half from libcst nodes)."""
    import warnings

    import hypothesmith
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import NonInteractiveExampleWarning

    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    programs: List[str] = []
    for strategy, share in ((hypothesmith.from_grammar(), count - count // 2), (hypothesmith.from_node(), count // 2)):
        if share <= 0:
            continue

        @settings(max_examples=share, database=None, deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(source):
            programs.append(source)

        collect()
        # hypothesis may stop early when it has seen every distinct example it can make
    for index, source in enumerate(programs[:count]):
        yield f"hypothesmith #{index}", with_cell(source).encode("utf-8", "surrogatepass")


# -- the run ----------------------------------------------------------------------------
def check_findings(findings: List[Finding], path: str, data: bytes) -> Optional[str]:
    """Why these findings are wrong, or None."""
    if findings != sorted(findings, key=Finding.sort_key):
        return "findings not sorted"
    line_count = len(data.splitlines()) + 2
    for finding in findings:
        if finding.path != path:
            return f"finding for another path: {finding.path}"
        if "\n" in finding.message or "\r" in finding.message:
            return f"multi-line message: {finding.message!r}"
        if not 1 <= finding.line <= max(line_count, 1) or finding.column < 0:
            return f"position outside the file: {finding.line}:{finding.column} ({finding.code})"
    return None


def run(programs: Iterable[Tuple[str, bytes]], escapes_dir: Optional[str], progress: bool = False,
        config: Optional[Config] = None) -> dict:
    """Lint every program; counts of outcomes and the list of escapes."""
    stats = {"programs": 0, "with_findings": 0, "clean": 0, "ms0xx": 0, "escapes": [], "codes": {}}
    distinct = set()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mslint-fuzz-") as scratch:
        path = os.path.join(scratch, "fuzzed.py")
        config = config or Config(root=scratch)
        for name, data in programs:
            stats["programs"] += 1
            distinct.add(hash(data))
            with open(path, "wb") as handle:
                handle.write(data)
            problem = None
            try:
                findings = lint_paths([path], config, jobs=1)
                problem = check_findings(findings, path, data)
            except BaseException as error:  # noqa: BLE001 - that is what we are looking for
                if isinstance(error, KeyboardInterrupt):
                    raise
                problem = "".join(traceback.format_exception(type(error), error, error.__traceback__))
                findings = []
            if problem is not None:
                stats["escapes"].append((name, problem))
                if escapes_dir:
                    os.makedirs(escapes_dir, exist_ok=True)
                    with open(os.path.join(escapes_dir, f"escape{len(stats['escapes'])}.py"), "wb") as handle:
                        handle.write(data)
                continue
            codes = {f.code for f in findings}
            for code in codes:
                stats["codes"][code] = stats["codes"].get(code, 0) + 1
            if any(c.startswith("MS0") for c in codes):
                stats["ms0xx"] += 1
            elif findings:
                stats["with_findings"] += 1
            else:
                stats["clean"] += 1
            if progress and stats["programs"] % 500 == 0:
                print(f"  {stats['programs']} programs, {len(stats['escapes'])} escapes, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    stats["seconds"] = round(time.monotonic() - started, 1)
    stats["distinct"] = len(distinct)
    return stats


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutations", type=int, default=8000, help="mutants of the seeds (default 8000)")
    parser.add_argument("--hypothesmith", type=int, default=2000, help="hypothesmith programs (default 2000)")
    parser.add_argument("--corpus", action="append", default=[], help="directory of real files to mutate too")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--escapes", default="fuzz-escapes", help="where to save programs that escaped")
    args = parser.parse_args(argv)

    own = repository_seeds()
    seeds = own + corpus_seeds(args.corpus)
    print(f"{len(seeds)} seeds ({len(own)} from this repository)", file=sys.stderr)
    report = {}
    report["mutations"] = run(mutants(seeds, args.mutations, args.seed), args.escapes, progress=True)
    report["hypothesmith"] = run(hypothesmith_programs(args.hypothesmith, args.seed), args.escapes, progress=True)
    total = sum(r["programs"] for r in report.values())
    escapes = sum(len(r["escapes"]) for r in report.values())
    for kind, stats in report.items():
        print(f"{kind}: {stats['programs']} programs ({stats['distinct']} distinct) in {stats['seconds']} s: "
              f"{stats['with_findings']} with "
              f"findings, {stats['ms0xx']} with an MS0xx finding, {stats['clean']} clean, "
              f"{len(stats['escapes'])} escapes; files per code: {dict(sorted(stats['codes'].items()))}")
        for name, problem in stats["escapes"][:20]:
            print(f"ESCAPE {name}:\n{problem}")
    print(f"total: {total} programs, {escapes} escapes")
    return 1 if escapes else 0


if __name__ == "__main__":
    sys.exit(main())
