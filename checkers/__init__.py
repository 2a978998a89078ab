"""mslint's rule families, one module each; installed as `mslint.checkers`.

Each family module defines its Rule records and their checks (functions of a
ModuleContext that yield findings).  FAMILIES is the one list of families: the
registry, the pylint plugin (mslint.frontends.pylint_plugin.register) and the `mslint`
command all read it.  Modules named `<family>_<topic>.py` are helpers that only that
family's rules use.
"""
from __future__ import annotations

from mslint.checkers import (concurrency, custom_types, dynamic_shape, gradients, graph_syntax, migration,
                             precision, third_party)

FAMILIES = (third_party, custom_types, concurrency, dynamic_shape, gradients, precision, migration, graph_syntax)


def all_family_rules():
    for family in FAMILIES:
        yield from family.RULES
