"""List syntactic candidate graph-mode problems in real code, subtract mslint's findings, sample the rest.

    # candidates minus mslint's findings (mslint run with --select MS), and a first-stage sample
    python scripts/recall_candidates.py --src <cache>/src --out candidates.json \\
        --findings mindcv=results/mindcv.json ... --findings mindone=results/mindone.json \\
        --match statement --own-stratum mindone --sample-out sample.json \\
        mindcv mindocr mindyolo mindnlp mindone
    # a later stage: more candidates of one group, appended to the sample
    python scripts/recall_candidates.py ... --match statement --sample-add sample.json \\
        --extra 'mindone:MS4:not-slices=^(?!slice non-constant bound)' mindcv ... mindone
    # issue 30's forms on the practice corpus, per pattern (benchmarks/review/recall-30.json)
    python scripts/recall_candidates.py --src /work/corpus --out candidates.json --only-patterns "$NEW30" \\
        --findings <corpus>=<results>.json ... --sample-out sample.json --per-pattern 15 --seed 2030 <corpora>
    python scripts/recall_candidates.py ... --verdicts benchmarks/review/recall-30.json --per-pattern 15 \\
        --found-codes MS2=MS205,MS206,MS207 --found-codes MS7=MS713 \\
        --found-codes MS8=MS808,MS809,MS810,MS811,MS812 <corpora>
    # after the review: the recall table
    python scripts/recall_candidates.py ... --verdicts benchmarks/review/recall-sample.json \\
        --extra 'mindone:MS4:not-slices=^(?!slice non-constant bound)' mindcv ... mindone

This is the recall half of the real-world review (docs/real-world.md, "Recall").  It is a
plain `ast` pass, written independently of mslint's analysis (no scope, lattice or call
graph of mslint's is used), so that what mslint does not report can be counted.

Graph roots (syntactic; no import is followed):
  * `construct` and `bprop` defined in any class that has at least one base.  A root is
    marked `cell_like` when its class's bases, followed by name through the classes defined
    in the same corpus, mention `Cell` (nn.Cell, ms.nn.Cell, a project base ending in Cell);
    other roots (a torch-like `nn.Module`, an unresolved base) are kept and marked.
  * functions and methods decorated with `jit` or `ms_function` in any spelling
    (`@jit`, `@ms.jit`, `@jit(...)`, `@mindspore.jit(...)`); `jit_class`, `jit.script`
    (mindtorch's) and other attributes of a `jit` object are not roots.
  * the reach: methods of the same class called as `self.name(...)` from a root, followed
    transitively inside that class body only (not into bases, other classes or modules).
    Nested functions and lambdas in a scanned body are scanned with it; nested classes are not.

Candidates, each tagged with the mslint family it would belong to:
  MS1  calls of a name bound by `import`/`from ... import` to numpy, scipy, math, random,
       time, datetime, uuid, secrets (the `np` / `numpy` / `math` / `random` / `time` prefixes
       are taken at their word even when not imported, and `np` bound to mindspore.numpy is
       still listed, marked in the pattern), and `.asnumpy()`, `.numpy()`, `.tolist()` calls.
  MS2  calls of a CapWords name (or `mod.CapWords`) that, looked up by name among the classes
       of the corpus, is a dataclass, a namedtuple / NamedTuple, or a class that is not
       Cell-like and not an Enum/Exception; calls of an unresolved CapWords name that is not
       imported from mindspore/mindtorch and does not look like an exception; `namedtuple(`.
       Attribute calls on `nn`, `ops`, `P`, `F`, `mint`, `ms`, `mindspore` are never MS2.
  MS3  names rooted at threading, multiprocessing, concurrent, subprocess, asyncio, queue,
       signal (bound by import); `async def`, `await`, `async for`, `async with`.
  MS4  calls named masked_select, nonzero, argwhere, unique, unique_consecutive, bincount
       (and MaskedSelect/NonZero/Unique primitives); one-argument `where(`;
       loads `x[m]` whose index is a comparison, `~a`, `a & b`, `a | b` or a name containing
       "mask"; `topk`/`TopK` calls whose k (method: first argument; ops/mint/F/P/self.X
       function: second; or `k=`) is not a literal; slice loads whose start/stop/step is not
       a literal, a `self.attr`, or an expression of literals, `self.attr`s and `.shape` /
       `len()`; `ops.slice` / `strided_slice` with a non-literal argument.
  MS7  `nn.X(...)`, `mint.nn.X(...)` (CapWords X, or names imported from mindspore.nn),
       `Parameter(...)`, and the forbidden APIs `initializer`, `set_context`,
       `register_buffer`, `trainable_params`, `register_forward_hook`, `register_backward_hook`,
       `.set_data(`.
  MS8  try, del, import, yield / yield from, set displays and comprehensions, `:=`,
       nonlocal, match; `cls.m(...)` and `ClassName.m(...)` where m is a @classmethod of a
       class of that name in the corpus.

Issue 30's forms (the rules MS205-MS207, MS713, MS808-MS812 added; select them alone with
--only-patterns), also plain syntax:
  MS2  `self.<attr>.append/extend/insert/pop/update/clear/remove/setdefault/reverse(...)` and
       `self.<attr>[k] = v` (any attribute: whether it is a list, a dict or a Parameter is the
       reviewer's question); `return` of a dict display or comprehension (alone or in a returned
       tuple) in the root itself, not in a helper or nested function; `set(...)` / `frozenset(...)`.
  MS7  `self.<attr> = ...` (also augmented / annotated) where the class's own `__init__` wrote
       `self.<attr> = <one of its arguments>`.
  MS8  `range(...)` with an argument that is not a literal, a `self.` attribute, `len()`, a
       `.shape` item or arithmetic of those (so `range(n)` with `n` an input, `range(int(t))`,
       `range(t[0])`); comprehensions and generator expressions with two or more `for` clauses
       (set comprehensions are already listed above); `raise X(...)` / `raise X` where X's last
       name is CapWords or ends in Error/Exception/Warning and is not one of the types MindSpore
       2.10 accepts (docs/rules/MS810.md); `divmod(`; the test of `if`, `while`, `assert`, a
       conditional expression, the operand of `not` and the first operand of `and`/`or` when it
       is a name the same body binds from what looks like a tensor op: a method or module-attribute
       call (`x.sum()`, `ops.equal(a, b)`, `self.dense(x)`; not `.item()`, `.size()`, `.get()`
       and the like), or a comparison or arithmetic of such names or of the function's inputs
       (`mask = x > 0`; `is`/`in` comparisons are not).
  Sampling these (--per-pattern N, seed 2030 in benchmarks/review/recall-30.json): up to N
  unreported candidates of each pattern (all of a smaller one), the corpora taking turns; a
  later stage with --sample-add draws N more of the patterns --only-patterns keeps (seed + 1).
  --verdicts with --per-pattern estimates each pattern's misses from its own reviewed share and
  counts as found the findings of the rules --found-codes names (estimate_by_pattern()).

Subtraction (--findings): a candidate is "reported" when mslint has a finding of the same
family in the same file (a finding's relative path is read from the corpus's top, as
benchmarks/practice_corpus.py runs mslint inside each tree) at a line inside the candidate's span: the expression's lines, widened
to the whole enclosing simple statement (an assignment, return, expression statement), or the
header line only for try/with/for/if/match.  With --match function (the default), an MS2
candidate that creates an object also counts as reported when an MS2 finding in the same
function names the same class: `output = BaseModelOutputWithPast(...)` ... `return output` is
one MS203 finding, at the return.  mslint reports a helper's problem at the helper's
line, so candidates found through `self.helper` match the same way.  Findings are taken from
runs with every rule selected (`--select MS`); each candidate records whether a default-on
rule reported it.

Sample (--sample-out): from the unreported candidates, up to --per-family (15) per family and
stratum, each drawn at random with a fixed seed (2026).  A corpus named by --own-stratum
(mindone, which holds most candidates) is a stratum of its own; the other corpora share one and
take turns (round-robin, in the order given), as scripts/sample_precision.py does.  Verdicts
(MISSED / NOT A PROBLEM, with a reason) are filled in by hand; --verdicts then prints the
estimate, with each corpus's unreported candidates weighted by the MISSED share of its own
sampled ones (see estimate()).
"""
from __future__ import annotations

