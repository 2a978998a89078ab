"""ModuleContext: the analysis of one module that every rule shares (computed once)."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Dict, Iterator, List, Optional, Set, Tuple, Type

from astroid import nodes

from mslint.analysis import interpreter, kept_runs, lattice
from mslint.project.classes import ClassIndex
from mslint.config import Config
from mslint.findings import REACH_SENTENCE, CallSite, Finding, finding_at
from mslint.messages import extend
from mslint.project.libraries import library_classes
from mslint.project.resolve import Resolver
from mslint.rules import Rule
from mslint.project.index import program_mode, program_note, project_for
from mslint.analysis.scope import GraphFunction, GraphScope, NodeIndex, TypePositions, reach_steps


class ModuleContext:
    """One module, its graph scope and constant lattice, and helpers rules use to report."""

    def __init__(self, module: nodes.Module, path: str, config: Config, index: Optional[NodeIndex] = None):
        self.module = module
        self.path = path
        self.config = config
        self.resolver = Resolver()
        self.resolver.register_module(module)
        self.classes = ClassIndex(self.resolver, config.extra_jit_decorators, config.extra_cell_bases,
                                  libraries=library_classes())
        self.interpreter = interpreter.Interpreter(self.resolver, self.class_facts, self._resolve_class, self.classes,
                                               flavour=(tuple(config.extra_jit_decorators),
                                                        tuple(config.extra_cell_bases)))
        if kept_runs.is_kept_module(module):
            self.interpreter.keeps_runs_of = module
        self._facts: Dict[nodes.ClassDef, lattice.ClassFacts] = {}
        self._impure_facts: Set[nodes.ClassDef] = set()
        self._scope: Optional[GraphScope] = None
        self._index: Optional[NodeIndex] = index  # (the plugin passes one filled by pylint's walk)
        self._nodes_cache: Dict[object, object] = {}  # graph-node lists, and where each type is in them
        self.memo: Dict[str, object] = {}  # shared results between rules of a family

    # -- graph scope -------------------------------------------------------------------
    @property
    def scope(self) -> GraphScope:
        if self._scope is None:
            self._scope = GraphScope(self.module, self.resolver, self.classes, self.interpreter, index=self.index,
                                     graph_mode=self.config.graph_mode,
                                     strict=self.config.syntax_level == "strict",
                                     program_mode=program_mode(self.module.file or self.path))
        return self._scope

    @property
    def index(self) -> NodeIndex:
        if self._index is None:
            self._index = NodeIndex(self.module)
        return self._index

    def module_nodes(self, *types: Type[nodes.NodeNG]) -> List[nodes.NodeNG]:
        """Every node of these types in the whole module, in document order (one shared walk)."""
        return self.index.of(*types)

    def disable_scope(self) -> None:
        """After the scope analysis failed: report no graph code rather than fail every rule."""
        self._scope = GraphScope.empty(self.module, self.resolver, self.classes, self.interpreter)

    def graph_functions(self) -> List[GraphFunction]:
        """Every graph function this module's roots reach, wherever it is defined."""
        return self.scope.reached_functions()

    def graph_nodes(self, *types: Type[nodes.NodeNG], parsed: bool = False
                    ) -> Iterator[Tuple[nodes.NodeNG, GraphFunction]]:
        """(node, the graph function it is in) for every node of these types in graph scope.

        A node reached in several ways (a helper called from two roots) is yielded once,
        with the first (shortest) way it is reached.  With `parsed=True` the bodies of nested
        `def`s are included even when nothing calls them: MindSpore's parser still rejects
        unsupported syntax there (syntax rules want this; value rules do not)."""
        key = "parsed" if parsed else "compiled"
        if key not in self._nodes_cache:
            seen = set()
            ordered = []
            for gf in self.graph_functions():
                # the compiler skips branches a constant rules out; the parser sees every
                # statement but those ruled out by a cell attribute (checked on MindSpore 2.10)
                dead = () if gf.values is None else gf.values.unparsed if parsed else gf.values.dead
                for node in self.scope.body(gf.node, parsed).iter(dead):
                    if node not in seen:
                        seen.add(node)
                        ordered.append((node, gf))
            self._nodes_cache[key] = ordered
        if not types:
            yield from self._nodes_cache[key]
            return
        wanted = (key,) + types  # each rule asks for a few node types, many times: filter once
        if wanted not in self._nodes_cache:
            everything = self._nodes_cache[key]
            by_type_key = ("by type", key)
            if by_type_key not in self._nodes_cache:
                self._nodes_cache[by_type_key] = TypePositions([node for node, _ in everything])
            self._nodes_cache[wanted] = [everything[i] for i in self._nodes_cache[by_type_key].of(types)]
        yield from self._nodes_cache[wanted]

    def value(self, node, gf: GraphFunction) -> lattice.Value:
        """The lattice value of an expression in graph function `gf`."""
        if gf.values is None:
            return lattice.UNKNOWN
        return gf.values.value(node)

    def qualname(self, node) -> Optional[str]:
        return self.resolver.qualname(node)

    def call_qualname(self, call: nodes.Call, gf: Optional[GraphFunction] = None) -> Optional[str]:
        """The qualified name a call's function resolves to (through imports or local aliases)."""
        qualname = self.resolver.qualname(call.func)
        if qualname is None and gf is not None:
            value = self.value(call.func, gf)
            if value.has("callable") and value.cls:
                qualname = value.cls
        return qualname

    # -- class facts -------------------------------------------------------------------
    def class_facts(self, cls: Optional[nodes.ClassDef]) -> lattice.ClassFacts:
        """Attributes the class hierarchy's non-graph methods (__init__ first) store on self."""
        if cls is None:
            return lattice.ClassFacts({})
        interpreter = self.interpreter
        if cls in self._facts:
            if cls in self._impure_facts:
                interpreter.impure += 1
            return self._facts[cls]
        key = (interpreter.flavour, cls)
        shared = lattice.SHARED.recall(lattice.SHARED.facts, key)
        if shared is not None:
            self._facts[cls] = shared
            return shared
        self._facts[cls] = lattice.ClassFacts({})  # recursion guard (reading it makes the reader impure)
        self._impure_facts.add(cls)
        before, depth = interpreter.impure, interpreter._inline_depth
        interpreter._inline_depth = 0  # facts are the class's, not the caller's: computed from the top
        try:
            facts = self._compute_class_facts(cls)
        finally:
            interpreter._inline_depth = depth
        self._facts[cls] = facts
        if interpreter.impure == before:
            self._impure_facts.discard(cls)
            lattice.SHARED.remember(lattice.SHARED.facts, key, facts)
        return facts

    def _compute_class_facts(self, cls: nodes.ClassDef) -> lattice.ClassFacts:
        # __init__ defines what an attribute is (a subclass's __init__ overrides its base's);
        # other non-graph methods only add attributes __init__ does not set
        from_init: Dict[str, lattice.Value] = {}
        from_others: Dict[str, lattice.Value] = {}
        for klass in reversed(self.classes.mro(cls)):
            methods = [m for m in klass.mymethods() if m.name not in ("construct", "bprop")
                       and self._assigns_self_attribute(m) and self.classes.jit_decorator(m) is None]
            for method in methods:
                if method.name == "__init__" and klass is cls:
                    params = lattice.constructor_params(method, cls.name)
                else:
                    params = {name: lattice.CONST for name in lattice.root_params(method, self.resolver)}
                state = self.interpreter.run(method, params, None)
                for key, value in state.env.items():
                    if not key.startswith("self."):
                        continue
                    name = key[5:]
                    if method.name == "__init__":
                        from_init[name] = value
                    else:
                        from_others[name] = lattice.join(from_others[name], value) if name in from_others else value
        # an attribute another method reassigns (`enable_cache()`), or that code outside the class
        # changes between compilations (`add_flags(is_first_iteration=False)`), has no known value
        from_init = {name: lattice.without_default(lattice.without_truth(value))
                     if name in from_others or self._set_as_flag(cls, name, value) else value
                     for name, value in from_init.items()}
        return lattice.ClassFacts({**from_others, **from_init})

    def _set_as_flag(self, cls: nodes.ClassDef, name: str, value: lattice.Value) -> bool:
        if lattice.truth_value(value) is None and lattice.known_number(value) is None:
            return False  # nothing to forget
        path = cls.root().file
        return bool(path) and project_for(path).sets_flag(name)

    def _assigns_self_attribute(self, method: nodes.FunctionDef) -> bool:
        """Whether the method stores anything on `self` (only then can it add a class fact)."""
        return any(isinstance(target.expr, nodes.Name) and target.expr.name == "self"
                   for target in self.classes.attribute_stores(method))

    def _resolve_class(self, func_expr) -> Optional[nodes.ClassDef]:
        definition = self.resolver.resolve_callable(func_expr)
        return definition if isinstance(definition, nodes.ClassDef) else None

    # -- reporting ---------------------------------------------------------------------
    def finding(self, rule: Rule, node, message: str, gf: Optional[GraphFunction] = None, fix=None) -> Finding:
        """A finding at `node`, in the file that holds it (a helper of another module is reported
        in its own file; mslint.run.routing decides where the run shows it); inside a helper the
        message says how graph code reaches it."""
        path = self._path_of(node)
        reach: Tuple[str, ...] = ()
        calls: Tuple[CallSite, ...] = ()
        notes: List[Optional[str]] = []
        if gf is not None and gf.reach:
            notes.append(f"{REACH_SENTENCE}{gf.display}, {gf.reach_text(path)}")
            reach = reach_steps(gf.reach, path) + (gf.display,)
            callees = [hop.caller for hop in gf.reach[1:]] + [gf.display]
            calls = tuple(CallSite(os.path.abspath(hop.path), hop.line, hop.column, hop.end_line, hop.end_column, callee)
                          for hop, callee in zip(gf.reach, callees))
        if gf is not None:
            notes.append(gf.assumed_cell)  # "Net is taken for a Cell: its base BaseModel could not be resolved"
            condition = gf.values.left_out_by_default(node) if gf.values is not None else None
            notes.append(condition or gf.compiled_only_when)  # or the call that reaches the helper is in such a branch
            if not gf.graph_mode_only:  # programs with different modes reach this module: say which one compiles it
                notes.append(gf.program_note or program_note(path))
        if any(notes):
            message = extend(message, *notes)
        found = finding_at(rule, node, message, path, reach, fix)  # fix: a mslint.fixes.Fix, or None
        marked = gf.graph_mode_only if gf is not None else (
            self._scope is not None and node is not None and self._scope.only_in_graph_mode(node))
        if calls or marked:
            found = replace(found, calls=calls, graph_mode_only=marked)
        return found

    def _path_of(self, node) -> str:
        """The linted path for this module's nodes; the absolute file of another module's."""
        root = node.root() if node is not None else None
        if root is None or root is self.module or not getattr(root, "file", None):
            return self.path
        return os.path.abspath(root.file)
