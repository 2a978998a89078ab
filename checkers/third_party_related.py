"""MS101's related locations: the NumPy and SciPy calls that work on the data a `.asnumpy()`
converted.  The conversion is the one finding (what fails to compile is the conversion), but
each downstream call needs its own change when the code moves back into MindSpore: the
finding lists them, each with its replacement, wherever the data goes (a helper it is passed to
included)."""
from __future__ import annotations

import os
from typing import Dict, List, Tuple

from astroid import nodes

from mslint.analysis.context import ModuleContext
from mslint.data import replacements_for
from mslint.findings import Related, shown
from mslint.project import resolve

# replacements MindSpore's API mapping does not list one-to-one
_OTHER_REPLACEMENTS = {
    "numpy.random.choice": "mindspore.ops.RandomChoiceWithMask",
    "numpy.percentile": "mindspore.ops.quantile (with q / 100)",
    "numpy.nanpercentile": "mindspore.ops.nanquantile (with q / 100)",
}
_LIBRARIES = ("numpy", "scipy")
MAX_RELATED = 20


def related_by_conversion(ctx: ModuleContext, conversions: List[Tuple[nodes.Call, object]],
                          external_calls) -> Dict[nodes.Call, Tuple[Related, ...]]:
    """For each conversion call, the NumPy/SciPy calls on host data that it feeds: a call in the
    same function goes to the nearest conversion before it; a call in a function reached from one
    with conversions goes to the last conversion of the nearest such caller."""
    by_function: Dict[str, List[nodes.Call]] = {}
    for call, gf in conversions:
        by_function.setdefault(gf.display, []).append(call)
    found: Dict[nodes.Call, List[Related]] = {}
    for call, gf, qualname in external_calls:
        if qualname.split(".")[0] not in _LIBRARIES:
            continue
        if ctx.resolver.kind(qualname, call.root().file or ctx.path) != resolve.THIRD_PARTY:
            continue
        values = [ctx.value(a, gf) for a in _arguments(call)]
        if not any(v.has("host") for v in values):
            continue
        owner = _owning_conversion(call, gf, by_function)
        if owner is None:
            continue
        entries = found.setdefault(owner, [])
        if len(entries) < MAX_RELATED:
            entries.append(_related(ctx, call, qualname))
    return {call: tuple(sorted(entries, key=lambda r: (r.path, r.line, r.column))) for call, entries in found.items()}


def _arguments(call: nodes.Call) -> list:
    return list(call.args or ()) + [k.value for k in call.keywords or ()]


def _owning_conversion(call: nodes.Call, gf, by_function: Dict[str, List[nodes.Call]]):
    same = by_function.get(gf.display)
    if same:
        before = [c for c in same if (c.lineno, c.col_offset) <= (call.lineno, call.col_offset)]
        return (before or same)[-1] if before else same[0]
    for hop in reversed(gf.reach):  # the nearest caller that converts
        callers = by_function.get(hop.caller)
        if callers:
            before = [c for c in callers if c.lineno <= hop.line]
            return (before or callers)[-1]
    return None


def _related(ctx: ModuleContext, call: nodes.Call, qualname: str) -> Related:
    spelled = shown(call.func)
    name = f"'{spelled}'" if spelled == qualname else f"'{spelled}' ({qualname})"
    instead = _OTHER_REPLACEMENTS.get(qualname) or " or ".join(replacements_for(qualname))
    what = (f"{name} works on the converted data: use {instead}" if instead else
            f"{name} works on the converted data and has no MindSpore equivalent: move it out of the graph")
    path = os.path.abspath(call.root().file) if call.root().file else ctx.path
    return Related(path, call.lineno, call.col_offset, what)
