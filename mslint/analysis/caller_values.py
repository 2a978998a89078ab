"""The values every caller passes for a parameter: one fact, for every rule that needs it.

`def _bn(c, training): return nn.BatchNorm2d(c, momentum=0.1, use_batch_statistics=training)`
with every `_bn(c, False)`: the layer's statistics are frozen for every layer it builds.
`class Block(nn.Cell): def __init__(self, dim, ksize=3)` built as `Block(64, ksize=1)` in every
module that builds it: `padding=ksize // 2` is 0.  `@jit def f(x, y)` called only as `f(1, 2)`:
its inputs are compile-time constants.

The calls are found across the project: the module that defines the function or class and the
modules that import it and name it (one text search per name, which the result cache records:
mslint.project.index.Project.mentioning); for a method other than `__init__`, the
`self.method(...)` calls inside its class.  With no call anywhere, the parameter's default
stands for the value (library code: the default is what a user gets).  Anything the analysis
cannot read makes the answer unknown, never a guess between values: an argument that is no
literal, `*args`/`**kwargs` at a call, a parameter without a default left out, or the function
named some other way than by a call (a registry, a callback), except `g = ms.jit(f)`, whose
calls of `g` are calls of `f`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set

from astroid import nodes

from mslint.analysis.literal_values import Literal, literal_of
from mslint.analysis.mentions import code_names, harmless_mention, mentions
from mslint.project import index as project
from mslint.project.resolve import Resolver

MAX_MODULES = 40  # modules naming one definition that are read; past that, its calls are not followed
_DEPTH = 3  # how many helpers deep an argument that is itself a parameter is followed


@dataclass
class CallSites:
    """Where the project calls a function or builds a class."""

    calls: List[nodes.Call] = field(default_factory=list)  # the calls that resolve to it
    named_in: Set[str] = field(default_factory=set)  # modules that name it some other way (passed around)

    @property
    def passed_around(self) -> bool:
        return bool(self.named_in)


class Callers:
    """The calls of functions and classes, seen from one analysis (memoised per definition)."""

    def __init__(self, resolver: Resolver, jit_decorators: FrozenSet[str] = frozenset()):
        self.resolver = resolver
        self.jit_decorators = jit_decorators
        self._sites: Dict[nodes.NodeNG, Optional[CallSites]] = {}

    def sites(self, definition: nodes.NodeNG) -> Optional[CallSites]:
        """Every call of the module-level (or nested) function or class `definition` in the
        modules that may name it; None when they are too many or one cannot be read."""
        if definition not in self._sites:
            self._sites[definition] = self._find(definition)
        return self._sites[definition]

    def calls_of(self, function: nodes.FunctionDef) -> Optional[List[nodes.Call]]:
        """The calls that bind `function`'s parameters (a class's constructions for `__init__`);
        None when the function may also be called in ways the analysis does not see."""
        owner = function.parent
        if isinstance(owner, nodes.ClassDef) and function.name != "__init__":
            return [call for call in function.root().nodes_of_class(nodes.Call) if _self_call(call, function)]
        found = self.sites(owner if isinstance(owner, nodes.ClassDef) else function)
        return found.calls if found is not None and not found.passed_around else None

    def _find(self, definition) -> Optional[CallSites]:
        modules = self._modules_naming(definition.name, definition.root())
        if modules is None:
            return None
        found = CallSites()
        for where in modules:
            for node in mentions(where, definition.name):
                if not harmless_mention(node):
                    self._classify(node, definition, found)
        return found

    def _modules_naming(self, name: str, module: nodes.Module) -> Optional[List[nodes.Module]]:
        """The modules that may name `name` of `module`: itself and its importers that spell it
        (`Net(...)`, `models.Net(...)`); None past MAX_MODULES or when one cannot be read."""
        path = module.file
        if not path or not os.path.isfile(path):
            return [module]  # a module that is no project file (an editor buffer, a test): itself only
        model, path = project.project_for(os.path.abspath(path)), os.path.abspath(path)
        paths = sorted(set(model.mentioning(name, path)) | set(model.attribute_callers(name, path)))
        if len(paths) > MAX_MODULES:
            return None
        # a module that is not built yet is built only when its code names it (not just a string);
        # built right after that check, which keeps its tree for the build (mslint.parsed)
        modules = []
        for found in paths:
            if found == path or self.resolver.has_module(found) or _spells_as_code(model, found, name):
                module = self.resolver.module_at(found)
                if module is None:
                    return None
                modules.append(module)
        return modules

    def _classify(self, node, definition, found: CallSites) -> None:
        call = node.parent if isinstance(node.parent, nodes.Call) and node.parent.func is node else None
        target = self.resolver.resolve_callable(node)
        if call is not None and target is definition:
            found.calls.append(call)
        elif call is not None and target is not None:
            return  # a call of something else of the same name
        elif target is definition and self._jit_wrapped(node, found):
            return
        else:
            found.named_in.add(os.path.abspath(node.root().file or ""))  # passed around, or a name not followed

    def _jit_wrapped(self, node, found: CallSites) -> bool:
        """`g = ms.jit(f)` (its calls of `g` are calls of `f`, added) or `ms.jit(f)(...)`."""
        wrap = node.parent
        if not (isinstance(wrap, nodes.Call) and wrap.args and wrap.args[0] is node
                and self.resolver.qualname(wrap.func) in self.jit_decorators):
            return False
        if isinstance(wrap.parent, nodes.Call) and wrap.parent.func is wrap:
            found.calls.append(wrap.parent)
            return True
        assign = wrap.parent
        if not (isinstance(assign, nodes.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0], nodes.AssignName)):
            return False
        binding = assign.targets[0]
        module = wrap.root()
        exported = f"{module.name}.{binding.name}" if isinstance(assign.parent, nodes.Module) else None
        modules = self._modules_naming(binding.name, module) if exported else [module]
        if modules is None:
            return False
        for where in modules:
            for use in mentions(where, binding.name):
                if harmless_mention(use) or not _is_binding(use, binding, exported, self.resolver):
                    continue
                if not (isinstance(use.parent, nodes.Call) and use.parent.func is use):
                    return False  # the wrapper itself is passed around
                found.calls.append(use.parent)
        return True


def _spells_as_code(model, path: str, name: str) -> bool:
    """Whether the file may name `name` outside strings and comments (kept when it cannot be read
    or parsed: building it then says what is unknown)."""
    text = model.text(path)
    names = code_names(text, keep_for=name) if text is not None else None
    return names is None or name in names


def _is_binding(use, binding: nodes.AssignName, exported: Optional[str], resolver: Resolver) -> bool:
    """Whether `use` reads `binding` (in its module) or, for a module-level one, its import."""
    if use.root() is not binding.root():
        return exported is not None and resolver.qualname(use) == exported
    try:
        _, bindings = use.lookup(binding.name) if isinstance(use, nodes.Name) else (None, ())
    except Exception:  # noqa: BLE001 - astroid lookup failure: not known to be the wrapper
        return False
    return list(bindings) == [binding]


def parameter_literals(name: nodes.NodeNG, callers: Callers, resolver: Resolver,
                       defaults: bool = True) -> Optional[List[Literal]]:
    """The literals every call passes for the parameter that `name` reads (see passed_literals);
    None when `name` is not a parameter."""
    found = parameter_of(name)
    return passed_literals(found[0], found[1], callers, resolver, defaults) if found is not None else None


def passed_literals(function: nodes.FunctionDef, parameter: str, callers: Callers, resolver: Resolver,
                    defaults: bool = True, uncalled_default: bool = True, depth: int = 0) -> Optional[List[Literal]]:
    """The literal each call of `function` passes for `parameter` (its default for a call that
    leaves it out, unless `defaults` is False); the default alone when nothing calls it (unless
    `uncalled_default` is False); None when some value is unknown."""
    calls = callers.calls_of(function)
    if calls is None:
        return None
    if not calls:
        default = _default(function, parameter, resolver)
        return [default] if default is not None and defaults and uncalled_default else None
    offset = 1 if isinstance(function.parent, nodes.ClassDef) else 0
    positional = [a.name for a in function.args.args or ()][offset:]
    values = []
    for call in calls:
        if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
            return None
        argument = next((k.value for k in call.keywords or () if k.arg == parameter), None)
        if argument is None and parameter in positional and positional.index(parameter) < len(call.args):
            argument = call.args[positional.index(parameter)]
        outer = parameter_of(argument) if argument is not None and depth < _DEPTH else None
        if argument is None:
            value = _default(function, parameter, resolver) if defaults else None
        elif outer is not None:
            passed = passed_literals(outer[0], outer[1], callers, resolver, defaults, uncalled_default, depth + 1)
            if passed is None:
                return None
            values.extend(passed)
            continue
        elif isinstance(argument, nodes.Const) and argument.value is None:
            value = Literal(None, "")  # (literal_of leaves None out: it means "the layer's default" there)
        else:
            value = literal_of(argument, resolver)
        if value is None:
            return None
        values.append(value)
    return values


def parameter_of(name: nodes.NodeNG):
    """(function, parameter name) when `name` reads a parameter of its enclosing function."""
    if not isinstance(name, nodes.Name):
        return None
    try:
        scope, bindings = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid lookup failure: not known to be a parameter
        return None
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Arguments) \
            or not isinstance(scope, nodes.FunctionDef):
        return None
    if name.name in (scope.args.vararg, scope.args.kwarg):
        return None
    return scope, name.name


def _self_call(call: nodes.Call, method: nodes.FunctionDef) -> bool:
    """`self.method(...)` inside the method's class."""
    func = call.func
    return isinstance(func, nodes.Attribute) and func.attrname == method.name \
        and isinstance(func.expr, nodes.Name) and func.expr.name == "self" \
        and call.frame().parent is method.parent


def _default(function: nodes.FunctionDef, parameter: str, resolver: Resolver) -> Optional[Literal]:
    try:
        default = function.args.default_value(parameter)
    except Exception:  # noqa: BLE001 - astroid: the parameter has no default
        return None
    found = literal_of(default, resolver)
    return Literal(found.value, f"the default of the parameter '{parameter}'") if found is not None else None
