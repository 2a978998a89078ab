"""scope.context_modes: every mode a module's set_context calls set."""
import textwrap

import astroid

from mslint.project.resolve import Resolver
import ast

from mslint.project import program_facts
from mslint.analysis.scope import GRAPH, PYNATIVE, context_modes


def _modes(source):
    """(what the astroid analysis finds, what the project index finds): they must agree."""
    module = astroid.parse(textwrap.dedent(source))
    outside, inside = program_facts._context_modes(ast.parse(textwrap.dedent(source)))
    return context_modes(module, Resolver()), outside | inside


def test_argparse_branches_set_both_modes():
    modes, mode = _modes("""
        import mindspore as ms
        if args.mode == "graph":
            ms.set_context(mode=ms.GRAPH_MODE)
        else:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    """)
    assert modes == mode == {GRAPH, PYNATIVE}


def test_mode_from_a_variable_is_unknown():
    modes, mode = _modes("""
        from mindspore import context
        context.set_context(mode=args.mode, device_target="CPU")
    """)
    assert modes == mode == {"unknown"}


def test_no_set_context_and_other_set_context():
    assert _modes("import mindspore as ms\nx = 1\n") == (set(), set())
    assert _modes("import foo\nfoo.set_context(mode=0)\n")[0] == set()
