"""Graph scope: which function bodies MindSpore compiles, and how each is reached.

Roots: `construct`/`bprop` of every nn.Cell subclass (in GRAPH_MODE), `@jit` functions and
methods in any spelling, `@jit` on a Cell class, and the call form `jit(fn)` / `jit(net)`.
The closure follows every call the analysis can resolve: methods through the class
hierarchy (with `self` bound to the concrete class), module functions across the project,
nested functions and lambdas, methods of plain objects stored on `self`, and functions
handed to MindSpore higher-order ops.  It stops at MindSpore, the standard library,
third-party packages, `@constexpr` helpers and `ops.Custom` Python functions.
"""
from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from astroid import nodes

from mslint.analysis import caller_values, cell_uses, lattice, parent_cells, stored_callables
from mslint.analysis.interpreter import Interpreter
from mslint.project.module_memo import statement_memo, subtree_memo
from mslint.project import mindspore_names as msn
from mslint.project.classes import ClassIndex, call_arguments, is_static_method, keyword_value
from mslint.project.index import project_for
from mslint.project.resolve import Resolver, assigned_values, inner_lookup

MAX_GRAPH_FUNCTIONS = 5000  # a bound on the closure, so a huge call graph cannot hang the run
MAX_EVALUATIONS = 3  # re-evaluations of one function when a new call site widens its parameters

PYNATIVE = "pynative"
GRAPH = "graph"


@dataclass(frozen=True)
class Hop:
    """One call on the way from a root to a function: who called, and where (the call's span)."""

    caller: str
    line: int
    path: str
    column: int = 0
    end_line: Optional[int] = None
    end_column: Optional[int] = None
    # what the call goes through to the callee, when it calls a stored value:
    # 'self.act (ACT2FN[...] in activations.py)'
    through: Optional[str] = None


@dataclass
class GraphFunction:
    node: nodes.NodeNG  # FunctionDef or Lambda
    self_class: Optional[nodes.ClassDef]
    display: str
    reach: Tuple[Hop, ...]
    strict: bool
    kind: str  # construct, bprop, jit, or called
    values: Optional[lattice.FunctionValues] = field(default=None, repr=False)
    # reached only from a plain construct/bprop: compiled only if the program runs in GRAPH_MODE
    graph_mode_only: bool = False
    assumed_cell: Optional[str] = None  # why its root's class is assumed to be a Cell, if it is
    # 'only compiled when the caller passes use_mask other than its default False' when every
    # call that reaches this function sits in a branch a root's default leaves out
    compiled_only_when: Optional[str] = None
    # 'compiled by export.py; ...' when only some of the programs that reach the module call its root
    program_note: Optional[str] = None

    @property
    def is_root(self) -> bool:
        return not self.reach

    def reach_text(self, from_path: str) -> str:
        """'called from MySampler.construct (line 32)'; hops in other files name the file."""
        if not self.reach:
            return ""
        return "called from " + " via ".join(
            hop_text(hop, from_path) + (f" through {hop.through}" if hop.through else "") for hop in self.reach)


def reach_steps(reach: Tuple[Hop, ...], from_path: str) -> Tuple[str, ...]:
    """The reach chain's steps up to the callee: each caller, and what a call of a stored value
    goes through ('MLP.construct (model.py, line 12)', 'self.act (ACT2FN[...] in activations.py)')."""
    return tuple(step for hop in reach for step in (hop_text(hop, from_path), hop.through) if step)


def hop_text(hop: Hop, from_path: str) -> str:
    """'MySampler.construct (line 32)', or '(model.py, line 32)' when the call is in another file."""
    where = f"line {hop.line}"
    if os.path.abspath(hop.path) != os.path.abspath(from_path):
        where = f"{os.path.basename(hop.path)}, line {hop.line}"
    return f"{hop.caller} ({where})"


def function_display(function, self_class: Optional[nodes.ClassDef]) -> str:
    if isinstance(function, nodes.Lambda):
        return "<lambda>"
    owner = function.parent if isinstance(function.parent, nodes.ClassDef) else None
    if owner is not None:
        return f"{owner.name}.{function.name}"
    return function.name


class TypePositions:
    """Where each node type occurs in a list of nodes, so that asking for a few types costs
    what it finds rather than a pass over the whole list."""

    def __init__(self, listed: List[nodes.NodeNG]):
        self._by_type: Dict[type, List[int]] = {}
        by_type = self._by_type
        for position, node in enumerate(listed):
            found = by_type.get(type(node))
            if found is None:
                by_type[type(node)] = [position]
            else:
                found.append(position)

    def of(self, classes: Tuple[type, ...]) -> List[int]:
        """The positions of the nodes `isinstance(node, classes)` accepts, in list order."""
        return sorted(p for kind, found in self._by_type.items() if issubclass(kind, classes) for p in found)