import argparse
import ast
import collections
import functools
import json
import os
import random
import re
import sys
from typing import Dict, Iterable, List, Optional, Set, Tuple

from sample_precision import take_in_turns  # (scripts/: the same draw as the precision sample)

FAMILIES = ("MS1", "MS2", "MS3", "MS4", "MS7", "MS8")
DEFAULT_OFF = {"MS006", "MS404", "MS405", "MS502", "MS702", "MS804"}

MS1_MODULES = {"numpy", "scipy", "math", "random", "time", "datetime", "uuid", "secrets"}
MS1_PREFIXES = {"np": "numpy", "numpy": "numpy", "onp": "numpy", "math": "math", "random": "random",
                "time": "time", "scipy": "scipy"}
MS3_MODULES = {"threading", "multiprocessing", "concurrent", "subprocess", "asyncio", "queue", "signal"}
MINDSPORE_NAMES = {"nn", "ops", "P", "F", "mint", "ms", "mindspore", "C", "msnp", "mnp", "numpy_ms"}
DYNAMIC_OPS = {"masked_select", "nonzero", "argwhere", "unique", "unique_consecutive", "bincount",
               "MaskedSelect", "NonZero", "Unique"}
FORBIDDEN_APIS = {"initializer", "set_context", "register_buffer", "trainable_params",
                  "register_forward_hook", "register_backward_hook", "register_forward_pre_hook", "set_data"}
CAPWORDS = re.compile(r"^_?[A-Z][a-z0-9]+(?:[A-Z0-9][A-Za-z0-9]*)*$")
NOT_MS2_SUFFIXES = ("Error", "Exception", "Warning", "Cell", "Net", "Tensor")
# issue 30: the exception types MindSpore 2.10 raises in graph code (docs/rules/MS810.md)
ACCEPTED_EXCEPTIONS = {"AssertionError", "AttributeError", "BaseException", "EnvironmentError", "Exception", "IOError",
                       "IndentationError", "IndexError", "KeyError", "KeyboardInterrupt", "MemoryError", "NameError",
                       "NotImplementedError", "OSError", "OverflowError", "RuntimeError", "RuntimeWarning",
                       "StopIteration", "TypeError", "UnboundLocalError", "ValueError", "ZeroDivisionError"}
CONTAINER_CHANGES = {"append", "extend", "insert", "pop", "update", "clear", "remove", "setdefault", "reverse"}
# methods whose result is plainly not a tensor, so a name bound from them is no MS811 candidate
NOT_TENSOR_METHODS = {"item", "asnumpy", "numpy", "tolist", "dim", "ndimension", "size", "numel", "get", "keys",
                      "values", "items", "startswith", "endswith", "format", "join", "split", "strip", "lower",
                      "upper", "is_floating_point", "isdigit", "copy"}
SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr, ast.Raise, ast.Assert)


# ---------------------------------------------------------------- corpus-wide class index

