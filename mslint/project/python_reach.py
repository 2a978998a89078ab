"""The calls a function runs in Python, through the project helpers it calls.

MindSpore runs a @constexpr function in the Python interpreter while it compiles: everything
it calls runs there too, the project helpers it calls (in its module or another) and theirs.
"""
from __future__ import annotations

from typing import Iterator, Tuple

from astroid import nodes

from mslint.project import resolve

MAX_DEPTH = 4  # helper calls followed from the function; deeper chains are rare and costly to follow


def reached_calls(resolver, function: nodes.FunctionDef
                  ) -> Iterator[Tuple[nodes.Call, Tuple[Tuple[nodes.Call, nodes.FunctionDef], ...]]]:
    """(call, chain) for every call in `function` and in the project helpers it reaches; chain holds
    (the call, the helper it calls) for each hop from `function` to the helper the call is in
    (empty for a call in `function` itself).  Each helper is walked once, by its shortest chain."""
    visited = {function}
    frontier = [(function, ())]
    for _ in range(MAX_DEPTH + 1):
        following = []
        for current, chain in frontier:
            for call in current.nodes_of_class(nodes.Call):
                yield call, chain
                helper = _project_function(resolver, call)
                if helper is not None and helper not in visited:
                    visited.add(helper)
                    following.append((helper, chain + ((call, helper),)))
        frontier = following
        if not frontier:
            break


def _project_function(resolver, call: nodes.Call):
    """The project function (not a class, not a lambda) a call names, if the resolver finds it."""
    target = resolver.resolve_callable(call.func)
    if not isinstance(target, nodes.FunctionDef) or not target.root().file:
        return None
    module = target.root().name.split(".")[0]
    if resolve.kind_of_top_level(module) != resolve.UNKNOWN:
        return None  # the standard library or an installed package
    return target