class NodeIndex:
    """Every node of a module by type, in document order, from one walk of the tree: rules
    and analyses ask for a module's calls, classes or imports many times."""

    def __init__(self, root: nodes.NodeNG, walked: Optional[List[nodes.NodeNG]] = None,
                 covered: FrozenSet[type] = frozenset()):
        """`walked`: the nodes of the types in `covered`, in document order, as a walk of the
        same tree already found them (pylint's own walk, in the plugin); asking for any other
        type walks the tree then."""
        self._root = root
        self._covered = covered
        self._order: List[nodes.NodeNG] = walked or []
        self._positions = TypePositions(self._order)
        self._asked: Dict[Tuple[type, ...], List[nodes.NodeNG]] = {}
        if walked is None:
            self._walk_everything()

    def _walk_everything(self) -> None:
        if isinstance(self._root, nodes.Module):  # statement by statement (a buffer's kept ones: see module_memo)
            walked = [self._root]
            for statement in self._root.body:  # (a project module's body records that its whole is read)
                walked += statement_memo(statement, "preorder", lambda: _preorder_safely(statement))
        else:
            walked = _preorder_safely(self._root)
        self._covered = _TREE_NODE_CLASSES
        self._asked = {}
        self._order = walked
        self._positions = TypePositions(walked)

    def of(self, *classes: type) -> List[nodes.NodeNG]:
        """What `root.nodes_of_class(classes)` yields (subclasses included, document order)."""
        if classes not in self._asked:
            if not node_classes_of(classes) <= self._covered:
                self._walk_everything()  # a type the walk that filled the index did not collect
            self._asked[classes] = [self._order[p] for p in self._positions.of(classes)]
        return self._asked[classes]


# Node types with no children: listed without a call of their own (about a third of all nodes).
_LEAVES = frozenset({nodes.Name, nodes.Const, nodes.AssignName, nodes.DelName, nodes.Pass, nodes.Break,
                     nodes.Continue, nodes.Global, nodes.Nonlocal, nodes.Import, nodes.ImportFrom})


# The node classes a parsed tree can hold (astroid also subclasses some for inference results,
# e.g. FunctionDef for properties, which never appear in a tree).
_TREE_NODE_CLASSES = frozenset(kind for kind in nodes.ALL_NODE_CLASSES if isinstance(kind, type))


def node_classes_of(classes: Tuple[type, ...]) -> FrozenSet[type]:
    """The tree node classes that `isinstance(node, classes)` accepts."""
    return frozenset(kind for kind in _TREE_NODE_CLASSES if issubclass(kind, classes))


def _preorder_safely(root: nodes.NodeNG) -> List[nodes.NodeNG]:
    try:
        return _preorder(root)
    except RecursionError:  # a pathologically deep expression: walk it without recursion
        return _preorder_iterative(root)


def _preorder(root: nodes.NodeNG) -> List[nodes.NodeNG]:
    # recursion is about twice as fast as an explicit stack here (this walks every module)
    order: List[nodes.NodeNG] = []
    append = order.append

    def walk(node):
        append(node)
        for child in node.get_children():
            if type(child) in _LEAVES:
                append(child)
            else:
                walk(child)

    walk(root)
    return order


def _preorder_iterative(root: nodes.NodeNG) -> List[nodes.NodeNG]:
    order: List[nodes.NodeNG] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(tuple(node.get_children())))
    return order


def context_modes(module: nodes.Module, resolver: Resolver, calls: Optional[List[nodes.Call]] = None) -> Set[str]:
    """Every mode the module's `set_context(mode=...)` calls set: PYNATIVE, GRAPH or "unknown"
    (a mode computed at run time, e.g. from argparse)."""
    modes: Set[str] = set()
    for call in (calls if calls is not None else module.nodes_of_class(nodes.Call)):
        func = call.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        if name != "set_context":
            continue
        qualname = resolver.qualname(func)
        if qualname is not None and not msn.is_mindspore(qualname):
            continue
        mode = keyword_value(call, "mode")
        if mode is None:
            continue
        modes.add(_mode_of(mode, resolver))
    return modes


def _mode_of(node, resolver: Resolver) -> Optional[str]:
    if isinstance(node, nodes.Const):
        return {0: GRAPH, 1: PYNATIVE}.get(node.value)
    qualname = resolver.qualname(node) or ""
    if qualname.endswith("PYNATIVE_MODE"):
        return PYNATIVE
    if qualname.endswith("GRAPH_MODE"):
        return GRAPH
    return "unknown"