class ClassInfo:
    def __init__(self, node: ast.ClassDef):
        self.name = node.name
        self.bases = [ast.unparse(b) for b in node.bases]
        self.decorators = [ast.unparse(d) for d in node.decorator_list]
        self.classmethods = {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                             and any(_last_name(d) == "classmethod" for d in f.decorator_list)}


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _root_name(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


class Index:
    """Classes of one corpus by name (a name may have several definitions)."""

    def __init__(self):
        self.classes: Dict[str, List[ClassInfo]] = collections.defaultdict(list)
        self._cell: Dict[str, bool] = {}

    def add(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.classes[node.name].append(ClassInfo(node))

    def cell_like(self, name: str, seen: Optional[Set[str]] = None) -> bool:
        if name in self._cell:
            return self._cell[name]
        seen = seen or set()
        if name in seen:
            return False
        seen.add(name)
        result = False
        for info in self.classes.get(name, ()):
            for base in info.bases:
                last = base.split(".")[-1].split("[")[0]
                if "Cell" in base or self.cell_like(last, seen):
                    result = True
        self._cell[name] = result
        return result

    def bases_cell_like(self, bases: Iterable[str]) -> bool:
        return any("Cell" in b or self.cell_like(b.split(".")[-1].split("[")[0]) for b in bases)

    def kind(self, name: str) -> Optional[str]:
        """'dataclass', 'namedtuple', 'plain', or None (cell-like, enum, exception, unknown)."""
        infos = self.classes.get(name)
        if not infos:
            return None
        if self.cell_like(name):
            return None
        for info in infos:
            if any("dataclass" in d for d in info.decorators):
                return "dataclass"
            if any("NamedTuple" in b or "namedtuple" in b for b in info.bases):
                return "namedtuple"
            if any(self._inherits(b, "dataclass") for b in info.bases):
                return "dataclass"
        for info in infos:
            if any(re.search(r"Enum|Exception|Error|Warning|Protocol|ABC$|TypedDict|Module", b) for b in info.bases):
                return None
        return "plain"

    def _inherits(self, base: str, kind: str, depth: int = 0) -> bool:
        if depth > 8:
            return False
        last = base.split(".")[-1].split("[")[0]
        for info in self.classes.get(last, ()):
            if kind == "dataclass" and any("dataclass" in d for d in info.decorators):
                return True
            if any(self._inherits(b, kind, depth + 1) for b in info.bases):
                return True
        return False


# ---------------------------------------------------------------- one module

class Module:
    def __init__(self, path: str, tree: ast.Module, source: str):
        self.path = path
        self.tree = tree
        self.lines = source.splitlines()
        self.imports: Dict[str, str] = {}  # local name -> dotted origin
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        self.imports[alias.name.split(".")[0]] = alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.imports.setdefault(alias.asname or alias.name, "." + (node.module or "") + "." + alias.name)
        self._parents: Optional[Dict[ast.AST, ast.AST]] = None

    @property
    def parents(self) -> Dict[ast.AST, ast.AST]:
        """Each node's parent, built when first needed (most files of a large corpus have no candidate)."""
        if self._parents is None:
            self._parents = {}
            for node in ast.walk(self.tree):
                for child in ast.iter_child_nodes(node):
                    self._parents[child] = node
        return self._parents

    def origin(self, name: str) -> str:
        return self.imports.get(name, "")


def _is_jit_decorator(dec: ast.AST) -> bool:
    node = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(node, ast.Name):
        return node.id in ("jit", "ms_function")
    if isinstance(node, ast.Attribute):
        # ms.jit, mindspore.jit, mindspore.common.api.jit; not jit.script, not torch.jit.x
        return node.attr in ("jit", "ms_function") and _root_name(node) in ("ms", "mindspore", "api")
    return False


def roots_of(module: Module, index: Index) -> List[Tuple[str, ast.AST, bool, Optional[ast.ClassDef]]]:
    """(qualified name, function node, cell_like, class) for every syntactic graph root."""
    roots = []

    def visit(node, cls: Optional[ast.ClassDef], prefix: str):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                if any(_is_jit_decorator(d) for d in child.decorator_list):
                    cell = cls is not None and index.bases_cell_like(ast.unparse(b) for b in cls.bases)
                    roots.append((qual, child, cell or cls is None, cls))
                elif cls is not None and child is not None and child.name in ("construct", "bprop") and cls.bases \
                        and child in cls.body:
                    cell = index.bases_cell_like(ast.unparse(b) for b in cls.bases)
                    roots.append((qual, child, cell, cls))
                visit(child, cls if child in (cls.body if cls else []) else None, qual + ".")
    visit(module.tree, None, "")
    return roots


def reach(root: ast.AST, cls: Optional[ast.ClassDef]) -> List[Tuple[ast.AST, List[str]]]:
    """The root and the methods of its class it calls as self.name(...), transitively."""
    methods = {}
    if cls is not None:
        methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out = [(root, [])]
    seen = {id(root)}
    queue = [(root, [])]
    while queue:
        func, via = queue.pop(0)
        for node in _walk_body(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" \
                    and node.func.attr in methods and id(methods[node.func.attr]) not in seen:
                target = methods[node.func.attr]
                if any(_last_name(d) in ("classmethod",) for d in target.decorator_list):
                    continue
                seen.add(id(target))
                chain = via + [f"{target.name} (line {node.lineno})"]
                out.append((target, chain))
                queue.append((target, chain))
    return out


def _walk_body(func: ast.AST) -> Iterable[ast.AST]:
    """Every node of a function's body (nested defs and lambdas included, nested classes not)."""
    stack = list(func.body) if hasattr(func, "body") and isinstance(func.body, list) else [func.body]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                continue
            stack.append(child)


def _is_const_expr(node: Optional[ast.AST]) -> bool:
    """Literals, self.attr, .shape, len(), and arithmetic of those: plainly compile-time."""
    if node is None:
        return True
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_const_expr(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _is_const_expr(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_const_expr(node.left) and _is_const_expr(node.right)
    if isinstance(node, ast.Attribute):
        if node.attr == "shape":
            return True
        return isinstance(node.value, ast.Name) and node.value.id == "self" or _is_const_expr(node.value) \
            and isinstance(node.value, ast.Attribute)
    if isinstance(node, ast.Subscript):
        return _is_const_expr(node.value) and isinstance(node.slice, ast.Constant) \
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "shape")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    return False


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _flatten_targets(targets: Iterable[ast.AST]) -> Iterable[ast.AST]:
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            yield from _flatten_targets(target.elts)
        else:
            yield target


def _returns_dict(value: Optional[ast.AST]) -> bool:
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    return isinstance(value, ast.Tuple) and any(isinstance(e, (ast.Dict, ast.DictComp)) for e in value.elts)


@functools.lru_cache(maxsize=None)
def _argument_copied_attrs(cls: Optional[ast.ClassDef]) -> Set[str]:
    """Attributes that the class's own __init__ sets straight from one of its arguments (`self.a = a`)."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None) if cls else None
    if init is None:
        return set()
    arguments = init.args.posonlyargs + init.args.args[1:] + init.args.kwonlyargs
    names = {a.arg for a in arguments}
    copied = set()
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names:
            copied |= {t.attr for t in _flatten_targets(node.targets) if _is_self_attr(t)}
    return copied


def _tensor_bound_names(func: ast.AST) -> Set[str]:
    """Names the body binds from what looks like a tensor op: a method or module-attribute call
    (`x.sum()`, `ops.equal(a, b)`, `self.dense(x)`), or a comparison / arithmetic of those names
    or of the function's own inputs (`mask = x > 0`)."""
    bound: Set[str] = set()
    inputs = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs} - {"self", "cls"} \
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else set()

    def tensor_like(expr: ast.AST) -> bool:
        if isinstance(expr, ast.Call):
            return isinstance(expr.func, ast.Attribute) and expr.func.attr not in NOT_TENSOR_METHODS
        if isinstance(expr, ast.Name):
            return expr.id in bound
        if isinstance(expr, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return False
            return any(operand(e) for e in [expr.left, *expr.comparators])
        if isinstance(expr, ast.BinOp):
            return operand(expr.left) or operand(expr.right)
        if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            return tensor_like(expr.operand)
        return False

    def operand(expr: ast.AST) -> bool:
        return tensor_like(expr) or isinstance(expr, ast.Name) and expr.id in inputs
    statements = sorted((n for n in _walk_body(func) if isinstance(n, ast.Assign)), key=lambda n: n.lineno)
    for node in statements:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and tensor_like(node.value):
            bound.add(node.targets[0].id)
    return bound


def _is_tensor_name(test: ast.AST, names: Set[str]) -> bool:
    return isinstance(test, ast.Name) and test.id in names


class Scanner:
    def __init__(self, module: Module, index: Index, corpus: str, rel: str, only: Optional[str] = None):
        self.only = re.compile(only) if only else None  # keep only these patterns (--only-patterns)
        self.m = module
        self.index = index
        self.corpus = corpus
        self.rel = rel
        self.found: Dict[Tuple[int, int, str, str], dict] = {}

    def span(self, node: ast.AST) -> Tuple[int, int]:
        if isinstance(node, ast.stmt):
            if isinstance(node, SIMPLE_STATEMENTS + (ast.Delete, ast.Import, ast.ImportFrom, ast.Nonlocal)):
                return node.lineno, node.end_lineno
            return node.lineno, node.lineno
        parent = self.m.parents.get(node)
        while parent is not None and not isinstance(parent, ast.stmt):
            parent = self.m.parents.get(parent)
        if isinstance(parent, SIMPLE_STATEMENTS):
            return parent.lineno, parent.end_lineno
        return node.lineno, node.end_lineno

    def add(self, node: ast.AST, family: str, pattern: str, root: str, via: List[str], cell_like: bool):
        key = (node.lineno, node.col_offset, family, pattern)
        if key in self.found or (self.only and not self.only.search(pattern)):
            return
        first, last = self.span(node)
        text = ast.unparse(node) if not isinstance(node, ast.stmt) else self.m.lines[node.lineno - 1].strip()
        self.found[key] = {
            "corpus": self.corpus, "path": self.rel, "line": node.lineno, "column": node.col_offset + 1,
            "span": [first, last], "family": family, "pattern": pattern,
            "snippet": text if len(text) <= 160 else text[:157] + "...",
            "root": root, "via": via, "cell_like": cell_like, "function_span": list(self.function_span),
        }

    def scan(self, func: ast.AST, root: str, via: List[str], cell_like: bool,
             cls: Optional[ast.ClassDef] = None) -> None:
        self.function_span = (func.lineno, func.end_lineno)
        add = lambda node, fam, pat: self.add(node, fam, pat, root, via, cell_like)  # noqa: E731
        self.issue30(func, is_root=not via, cls=cls, add=add)
        for node in _walk_body(func):
            # --- MS8 syntax
            if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                add(node, "MS8", "try")
            elif isinstance(node, ast.Delete):
                add(node, "MS8", "del")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                add(node, "MS8", "import")
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                add(node, "MS8", "yield")
            elif isinstance(node, (ast.Set, ast.SetComp)):
                add(node, "MS8", "set literal/comprehension")
            elif isinstance(node, ast.NamedExpr):
                add(node, "MS8", ":=")
            elif isinstance(node, ast.Nonlocal):
                add(node, "MS8", "nonlocal")
            elif isinstance(node, ast.Match):
                add(node, "MS8", "match")
            # --- MS3 async
            elif isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
                add(node, "MS3", "async")
            if isinstance(node, ast.Call):
                self.call(node, add)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                self.subscript(node, add)
            elif isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(self.m.parents.get(node), ast.Attribute):
                root_name = _root_name(node)
                origin = self.m.origin(root_name).split(".")[0]
                if origin in MS3_MODULES and not isinstance(self.m.parents.get(node), ast.Call):
                    add(node, "MS3", origin)

    # ---------------------------------------------------------------- issue 30's forms
    def issue30(self, func: ast.AST, is_root: bool, cls: Optional[ast.ClassDef], add) -> None:
        """The forms of the rules issue 30 added (MS205-207, MS713, MS808-812), as plain syntax."""
        tensor_names = _tensor_bound_names(func)
        arg_attrs = _argument_copied_attrs(cls)
        for node in _walk_body(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                if name == "range" and any(not _is_const_expr(a) for a in node.args):
                    add(node, "MS8", "range non-constant bound")
                elif name == "divmod":
                    add(node, "MS8", "divmod()")
                elif name in ("set", "frozenset"):
                    add(node, "MS2", "set() call")
            if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp)) and len(node.generators) > 1:
                add(node, "MS8", "comprehension 2+ for")
            elif isinstance(node, ast.Raise) and node.exc is not None:
                raised = _last_name(node.exc)
                if CAPWORDS.match(raised) or raised.endswith(("Error", "Exception", "Warning")):
                    if raised not in ACCEPTED_EXCEPTIONS:
                        add(node, "MS8", "raise unaccepted type")
            elif isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
                if _is_tensor_name(node.test, tensor_names):
                    add(node, "MS8", "truth of tensor-op name")
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) \
                    and _is_tensor_name(node.operand, tensor_names):
                add(node, "MS8", "truth of tensor-op name")
            elif isinstance(node, ast.BoolOp) and _is_tensor_name(node.values[0], tensor_names):
                add(node, "MS8", "truth of tensor-op name")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in CONTAINER_CHANGES and _is_self_attr(node.func.value):
                add(node, "MS2", "self container changed")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in _flatten_targets(targets):
                    if isinstance(target, ast.Subscript) and _is_self_attr(target.value):
                        add(node, "MS2", "self container item set")
                    elif _is_self_attr(target) and target.attr in arg_attrs:
                        add(node, "MS7", "self.<argument copy> assigned")
            elif is_root and isinstance(node, ast.Return) and _returns_dict(node.value) \
                    and self._enclosing_function(node) is func:
                add(node, "MS2", "return dict")

    def _enclosing_function(self, node: ast.AST) -> Optional[ast.AST]:
        parent = self.m.parents.get(node)
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            parent = self.m.parents.get(parent)
        return parent

    def call(self, node: ast.Call, add) -> None:
        func = node.func
        name = _last_name(func)
        root_name = _root_name(func)
        origin = self.m.origin(root_name)
        top = origin.split(".")[0]
        # --- MS1
        if name in ("asnumpy", "numpy", "tolist") and isinstance(func, ast.Attribute) \
                and not (name == "numpy" and root_name in ("np", "numpy")) and not node.args:
            add(node, "MS1", "." + name + "()")
        elif top in MS1_MODULES or (not origin and root_name in MS1_PREFIXES):
            module = top or MS1_PREFIXES[root_name]
            add(node, "MS1", f"{module} call")
        elif origin.startswith("mindspore.numpy") and root_name in ("np", "numpy"):
            add(node, "MS1", "np call (np is mindspore.numpy)")
        # --- MS3
        if top in MS3_MODULES:
            add(node, "MS3", top)
        # --- MS4
        if name in DYNAMIC_OPS:
            add(node, "MS4", name)
        elif name == "where" and len(node.args) == 1 and not node.keywords:
            add(node, "MS4", "where(cond)")
        elif name in ("topk", "TopK") or (isinstance(func, ast.Attribute) and "topk" in func.attr.lower()
                                           and isinstance(func.value, ast.Name) and func.value.id == "self"):
            k = self.topk_k(node)
            if k is not None and not _is_literal(k):
                add(node, "MS4", "topk non-literal k")
        elif name in ("slice", "strided_slice", "Slice", "StridedSlice") and root_name in MINDSPORE_NAMES | {"self"}:
            if any(not _is_const_expr(a) for a in node.args[1:]):
                add(node, "MS4", "ops.slice non-literal")
        # --- MS7
        if isinstance(func, ast.Attribute) and CAPWORDS.match(func.attr) and (
                (isinstance(func.value, ast.Name) and func.value.id == "nn"
                 and self.m.origin("nn").startswith("mindspore"))
                or (isinstance(func.value, ast.Attribute) and func.value.attr == "nn"
                    and _root_name(func.value) in ("mint", "ms", "mindspore"))):
            add(node, "MS7", "nn layer constructor")
        elif isinstance(func, ast.Name) and CAPWORDS.match(func.id) and self.m.origin(func.id).startswith("mindspore.nn"):
            add(node, "MS7", "nn layer constructor")
        if name == "Parameter" and (origin.startswith("mindspore") or root_name in MINDSPORE_NAMES):
            add(node, "MS7", "Parameter()")
        elif name in FORBIDDEN_APIS:
            add(node, "MS7", name)
        # --- MS8 classmethods
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = func.value.id
            if owner == "cls":
                add(node, "MS8", "cls.method()")
            elif CAPWORDS.match(owner) and any(func.attr in info.classmethods
                                               for info in self.index.classes.get(owner, ())):
                add(node, "MS8", "ClassName.classmethod()")
        # --- MS2
        cap = None
        if isinstance(func, ast.Name) and CAPWORDS.match(func.id):
            cap = func.id
        elif isinstance(func, ast.Attribute) and CAPWORDS.match(func.attr) and root_name not in MINDSPORE_NAMES \
                and root_name != "self" and not self.m.origin(root_name).startswith(("mindspore", "mindtorch")):
            cap = func.attr
        if name == "namedtuple":
            add(node, "MS2", "namedtuple()")
        elif cap and not cap.endswith(NOT_MS2_SUFFIXES) and not self.m.origin(cap).startswith(("mindspore", "mindtorch")) \
                and not origin.startswith(("mindspore", "mindtorch", "numpy", "typing", "collections")):
            kind = self.index.kind(cap)
            if kind is not None:
                add(node, "MS2", f"{kind} class")
            elif cap not in self.index.classes and not origin:
                add(node, "MS2", "unresolved CapWords")

    @staticmethod
    def topk_k(node: ast.Call) -> Optional[ast.AST]:
        for kw in node.keywords:
            if kw.arg == "k":
                return kw.value
        func = node.func
        function_style = isinstance(func, ast.Name) or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in MINDSPORE_NAMES | {"self", "torch"})
        if isinstance(func, ast.Call):  # P.TopK()(x, k)
            function_style = True
        position = 1 if function_style else 0
        return node.args[position] if len(node.args) > position else None

    def subscript(self, node: ast.Subscript, add) -> None:
        index = node.slice
        if isinstance(index, ast.Compare) or (isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert)) \
                or (isinstance(index, ast.BinOp) and isinstance(index.op, (ast.BitAnd, ast.BitOr))) \
                or (isinstance(index, (ast.Name, ast.Attribute)) and "mask" in _last_name(index).lower()):
            add(node, "MS4", "x[mask]")
            return
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice) and not all(_is_const_expr(b) for b in (part.lower, part.upper, part.step)):
                add(node, "MS4", "slice non-constant bound")
                return


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    return False


