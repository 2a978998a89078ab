"""Where a Cell of one module is a sub-cell of a Cell of another: the parents' calls of it.

An analysis starts at its own module's roots, and a Cell's `construct` is one, its inputs
guessed to be tensors.  In one module the closure sees the parent's `self.post(host)` and
gives the sub-cell's construct what the parent passes (mslint.analysis.scope).  When the parent lives
in another module, this finds its calls, so that a value the parent made on the host
(`host = x.asnumpy()`) is a host value in the sub-cell too: one conversion, one finding.

Only parent classes that convert a tensor (`.asnumpy()`, `.numpy()`, `.tolist()`) in their own
body and name the cell, in modules that define a construct, are looked at: a host value starts
there, and they are few (reading every module that may hold a parent would cost each analysis the trees of
much of its project).  For a result cache, the modules read to find the calls are recorded as
they are read, and which modules convert tensors, with the names they mention, is part of the
analysis's identity (mslint.project.index.analysis_identity).
"""
from __future__ import annotations

import os
from typing import Callable, FrozenSet, Iterator, List, Tuple

from astroid import nodes

from mslint.project.module_memo import memo
from mslint.project import index as project
from mslint.project.classes import ClassIndex
from mslint.project.resolve import Resolver


def parent_calls(cell: nodes.ClassDef, resolver: Resolver, classes: ClassIndex,
                 class_facts: Callable) -> Iterator[Tuple[nodes.Call, nodes.FunctionDef, nodes.ClassDef]]:
    """(call, the parent's construct, the parent class) for each `self.<attribute>(...)` in the
    construct of a Cell of another project module that converts tensors, where the parent
    stores an instance of `cell` in that attribute."""
    path = cell.root().file
    if not path or not os.path.isfile(path):
        return
    path = os.path.abspath(path)
    model = project.project_for(path)
    for candidate, names in model.converting_modules().items():
        if candidate == path or cell.name not in names:
            continue
        module = resolver.module_at(candidate)
        if module is None:
            continue
        for parent, mentioned in _converting_classes(module, model.text(candidate) or b""):
            # a cheap test first: the class facts of every cell cost more than the rest of an analysis
            if cell.name not in mentioned or not classes.is_cell(parent):
                continue
            held = _attributes_holding(parent, cell, class_facts)
            construct = classes.lookup_method(parent, "construct") if held else None
            if construct is None or construct.root() is cell.root():
                continue
            for call in construct.nodes_of_class(nodes.Call):
                func = call.func
                if isinstance(func, nodes.Attribute) and func.attrname in held and \
                        isinstance(func.expr, nodes.Name) and func.expr.name == "self":
                    yield call, construct, parent


def _converting_classes(module: nodes.Module, text: bytes) -> List[Tuple[nodes.ClassDef, FrozenSet[str]]]:
    """The classes of a module that convert a tensor in their own body, each with the names its
    source mentions (once per module object: every construct root of an analysis asks)."""
    def compute() -> List[Tuple[nodes.ClassDef, FrozenSet[str]]]:
        lines = text.split(b"\n")
        found = []
        for parent in module.nodes_of_class(nodes.ClassDef):
            source = b"\n".join(lines[parent.fromlineno - 1:parent.tolineno])
            if project.converts_tensors(source):
                found.append((parent, project.identifiers(source)))
        return found

    return memo(module, "converting classes", compute)


def _attributes_holding(parent: nodes.ClassDef, cell: nodes.ClassDef, class_facts: Callable) -> List[str]:
    """The attributes in which `parent` stores an instance of `cell` (`self.post = NumpyPost()`)."""
    return [name for name, value in class_facts(parent).values.items() if value.node is cell]
