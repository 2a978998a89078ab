"""Graph scope: how strict a Cell's construct is when it carries @jit(fullgraph=True).

Verified on MindSpore 2.10 (CPU): in GRAPH_MODE the cell compiles construct itself and
the decorator's syntax level is not applied (a non-Parameter `self.x = ...` runs under the
context's LAX); in PYNATIVE_MODE the decorator compiles construct, STRICT.
"""
from __future__ import annotations

import textwrap

import astroid

from mslint.config import Config
from mslint.analysis.context import ModuleContext

CELLS = """
    class Full(nn.Cell):
        @ms.jit(fullgraph=True)
        def construct(self, x):
            return x


    class Plain(nn.Cell):
        def construct(self, x):
            return x
"""


def _strictness(tmp_path, preamble, syntax_level="lax"):
    source = textwrap.dedent("    import mindspore as ms\n    from mindspore import nn\n" + preamble + CELLS)
    path = tmp_path / "net.py"
    path.write_text(source)
    module = astroid.parse(source, module_name="net", path=str(path))
    ctx = ModuleContext(module, str(path), Config(root=str(tmp_path), syntax_level=syntax_level))
    # (a plain construct in a program that only runs PyNative is analysed, marked, to count what is withheld)
    return {gf.self_class.name: gf.strict for gf in ctx.graph_functions() if not gf.graph_mode_only}


def test_fullgraph_construct_follows_the_context_in_graph_mode(tmp_path):
    assert _strictness(tmp_path, "") == {"Full": False, "Plain": False}
    assert _strictness(tmp_path, "", "strict") == {"Full": True, "Plain": True}


def test_fullgraph_construct_is_strict_in_pynative_mode(tmp_path):
    assert _strictness(tmp_path, "    ms.set_context(mode=ms.PYNATIVE_MODE)\n") == {"Full": True}
