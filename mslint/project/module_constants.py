"""Module constants that nothing can change, followed through the project's imports.

A rule that reads a name's value at lint time (a version that decides whether a call raises, a
BatchNorm momentum, a conv padding kept in `config.py`) may count on a module's `NAME = <literal>`
only when Python certainly ends up with that value: the module's only binding of the name, a
statement of its own top level (not under `if`/`try`), and nothing that can rebind it: no star
import, no `global`, no write through `globals()` or `vars()`, and no `<module>.NAME = ...` (or
`setattr`) in any file of the project.  `from .config import NAME` and `config.NAME` (after
`from . import config` or `import pkg.config as config`) are followed to the project module
that holds the assignment, each import under the same conditions.
"""
from __future__ import annotations

import os
from typing import Callable, Optional

from astroid import nodes
from astroid.const import Context

from mslint.project import resolve
from mslint.project.module_files import find_project_file, unrecorded
from mslint.project.index import project_for

IMPORT_DEPTH = 3  # `from .version import __version__` chains followed


def sole_constant(binding, name: str, resolver: resolve.Resolver, is_literal: Callable[[nodes.NodeNG], bool],
                  depth: int = 0) -> Optional[nodes.NodeNG]:
    """The value `name` certainly has when `binding` is its module's only binding of it (the caller
    looked it up): the assigned expression of a top-level `name = <value>` for which `is_literal`
    holds, in this module or, through `from X import name`, in the project module X; None when
    anything on the way may give it another value."""
    module = binding.root()
    if not top_level(binding, module):
        return None
    if isinstance(binding, nodes.ImportFrom):
        value = imported_constant(binding, name, resolver, is_literal, depth)
    elif isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign) \
            and len(binding.parent.targets) == 1 and is_literal(binding.parent.value):
        value = binding.parent.value
    else:
        return None
    # (last: the project-wide search for `X.name = ...` is the costly part)
    return None if value is None or rebindable(module, name) else value


def attribute_constant(node: nodes.Attribute, resolver: resolve.Resolver,
                       is_literal: Callable[[nodes.NodeNG], bool]) -> Optional[nodes.NodeNG]:
    """`config.NAME`'s value, as `sole_constant` reads it, when `config` is a project module
    bound once at the top level of the reading module (`from . import config`, `import a.config
    as config`)."""
    module = bound_module(node.expr, resolver, rebound_counts=True)
    found = module.locals.get(node.attrname) if module is not None else None
    if not found or len(found) != 1:
        return None
    return sole_constant(found[0], node.attrname, resolver, is_literal, 1)


def bound_module(name, resolver: resolve.Resolver, rebound_counts: bool = False) -> Optional[nodes.Module]:
    """The project module a name certainly stands for: bound once, at the top level of its
    module, by `from . import config` or `import a.config as config`; None otherwise (also when
    `rebound_counts` and something may rebind the name: see `rebindable`)."""
    if not isinstance(name, nodes.Name):
        return None
    try:
        scope, bindings = resolver.lookup(name, name.name)
    except Exception:  # noqa: BLE001 - astroid lookup failure: unknown binding
        return None
    if not isinstance(scope, nodes.Module) or len(bindings) != 1 or not top_level(bindings[0], scope) \
            or (rebound_counts and rebindable(scope, name.name)):
        return None
    return imported_module(bindings[0], name.name, resolver)


def imported_constant(node: nodes.ImportFrom, name: str, resolver: resolve.Resolver,
                      is_literal: Callable[[nodes.NodeNG], bool], depth: int = 0) -> Optional[nodes.NodeNG]:
    """The constant `from X import ...` binds to `name` (as `sole_constant` reads it in X), wherever
    the import statement is: the caller runs it."""
    if depth > IMPORT_DEPTH or name == "*":
        return None
    module = project_module(node, resolver)  # None: a submodule, a library, or nothing the project has
    real = node.real_name(name)
    bindings = module.locals.get(real) if module is not None else None
    if not bindings or len(bindings) != 1:
        return None
    return sole_constant(bindings[0], real, resolver, is_literal, depth + 1)


def top_level(binding, module: nodes.Module) -> bool:
    """`binding` is a statement of `module`'s own body (not under if/try/with/for, nor an
    assignment astroid recorded from another module)."""
    statement = binding if isinstance(binding, (nodes.FunctionDef, nodes.ClassDef)) else binding.statement()
    return binding.root() is module and statement.parent is module


def has_star_import(module: nodes.Module) -> bool:
    with unrecorded():  # (the module's names were looked up: its imports are among what binds them)
        return any(name == "*" for statement in module.nodes_of_class(nodes.ImportFrom)
                   for name, _ in statement.names)


def project_module(node: nodes.ImportFrom, resolver: resolve.Resolver) -> Optional[nodes.Module]:
    """The project module `from X import ...` reads X from (a file of the project, not a package
    directory without __init__.py, not a library)."""
    if not node.root().file:
        return None
    module_name = resolve.absolute_import_name(node)
    if not module_name:
        return None
    path = find_project_file(module_name, os.path.dirname(os.path.abspath(node.root().file)))
    if path is None or not os.path.isfile(path):
        return None
    return resolver.module_at(path)


def imported_module(binding, name: str, resolver: resolve.Resolver) -> Optional[nodes.Module]:
    """The project module a name is bound to by `import a.b as name` or `from a import b`."""
    directory = os.path.dirname(os.path.abspath(binding.root().file or "."))
    if isinstance(binding, nodes.Import):
        for dotted, alias in binding.names:
            if (alias or dotted) == name and (alias or "." not in dotted):
                path = find_project_file(dotted, directory)
                return resolver.module_at(path) if path and os.path.isfile(path) else None
        return None
    if isinstance(binding, nodes.ImportFrom) and binding.root().file:
        package = resolve.absolute_import_name(binding)
        if not package:
            return None
        path = find_project_file(f"{package}.{binding.real_name(name)}", directory)
        return resolver.module_at(path) if path and os.path.isfile(path) else None
    return None


def rebindable(module: nodes.Module, name: str) -> bool:
    """Whether something other than its one binding may set a module's `name`: a `global`
    statement, a star import, a write through `globals()` or `vars()`, or `<module>.name = ...`
    (or `setattr`) in any file of the project."""
    with unrecorded():  # the name was looked up; these are among what may bind it
        if any(name in statement.names for statement in module.nodes_of_class(nodes.Global)) \
                or has_star_import(module):
            return True
        for call in module.nodes_of_class(nodes.Call):
            if isinstance(call.func, nodes.Name) and call.func.name in ("globals", "vars") \
                    and not (isinstance(call.parent, nodes.Subscript) and call.parent.value is call
                             and call.parent.ctx == Context.Load):
                return True
    return module.file is not None and project_for(module.file).writes_attribute(name)