# ---------------------------------------------------------------- driver

def python_files(top: str) -> List[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not d.endswith(".dist-info")
                             and d != "__pycache__")
        out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    return out


def candidates_of(corpus: str, top: str, only: Optional[str] = None) -> Tuple[List[dict], dict]:
    modules = []
    index = Index()
    for path in python_files(top):
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        index.add(tree)
        modules.append(Module(path, tree, source))
    found: List[dict] = []
    stats = collections.Counter()
    for module in modules:
        rel = os.path.relpath(module.path, top)
        scanner = Scanner(module, index, corpus, rel, only)
        for qual, func, cell_like, cls in roots_of(module, index):
            stats["roots"] += 1
            stats["roots cell_like"] += cell_like
            for target, via in reach(func, cls):
                stats["bodies"] += 1
                scanner.scan(target, qual, via, cell_like, cls)
        found += sorted(scanner.found.values(), key=lambda c: (c["line"], c["column"], c["family"]))
    stats["files"] = len(modules)
    return found, dict(stats)


def family_of(code: str) -> str:
    return code[:3]


def subtract(candidates: List[dict], findings: List[dict], top: str, match: str = "function") -> None:
    """Mark each candidate reported or not (see the module docstring).  match="statement": only a finding of the
    family inside the candidate's span; match="function" (the default) also counts, for an MS2 candidate that
    creates an object, an MS2 finding in the same function that names the same class (mslint reports a
    dataclass built into `output` and returned later once, as MS203 at the `return`)."""
    by_file: Dict[Tuple[str, str], List[dict]] = collections.defaultdict(list)
    for f in findings:  # paths relative to the tree when mslint ran from inside it (benchmarks/practice_corpus.py)
        path = f["path"] if os.path.isabs(f["path"]) else os.path.join(top, f["path"])
        by_file[(os.path.relpath(path, top), family_of(f["code"]))].append(f)
    for cand in candidates:
        first, last = cand["span"]
        pool = by_file.get((cand["path"], cand["family"]), ())
        hits = [f for f in pool if first <= f["line"] <= last]
        if not hits and match == "function" and cand["family"] == "MS2":
            name = re.match(r"[\w.]*?(\w+)\(", cand["snippet"])
            start, end = cand["function_span"]
            if name:
                hits = [f for f in pool if start <= f["line"] <= end and f"'{name.group(1)}'" in f["message"]]
                cand["reported_in_function"] = bool(hits)
        cand["reported_by"] = sorted({f["code"] for f in hits})
        cand["reported"] = bool(hits)
        cand["reported_default"] = any(f["code"] not in DEFAULT_OFF for f in hits)


