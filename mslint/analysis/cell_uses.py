"""Where a Cell class is built and called across the project, and so which programs compile it.

Any Cell's `construct` is a graph root, but a program compiles it only if it calls it: as the
network it runs, or as a sub-cell that a compiled parent calls in its own graph code.  A cell
that a parent merely holds (`self.loss = Loss()` in `__init__`, never called in `construct`) is
not compiled with that parent.  This module finds, with a text search first and astroid only on
the modules that name the class:

- the holdings: `self.<attribute> = Cell(...)` in a parent class's `__init__`, with the calls of
  `self.<attribute>(...)` in the parent's other methods.  The parent is usually a Cell, but may be
  any class (a `Metric`, a trainer): its calls of the cell run wherever the parent is used;
- every other use of the class (a program builds it, a factory returns it, a list holds it):
  the programs that reach that module may compile it.

A call of the attribute from anywhere else (`net.loss(out)` in a training script) counts as a
use in that module.  When the class is not named anywhere the analysis can follow (a registry
built from strings), nothing is known and callers keep the module's programs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from astroid import nodes

from mslint.analysis.caller_values import MAX_MODULES, Callers
from mslint.analysis.mentions import code_facts, mentions
from mslint.project import index as project
from mslint.project.classes import ClassIndex, enclosing_class
from mslint.project.module_files import record_whole_read
from mslint.project.resolve import Resolver

MAX_DEPTH = 6  # parents followed up from a cell


@dataclass
class Holding:
    """A parent class (usually a Cell) that stores an instance of the cell in `self.<attribute>` in its __init__."""

    parent: nodes.ClassDef
    attribute: str
    calls: List[Tuple[nodes.Call, nodes.FunctionDef]] = field(default_factory=list)  # self.<attribute>(...)
    other_reads: bool = False  # self.<attribute> used some other way outside __init__


@dataclass
class Uses:
    holdings: List[Holding]
    other_modules: Set[str]  # modules that use the class some other way (build it, pass it, call net.<attribute>)
    outside: Optional[Set[str]] = None  # modules calling a holding's attribute from outside the parent (lazily)
    # modules whose only other uses sit in their `if __name__ == "__main__":` block: those run only
    # when the module is itself the program, not when another program imports it
    main_blocks: Set[str] = field(default_factory=set)

    @property
    def held_only(self) -> bool:
        return bool(self.holdings) and not self.other_modules and not self.main_blocks


class CellUses:
    """The uses of Cell classes, seen from one analysis (memoised per class)."""

    def __init__(self, resolver: Resolver, classes: ClassIndex, callers: Callers):
        self.resolver = resolver
        self.classes = classes
        self.callers = callers  # (mslint.analysis.caller_values: the search for a class's constructions)
        self._uses: Dict[nodes.ClassDef, Optional[Uses]] = {}

    def uses(self, cell: nodes.ClassDef) -> Optional[Uses]:
        """Where the project builds `cell`; None when that is not known (not named anywhere, or in
        too many modules to read)."""
        if cell not in self._uses:
            self._uses[cell] = None  # (a recursion guard)
            self._uses[cell] = self._find(cell)
        return self._uses[cell]

    def compiling_programs(self, cell: nodes.ClassDef, _depth: int = 0) -> Optional[FrozenSet[str]]:
        """The paths of the programs that compile `cell`'s construct (programs that may run GRAPH_MODE,
        reaching a use of it that calls it); None when its uses are not known."""
        path = cell.root().file
        uses = self.uses(cell) if path and _depth <= MAX_DEPTH else None
        if uses is None:
            return None
        model = project.project_for(path).programs()
        found: Set[str] = set()
        for module in uses.other_modules | self.outside_calls(uses):
            found |= {p.path for p in model.compiling_programs(module)}
        for module in uses.main_blocks - uses.other_modules:
            found |= {p.path for p in model.compiling_programs(module) if p.path == module}
        for holding in uses.holdings:
            if not holding.calls and not holding.other_reads:
                continue  # held, never called: compiled with no parent
            above = self.compiling_programs(holding.parent, _depth + 1)
            if above is None:
                above = frozenset(p.path for p in model.compiling_programs(holding.parent.root().file or ""))
            found |= above
        return frozenset(found)

    # -- finding the uses ---------------------------------------------------------------------
    def _find(self, cell: nodes.ClassDef) -> Optional[Uses]:
        path = cell.root().file
        if not path or not os.path.isfile(path):
            return None
        sites = self.callers.sites(cell)
        if sites is None:
            return None
        holdings: List[Holding] = []
        other: Set[str] = set(sites.named_in)
        main_blocks: Set[str] = set()
        for call in sites.calls:
            holding = self._holding(call)
            if holding is not None:
                holdings.append(holding)
            elif _in_main_block(call):
                main_blocks.add(os.path.abspath(call.root().file or ""))
            else:
                other.add(os.path.abspath(call.root().file or ""))
        if not holdings and not other and not main_blocks:
            return None
        return Uses(holdings, other, main_blocks=main_blocks)

    def held_only(self, uses: Uses) -> bool:
        """Every use is a parent that holds the cell and calls it only as `self.<attribute>(...)`."""
        return uses.held_only and not any(h.other_reads for h in uses.holdings) and not self.outside_calls(uses)

    def outside_calls(self, uses: Uses) -> Set[str]:
        """The modules that call a holding's attribute from outside its parent (computed when asked)."""
        if uses.outside is None:
            uses.outside = set()
            for holding in uses.holdings:
                model = project.project_for(os.path.abspath(holding.parent.root().file or ""))
                uses.outside |= self._outside_calls(holding, model)
        return uses.outside

    def _holding(self, call: nodes.Call) -> Optional[Holding]:
        """`self.<attribute> = Cell(...)` in a class's __init__, with the parent's uses of the attribute."""
        assign = call.parent
        if not isinstance(assign, nodes.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0]
        if not (isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name)
                and target.expr.name == "self"):
            return None
        init = assign.scope()
        parent = init.parent if isinstance(init, nodes.FunctionDef) and init.name == "__init__" else None
        if not isinstance(parent, nodes.ClassDef):
            return None
        holding = Holding(parent, target.attrname)
        for node in mentions(parent.root(), holding.attribute):
            method = node.scope()
            if not isinstance(node, nodes.Attribute) or not (isinstance(node.expr, nodes.Name)
                                                             and node.expr.name == "self"):
                continue
            if not isinstance(method, nodes.FunctionDef) or method.parent is not parent or method.name == "__init__":
                continue  # (a nested function or lambda of a method counts as another read)
            if isinstance(node.parent, nodes.Call) and node.parent.func is node:
                holding.calls.append((node.parent, method))
            else:
                holding.other_reads = True
        for node in mentions(parent.root(), holding.attribute):
            method = node.scope()
            if _inside(node, parent) and not (isinstance(method, nodes.FunctionDef) and method.parent is parent):
                holding.other_reads = True  # in a lambda or nested function of the parent
        return holding

    def _outside_calls(self, holding: Holding, model) -> Set[str]:
        """Modules that call an attribute of the holding's name outside the parent's own class
        (`net.loss(out)`, or a subclass's `self.loss(...)`): the cell may be called there.  A call
        through an imported name (`np.roll(...)` for a cell held in `self.roll`) is not one, nor is
        `self.<attribute>(...)` in a class that does not derive from the parent."""
        found = set()
        callers = model.attribute_callers(holding.attribute, os.path.abspath(holding.parent.root().file or ""))
        if len(callers) > MAX_MODULES:
            return set(callers)
        for path in callers:
            if not self.resolver.has_module(path) and not _may_call_from_outside(model, path, holding.attribute):
                continue  # (its text says so: no astroid build; mslint.analysis.mentions.CodeFacts)
            module = self.resolver.module_at(path)
            if module is None:
                found.add(path)
                continue
            for func in mentions(module, holding.attribute):
                call = func.parent
                if not isinstance(func, nodes.Attribute) or not isinstance(call, nodes.Call) or call.func is not func \
                        or self.resolver.qualname(func) is not None or _inside(call, holding.parent):
                    continue
                owner = enclosing_class(call)
                if isinstance(func.expr, nodes.Name) and func.expr.name == "self" and owner is not None \
                        and holding.parent not in self.classes.mro(owner):
                    continue  # `self.head(...)` in a class that is no subclass: its own attribute of that name
                found.add(os.path.abspath(path))
                break
        return found


def _may_call_from_outside(model, path: str, attribute: str) -> bool:
    """Whether the file's text may hold a call of `attribute` that _outside_calls counts (True when
    it cannot be read or parsed).  The answer reads the whole file, as the astroid walk would:
    the running analysis records it so (for the result cache)."""
    record_whole_read(path)
    text = model.text(path)
    facts = code_facts(text) if text is not None else None
    return facts is None or attribute in facts.outside_attribute_calls


def _in_main_block(node) -> bool:
    """Whether `node` sits in a module-level `if __name__ == "__main__":` block."""
    statement = node.statement()
    while not isinstance(statement.parent, nodes.Module):
        if statement.parent is None:
            return False
        statement = statement.parent.statement()
    test = statement.test if isinstance(statement, nodes.If) else None
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
        return False
    sides = [test.left, test.ops[0][1]]
    return any(isinstance(side, nodes.Name) and side.name == "__name__" for side in sides) and any(
        isinstance(side, nodes.Const) and side.value == "__main__" for side in sides)


def _inside(node, klass: nodes.ClassDef) -> bool:
    current = node.parent
    while current is not None:
        if current is klass:
            return True
        current = current.parent
    return False
