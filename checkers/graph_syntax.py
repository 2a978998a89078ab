"""MS8xx: graph syntax the compiler rejects, and removed or deprecated jit APIs.

MS801, MS803 and MS804 look at the module (imports, decorators, class definitions):
they are about how graph code is declared.  MS802 and MS805-MS807 look at graph scope:
statements and expressions MindSpore's parser refuses in every syntax level (STRICT and
LAX alike), with the error text MindSpore 2.10 gives.
"""
from __future__ import annotations

import tokenize
from dataclasses import replace
from typing import Iterator, Optional

from astroid import nodes

from mslint.project import mindspore_names as msn
from mslint.project import resolve
from mslint.project.classes import is_class_method
from mslint.analysis.context import ModuleContext
from mslint.analysis import version_tests
from mslint import fixes
from mslint.findings import Finding, shown
from mslint.messages import SNIPPET, capitalized, compose, snippet
from mslint.rules import Rule, implements
from mslint.checkers.graph_syntax_tensors import definite_tensor, multi_element

LEGACY_JIT_API = Rule(
    "MS801", "legacy-jit-api", "error",
    "A removed jit API is used: `ms_function` or `ms_class`, which MindSpore 2.10 no longer has.",
    "Replace `ms_function` with `mindspore.jit` and `ms_class` with `mindspore.jit_class` (their 2.0 "
    "replacements, imported from `mindspore`).",
)
DEPRECATED_JIT_MODULE = Rule(
    "MS813", "deprecated-jit-module", "info",
    "The module `mindspore.common.api` is imported: deprecated since MindSpore 2.9, it still works and logs a "
    "deprecation warning.",
    "Import from `mindspore`, or from `mindspore.graph.api` (what `mindspore.common.api` became in 2.9) for names "
    "`mindspore` does not export.",
)
CLASSMETHOD_IN_GRAPH = Rule(
    "MS802", "classmethod-in-graph", "error",
    "A `@classmethod` is called in graph code; MindSpore does not pass `cls` and the call fails to compile.",
    "Make it a `@staticmethod` or a module-level function (classmethods are not supported in graph mode).",
)
JIT_CLASS_ON_CELL = Rule(
    "MS803", "jit-class-on-cell", "error",
    "`@jit_class` (or `@ms_class`) decorates an `nn.Cell` subclass, which MindSpore refuses when the class is defined.",
    "Remove the decorator: a Cell is already supported in graph mode; `jit_class` is only for plain user classes.",
)
CONSTRUCT_NOT_COMPILED = Rule(
    "MS804", "construct-not-compiled", "info",
    "A Cell overrides `__call__` without calling `Cell.__call__`, so its `construct` is never compiled.",
    "Call `super().__call__(*args)` from `__call__` (or drop the override) so MindSpore compiles `construct`; "
    "or decorate `construct` with `@mindspore.jit`.",
    default_enabled=False,
)
UNSUPPORTED_SYNTAX = Rule(
    "MS805", "unsupported-syntax-in-graph", "error",
    "Graph code uses Python syntax MindSpore cannot compile: try, del, nonlocal, `:=`, yield, async, match, or "
    "`with` on an object that is not a `@jit_class` instance.",
    "Restructure the code: validate inputs outside the graph instead of try/except, drop `del`, return values "
    "instead of nonlocal or generators, use if/elif for match, and only use `with` on @jit_class instances.",
)
IMPORT_IN_GRAPH = Rule(
    "MS806", "import-in-graph", "error",
    "An `import` statement is inside graph code, which MindSpore cannot compile.",
    "Move the import to the top of the module.",
)
SET_IN_GRAPH = Rule(
    "MS807", "set-in-graph", "error",
    "A set display or set comprehension is in graph code; graph mode has no set type.",
    "Use a tuple or a list (graph mode does not support the set type).",
)
RANGE_OVER_TENSOR = Rule(
    "MS808", "range-over-tensor", "error",
    "`range()` in graph code is given a tensor; MindSpore needs Python ints there and the code fails to compile.",
    "Loop with `while i < n:` on the tensor, or pass a Python int (a constant, a static shape such as "
    "`x.shape[0]`, or `int(n)`).",
)
MULTI_CLAUSE_COMPREHENSION = Rule(
    "MS809", "multi-clause-comprehension", "error",
    "A comprehension in graph code has more than one `for` clause, which MindSpore cannot compile.",
    "Nest two comprehensions (`[[a * b for b in ys] for a in xs]`) or write the loops out.",
)
UNSUPPORTED_EXCEPTION = Rule(
    "MS810", "unsupported-exception-type", "error",
    "Graph code raises an exception type MindSpore cannot raise (a user-defined class, UserWarning, ImportError, ...).",
    "Raise one of the built-in types graph mode supports (ValueError, TypeError, RuntimeError, ...) and put "
    "the detail in the message.",
)
TENSOR_TRUTH_VALUE = Rule(
    "MS811", "multi-element-tensor-as-bool", "error",
    "A tensor with more than one element is used as a condition (`if`, `while`, `and`, `or`, `not`, `assert`).",
    "Reduce it first: `if mask.any():`, `if (x > 0).all():`, `if x.sum() > 0:`.",
)
DIVMOD_ON_TENSOR = Rule(
    "MS812", "divmod-in-graph", "error",
    "`divmod()` in graph code is given a tensor (or, under STRICT, any value not known when compiling).",
    "Compute the two parts with `//` and `%` (or `ops.floor_div` and `ops.floor_mod`).",
)
RULES = (LEGACY_JIT_API, CLASSMETHOD_IN_GRAPH, JIT_CLASS_ON_CELL, CONSTRUCT_NOT_COMPILED, UNSUPPORTED_SYNTAX,
         IMPORT_IN_GRAPH, SET_IN_GRAPH, RANGE_OVER_TENSOR, MULTI_CLAUSE_COMPREHENSION, UNSUPPORTED_EXCEPTION,
         TENSOR_TRUTH_VALUE, DIVMOD_ON_TENSOR, DEPRECATED_JIT_MODULE)

