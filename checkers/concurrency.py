"""MS3xx: threads, processes, executors, subprocesses and async code in graph scope.

A compiled graph has no threads or processes. MindSpore 2.10 runs such Python calls on
constants through JIT Fallback once, while the graph is compiled (a thread started in
construct runs once, not on every step), rejects them on tensors in STRICT, refuses
`with` on a lock or pool (only @jit_class instances may be context managers), and cannot
parse `async def`.
"""
from __future__ import annotations

from typing import Dict, Iterator, Optional, Tuple

from astroid import nodes

from mslint.project.classes import call_arguments
from mslint.analysis.context import ModuleContext
from mslint.messages import SNIPPET, compose, snippet
from mslint.findings import Finding, shown
from mslint.rules import Rule, implements
from mslint.analysis.scope import local_bindings

CONCURRENCY_IN_GRAPH = Rule(
    "MS301", "concurrency-in-graph", "error",
    "Threads, processes, executors, queues, subprocesses, signals or async code are used in graph code.",
    "Do not use multiple threads or processes in the network: parallelise data work in the dataset pipeline "
    "(dataset.map(..., num_parallel_workers=N, python_multiprocessing=True)) or do it outside the compiled code.",
)
RULES = (CONCURRENCY_IN_GRAPH,)

_MODULES = frozenset({
    "threading", "_thread", "multiprocessing", "concurrent", "asyncio", "subprocess", "queue", "sched", "signal",
    "mindspore.multiprocessing",
})
_OS_PREFIXES = ("os.fork", "os.system", "os.popen", "os.spawn", "os.posix_spawn")


def owns(qualname: Optional[str]) -> bool:
    """A qualified name (function, class or method) of a concurrency API: this family reports it."""
    if not qualname:
        return False
    if qualname.startswith(_OS_PREFIXES):
        return True
    parts = qualname.split(".")
    return parts[0] in _MODULES or ".".join(parts[:2]) in _MODULES


def _what(qualname: str) -> Tuple[str, str]:
    """(what the call is, what running it once means)."""
    if qualname.startswith("asyncio"):
        return "an asyncio call", "a task started here runs once"
    if qualname.startswith(("subprocess", "os.")):
        return "a process call", "the command runs once, not on every step"
    if qualname.startswith(("queue", "sched", "signal")):
        return f"a {qualname.split('.')[0]} call", "it happens once, not on every step"
    return "a thread/process call", "a thread, process or task started here runs once, not on every step"


def _object_class(ctx: ModuleContext, expr, gf) -> Optional[str]:
    """The concurrency class of the object an expression holds (a Lock from __init__, a pool), if known."""
    cls = ctx.value(expr, gf).cls
    return cls if owns(cls) else None


def _bound_here(expr, gf) -> bool:
    """A local name of this graph function (its creation, in this function, is what gets reported)."""
    assigns = local_bindings(expr, gf.node)
    return bool(assigns) and not any(isinstance(a.parent, nodes.Arguments) for a in assigns)


def _call_target(ctx: ModuleContext, call: nodes.Call, gf) -> Optional[str]:
    """'threading.Thread' for a concurrency call, 'concurrent.futures.ThreadPoolExecutor.submit' for a
    method of a concurrency object that came from elsewhere (self.pool from __init__)."""
    qualname = ctx.call_qualname(call, gf)
    if owns(qualname):
        return qualname
    func = call.func
    if isinstance(func, nodes.Attribute):
        cls = _object_class(ctx, func.expr, gf)
        if cls is not None and not _bound_here(func.expr, gf):  # (the lookup only when it matters)
            return f"{cls}.{func.attrname}"
    return None


def _spelled(node) -> str:
    return shown(node, SNIPPET)


