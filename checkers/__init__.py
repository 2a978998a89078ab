"""mslint's rule families, one module each; installed as `mslint.checkers`.

Each family module defines its Rule records and their checks (functions of a
ModuleContext that yield findings).  FAMILIES is the one list of families: the
registry, the pylint plugin and the `mslint` command all read it.
"""
from __future__ import annotations

from mslint.checkers import (concurrency, custom_types, dynamic_shape, gradients, graph_syntax, migration,
                             precision, third_party)

FAMILIES = (third_party, custom_types, concurrency, dynamic_shape, gradients, precision, migration, graph_syntax)


def all_family_rules():
    for family in FAMILIES:
        yield from family.RULES


def register_checkers(linter) -> None:
    """Register one pylint checker per family, all under the checker name `mslint`."""
    from mslint.frontends.pylint_plugin import checker_for_family, ToolChecker

    linter.register_checker(ToolChecker(linter))
    for family in FAMILIES:
        linter.register_checker(checker_for_family(family)(linter))