def draw(unreported: List[dict], corpora: List[str], per_family: int, seed: int,
         own: Iterable[str] = ()) -> List[dict]:
    """Up to per_family candidates of each family from each stratum: every corpus named in
    `own` is a stratum of its own, the other corpora share one, taking turns."""
    rng = random.Random(seed)
    own = [c for c in corpora if c in set(own)]
    strata = [[c] for c in own] + [[c for c in corpora if c not in own]]
    sample = []
    for family in FAMILIES:
        for stratum in strata:
            pools = {c: [x for x in unreported if x["family"] == family and x["corpus"] == c] for c in stratum}
            sample += [dict(x, verdict="", reason="") for _, x in take_in_turns(pools, per_family, rng)]
    return sample


def draw_by_pattern(unreported: List[dict], corpora: List[str], per_pattern: int, seed: int) -> List[dict]:
    """Up to per_pattern candidates of each pattern (all of a smaller one), the corpora taking turns."""
    rng = random.Random(seed)
    sample = []
    for family, pattern in sorted({(c["family"], c["pattern"]) for c in unreported}):
        pools = {c: [x for x in unreported if (x["family"], x["pattern"], x["corpus"]) == (family, pattern, c)]
                 for c in corpora}
        sample += [dict(x, verdict="", reason="") for _, x in take_in_turns(pools, per_pattern, rng)]
    return sample