# -- MS801 -------------------------------------------------------------------------------
# ms_function / ms_class were replaced by jit / jit_class in 2.0, last documented in 2.5, and are
# gone in 2.10; mindspore.common.api became mindspore.graph.api in 2.9 (a deprecation log line).
LEGACY_REMOVED_IN = "2.6"
COMMON_API_DEPRECATED_IN = "2.9"
_LEGACY_NAMES = {"ms_function": "mindspore.jit", "ms_class": "mindspore.jit_class"}
_LEGACY_MODULES = ("mindspore", "mindspore.common", "mindspore.common.api")
_DEPRECATED_MODULE = "mindspore.common.api"


def _legacy_name(qualname: Optional[str]) -> Optional[str]:
    if not qualname or "." not in qualname:
        return None
    module, name = qualname.rsplit(".", 1)
    return name if name in _LEGACY_NAMES and module in _LEGACY_MODULES else None


def _legacy_message(name: str, node, module: str) -> str:
    """What 2.10 raises (checked, tests/test_mindspore_claims.py): importing the name from `module` is an
    ImportError naming that module; reading it as an attribute of `module` is an AttributeError."""
    if isinstance(node, nodes.Attribute):
        error = f"AttributeError: module '{module}' has no attribute '{name}'"
    else:
        error = f"ImportError: cannot import name '{name}' from '{module}'"
    return compose(f"{snippet(node)} uses '{name}', which MindSpore 2.10 no longer has",
                   f"It was replaced by '{_LEGACY_NAMES[name]}' in MindSpore 2.0 and last documented in 2.5; 2.10 "
                   f"raises {error}", f"Use {_LEGACY_NAMES[name]}")


def _common_api_message(node) -> str:
    return compose(f"{snippet(node)} imports the module 'mindspore.common.api', deprecated since MindSpore 2.9",
                   "It still works on 2.10 and logs \"Module 'mindspore.common.api' is deprecated from version 2.9.0 "
                   "and will be removed in a future version, use 'mindspore.graph.api' instead.\"",
                   "Import from 'mindspore' or 'mindspore.graph.api'")


def _bound_names(statements) -> set:
    names = set()
    for statement in statements:
        if isinstance(statement, (nodes.Import, nodes.ImportFrom)):
            names.update(alias or name.split(".")[0] for name, alias in statement.names)
    return names


def _version_branch(node: nodes.ImportFrom) -> bool:
    """`if new_version: from mindspore import jit` / `else: from mindspore import ms_function as jit`:
    the other branch of the `if` binds the same name."""
    parent = node.parent
    if not isinstance(parent, nodes.If):
        return False
    other = parent.orelse if node in parent.body else parent.body
    return bool(_bound_names([node]) & _bound_names(other))


_BROAD_ERRORS = frozenset({"Exception", "BaseException"})


def _handles(handler: nodes.ExceptHandler, errors) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, nodes.Tuple) else [handler.type]
    return any(isinstance(c, nodes.Name) and (c.name in errors or c.name in _BROAD_ERRORS) for c in caught)


