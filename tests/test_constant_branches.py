"""Branches on compile-time constants: MindSpore compiles only the branch a constant selects.

Reduced from a pattern common in ported diffusion models: a helper (or construct itself) takes
`return_dict=False`, returns a tuple early when it is false, and builds an output dataclass
only after that `if`.  MindSpore 2.10 (GRAPH_MODE, STRICT, verified) compiles such a cell when
the flag is left at False, and fails with "the inputs should be constant" when it is passed True.
"""
from __future__ import annotations

from conftest import only

HEADER = """\
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops


@dataclass
class Result:
    value: object = None

"""  # the snippets below start on line 12


def lint(project, body: str, *codes: str):
    found = project.lint_source(HEADER + body, select=list(codes))
    return [f for code in codes for f in only(found, code)]


CODER = """
class Coder(nn.Cell):
    def encode(self, x, return_dict=False):
        h = x * 2
        if not return_dict:
            return (h,)
        return Result(value=h)

    def construct(self, x):
        return {call}
"""


def test_dataclass_after_an_early_return_on_a_false_default_is_not_compiled(project):
    findings = lint(project, CODER.format(call="self.encode(x)[0]"), "MS201", "MS203")
    assert findings == []


def test_dataclass_is_reported_when_a_caller_passes_true(project):
    findings = lint(project, CODER.format(call="self.encode(x, True).value"), "MS201")
    assert [(f.code, f.line) for f in findings] == [("MS201", 18)]


def test_callers_that_disagree_compile_both_branches(project):
    findings = lint(project, """
class Coder(nn.Cell):
    def encode(self, x, return_dict=False):
        h = x * 2
        if return_dict:
            return Result(value=h)
        return (h,)

    def construct(self, x):
        return self.encode(x)[0] + self.encode(x, return_dict=True).value
""", "MS201")
    assert [f.line for f in findings] == [17]


DECODER = """
class Decoder(nn.Cell):
    def construct(self, x, return_dict: bool = False):
        y = x + 1
        if return_dict:
            return Result(value=y)
        return (y,)
"""


def test_a_root_default_is_chosen_by_the_caller_so_both_branches_are_reachable(project):
    # `net(x, return_dict=True)` compiles the branch the default leaves out (MindSpore 2.10,
    # verified in tests/test_parameter_defaults.py)
    findings = lint(project, DECODER, "MS201")
    assert [f.line for f in findings] == [17]


def test_a_sub_cell_called_without_the_argument_gets_the_default(project):
    findings = lint(project, DECODER + """

class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder()

    def construct(self, x):
        return self.decoder(x)[0]
""", "MS201")
    assert findings == []


def test_condition_of_unknown_value_keeps_both_branches(project):
    findings = lint(project, """
class Decoder(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.use_dict = config.use_dict

    def construct(self, x, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.use_dict
        if not return_dict:
            return (x,)
        return Result(value=x)
""", "MS201")
    assert [f.line for f in findings] == [22]


def test_attribute_another_method_reassigns_has_no_known_truth(project):
    findings = lint(project, """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.checkpointing = False

    def enable_checkpointing(self):
        self.checkpointing = True

    def construct(self, x):
        if self.checkpointing:
            return ops.masked_select(x, x > 0)
        return x
""", "MS401")
    assert [f.line for f in findings] == [23]


def test_attribute_only_init_sets_selects_the_branch(project):
    findings = lint(project, """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.debug = False

    def construct(self, x):
        if self.debug:
            print(np.sum(x))
        return x
""", "MS102")
    assert findings == []


def test_syntax_in_an_untaken_branch_is_still_rejected_by_the_parser(project):
    # MindSpore 2.10 (verified): `try` under `if flag:` with flag=False still fails to compile
    # with "Unsupported statement 'Try'", so syntax rules look at every branch
    findings = lint(project, """
class Net(nn.Cell):
    def construct(self, x, flag=False):
        if flag:
            try:
                x = x + 1
            except ValueError:
                x = x - 1
        return x
""", "MS805")
    assert [(f.code, f.line) for f in findings] == [("MS805", 16)]


def test_none_set_in_init_and_set_again_by_another_method_is_not_a_known_none(project):
    # seamless_m4t's positional encoding: __init__ sets self.pe = None, then extend_pe() (also
    # called from construct) sets it; `if self.pe is not None:` is not decided by the None
    source = """
        from mindspore import nn


        class P(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pe = None
                self.head = None
                self.extend_pe(1)

            def extend_pe(self, x):
                if self.pe is not None:
                    self.pe = self.pe + 1
                    return
                self.pe = x * 2

            def construct(self, x):
                self.extend_pe(x)
                if self.head is not None:
                    del x
                return x
    """
    found = [(f.code, f.line) for f in project.lint_source(source, select=["MS710", "MS805"])]
    # both stores are reported; the `del` under `self.head is not None` (None, never set) is not
    assert found == [("MS710", 13), ("MS710", 15)]