def draw_more_by_pattern(unreported: List[dict], sample: List[dict], corpora: List[str], per_pattern: int,
                         seed: int) -> List[dict]:
    """A later stage of draw_by_pattern: up to per_pattern more of each pattern, not drawn already."""
    taken = {(c["corpus"], c["path"], c["line"], c["column"], c["pattern"]) for c in sample}
    rest = [c for c in unreported if (c["corpus"], c["path"], c["line"], c["column"], c["pattern"]) not in taken]
    return [dict(c, stage=2) for c in draw_by_pattern(rest, corpora, per_pattern, seed + 1)]


def estimate_by_pattern(candidates: List[dict], findings: Dict[str, List[dict]], sample: List[dict],
                        codes: Dict[str, Set[str]]) -> List[dict]:
    """Recall per family when the sample was drawn per pattern (draw_by_pattern): each pattern's
    unreported candidates times the MISSED share of its reviewed ones; the upper bound takes the
    Wilson upper end of that share for a pattern not reviewed completely.  found: mslint's
    findings of the codes given for the family (the rules whose forms the patterns look for)."""
    rows = []
    for family in sorted(codes):
        fam = [c for c in candidates if c["family"] == family]
        reviewed = [s for s in sample if s["family"] == family and s["verdict"]]
        missed = upper = 0.0
        for pattern in sorted({c["pattern"] for c in fam}):
            unrep = sum(1 for c in fam if c["pattern"] == pattern and not c["reported"])
            mine = [s for s in reviewed if s["pattern"] == pattern]
            k = sum(s["verdict"] == "MISSED" for s in mine)
            missed += unrep * (k / len(mine) if mine else 0.0)
            upper += unrep * (k / len(mine) if mine and len(mine) >= unrep else wilson_upper(k, len(mine)))
        found = sum(1 for fs in findings.values() for f in fs if f["code"] in codes[family])
        rep = sum(1 for c in fam if c["reported"])
        rows.append(recall_row(family, len(fam), rep, len(fam) - rep, reviewed, found, missed, upper))
    return rows