def _call_message(ctx: ModuleContext, call: nodes.Call, gf, qualname: str) -> str:
    spelled = _spelled(call.func)
    named = f"'{spelled}'" if spelled == qualname else f"'{spelled}' ({qualname})"
    what, once = _what(qualname)
    if qualname == "asyncio.run":
        return compose(f"{named} in graph code does not compile",
                       "TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got NoneType")
    arguments = call_arguments(call)
    variable = [a for a in arguments if ctx.value(a, gf).is_var]
    if variable:
        return compose(f"{named} is {what} in graph code, given {snippet(variable[0])}, a value only known at run time",
                       "STRICT fails (ValueError: When handling script '__call_func_str__(...) in graph mode', the "
                       "inputs should be constant, but found variable ...)",
                       "LAX runs it in the Python interpreter, outside the graph")
    return compose(f"{named} is {what} in graph code",
                   f"JIT Fallback runs it while the graph is compiled, and only then ({once})")


def _with_message(item, cls: str) -> str:
    return compose(f"'with {_spelled(item)}' enters a {cls} in graph code",
                   "MindSpore only accepts @jit_class instances in 'with' (TypeError: Only support jit_class "
                   "instance, but got PythonObject(type: ...))",
                   "Take the lock or run the pool outside the compiled code")


def _async_message(function, gf) -> str:
    if function is gf.node and gf.is_root:
        return compose(f"'async def {function.name}' is compiled as graph code, which MindSpore cannot parse",
                       "TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got NoneType",
                       "Make it a plain def")
    return compose(f"'async def {function.name}' in graph code cannot be compiled",
                   "RuntimeError: Unsupported statement 'AsyncFunctionDef'",
                   "await, async for and async with cannot be compiled either")


def _inside_async(node) -> bool:
    """Inside an `async def`: that definition is the finding, not each await or call in it."""
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.Module):
        if isinstance(parent, nodes.AsyncFunctionDef):
            return True
        parent = parent.parent
    return False


def _candidates(ctx: ModuleContext) -> Iterator[Tuple[str, nodes.NodeNG, nodes.NodeNG, str, object]]:
    """(kind, statement, node to report, message, graph function) per concurrency use in graph scope."""
    for node, gf in ctx.graph_nodes(nodes.AsyncFunctionDef, nodes.With, nodes.Call):
        if isinstance(node, nodes.AsyncFunctionDef):
            yield "async", node, node, _async_message(node, gf), gf
        elif _inside_async(node):
            continue
        elif isinstance(node, nodes.With):
            for item, _ in node.items:
                cls = _object_class(ctx, item, gf) or (
                    _call_target(ctx, item, gf) if isinstance(item, nodes.Call) else None)
                if cls is not None:
                    yield "with", node, item, _with_message(item, cls), gf
                    break
        else:
            qualname = _call_target(ctx, node, gf)
            if qualname is not None:
                yield "call", node.statement(), node, _call_message(ctx, node, gf, qualname), gf
    # `async def construct`, or an async function graph code calls (nested ones were seen above)
    for gf in ctx.graph_functions():
        if isinstance(gf.node, nodes.AsyncFunctionDef):
            yield "async", gf.node, gf.node, _async_message(gf.node, gf), gf


def _span(node) -> Tuple[int, int]:
    return ((node.end_lineno or 0) - (node.lineno or 0), (node.end_col_offset or 0) - (node.col_offset or 0))


@implements(CONCURRENCY_IN_GRAPH)
def check_concurrency(ctx: ModuleContext) -> Iterator[Finding]:
    # one finding per statement: `ThreadPoolExecutor(2).submit(f, 3).result()` is one problem, reported at
    # its smallest call; a `with` or `async def` finding wins over the calls in the same statement
    chosen: Dict[nodes.NodeNG, tuple] = {}
    for kind, statement, node, message, gf in _candidates(ctx):
        current = chosen.get(statement)
        if current is None or (kind == current[0] == "call" and _span(node) < _span(current[1])):
            chosen[statement] = (kind, node, message, gf)
    for _, node, message, gf in chosen.values():
        yield ctx.finding(CONCURRENCY_IN_GRAPH, node, message, gf)