class GraphScope:
    """The graph scope seen from one module: its roots and everything they reach."""

    def __init__(self, module: nodes.Module, resolver: Resolver, classes: ClassIndex,
                 interpreter: Interpreter, graph_mode: str = "auto", strict: bool = False,
                 build: bool = True, index: Optional[NodeIndex] = None, program_mode: Optional[str] = None):
        self.module = module
        self.resolver = resolver
        self.classes = classes
        self.interpreter = interpreter
        self.graph_mode = graph_mode
        self.strict = strict
        self.program_mode = program_mode  # PYNATIVE when the project only ever sets PYNATIVE_MODE
        self._marks: Optional[Dict[nodes.NodeNG, bool]] = None
        if index is None and build:  # (an empty scope, what is left after a failure, needs none)
            index = NodeIndex(module)
        self._index = index
        self.functions: List[GraphFunction] = []
        self.incomplete = False
        self._by_key: Dict[tuple, GraphFunction] = {}
        self._params: Dict[tuple, Dict[str, lattice.Value]] = {}
        self._evaluations: Dict[tuple, int] = {}
        # caller key -> {(call, target key): (target key, the default-guard condition of the call)}
        self._edges: Dict[tuple, Dict[tuple, tuple]] = {}
        # (call, target key) -> whether the call binds the target's first parameter (None: MindSpore calls it)
        self._bound: Dict[tuple, Optional[bool]] = {}
        self._bodies: Dict[tuple, FunctionBody] = {}
        self._through: Dict[tuple, str] = {}  # (call, target, self class) -> the stored value it calls
        self.call_sites = caller_values.Callers(resolver, classes.jit_decorators)
        self.cell_uses = cell_uses.CellUses(resolver, classes, self.call_sites)
        self._parent_runs: Dict[tuple, lattice.FunctionValues] = {}  # (parent method, parent class) -> its values
        if build:
            self._build()

    @classmethod
    def empty(cls, module, resolver, classes, interpreter) -> "GraphScope":
        return cls(module, resolver, classes, interpreter, graph_mode="never", build=False)

    # -- public ------------------------------------------------------------------------
    def local_functions(self) -> List[GraphFunction]:
        """Graph functions whose code is in this module."""
        return [gf for gf in self.functions if gf.node.root() is self.module]

    def reached_functions(self) -> List[GraphFunction]:
        """Every graph function this module's roots reach, in this module or another project
        module: the analysis reports on all of them, and the run decides which file each
        finding belongs to (mslint.run.routing)."""
        return list(self.functions)

    def callers(self, gf: GraphFunction) -> List[Tuple[nodes.Call, GraphFunction, Optional[bool]]]:
        """(call, calling graph function, whether the call binds the first parameter) for every call
        into `gf` this analysis followed (its callers' last evaluations); the binding is None for a
        function MindSpore calls (ops.vmap(fn), a function handed to grad)."""
        key = (gf.node, gf.self_class)
        return [(call, self._by_key[caller], self._bound.get((call, target)))
                for caller, edges in self._edges.items() for (call, target) in edges if target == key]

    def constructs_compiled(self) -> bool:
        """Whether a plain construct is compiled: `graph-mode`, and under `auto` the program's
        mode (the project's set_context calls, mslint.project.index)."""
        if self.graph_mode == "always":
            return True
        if self.graph_mode == "never":
            return False
        return self.program_mode != PYNATIVE

    def only_in_graph_mode(self, node) -> bool:
        """Whether the graph function around `node` is compiled only in GRAPH_MODE (every way to
        reach it is marked); False outside graph code."""
        if self._marks is None:
            self._marks = {}
            for gf in self.functions:
                self._marks[gf.node] = self._marks.get(gf.node, True) and gf.graph_mode_only
        current = node
        while current is not None:
            if current in self._marks:
                return self._marks[current]
            current = current.parent
        return False

    def body(self, function, nested_defs: bool = False) -> FunctionBody:
        """A graph function's body nodes (see FunctionBody), listed once per module analysis."""
        key = (function, nested_defs)
        found = self._bodies.get(key)
        if found is None:
            if nested_defs:  # the same nodes unless the body has a nested def
                compiled = self.body(function)
                if not compiled.has_nested_defs():
                    self._bodies[key] = compiled
                    return compiled
            found = self._bodies[key] = _function_body(function, nested_defs)
        return found

    # -- roots -------------------------------------------------------------------------
    def _roots(self) -> Iterator[GraphFunction]:
        """Every root.  In a program that only runs PyNative, a plain construct or bprop is
        compiled only if something else compiles it (ms.jit(net), a call from @jit code): such
        roots come last and are marked, so what they alone reach can be withheld and counted."""
        deferred = []
        for cls in self._index.of(nodes.ClassDef):
            if not self.classes.is_cell(cls):
                continue
            jit_decorator = self.classes.jit_decorator(cls)
            if jit_decorator is None and self.classes.overrides_call_without_super(cls):
                continue  # construct never reaches Cell.__call__, so it is never compiled
            if jit_decorator is None and self.graph_mode == "never":
                continue
            strict = self.strict if jit_decorator is None else self._decorator_strict(jit_decorator)
            compiled_by = self._programs_calling(cls) if jit_decorator is None else None
            for name in ("construct", "bprop"):
                method = self.classes.lookup_method(cls, name)
                if method is not None and not self.classes.is_constexpr(method):
                    root = self._make(method, cls, name, (), strict)
                    root.program_note = compiled_by[1] if compiled_by else None
                    if jit_decorator is None and (not self.constructs_compiled()
                                                  or (compiled_by is not None and not compiled_by[0])):
                        root.graph_mode_only = True
                        deferred.append(root)
                    else:
                        yield root
        for function in self._index.of(nodes.FunctionDef):
            decorator = self.classes.jit_decorator(function)
            if decorator is None or self._bytecode_only(decorator):
                continue
            owner = function.parent if isinstance(function.parent, nodes.ClassDef) else None
            yield self._make(function, owner, "jit", (), self._decorator_strict(decorator))
        for call in self._index.of(nodes.Call):
            root = self._jit_call_root(call)
            if root is not None:
                yield root
        yield from deferred

    def _programs_calling(self, cls: nodes.ClassDef) -> Optional[Tuple[FrozenSet[str], Optional[str]]]:
        """(the programs that compile the cell's construct, the note that names them) when programs
        of both kinds, GRAPH and PyNative, reach this module and the cell's uses are known
        (mslint.analysis.cell_uses): a cell that is only held, never called, is compiled by no
        program; None otherwise (library code, a module only programs that may compile it reach,
        or uses the analysis cannot follow: every program that reaches the module counts)."""
        path = self.module.file
        if self.graph_mode != "auto" or not self.constructs_compiled() or not path or cls.root() is not self.module:
            return None
        programs = project_for(path).programs()
        if programs.mixed_note(path) is None:
            return None  # library code, or only programs that may compile it: checked as graph code
        compiling = self.cell_uses.compiling_programs(cls)
        if compiling is None:
            return None
        return compiling, programs.note_for(path, compiling)

    def _jit_call_root(self, call: nodes.Call) -> Optional[GraphFunction]:
        func = call.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        if name not in ("jit", "ms_function") or self.resolver.qualname(func) not in self.classes.jit_decorators:
            return None
        target = keyword_value(call, "function", 0) or keyword_value(call, "fn")
        if target is None:
            return None  # `jit(fullgraph=True)` used as a decorator factory
        strict = self._decorator_strict(call)
        definition = self._callable_target(target)
        if isinstance(definition, (nodes.FunctionDef, nodes.Lambda)):
            owner = definition.parent if isinstance(definition.parent, nodes.ClassDef) else None
            return self._make(definition, owner, "jit", (), strict)
        cell_class = self._instance_class(target)
        if cell_class is not None and self.classes.is_cell(cell_class):
            construct = self.classes.lookup_method(cell_class, "construct")
            if construct is not None:
                return self._make(construct, cell_class, "jit", (), strict)
        return None

    def _callable_target(self, target):
        if isinstance(target, nodes.Lambda):
            return target
        return self.resolver.resolve_callable(target) if isinstance(target, (nodes.Name, nodes.Attribute)) else None

    def _instance_class(self, target) -> Optional[nodes.ClassDef]:
        """The project class of `Net(...)` or of a name assigned once from `Net(...)`."""
        if isinstance(target, nodes.Name):
            values = assigned_values(target)
            target = values[-1] if values else None
        if isinstance(target, nodes.Call):
            definition = self.resolver.resolve_callable(target.func)
            if isinstance(definition, nodes.ClassDef):
                return definition
            if isinstance(target.func, nodes.Attribute):  # Net(...).set_train() and similar chains
                return self._instance_class(target.func.expr)
        return None

    def _decorator_strict(self, decorator) -> bool:
        if isinstance(decorator, nodes.Call):
            fullgraph = keyword_value(decorator, "fullgraph")
            if isinstance(fullgraph, nodes.Const):
                return bool(fullgraph.value)
        return False  # @jit without fullgraph=True is LAX, whatever the context says

    def _bytecode_only(self, decorator) -> bool:
        """capture_mode="bytecode" runs unsupported code eagerly unless fullgraph=True."""
        if not isinstance(decorator, nodes.Call):
            return False
        mode = keyword_value(decorator, "capture_mode")
        return isinstance(mode, nodes.Const) and mode.value in ("bytecode", "trace") and not self._decorator_strict(decorator)

    # -- closure -----------------------------------------------------------------------
    def _make(self, function, self_class, kind, reach, strict, assumed_cell: Optional[str] = None,
              program_note: Optional[str] = None) -> GraphFunction:
        if assumed_cell is None and self_class is not None and getattr(function, "name", None) in ("construct", "bprop"):
            assumed_cell = self.classes.assumed_cell(self_class)
        return GraphFunction(function, self_class, function_display(function, self_class), reach, strict, kind,
                             assumed_cell=assumed_cell, program_note=program_note)

    def _build(self) -> None:
        """The closure from every root.  Roots compiled in any mode are followed first, so a
        function they reach is never marked as compiled only in GRAPH_MODE; the plain
        constructs follow, and what only they reach is marked."""
        queue: deque = deque()
        defaulted: Set[tuple] = set()  # roots whose parameters are still the default (tensors) guess
        phase = None
        for root in self._roots():
            if root.graph_mode_only and phase is None:
                self._close(queue, defaulted)  # every root compiled in any mode, to the end
                phase = "graph mode only"
            key = (root.node, root.self_class)
            if key in self._by_key:
                continue
            params = lattice.root_params(root.node, self.resolver) if not isinstance(root.node, nodes.Lambda) else {}
            if root.kind == "construct":
                params.update(self._host_inputs_from_parents(root))
                params.update(self._inputs_every_parent_passes(root))
            elif root.kind == "jit" and root.self_class is None and isinstance(root.node, nodes.FunctionDef):
                params.update(self._inputs_every_caller_passes(root.node, params))
            self._register(root, params)
            defaulted.add(key)
            queue.append(key)
        self._close(queue, defaulted)
        self._mark_compiled_only_when()

    def _host_inputs_from_parents(self, root: GraphFunction) -> Dict[str, lattice.Value]:
        """The inputs of a sub-cell's construct that every parent in another module fills with a
        host value (`self.post(x.asnumpy())`): host values here too, as they are when the parent
        is in this module (mslint.analysis.parent_cells)."""
        passed: Dict[str, List[lattice.Value]] = {}
        calls = 0
        parents: Dict[nodes.FunctionDef, lattice.FunctionValues] = {}
        for call, construct, parent in parent_cells.parent_calls(root.self_class, self.resolver, self.classes,
                                                                 self.interpreter.class_facts):
            if construct not in parents:
                parents[construct] = self.interpreter.run(construct, lattice.root_params(construct, self.resolver),
                                                          parent)
            calls += 1
            for name, value in _bind_arguments(call, root.node, parents[construct], True).items():
                passed.setdefault(name, []).append(value)
        return {name: lattice.join(*values) for name, values in passed.items()
                if len(values) == calls and all(value.is_var and value.has("host") for value in values)}

    def _inputs_every_parent_passes(self, root: GraphFunction) -> Dict[str, lattice.Value]:
        """The inputs of a sub-cell's construct that every call of it passes as a constant (a Python
        int from the parent's `__init__`, a shape number, a literal): constants here too, as
        MindSpore compiles them.  Only for a cell whose every use is a parent that holds it and
        calls it (mslint.analysis.cell_uses): a cell a program also runs itself gets tensors."""
        uses = self.cell_uses.uses(root.self_class) if root.self_class is not None else None
        if uses is None or not self.cell_uses.held_only(uses):
            return {}
        calls = [(call, method, h.parent) for h in uses.holdings for call, method in h.calls]
        if not calls:
            return {}
        passed: Dict[str, List[lattice.Value]] = {}
        for call, method, parent in calls:
            values = self._parent_runs.get((method, parent))
            if values is None:
                values = self._parent_runs[(method, parent)] = self.interpreter.run(
                    method, lattice.root_params(method, self.resolver), parent)
            for name, value in _bind_arguments(call, root.node, values, True).items():
                passed.setdefault(name, []).append(value)
        return {name: lattice.join(*values) for name, values in passed.items()
                if len(values) == len(calls) and all(value.is_const for value in values)}

    def _inputs_every_caller_passes(self, function: nodes.FunctionDef,
                                    params: Dict[str, lattice.Value]) -> Dict[str, lattice.Value]:
        """The inputs of a @jit function (or one `ms.jit(f)` wraps) that every call of it in the
        project passes as a Python literal (mslint.analysis.caller_values; a call that leaves one
        out passes its default): compile-time constants, as MindSpore compiles them.  With no
        call found, whoever calls it chooses, and its inputs stay tensors."""
        if not self.call_sites.calls_of(function):
            return {}
        found = {}
        for name in params:
            if name in (function.args.vararg, function.args.kwarg):
                continue
            passed = caller_values.passed_literals(function, name, self.call_sites, self.resolver,
                                                   uncalled_default=False)
            if passed:
                found[name] = lattice.join(*(lattice.constant(literal.value) for literal in passed))
        return found

    def _mark_compiled_only_when(self) -> None:
        """A function whose every call sits in a branch that a root's default leaves out (or in
        a function that is itself only compiled so) is compiled only for such a caller: its
        findings say so, as findings in the branch itself do, naming the condition of the call
        its reach chain shows.  Reached through any other call, it is always compiled."""
        always = {key for key, gf in self._by_key.items() if gf.is_root}
        queue = deque(key for key in self._by_key if key in always)  # registration order: deterministic
        while queue:
            caller = queue.popleft()
            for target, condition in self._edges.get(caller, {}).values():
                if condition is None and target not in always:
                    always.add(target)
                    queue.append(target)
        # the edge each function's reach ends with: (target, caller's display, line, column) -> (caller, condition)
        reached_by = {(target, self._by_key[caller].display, call.lineno, call.col_offset): (caller, condition)
                      for caller, edges in self._edges.items() for (call, target), (_, condition) in edges.items()}
        conditions: Dict[tuple, Optional[str]] = {}

        def condition_of(key: tuple) -> Optional[str]:
            if key in always or key in conditions:
                return conditions.get(key)
            conditions[key] = None  # a cycle of guarded calls: no condition to name
            hop = self._by_key[key].reach[-1]
            found = reached_by.get((key, hop.caller, hop.line, hop.column))
            if found is not None:
                caller, condition = found
                conditions[key] = condition or condition_of(caller)
            return conditions[key]

        for key, gf in self._by_key.items():
            if key not in always:
                gf.compiled_only_when = condition_of(key)

    def _close(self, queue: deque, defaulted: Set[tuple]) -> None:
        while queue:
            key = queue.popleft()
            gf = self._by_key[key]
            self._evaluations[key] = self._evaluations.get(key, 0) + 1
            gf.values = self.interpreter.run(gf.node, self._params.get(key, {}), gf.self_class)
            edges = self._edges[key] = {}  # this evaluation's calls replace the last one's
            for call, target, self_class, bound in self._callees(gf):
                target_key = (target, self_class)
                edges[(call, target_key)] = (target_key, gf.values.left_out_by_default(call))
                self._bound[(call, target_key)] = bound
                if bound is None or isinstance(target, nodes.Lambda):
                    params = lattice.root_params(target, self.resolver) if not isinstance(target, nodes.Lambda) else {}
                else:
                    params = _bind_arguments(call, target, gf.values, bound)
                if target_key not in self._by_key:
                    if len(self._by_key) >= MAX_GRAPH_FUNCTIONS:
                        self.incomplete = True
                        continue
                    hop = _hop(gf, call, self._through.get((call, target, self_class)))
                    callee = self._make(target, self_class, "called", gf.reach + (hop,), gf.strict, gf.assumed_cell,
                                        gf.program_note)
                    callee.graph_mode_only = gf.graph_mode_only
                    self._register(callee, params)
                    queue.append(target_key)
                elif target_key in defaulted and bound is not None:
                    # a Cell used as a sub-cell: its construct gets what its parent passes
                    # (`self.pos_embed(B, H, W)` with ints from x.shape), not tensors
                    defaulted.discard(target_key)
                    self._params[target_key] = params
                    if target_key not in queue:
                        queue.append(target_key)
                else:
                    old = self._params.get(target_key, {})
                    merged = {name: lattice.join(old[name], value) if name in old else value
                              for name, value in params.items()}
                    merged.update({name: value for name, value in old.items() if name not in merged})
                    if merged != old and self._evaluations.get(target_key, 0) < MAX_EVALUATIONS:
                        self._params[target_key] = merged
                        if target_key not in queue:
                            queue.append(target_key)

    def _register(self, gf: GraphFunction, params) -> None:
        key = (gf.node, gf.self_class)
        self._by_key[key] = gf
        self._params[key] = params
        self.functions.append(gf)

    def _callees(self, gf: GraphFunction) -> Iterator[tuple]:
        """(call, target function, self class, whether the first parameter is bound) per resolvable call."""
        for call in self.body(gf.node).calls(gf.values.dead if gf.values is not None else ()):
            for found in self._resolve_call(call, gf):
                target = found[1]
                if isinstance(target, nodes.FunctionDef) and (
                        self.classes.is_constexpr(target) or msn.is_mindspore(target.root().name)):
                    continue
                yield found

    def _resolve_call(self, call: nodes.Call, gf: GraphFunction) -> Iterator[tuple]:
        func = call.func
        values = gf.values
        target = None
        if isinstance(func, nodes.Attribute):
            receiver = func.expr
            if isinstance(receiver, nodes.Name) and receiver.name == "self" and gf.self_class is not None:
                method = self.classes.lookup_method(gf.self_class, func.attrname)
                if method is not None:
                    yield (call, method, gf.self_class, not is_static_method(method))
                    target = method
                else:
                    found = list(self._instance_call(call, values.value(func)))
                    for expr in ([] if found else stored_callables.self_attribute_values(
                            self.classes, gf.self_class, func.attrname)):
                        found += self._held(call, expr, gf, holder=f"self.{func.attrname}")
                    yield from found
            elif _is_super_call(receiver) and gf.self_class is not None:
                method = self._super_method(gf, func.attrname)
                if method is not None:
                    yield (call, method, gf.self_class, True)
                    target = method
            else:
                owner = values.value(receiver)
                if isinstance(owner.node, nodes.ClassDef):
                    method = self.classes.lookup_method(owner.node, func.attrname)
                    if method is not None:
                        yield (call, method, owner.node, not is_static_method(method))
                        target = method
                if target is None:
                    definition = self.resolver.resolve_callable(func)
                    if isinstance(definition, nodes.FunctionDef):
                        owner_class = definition.parent if isinstance(definition.parent, nodes.ClassDef) else None
                        yield (call, definition, owner_class, False)
                        target = definition
        elif isinstance(func, nodes.Name):
            definition = self.resolver.resolve_callable(func)
            if isinstance(definition, (nodes.FunctionDef, nodes.Lambda)):
                yield (call, definition, None, False)
                target = definition
            elif definition is None:
                found = list(self._instance_call(call, values.value(func)))
                bound = [] if found else (assigned_values(func) or [])
                for expr in bound if len(bound) == 1 else []:  # f = getattr(self, "name"); f(x)
                    found += self._held(call, expr, gf, holder=func.name)
                yield from found
        elif isinstance(func, nodes.Subscript) and _is_self_attribute(func.value) and gf.self_class is not None:
            for expr in stored_callables.self_attribute_values(self.classes, gf.self_class, func.value.attrname):
                yield from self._held(call, expr, gf, key=func.slice, holder=func.value.as_string())  # self.table["a"](x)
        elif isinstance(func, (nodes.Call, nodes.Subscript)):  # getattr(self, "name")(x), ACT2FN[name](x)
            yield from self._held(call, func, gf)
        elif isinstance(func, nodes.Lambda):
            yield (call, func, gf.self_class, False)
        # functions handed to MindSpore higher-order ops (vmap, grad, Map, partial) are compiled too
        qualname = self.resolver.qualname(func)
        if target is None and msn.is_mindspore(qualname) and not qualname.endswith("Custom"):
            for argument in call_arguments(call):
                passed = self._function_reference(argument, gf)
                if passed is not None:
                    yield (call, passed[0], passed[1], None)  # None: called by MindSpore, not at this call

    def _held(self, call, expr, gf: GraphFunction, key=None, holder: Optional[str] = None) -> List[tuple]:
        """What calling a stored value runs (mslint.analysis.stored_callables): a function or method, or the
        construct/__call__ of an instance's class.  `holder` names what holds it ('self.act'):
        with the path to the value, the reach chain shows it."""
        found = []
        for held in stored_callables.held_callables(expr, self.resolver, self.classes, gf.self_class, key):
            definition, owner = held.definition, held.owner
            if isinstance(definition, nodes.ClassDef):
                name = "construct" if self.classes.is_cell(definition) else "__call__"
                method = self.classes.lookup_method(definition, name)
                if method is None:
                    continue
                target = (call, method, definition, True)
            elif owner is not None:
                target = (call, definition, owner, not is_static_method(definition))
            else:
                target = (call, definition, None, False)
            through = f"{holder} ({held.path})" if holder and held.path else holder or held.path
            if through:
                self._through.setdefault(target[:3], through)
            found.append(target)
        return found

    def _instance_call(self, call, value: lattice.Value) -> Iterator[tuple]:
        """Calling an object: a Cell instance runs its construct, a plain object its __call__."""
        klass = value.node
        if not isinstance(klass, nodes.ClassDef):
            return
        name = "construct" if self.classes.is_cell(klass) else "__call__"
        method = self.classes.lookup_method(klass, name)
        if method is not None:
            yield (call, method, klass, True)

    def _function_reference(self, node, gf: GraphFunction):
        """(function, self class) of a function passed as an argument, e.g. ops.vmap(fn)."""
        if isinstance(node, nodes.Lambda):
            return None  # lexically inside the caller: already analysed with it
        if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self":
            if gf.self_class is not None:
                method = self.classes.lookup_method(gf.self_class, node.attrname)
                if method is not None:
                    return (method, gf.self_class)
            return None
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            definition = self.resolver.resolve_callable(node)
            if isinstance(definition, nodes.FunctionDef) and not self.classes.is_constexpr(definition):
                return (definition, None)
        return None

    def _super_method(self, gf: GraphFunction, name: str) -> Optional[nodes.FunctionDef]:
        defining = gf.node.parent if isinstance(gf.node.parent, nodes.ClassDef) else None
        mro = self.classes.mro(gf.self_class)
        if defining in mro:
            mro = mro[mro.index(defining) + 1:]
        for klass in mro:
            for item in klass.locals.get(name, ()):
                if isinstance(item, nodes.FunctionDef):
                    return item
        return None