def parse_extra(specs: Iterable[str]) -> List[Tuple[str, str, str, str]]:
    """--extra CORPUS:FAMILY:NAME=REGEX -> (corpus, family, name, regex on the pattern)."""
    out = []
    for spec in specs:
        head, regex = spec.split("=", 1)
        corpus, family, name = head.split(":", 2)
        out.append((corpus, family, name, regex))
    return out


def group_of(cand: dict, extra: List[Tuple[str, str, str, str]]) -> str:
    for corpus, family, name, regex in extra:
        if cand["corpus"] == corpus and cand["family"] == family and re.search(regex, cand["pattern"]):
            return name
    return ""


def draw_extra(unreported: List[dict], sample: List[dict], extra, per_family: int, seed: int) -> List[dict]:
    """A second stage: up to per_family more candidates of each --extra group, not drawn already."""
    rng = random.Random(seed + 1)
    taken = {(c["corpus"], c["path"], c["line"], c["column"], c["family"], c["pattern"]) for c in sample}
    more = []
    for corpus, family, _name, regex in extra:
        pool = [c for c in unreported if c["corpus"] == corpus and c["family"] == family
                and re.search(regex, c["pattern"])
                and (c["corpus"], c["path"], c["line"], c["column"], c["family"], c["pattern"]) not in taken]
        rng.shuffle(pool)
        more += [dict(c, verdict="", reason="", stage=2) for c in pool[:per_family]]
    return more


def wilson_upper(k: int, n: int, z: float = 1.96) -> float:
    """Upper end of the 95% Wilson interval of a proportion k/n (1.0 when nothing was reviewed)."""
    if n == 0:
        return 1.0
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5)
    return min(1.0, (centre + spread) / (1 + z * z / n))


def estimate(candidates: List[dict], findings: Dict[str, List[dict]], sample: List[dict], corpora: List[str],
             default_only: bool, extra=()) -> List[dict]:
    """Recall per family from the reviewed sample, stratified by corpus (and --extra group).

    found: mslint's findings of the family on the corpora (assumed true).  missed: for each
    cell (corpus, family, group), its unreported candidates times the MISSED share of the
    reviewed candidates of that cell; a cell with none reviewed takes the share of its corpus
    and family, else the family's pooled share.  Sampled items stay random within their cell:
    the first stage is random within (corpus, family), the second within the group.
    """
    key = "reported_default" if default_only else "reported"
    rows = []
    for family in FAMILIES:
        fam = [c for c in candidates if c["family"] == family]
        found = sum(1 for corpus in corpora for f in findings.get(corpus, ())
                    if family_of(f["code"]) == family and (not default_only or f["code"] not in DEFAULT_OFF))
        reviewed = [s for s in sample if s["family"] == family and s["verdict"]]

        def share(items, fallback):
            return sum(s["verdict"] == "MISSED" for s in items) / len(items) if items else fallback
        pooled = share(reviewed, 0.0)
        missed = upper = 0.0
        for corpus in corpora:
            in_corpus = [s for s in reviewed if s["corpus"] == corpus]
            corpus_rate = share(in_corpus, pooled)
            unrep = collections.Counter(group_of(c, extra) for c in fam if c["corpus"] == corpus and not c[key])
            for group, count in unrep.items():
                mine = [s for s in in_corpus if group_of(s, extra) == group]
                missed += count * share(mine, corpus_rate)
                if len(mine) >= count:  # every candidate of the cell was reviewed: exact
                    upper += count * share(mine, corpus_rate)
                else:
                    base = mine or in_corpus or reviewed
                    upper += count * wilson_upper(sum(x["verdict"] == "MISSED" for x in base), len(base))
        rep = sum(1 for c in fam if c[key])
        unrep = sum(1 for c in fam if not c[key])
        rows.append(recall_row(family, len(fam), rep, unrep, reviewed, found, missed, upper))
    return rows


