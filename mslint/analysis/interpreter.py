"""The lattice's interpreter: evaluates function bodies over CONST / VAR / UNKNOWN values (see
`lattice`), forward and small: statements in order, both branches of an `if` joined, loop
bodies run twice, every evaluated expression's value recorded so a rule can ask for it by node.

The work is split along its seams, one mixin a module: `interpret_statements`,
`interpret_expressions` and `interpret_calls`; this class holds their shared state and the
entry points."""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from astroid import nodes

from mslint.analysis import kept_runs
from mslint.project import resolve
from mslint.project.classes import ClassIndex
from mslint.analysis.interpret_calls import CallInterpreter
from mslint.analysis.interpret_expressions import ExpressionInterpreter
from mslint.analysis.interpret_statements import StatementInterpreter
from mslint.analysis.lattice import (ClassFacts, FunctionValues, UNKNOWN, Value, params_identity)


class Interpreter(StatementInterpreter, ExpressionInterpreter, CallInterpreter):
    """Evaluates function bodies over the CONST/VAR/UNKNOWN lattice."""

    def __init__(self, resolver: resolve.Resolver, class_facts: Callable[[Optional[nodes.ClassDef]], ClassFacts],
                 resolve_class: Callable[[nodes.NodeNG], Optional[nodes.ClassDef]], classes: ClassIndex,
                 flavour: tuple = ()):
        self.resolver = resolver
        self.class_facts = class_facts
        self.resolve_class = resolve_class  # a call's function expression -> project ClassDef
        self.classes = classes  # methods through the project hierarchy, decorators
        self._module_constants: Dict[Tuple[int, str], Value] = {}
        self._global_names: Dict[int, FrozenSet[str]] = {}  # per module, the names some `global` declares
        self._returns: Dict[tuple, Tuple[Optional[tuple], Value]] = {}  # key -> (exact key if pure, value)
        self._inline_depth = 0
        self._follows = 0  # calls followed or cut (their answer depends on the depth): see _return_of
        self._leaf_returns: Dict[tuple, Tuple[Optional[tuple], Value]] = {}  # key without depth -> as _returns
        self._journal: List[tuple] = []  # every answer put in those two, in order (see _answered)
        self._raising_calls: Dict[tuple, bool] = {}  # (call, which arguments are constants) -> raises
        self.flavour = flavour  # the configuration the results depend on (part of a shared key)
        # How many times a result read something that depends on what ran before (a class-facts
        # recursion guard, or a result that read one): a result computed while this count stays
        # put is the same in any analysis, and is shared with the other analyses (SHARED).
        self.impure = 0
        # the analysed module, when it is a buffer's: runs of its functions are kept for the
        # buffer's next edit (mslint.analysis.kept_runs)
        self.keeps_runs_of: Optional[nodes.Module] = None

    # -- entry points ------------------------------------------------------------------
    def run(self, function, params: Dict[str, Value], self_class: Optional[nodes.ClassDef]) -> FunctionValues:
        home = self.keeps_runs_of
        if home is None or function.root() is not home:
            return self._run(function, params, self_class)
        key = (self.flavour, function, self_class, self._inline_depth, params_identity(params))
        kept = kept_runs.KEPT.recall(self, key, home)
        if kept is not None:
            return kept
        before, follows, answered = self.impure, self._follows, len(self._journal)
        state = self._run(function, params, self_class)
        if self.impure == before:  # (a run that read a recursion guard depends on what ran first)
            kept_runs.KEPT.remember(key, home, state, self._follows - follows, self._journal[answered:],
                                    [function, *([self_class] if self_class is not None else []),
                                     *kept_runs.key_nodes(key[4])])
        return state

    def _run(self, function, params: Dict[str, Value], self_class: Optional[nodes.ClassDef]) -> FunctionValues:
        state = FunctionValues(self, function, params, self_class)
        state.self_facts = self.class_facts(self_class)
        if isinstance(function, nodes.Lambda):
            self._eval(function.body, state)
        else:
            self._block(function.body, state)
        return state

    def evaluate_isolated(self, node, state: FunctionValues) -> Value:
        """A node the main pass did not reach (e.g. a default value): evaluate it now."""
        try:
            return self._eval(node, state)
        except RecursionError:
            return UNKNOWN