def _guarded(node, errors) -> bool:
    """Inside a `try` (body or handler) that catches one of `errors`: a version-compatibility fallback
    such as `try: from mindspore import jit` / `except ImportError: from mindspore import ms_function as jit`."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.Try):
            if child in parent.body and any(_handles(h, errors) for h in parent.handlers):
                return True
            if isinstance(child, nodes.ExceptHandler) and _handles(child, errors):
                return True
        child, parent = parent, parent.parent
    return False


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_ATTRIBUTE_ERRORS = frozenset({"AttributeError"})


def _legacy_jit_uses(ctx: ModuleContext):
    """(rule, node, message, fix) for each use of a removed jit name (MS801) or an import of the deprecated
    module mindspore.common.api (MS813) that the target version has."""
    legacy_in_target = ctx.config.target_at_least(LEGACY_REMOVED_IN)
    deprecated_in_target = ctx.config.target_at_least(COMMON_API_DEPRECATED_IN)
    if not (legacy_in_target or deprecated_in_target):
        return
    for node in ctx.module_nodes(nodes.Import, nodes.ImportFrom, nodes.Attribute):
        if isinstance(node, nodes.Attribute) and node.attrname not in _LEGACY_NAMES:
            continue  # the cheap test first: most attributes of a module are not ms_function / ms_class
        if _guarded(node, _ATTRIBUTE_ERRORS if isinstance(node, nodes.Attribute) else _IMPORT_ERRORS):
            continue
        # in the branch of a version test taken on older versions the old spelling is the right one
        legacy = legacy_in_target and version_tests.holds_from(node, LEGACY_REMOVED_IN, ctx.config.target_version)
        deprecated = deprecated_in_target and \
            version_tests.holds_from(node, COMMON_API_DEPRECATED_IN, ctx.config.target_version)
        if isinstance(node, nodes.ImportFrom):
            module = resolve.absolute_import_name(node)
            names = [name for name, _ in node.names if module in _LEGACY_MODULES and name in _LEGACY_NAMES]
            if legacy and names:
                if not _version_branch(node):
                    yield (LEGACY_JIT_API, node, _legacy_message(names[0], node, module),
                           _import_from_fix(ctx, node, module))
            elif deprecated and module == _DEPRECATED_MODULE:
                yield DEPRECATED_JIT_MODULE, node, _common_api_message(node), _import_from_fix(ctx, node, module)
        elif isinstance(node, nodes.Import):
            if deprecated and any(name == _DEPRECATED_MODULE for name, _ in node.names):
                yield DEPRECATED_JIT_MODULE, node, _common_api_message(node), _import_fix(ctx, node)
        elif legacy:
            # ms.ms_function / mindspore.common.api.ms_class; `ms.common.api` itself is an alias of
            # mindspore.graph.api on 2.10 and logs nothing, so only the removed names are reported
            qualname = ctx.qualname(node)
            name = _legacy_name(qualname)
            if name is not None:
                yield (LEGACY_JIT_API, node, _legacy_message(name, node, qualname.rsplit(".", 1)[0]),
                       _attribute_fix(node, name))


@implements(LEGACY_JIT_API)
def check_legacy_jit_api(ctx: ModuleContext) -> Iterator[Finding]:
    for rule, node, message, fix in _legacy_jit_uses(ctx):
        if rule is LEGACY_JIT_API:
            yield ctx.finding(rule, node, message, fix=fix)


@implements(DEPRECATED_JIT_MODULE)
def check_deprecated_jit_module(ctx: ModuleContext) -> Iterator[Finding]:
    for rule, node, message, fix in _legacy_jit_uses(ctx):
        if rule is DEPRECATED_JIT_MODULE:
            yield ctx.finding(rule, node, message, fix=fix)


# -- MS801's fix ---------------------------------------------------------------------------
# What `from mindspore.common.api import ...` may import from `mindspore` itself (2.10; the names
# both modules have); anything else comes from mindspore.graph.api, the module common.api became.
_TOP_LEVEL_API = frozenset({"jit", "jit_class", "JitConfig", "mutable", "ms_memory_recycle", "Tensor", "Parameter",
                            "COOTensor", "CSRTensor", "RowTensor", "flops_collection", "set_recursion_limit"})
_GRAPH_API = "mindspore.graph.api"


def _new_name(name: str) -> str:
    return _LEGACY_NAMES[name].rsplit(".", 1)[1] if name in _LEGACY_NAMES else name


def _called_with_options(node) -> bool:
    """`ms_function(fn, input_signature=...)`: jit (2.10) has other parameters (capture_mode,
    jit_level, ...; the old ones fall into **options), so the rename needs a human look."""
    parent = node.parent
    return isinstance(parent, nodes.Call) and parent.func is node and (bool(parent.keywords) or len(parent.args) > 1)


def _applicability(uses) -> str:
    return fixes.UNSAFE if any(_called_with_options(use) for use in uses) else fixes.SAFE


def _attribute_fix(node: nodes.Attribute, name: str) -> fixes.Fix:
    new = _new_name(name)
    end = node.end_col_offset
    edit = fixes.Edit(node.end_lineno, end - len(name), node.end_lineno, end, new)  # the attribute name ends the node
    return fixes.fix(_applicability([node]), f"use {_LEGACY_NAMES[name]}", edit)


def _import_fix(ctx: ModuleContext, node: nodes.Import) -> Optional[fixes.Fix]:
    """`import mindspore.common.api as api` -> `import mindspore.graph.api as api` (the same module on
    2.9+; without an alias `mindspore.common.api.x` still works, silently)."""
    tokens = fixes.statement_tokens(ctx, node)
    if tokens is None:
        return None
    edits = [fixes.Edit(first.line, first.column, last.line, last.end_column, _GRAPH_API)
             for first, last in _dotted_names(tokens) if _spelled(first, last, tokens) == _DEPRECATED_MODULE]
    return fixes.fix(fixes.SAFE, f"import {_GRAPH_API}", *edits) if edits else None


def _import_from_fix(ctx: ModuleContext, node: nodes.ImportFrom, module: str) -> Optional[fixes.Fix]:
    tokens = fixes.statement_tokens(ctx, node)
    if tokens is None or node.level:
        return None
    keyword = next((i for i, t in enumerate(tokens) if t.string == "import" and t.kind == tokenize.NAME), None)
    if keyword is None:
        return None
    edits = []
    uses = []
    if module in ("mindspore.common", _DEPRECATED_MODULE):
        target = "mindspore" if all(_new_name(n) in _TOP_LEVEL_API for n, _ in node.names) else _GRAPH_API
        if target == _GRAPH_API and any(n in _LEGACY_NAMES for n, _ in node.names):
            return None  # graph.api has no ms_function either: a mixed import is for a human
        edits.append(fixes.Edit(tokens[1].line, tokens[1].column, tokens[keyword - 1].line,
                                tokens[keyword - 1].end_column, target))
    imported = [t for i, t in enumerate(tokens[keyword + 1:], start=keyword + 1)
                if t.kind == tokenize.NAME and tokens[i - 1].string != "as" and t.string != "as"]
    for token in imported:
        if token.string not in _LEGACY_NAMES:
            continue
        new = _new_name(token.string)
        alias = dict(node.names).get(token.string)
        if alias:
            edits.append(token.edit(new))
            uses.extend(_uses(ctx, node, alias) or [])
            continue
        renamed = _uses(ctx, node, token.string, new)
        edits.append(token.edit(new if renamed is not None else f"{new} as {token.string}"))
        edits.extend(fixes.replace_node(use, new) for use in renamed or ())
        uses.extend(renamed or _uses(ctx, node, token.string) or [])
    if not edits:
        return None
    return fixes.fix(_applicability(uses), "import jit / jit_class from mindspore", *edits)


def _dotted_names(tokens):
    """(first, last) token of each dotted module name of an Import statement."""
    spans, group = [], []
    for token in tokens[1:] + [None]:
        if token is not None and token.string != ",":
            group.append(token)
            continue
        names = group[:next((i for i, t in enumerate(group) if t.string == "as"), len(group))]
        if names:
            spans.append((names[0], names[-1]))
        group = []
    return spans


def _spelled(first, last, tokens) -> str:
    return "".join(t.string for t in tokens if (first.line, first.column) <= (t.line, t.column) <= (last.line, last.column))


def _uses(ctx: ModuleContext, statement, name: str, new: Optional[str] = None):
    """The Name nodes that read `name` as bound by `statement`; None when a rename to `new` is not
    clearly right (the name is also bound elsewhere, or `new` means something else where it is used)."""
    found = []
    for use in ctx.module_nodes(nodes.Name, nodes.AssignName, nodes.DelName):
        if use.name != name:
            continue
        if not isinstance(use, nodes.Name):
            return None
        _, bindings = use.lookup(name)
        if list(bindings) != [statement]:
            return None
        if new is not None:
            scope, other = use.lookup(new)
            if other and not (scope is ctx.module and all(_binds_mindspore(b, new) for b in other)):
                return None
        found.append(use)
    if new is not None and name in _exported(ctx.module):
        return None  # other modules import it by this name
    return found


def _binds_mindspore(statement, new: str) -> bool:
    return isinstance(statement, nodes.ImportFrom) and statement.modname.startswith("mindspore") and \
        any((alias or n) == new and n == new for n, alias in statement.names)


def _exported(module) -> set:
    names = set()
    for assign in module.body:
        if isinstance(assign, nodes.Assign) and any(getattr(t, "name", None) == "__all__" for t in assign.targets) \
                and isinstance(assign.value, (nodes.List, nodes.Tuple)):
            names.update(e.value for e in assign.value.elts if isinstance(e, nodes.Const))
    return names


# -- MS802 -------------------------------------------------------------------------------
def _receiver_class(ctx: ModuleContext, expr, gf) -> Optional[nodes.ClassDef]:
    if isinstance(expr, nodes.Name) and expr.name == "self" and gf.self_class is not None:
        return gf.self_class
    definition = ctx.resolver.resolve_callable(expr) if isinstance(expr, (nodes.Name, nodes.Attribute)) else None
    if isinstance(definition, nodes.ClassDef):
        return definition
    value = ctx.value(expr, gf)
    return value.node if isinstance(value.node, nodes.ClassDef) else None


def _arity_text(method: nodes.FunctionDef, call: nodes.Call) -> str:
    args = method.args
    expected = len(args.posonlyargs or []) + len(args.args or [])
    simple = not (args.vararg or args.kwarg or args.defaults or args.kwonlyargs)
    passed = len(call.args) + len(call.keywords or ())
    if simple and passed == expected - 1 and not any(isinstance(a, nodes.Starred) for a in call.args):
        return (f"TypeError: The parameters number of the function is {expected}, but the number of provided "
                f"arguments is {passed}.")
    return "TypeError: The parameters number of the function is …, but the number of provided arguments is …"


@implements(CLASSMETHOD_IN_GRAPH)
def check_classmethod_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in ctx.graph_nodes(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute):
            continue
        cls = _receiver_class(ctx, func.expr, gf)
        if cls is None:
            continue
        method = ctx.classes.lookup_method(cls, func.attrname)
        if method is None or not is_class_method(method):
            continue
        owner = method.parent.name if isinstance(method.parent, nodes.ClassDef) else cls.name
        yield ctx.finding(
            CLASSMETHOD_IN_GRAPH, call,
            compose(f"'{shown(func, SNIPPET)}(...)' calls the classmethod {owner}.{method.name} in graph code",
                    f"MindSpore does not bind 'cls' and fails to compile ({_arity_text(method, call)})",
                    "Make it a @staticmethod"),
            gf,
            fix=_staticmethod_fix(ctx, method),
        )


def _staticmethod_fix(ctx: ModuleContext, method: nodes.FunctionDef) -> Optional[fixes.Fix]:
    """`@classmethod def f(cls, x)` -> `@staticmethod def f(x)` when the body never uses `cls`.
    Unsafe: a subclass may override it as a classmethod, or other code may rely on `cls` binding."""
    if method.root() is not ctx.module or method.decorators is None:
        return None  # the edits belong in another file
    decorator = next((d for d in method.decorators.nodes if isinstance(d, nodes.Name) and d.name == "classmethod"), None)
    args = method.args
    positional = list(args.posonlyargs or []) + list(args.args or [])
    if decorator is None or not positional or args.posonlyargs:
        return None
    first = positional[0]
    if any(n.name == first.name for n in method.nodes_of_class(nodes.Name)):
        return None  # the body uses cls
    if len(positional) > 1:
        drop = fixes.Edit(first.lineno, first.col_offset, positional[1].lineno, positional[1].col_offset, "")
    elif not (args.vararg or args.kwarg or args.kwonlyargs):
        drop = fixes.replace_node(first, "")
    else:
        return None
    return fixes.fix(fixes.UNSAFE, f"make {method.name} a @staticmethod",
                     fixes.replace_node(decorator, "staticmethod"), drop)


# -- MS803 / MS804 -----------------------------------------------------------------------
@implements(JIT_CLASS_ON_CELL)
def check_jit_class_on_cell(ctx: ModuleContext) -> Iterator[Finding]:
    for cls in ctx.module_nodes(nodes.ClassDef):
        for decorator in ctx.classes.decorators(cls):
            qualname = ctx.classes.decorator_qualname(decorator)
            if qualname in msn.JIT_CLASS_DECORATORS and ctx.classes.is_cell(cls):
                name = qualname.rsplit(".", 1)[-1]
                yield ctx.finding(
                    JIT_CLASS_ON_CELL, decorator,
                    compose(f"@{name} decorates the Cell subclass {cls.name}, which MindSpore refuses",
                            "MindSpore raises when the class is defined (TypeError: Decorator jit_class is used for "
                            f"user-defined classes and cannot be used for nn.Cell: <class '...{cls.name}'>.)",
                            "Remove the decorator"),
                )


_KEYWORDS = {"Try": "try", "TryStar": "try", "Match": "match", "With": "with"}


def _header(finding: Finding, node) -> Finding:
    """Narrow a finding on a compound statement to its keyword (`try`, `with`); a def or class
    is already narrowed to its `def name` part (findings.finding_at)."""
    keyword = _KEYWORDS.get(type(node).__name__)
    if keyword is not None:
        return replace(finding, end_line=finding.line, end_column=finding.column + len(keyword))
    return finding


@implements(CONSTRUCT_NOT_COMPILED)
def check_construct_not_compiled(ctx: ModuleContext) -> Iterator[Finding]:
    for cls in ctx.module_nodes(nodes.ClassDef):
        own_call = next((m for m in cls.mymethods() if m.name == "__call__"), None)
        if own_call is None or not ctx.classes.is_cell(cls) or not ctx.classes.overrides_call_without_super(cls):
            continue
        if ctx.classes.jit_decorator(cls) is not None:
            continue  # @jit on the class compiles construct whoever calls it
        construct = ctx.classes.lookup_method(cls, "construct")
        if construct is None or ctx.classes.jit_decorator(construct) is not None:
            continue
        yield ctx.finding(
            CONSTRUCT_NOT_COMPILED, own_call,
            compose(f"{cls.name} overrides __call__ without calling Cell.__call__, so its construct is never compiled",
                    "It runs eagerly in Python even under GRAPH_MODE (no graph optimisation; mslint does not check it "
                    "as graph code)", "Call super().__call__(...) or decorate construct with @mindspore.jit"),
        )


# -- MS805 -------------------------------------------------------------------------------
_STATEMENTS = {
    nodes.Try: ("'try'", "RuntimeError: Unsupported statement 'Try'."),
    nodes.TryStar: ("'try'", "RuntimeError: Unsupported statement 'TryStar'."),
    nodes.Delete: ("'del'", "RuntimeError: Unsupported statement 'Delete'."),
    nodes.Nonlocal: ("'nonlocal'", "RuntimeError: Unsupported statement 'Nonlocal'."),
    nodes.Match: ("'match'", "RuntimeError: Unsupported statement 'Match'."),
}
_EXPRESSIONS = {
    nodes.NamedExpr: ("the assignment expression ':='", "RuntimeError: Unsupported expression 'NamedExpr'."),
    nodes.Yield: ("'yield'", "RuntimeError: Unsupported expression 'Yield'."),
    nodes.YieldFrom: ("'yield from'", "RuntimeError: Unsupported expression 'YieldFrom'."),
}
_HINTS = {
    "'try'": "validate inputs outside the graph instead",
    "'del'": "let the name go out of scope instead",
    "'nonlocal'": "return the value from the inner function instead",
    "'match'": "use if/elif instead",
    "the assignment expression ':='": "assign on a separate line instead",
    "'yield'": "return a tuple instead of generating values",
    "'yield from'": "return a tuple instead of generating values",
}
# context managers MS301 (concurrency-in-graph) reports: locks, executors, pools
_CONCURRENCY_PREFIXES = ("threading", "_thread", "multiprocessing", "concurrent", "asyncio",
                         "mindspore.multiprocessing")
_NON_OBJECT_TAGS = frozenset({"tensor", "parameter", "cell", "ndarray", "primitive"})


def _is_concurrency(qualname: Optional[str]) -> bool:
    return bool(qualname) and any(qualname == p or qualname.startswith(p + ".") for p in _CONCURRENCY_PREFIXES)


def _is_root_parameter(expr, gf) -> bool:
    if not (isinstance(expr, nodes.Name) and gf.is_root):
        return False
    try:
        _, assigns = expr.lookup(expr.name)
    except Exception:
        return False
    return bool(assigns) and all(isinstance(a.parent, nodes.Arguments) for a in assigns)


def _with_problem(ctx: ModuleContext, expr, gf) -> Optional[str]:
    """What the context manager is, when it is known not to be a @jit_class instance; None otherwise."""
    if isinstance(expr, nodes.Call):
        qualname = ctx.call_qualname(expr, gf)
        if qualname and not _is_concurrency(qualname):
            kind = ctx.resolver.kind(qualname, expr.root().file or ctx.path)
            if kind in (resolve.BUILTIN, resolve.STDLIB, resolve.THIRD_PARTY, resolve.MINDSPORE):
                return f"'{expr.func.as_string()}(...)' ({qualname}) is not a @jit_class instance"
    if _is_root_parameter(expr, gf):
        return None  # the lattice assumes a tensor; the caller may well pass a @jit_class instance
    value = ctx.value(expr, gf)
    if _is_concurrency(value.cls):
        return None
    if isinstance(value.node, nodes.ClassDef):
        if ctx.classes.is_jit_class(value.node):
            return None
        return f"'{expr.as_string()}' is an instance of {value.node.name}, which is not a @jit_class"
    tags = value.tags & _NON_OBJECT_TAGS
    if tags:
        return f"'{expr.as_string()}' is a {sorted(tags)[0]}, not a @jit_class instance"
    return None


# What 2.10 raises for `with` on an object that is not a @jit_class instance (STRICT and LAX, checked on
# 2.10: a plain class's instance, warnings.catch_warnings(), contextlib.nullcontext(), np.errstate(), a
# tensor). A file from open() fails earlier, in the parser's class test.
_WITH_ERROR = "TypeError: Only support jit_class instance, but got ..."
_WITH_ERRORS_BY_CALL = {"builtins.open": "TypeError: issubclass() arg 1 must be a class"}


def _with_error(ctx: ModuleContext, expr, gf) -> str:
    qualname = ctx.call_qualname(expr, gf) if isinstance(expr, nodes.Call) else None
    return _WITH_ERRORS_BY_CALL.get(qualname, _WITH_ERROR)


def _graph_syntax(ctx: ModuleContext):
    """(node, gf, keyword, error text, hint) for unsupported statements and expressions in graph scope."""
    for node, gf in ctx.graph_nodes(*_STATEMENTS, *_EXPRESSIONS, parsed=True):
        keyword, error = _STATEMENTS.get(type(node)) or _EXPRESSIONS[type(node)]
        yield node, gf, keyword, error, _HINTS[keyword]


@implements(UNSUPPORTED_SYNTAX)
def check_unsupported_syntax(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf, keyword, error, hint in _graph_syntax(ctx):
        finding = ctx.finding(
            UNSUPPORTED_SYNTAX, node,
            compose(f"{capitalized(keyword)} in graph code cannot be compiled",
                    f"MindSpore 2.10, STRICT and LAX: {error}", capitalized(hint)), gf)
        yield _header(finding, node) if type(node) in _STATEMENTS else finding
    # async def / await / async for / async with are MS301's (design.md: async belongs to family MS3)
    for node, gf in ctx.graph_nodes(nodes.With):
        for expr, _ in node.items:
            problem = _with_problem(ctx, expr, gf)
            if problem is not None:
                finding = ctx.finding(
                    UNSUPPORTED_SYNTAX, node,
                    compose("'with' in graph code only accepts @jit_class instances, and this one gets another object",
                            capitalized(problem),
                            f"MindSpore 2.10, STRICT and LAX: {_with_error(ctx, expr, gf)}",
                            "Move the `with` out of the graph or make the context manager a @jit_class"), gf)
                yield _header(finding, node)
                break


# -- MS806 / MS807 -----------------------------------------------------------------------
@implements(IMPORT_IN_GRAPH)
def check_import_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf in ctx.graph_nodes(nodes.Import, nodes.ImportFrom, parsed=True):
        statement = "Import" if isinstance(node, nodes.Import) else "ImportFrom"
        yield ctx.finding(
            IMPORT_IN_GRAPH, node,
            compose(f"{snippet(node)} in graph code cannot be compiled",
                    f"MindSpore 2.10, STRICT and LAX: RuntimeError: Unsupported statement '{statement}'.",
                    "Import at the top of the module"), gf)


@implements(SET_IN_GRAPH)
def check_set_in_graph(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf in ctx.graph_nodes(nodes.Set, nodes.SetComp, parsed=True):
        what, expression = ("a set display", "Set") if isinstance(node, nodes.Set) else ("a set comprehension",
                                                                                          "SetComp")
        yield ctx.finding(
            SET_IN_GRAPH, node,
            compose(f"{capitalized(what)} in graph code cannot be compiled: graph mode has no set type",
                    f"MindSpore 2.10, STRICT and LAX: RuntimeError: Unsupported expression '{expression}'.",
                    "Use a tuple or a list"), gf,
            fix=_membership_tuple_fix(ctx, node))


def _membership_tuple_fix(ctx: ModuleContext, node) -> Optional[fixes.Fix]:
    """`x in {2, 3}` -> `x in (2, 3)`: a set display used only as the right side of `in` / `not in`.
    Unsafe: a tuple compares with ==, a set hashes first (the same for numbers and strings, not
    for every object), and duplicates are kept."""
    parent = node.parent
    if not isinstance(node, nodes.Set) or not isinstance(parent, nodes.Compare) or \
            not any(operand is node and op in ("in", "not in") for op, operand in parent.ops):
        return None
    return fixes.display_to_tuple(ctx, node, fixes.UNSAFE, "test membership in a tuple")


# -- MS808 -------------------------------------------------------------------------------
# 2.10, STRICT and LAX: `range(n)` with a tensor `n` (0-d included) fails in make_range; an int
# (a constant, a static x.shape[0], int(n)) compiles.
def _builtin_calls(ctx: ModuleContext, name: str):
    """(call, gf) for calls of the built-in `name` in graph code (not a local or imported namesake)."""
    for call, gf in ctx.graph_nodes(nodes.Call):
        if isinstance(call.func, nodes.Name) and call.func.name == name and \
                ctx.qualname(call.func) == f"builtins.{name}":
            yield call, gf


@implements(RANGE_OVER_TENSOR)
def check_range_over_tensor(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in _builtin_calls(ctx, "range"):
        for position, argument in enumerate(call.args):
            if definite_tensor(ctx, argument, gf, constants=True):  # 2.10 rejects a constant tensor too
                yield ctx.finding(
                    RANGE_OVER_TENSOR, argument,
                    compose(f"range() is given the tensor {snippet(argument)}; it needs a Python int",
                            f"MindSpore 2.10, STRICT and LAX: TypeError: For 'make_range', the {position}th input "
                            "should be a int scalar but got AbstractTensor(...).",
                            "Loop with `while i < n:` or pass an int"), gf)
                break


# -- MS809 -------------------------------------------------------------------------------
_COMPREHENSION_NAMES = {nodes.ListComp: "ListComp", nodes.GeneratorExp: "GeneratorExp", nodes.DictComp: "DictComp"}


@implements(MULTI_CLAUSE_COMPREHENSION)
def check_multi_clause_comprehension(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf in ctx.graph_nodes(*_COMPREHENSION_NAMES, parsed=True):
        clauses = len(node.generators)
        if clauses < 2:
            continue
        kind = _COMPREHENSION_NAMES[type(node)]
        shown_kind = "ListComp" if kind == "GeneratorExp" else kind
        yield ctx.finding(
            MULTI_CLAUSE_COMPREHENSION, node,
            compose(f"This comprehension has {clauses} `for` clauses; graph code allows one",
                    f"MindSpore 2.10, STRICT and LAX: TypeError: The 'generators' supports 1 'comprehension' in "
                    f"{shown_kind}/GeneratorExp, but got {clauses} comprehensions.",
                    "Nest the comprehensions or write the loops out"), gf)


# -- MS810 -------------------------------------------------------------------------------
# The types MindSpore 2.10 lists in "Unsupported exception type: X. Raise only support some Python
# standard exception types: ..." (checked under STRICT and LAX; the check runs at compile time, so an
# unsupported raise fails even in a branch that is never taken).
RAISABLE_EXCEPTIONS = frozenset({
    "AssertionError", "AttributeError", "BaseException", "EnvironmentError", "Exception", "IOError",
    "IndentationError", "IndexError", "KeyError", "KeyboardInterrupt", "MemoryError", "NameError",
    "NotImplementedError", "OSError", "OverflowError", "RuntimeError", "RuntimeWarning", "StopIteration",
    "TypeError", "UnboundLocalError", "ValueError", "ZeroDivisionError",
})


def _raised_class(ctx: ModuleContext, exc) -> Optional[str]:
    """The name of the class `raise exc` raises, when it is known not to be one MindSpore can raise."""
    expr = exc.func if isinstance(exc, nodes.Call) else exc
    if not isinstance(expr, (nodes.Name, nodes.Attribute)):
        return None
    qualname = ctx.qualname(expr)
    if qualname and qualname.startswith("builtins."):
        name = qualname[len("builtins."):]
        if name in RAISABLE_EXCEPTIONS or not name[:1].isupper():
            return None
        return name
    definition = ctx.resolver.resolve_callable(expr)
    if isinstance(definition, nodes.ClassDef) and definition.root() is not None and \
            ctx.resolver.kind(definition.root().name, definition.root().file or ctx.path) == resolve.PROJECT:
        try:
            is_exception = definition.is_subtype_of("builtins.BaseException")
        except Exception:  # an ancestor astroid cannot infer: not known to be an exception
            return None
        return definition.name if is_exception else None
    return None


@implements(UNSUPPORTED_EXCEPTION)
def check_unsupported_exception(ctx: ModuleContext) -> Iterator[Finding]:
    for node, gf in ctx.graph_nodes(nodes.Raise, parsed=True):
        if node.exc is None:
            continue
        name = _raised_class(ctx, node.exc)
        if name is None:
            continue
        yield ctx.finding(
            UNSUPPORTED_EXCEPTION, node,
            compose(f"Graph code cannot raise {name}; only some built-in exception types can be raised there",
                    "MindSpore 2.10, STRICT and LAX, even when the branch is never taken: RuntimeError: Unsupported "
                    f"exception type: {name}.", "Raise ValueError, TypeError or RuntimeError instead"), gf)


# -- MS811 -------------------------------------------------------------------------------
def _conditions(ctx: ModuleContext):
    """(expression MindSpore turns into a Python bool, graph function): tests of if/while/assert and
    conditional expressions, operands of `not`, and the first operand of `and`/`or` (2.10 converts
    that one; a later operand was not converted in our runs)."""
    for node, gf in ctx.graph_nodes(nodes.If, nodes.While, nodes.IfExp, nodes.Assert):
        yield node.test, gf, isinstance(node, nodes.While)
    for node, gf in ctx.graph_nodes(nodes.UnaryOp):
        if node.op == "not":
            yield node.operand, gf, False
    for node, gf in ctx.graph_nodes(nodes.BoolOp):
        yield node.values[0], gf, False


_HOST_VALUES = frozenset({"ndarray", "host"})
_IF_TRUTH = "Only tensor which shape is () or (1,) can be converted to bool, but got tensor shape is (...)."
_WHILE_TRUTH = "The truth value of an array with more than one element is ambiguous."


@implements(TENSOR_TRUTH_VALUE)
def check_tensor_truth_value(ctx: ModuleContext) -> Iterator[Finding]:
    seen = set()
    for test, gf, loop in _conditions(ctx):
        if isinstance(test, nodes.BoolOp):
            test = test.values[0]
        if test in seen or isinstance(test, (nodes.BoolOp, nodes.UnaryOp)) and getattr(test, "op", "") == "not":
            continue
        seen.add(test)
        # what multi_element accepts is built as a tensor (or a NumPy array, MS1's)
        if ctx.value(test, gf).tags & _HOST_VALUES or not multi_element(ctx, test, gf.node):
            continue
        yield ctx.finding(
            TENSOR_TRUTH_VALUE, test,
            compose(f"{snippet(test)} is a tensor with more than one element, used as a condition",
                    f"MindSpore 2.10, STRICT and LAX: ValueError: {_WHILE_TRUTH if loop else _IF_TRUTH}",
                    "Reduce it first (.any(), .all(), .sum())"),
            gf)


# -- MS812 -------------------------------------------------------------------------------
def _from_a_shape(value) -> bool:
    """STRICT hands divmod to the Python fallback, which takes only values that mention no graph input:
    x.shape[0] is a compile-time int, yet 2.10 refuses it ("found variable 'x'").  A plain input is not
    reported: the parent may pass an int, which MindSpore folds."""
    return value.has("shape")


# 2.10: divmod(tensor, 2) fails under both levels (STRICT: "the inputs should be constant"; LAX:
# "unsupported operand type(s) for divmod(): 'Tensor' and 'int'"); divmod(x.shape[0], 2) fails under
# STRICT only; divmod of constants compiles.
@implements(DIVMOD_ON_TENSOR)
def check_divmod(ctx: ModuleContext) -> Iterator[Finding]:
    for call, gf in _builtin_calls(ctx, "divmod"):
        tensor = next((a for a in call.args if definite_tensor(ctx, a, gf)), None)
        if tensor is not None:
            yield ctx.finding(
                DIVMOD_ON_TENSOR, call,
                compose(f"divmod() is given the tensor {snippet(tensor)}, which graph code cannot do",
                        "MindSpore 2.10, STRICT: ValueError: ... the inputs should be constant; LAX: TypeError: "
                        "unsupported operand type(s) for divmod().", "Use `//` and `%`"), gf)
        elif gf.strict and any(_from_a_shape(ctx.value(a, gf)) for a in call.args):
            yield ctx.finding(
                DIVMOD_ON_TENSOR, call,
                compose("divmod() is given a value computed from a shape, which STRICT refuses",
                        "MindSpore 2.10, STRICT: ValueError: When handling script 'divmod(...) in graph mode', the "
                        "inputs should be constant (LAX runs it in Python)", "Use `//` and `%`"), gf)