def recall_row(family: str, candidates: int, reported: int, unreported: int, reviewed: List[dict], found: int,
               missed: float, upper: float) -> dict:
    """One row of the recall table: found-based recall and recall among candidates, each with its low end."""
    return {
        "family": family, "candidates": candidates, "reported": reported, "unreported": unreported,
        "reviewed": len(reviewed), "missed_in_review": sum(s["verdict"] == "MISSED" for s in reviewed),
        "findings": found, "missed_estimate": round(missed, 1), "missed_upper95": round(upper, 1),
        "recall": round(found / (found + missed), 3) if found + missed else None,
        "recall_low95": round(found / (found + upper), 3) if found + upper else None,
        "recall_of_candidates": round(reported / (reported + missed), 3) if reported + missed else None,
        "recall_of_candidates_low95": round(reported / (reported + upper), 3) if reported + upper else None,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--src", required=True, help="directory holding <corpus>/<package>/ (run_corpora's src/)")
    parser.add_argument("--out", required=True, help="JSON of every candidate")
    parser.add_argument("--findings", action="append", default=[], metavar="CORPUS=RESULTS.json",
                        help="mslint --format json output of the corpus (run with --select MS)")
    parser.add_argument("--match", choices=("function", "statement"), default="function",
                        help="how a candidate is matched to mslint's findings (see subtract(); the first-stage "
                             "sample of benchmarks/review/recall-sample.json was drawn with 'statement')")
    parser.add_argument("--sample-out")
    parser.add_argument("--per-family", type=int, default=15)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--own-stratum", action="append", default=[], metavar="CORPUS",
                        help="a corpus sampled on its own (its own --per-family quota); the others share one")
    parser.add_argument("--extra", action="append", default=[], metavar="CORPUS:FAMILY:NAME=REGEX",
                        help="a second-stage group: candidates of that corpus and family whose pattern matches "
                             "REGEX; with --sample-add, up to --per-family more of them are drawn")
    parser.add_argument("--only-patterns", metavar="REGEX",
                        help="keep only the candidates whose pattern matches (e.g. issue 30's forms)")
    parser.add_argument("--per-pattern", type=int,
                        help="draw up to N of each pattern (all of a smaller one) instead of --per-family; "
                             "with --verdicts, estimate per pattern")
    parser.add_argument("--found-codes", action="append", default=[], metavar="FAMILY=CODE,CODE",
                        help="with --per-pattern --verdicts: the rules counted as found for a family")
    parser.add_argument("--sample-add", help="an existing sample: append the --extra second stage to it")
    parser.add_argument("--verdicts", help="a reviewed sample (--sample-out with verdicts filled in): print the "
                                           "recall estimate per family instead of drawing a new sample")
    args = parser.parse_args(argv)
    findings = {}
    for item in args.findings:
        corpus, path = item.split("=", 1)
        with open(path, encoding="utf-8") as handle:
            findings[corpus] = json.load(handle)
    everything: List[dict] = []
    summary = {}
    for corpus in args.corpora:
        top = os.path.join(args.src, corpus)
        found, stats = candidates_of(corpus, top, args.only_patterns)
        if corpus in findings:
            subtract(found, findings[corpus], top, args.match)
        everything += found
        summary[corpus] = stats
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"summary": summary, "candidates": everything}, handle, indent=1)
    table = collections.Counter((c["family"], c.get("reported")) for c in everything)
    print(f"{'family':6} {'candidates':>10} {'reported':>9} {'unreported':>10}")
    for family in FAMILIES:
        total = table[(family, True)] + table[(family, False)] + table[(family, None)]
        print(f"{family:6} {total:>10} {table[(family, True)]:>9} {table[(family, False)]:>10}")
    print(json.dumps(summary))
    if args.verdicts:
        with open(args.verdicts, encoding="utf-8") as handle:
            reviewed = json.load(handle)["sample"]
        if args.per_pattern:
            codes = {family: set(listed.split(",")) for family, listed in (f.split("=", 1) for f in args.found_codes)}
            rows = estimate_by_pattern(everything, findings, reviewed, codes)
            print(" ".join(rows[0]) if rows else "no --found-codes")
            for row in rows:
                print(" ".join(str(v) for v in row.values()))
            return
        for default_only in (True, False):
            print("default rules" if default_only else "all rules (--select MS)")
            rows = estimate(everything, findings, reviewed, args.corpora, default_only, parse_extra(args.extra))
            print(" ".join(rows[0]))
            for row in rows:
                print(" ".join(str(v) for v in row.values()))
        return
    if args.sample_add:
        with open(args.sample_add, encoding="utf-8") as handle:
            drawn = json.load(handle)
        unreported = [c for c in everything if c.get("reported") is False]
        if args.per_pattern:  # a second stage of the per-pattern draw, for the patterns --only-patterns keeps
            more = draw_more_by_pattern(unreported, drawn["sample"], args.corpora, args.per_pattern, args.seed)
            drawn["sample"] += more
            with open(args.sample_add, "w", encoding="utf-8") as handle:
                json.dump(drawn, handle, indent=1)
            print(f"second stage: {len(more)} candidates added to {args.sample_add}", file=sys.stderr)
            return
        more = draw_extra(unreported, drawn["sample"], parse_extra(args.extra), args.per_family, args.seed)
        drawn["sample"] += more
        drawn["extra"] = args.extra
        with open(args.sample_add, "w", encoding="utf-8") as handle:
            json.dump(drawn, handle, indent=1)
        print(f"second stage: {len(more)} candidates added to {args.sample_add}", file=sys.stderr)
        return
    if args.sample_out:
        unreported = [c for c in everything if c.get("reported") is False]
        if args.per_pattern:
            sample = draw_by_pattern(unreported, args.corpora, args.per_pattern, args.seed)
            drawn = {"seed": args.seed, "per_pattern": args.per_pattern, "sample": sample}
        else:
            sample = draw(unreported, args.corpora, args.per_family, args.seed, args.own_stratum)
            drawn = {"seed": args.seed, "per_family": args.per_family, "own_strata": args.own_stratum,
                     "sample": sample}
        with open(args.sample_out, "w", encoding="utf-8") as handle:
            json.dump(drawn, handle, indent=1)
        print(f"sample: {len(sample)} candidates -> {args.sample_out}", file=sys.stderr)


if __name__ == "__main__":
    main()
