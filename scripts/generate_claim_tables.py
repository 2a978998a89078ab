"""The `mindspore-check` claim blocks of the rule pages, and the tables generated from them.

Every rule page of MS1xx-MS8xx holds, in "What MindSpore does", a claim block: what its
"Example" and "Use instead" code do on the real MindSpore, in which mode. It is TOML inside
an HTML comment (invisible on the rendered page), followed by the table this script renders
from it:

    <!-- mindspore-check
    cell = "Normalize()"                         # the cell to build (a Python expression) ...
    args = "ms.Tensor(np.ones(3, np.float32))"   # ... and the arguments to call it with

    [example]
    strict = "error: AttributeError: In JIT strict mode, cannot get attributes asnumpy"
    lax = "zero gradient"

    [use_instead]
    graph = "runs"
    -->
    | MindSpore 2.10, CPU | GRAPH_MODE, STRICT | GRAPH_MODE, LAX |
    |---|---|---|
    | Example | error `AttributeError: In JIT strict mode, cannot get attributes asnumpy` | runs; the gradient is all zeros |
    | Use instead | runs | runs |

tests/test_mindspore_claims.py runs every claim with MindSpore (each block in each mode in
its own process) and checks that every table is the one this script renders.

Keys (top level, or per block to override):
  cell   expression evaluated in the example's namespace after its code ran: the cell to call.
         Without it, running the code (a script) is the whole drive.
  args   the call's arguments, as Python source (`x, y`); `ms`, `np`, `nn`, `ops` are available.
  calls  how many times to call the cell (default 1).
  count  the object (a global of the example) or class whose `construct` runs are counted
         for "ran N times".
A page with several code blocks in a section uses `[[example]]` / `[[use_instead]]`, one
table per block, in order.

Modes: `strict`, `lax` (GRAPH_MODE at that jit_syntax_level), `pynative`; `graph` means
strict and lax, `all` all three. The runner fixes the mode: a `set_context(mode=...)` in the
example is overridden.

Outcomes (a string, an inline table, or a list of them that must all hold):
  "runs"                no exception
  "error: TEXT"         raises; "ExceptionType: message" contains TEXT
  "frozen"              two calls return the same value (computed once at compile time)
  "varies"              two calls return different values
  "dynamic shape"       some output's shape is not constant in graph (ops.isconstant(y.shape) is False)
  "static shape"        every output's shape is constant in graph
  "zero gradient"       ms.grad(cell) w.r.t. the first argument is all zeros
  "ran N times"         `construct` of `count` ran N times in Python
  "log: TEXT"           runs, and MindSpore's log output contains TEXT
  {holds = "EXPR", says = "TEXT"}  runs, and EXPR is true (names: the example's globals,
                        `net`, `args`, `out`, `ms`, `np`); the table shows TEXT

    python scripts/generate_claim_tables.py            # rewrite the tables in docs/rules/
    python scripts/generate_claim_tables.py --check    # exit 1 if a table is out of date
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Dict, List, Optional

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from mslint.reporters.github import markdown_cell

MINDSPORE_VERSION = "2.10"
RULES_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "rules"))
PAGE_RE = re.compile(r"^MS[1-8]\d\d\.md$")
BLOCK_RE = re.compile(r"<!-- mindspore-check\n(.*?)\n-->\n((?:\|[^\n]*\n)*)", re.S)
MODES = ("strict", "lax", "pynative")
MODE_TITLES = {"strict": "GRAPH_MODE, STRICT", "lax": "GRAPH_MODE, LAX", "pynative": "PYNATIVE_MODE"}
SHORTHANDS = {"graph": ("strict", "lax"), "all": MODES}
SECTIONS = (("example", "Example"), ("use_instead", "Use instead"))
DRIVE_KEYS = ("cell", "args", "calls", "count")
SIMPLE = {
    "runs": "runs",
    "frozen": "runs; the value is frozen at compile time (two calls, same value)",
    "varies": "runs; a new value on every call",
    "dynamic shape": "runs; dynamic output shape (`ops.isconstant(y.shape)` is `False`)",
    "static shape": "runs; static output shape",
    "zero gradient": "runs; the gradient is all zeros",
}
RAN_RE = re.compile(r"^ran (\d+) times?$")


class ClaimError(ValueError):
    pass


def page_codes(directory: str = RULES_DIR) -> List[str]:
    return sorted(name[:-3] for name in os.listdir(directory) if PAGE_RE.match(name))


def read(code: str, directory: str = RULES_DIR) -> str:
    with open(os.path.join(directory, f"{code}.md"), encoding="utf-8") as handle:
        return handle.read()


def find_block(text: str) -> Optional[re.Match]:
    return BLOCK_RE.search(text)


def check_outcome(outcome) -> None:
    """Raise ClaimError unless `outcome` is in the vocabulary above."""
    if isinstance(outcome, list):
        if not outcome:
            raise ClaimError("an empty list of outcomes")
        for item in outcome:
            check_outcome(item)
    elif isinstance(outcome, dict):
        if set(outcome) != {"holds", "says"}:
            raise ClaimError(f"an outcome table needs exactly 'holds' and 'says': {outcome}")
    elif isinstance(outcome, str):
        if not (outcome in SIMPLE or RAN_RE.match(outcome) or outcome.startswith(("error: ", "log: "))):
            raise ClaimError(f"unknown outcome {outcome!r}")
    else:
        raise ClaimError(f"an outcome must be a string, a table or a list: {outcome!r}")


def parse(text: str) -> Dict[str, List[dict]]:
    """The page's claim: {'example': [block, ...], 'use_instead': [...]}; each block is
    {'drive': {cell, args, calls, count}, 'modes': {mode: outcome}}."""
    match = find_block(text)
    if match is None:
        raise ClaimError("no <!-- mindspore-check ... --> block")
    data = tomllib.loads(match.group(1))
    unknown = set(data) - set(DRIVE_KEYS) - {key for key, _ in SECTIONS}
    if unknown:
        raise ClaimError(f"unknown keys {sorted(unknown)}")
    defaults = {key: data[key] for key in DRIVE_KEYS if key in data}
    claim = {}
    for key, _ in SECTIONS:
        raw = data.get(key)
        if raw is None:
            raise ClaimError(f"no [{key}] claim")
        blocks = []
        for entry in raw if isinstance(raw, list) else [raw]:
            drive = dict(defaults)
            drive.update({k: entry[k] for k in DRIVE_KEYS if k in entry})
            modes = {}
            for name, outcome in entry.items():
                if name in DRIVE_KEYS:
                    continue
                targets = SHORTHANDS.get(name, (name,))
                for mode in targets:
                    if mode not in MODES:
                        raise ClaimError(f"[{key}]: unknown mode {name!r}")
                    if mode in modes:
                        raise ClaimError(f"[{key}]: mode {mode} claimed twice")
                    check_outcome(outcome)
                    modes[mode] = outcome
            if not modes:
                raise ClaimError(f"[{key}]: no mode claimed")
            blocks.append({"drive": drive, "modes": modes})
        claim[key] = blocks
    return claim


def describe(outcome) -> str:
    if isinstance(outcome, list):
        parts = [describe(item) for item in outcome]
        rest = [p[len("runs; "):] if p.startswith("runs; ") else p for p in parts[1:]]
        return "; ".join([parts[0]] + [p for p in rest if p != "runs"])
    if isinstance(outcome, dict):
        return outcome["says"]
    if outcome.startswith("error: "):
        return f"error `{outcome[len('error: '):]}`"
    if outcome.startswith("log: "):
        return f"runs; logs `{outcome[len('log: '):]}`"
    ran = RAN_RE.match(outcome)
    if ran:
        count = int(ran.group(1))
        return f"`construct` ran {count} time{'s' if count != 1 else ''} in Python"
    return SIMPLE[outcome]


def render_table(claim: Dict[str, List[dict]]) -> str:
    modes = [m for m in MODES if any(m in b["modes"] for blocks in claim.values() for b in blocks)]
    lines = ["| " + " | ".join([f"MindSpore {MINDSPORE_VERSION}, CPU"] + [MODE_TITLES[m] for m in modes]) + " |",
             "|" + "---|" * (len(modes) + 1)]
    for key, title in SECTIONS:
        blocks = claim[key]
        for number, block in enumerate(blocks, start=1):
            label = title if len(blocks) == 1 else f"{title} ({number})"
            cells = [markdown_cell(describe(block["modes"][m])) if m in block["modes"] else "not checked" for m in modes]
            lines.append("| " + " | ".join([label] + cells) + " |")
    return "\n".join(lines) + "\n"


def render_page(text: str) -> str:
    """The page with its table regenerated from its claim block."""
    match = find_block(text)
    if match is None:
        raise ClaimError("no <!-- mindspore-check ... --> block")
    table = render_table(parse(text))
    return text[:match.start(2)] + table + text[match.end(2):]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is out of date")
    options = parser.parse_args(argv)
    stale, broken = [], []
    for code in page_codes():
        path = os.path.join(RULES_DIR, f"{code}.md")
        text = read(code)
        try:
            new = render_page(text)
        except (ClaimError, tomllib.TOMLDecodeError) as error:
            print(f"{code}.md: {error}", file=sys.stderr)
            broken.append(code)
            continue
        if new != text:
            stale.append(code)
            if not options.check:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(new)
    if options.check and stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
    return 1 if broken or (options.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