def _hop(gf: GraphFunction, call: nodes.Call, through: Optional[str] = None) -> Hop:
    return Hop(gf.display, call.lineno or 0, gf.node.root().file or "", call.col_offset or 0,
               call.end_lineno, call.end_col_offset, through)


def _is_super_call(node) -> bool:
    return isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "super"


def local_bindings(node, function) -> List[nodes.NodeNG]:
    """The assignments of a Name that is a local variable of `function` (parameters included);
    empty if the name is bound elsewhere (an enclosing function, the module) or cannot be looked up."""
    if not isinstance(node, nodes.Name):
        return []
    try:
        scope, assigns = inner_lookup(node, node.name)
    except Exception:  # astroid lookup failure: not known to be local
        return []
    return list(assigns) if scope is function else []


_NOT_BODY = (nodes.Arguments, nodes.Decorators)  # parts of a def or lambda that are not its body


class FunctionBody:
    """Every node of a function body, lambdas included, in source order, listed once: the scope
    and the rules walk each graph function's body several times (each evaluation, each rule).

    A nested `def` is listed itself but (unless `nested_defs`) not its body: MindSpore
    compiles it only when it is called, and then the scope analyses it as a function of its
    own. Nested classes are left out."""

    __slots__ = ("nodes", "_ends", "_calls")

    def __init__(self, function, nested_defs: bool = False):
        self.nodes: List[nodes.NodeNG] = []
        self._ends: List[int] = []  # per node, the position after its subtree
        self._calls: Optional[List[nodes.Call]] = None
        self._list(function, nested_defs)

    def _list(self, function, nested_defs: bool) -> None:
        try:
            self._list_recursively(function, nested_defs)
        except RecursionError:  # a pathologically deep expression: list it without recursion
            del self.nodes[:], self._ends[:]
            self._list_with_a_stack(function, nested_defs)

    def _list_recursively(self, function, nested_defs: bool) -> None:
        listed, ends = self.nodes, self._ends
        leaves, functions, skipped = _LEAVES, (nodes.FunctionDef, nodes.AsyncFunctionDef), _NOT_BODY

        def walk(node):
            position = len(listed)
            listed.append(node)
            ends.append(position + 1)
            if isinstance(node, functions):
                if not nested_defs:
                    return
                children = [c for c in node.get_children() if not isinstance(c, skipped)]
            elif isinstance(node, nodes.Lambda):
                children = [c for c in node.get_children() if not isinstance(c, skipped)]
            else:
                children = node.get_children()
            for child in children:
                if type(child) in leaves:
                    listed.append(child)
                    ends.append(len(listed))
                elif not isinstance(child, nodes.ClassDef):
                    walk(child)
            ends[position] = len(listed)

        for root in ([function.body] if isinstance(function, nodes.Lambda) else function.body):
            if not isinstance(root, nodes.ClassDef):
                walk(root)

    def _list_with_a_stack(self, function, nested_defs: bool) -> None:
        listed, ends = self.nodes, self._ends
        roots = [function.body] if isinstance(function, nodes.Lambda) else list(function.body)
        stack: list = list(reversed(roots))
        while stack:
            item = stack.pop()
            if type(item) is int:  # every child of the node listed at `item` is listed
                ends[item] = len(listed)
                continue
            if isinstance(item, nodes.ClassDef):
                continue
            position = len(listed)
            listed.append(item)
            ends.append(position + 1)
            if isinstance(item, (nodes.FunctionDef, nodes.AsyncFunctionDef)) and not nested_defs:
                continue
            children = list(item.get_children())
            if isinstance(item, (nodes.Lambda, nodes.FunctionDef, nodes.AsyncFunctionDef)):
                children = [c for c in children if not isinstance(c, _NOT_BODY)]
            stack.append(position)
            stack.extend(reversed(children))

    def iter(self, skip=()) -> List[nodes.NodeNG]:
        """The nodes, without the subtrees of the nodes in `skip`."""
        if not skip:
            return self.nodes
        kept = []
        listed, ends = self.nodes, self._ends
        position, count = 0, len(listed)
        while position < count:
            node = listed[position]
            if node in skip:
                position = ends[position]
                continue
            kept.append(node)
            position += 1
        return kept

    def has_nested_defs(self) -> bool:
        return any(isinstance(node, (nodes.FunctionDef, nodes.AsyncFunctionDef)) for node in self.nodes)

    def calls(self, skip=()) -> List[nodes.Call]:
        """Calls in the body (lambdas included; nested defs are analysed when called), except in
        statements the compiler skips (`skip`: the untaken side of an `if` on a constant)."""
        if skip:
            return [node for node in self.iter(skip) if isinstance(node, nodes.Call)]
        if self._calls is None:
            self._calls = [node for node in self.nodes if isinstance(node, nodes.Call)]
        return self._calls


def _function_body(function, nested_defs: bool) -> "FunctionBody":
    """A function's FunctionBody, kept on its top-level statement in a buffer (see
    module_memo: the next build may reuse the statement)."""
    return subtree_memo(function, f"body {nested_defs}", lambda: FunctionBody(function, nested_defs))


def _bind_arguments(call: nodes.Call, target, values: lattice.FunctionValues, bound: bool) -> Dict[str, lattice.Value]:
    """Values of the callee's parameters at this call site."""
    params = lattice.bind_positional(target, lattice.positional_values(call, values.value), bound)
    for keyword in call.keywords or ():
        if keyword.arg is not None:
            params[keyword.arg] = values.value(keyword.value)
    if isinstance(target, nodes.FunctionDef):
        params = lattice.with_unpassed_defaults(target, params, values.interpreter.resolver)
    return params


def _is_self_attribute(node) -> bool:
    return isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self"
