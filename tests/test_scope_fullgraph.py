"""Graph scope: `@jit(fullgraph=True)` on a Cell's construct makes that root strict."""
from __future__ import annotations

import textwrap

import astroid

from mslint.config import Config
from mslint.context import ModuleContext

SOURCE = textwrap.dedent("""
    import mindspore as ms
    from mindspore import nn


    class Full(nn.Cell):
        @ms.jit(fullgraph=True)
        def construct(self, x):
            return x


    class Lax(nn.Cell):
        @ms.jit
        def construct(self, x):
            return x


    class Plain(nn.Cell):
        def construct(self, x):
            return x
""")


def _strictness(tmp_path, syntax_level="lax"):
    path = tmp_path / "net.py"
    path.write_text(SOURCE)
    module = astroid.parse(SOURCE, module_name="net", path=str(path))
    ctx = ModuleContext(module, str(path), Config(root=str(tmp_path), syntax_level=syntax_level))
    return {gf.self_class.name: gf.strict for gf in ctx.graph_functions()}


def test_fullgraph_on_construct_is_strict(tmp_path):
    assert _strictness(tmp_path) == {"Full": True, "Lax": False, "Plain": False}


def test_strict_syntax_level_still_applies_to_every_construct(tmp_path):
    assert _strictness(tmp_path, "strict") == {"Full": True, "Lax": True, "Plain": True}
