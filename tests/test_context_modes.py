"""scope.context_modes: every mode a module's set_context calls set."""
import textwrap

import astroid

from mslint.resolve import Resolver
from mslint.scope import GRAPH, PYNATIVE, context_modes, program_mode


def _modes(source):
    module = astroid.parse(textwrap.dedent(source))
    return context_modes(module, Resolver()), program_mode(module, Resolver())


def test_argparse_branches_set_both_modes():
    modes, mode = _modes("""
        import mindspore as ms
        if args.mode == "graph":
            ms.set_context(mode=ms.GRAPH_MODE)
        else:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    """)
    assert modes == {GRAPH, PYNATIVE}
    assert mode == GRAPH  # program_mode keeps its meaning: constructs may be compiled


def test_mode_from_a_variable_is_unknown():
    modes, mode = _modes("""
        from mindspore import context
        context.set_context(mode=args.mode, device_target="CPU")
    """)
    assert modes == {"unknown"}
    assert mode is None


def test_no_set_context_and_other_set_context():
    assert _modes("import mindspore as ms\nx = 1\n") == (set(), None)
    assert _modes("import foo\nfoo.set_context(mode=0)\n") == (set(), None)
