"""Inline suppression comments, in both spellings."""
from __future__ import annotations

from conftest import codes_by_line

SOURCE = '''
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        a = np.exp(x)  # mslint: disable=MS102
        b = np.exp(x)  # mslint: disable=third-party-call-on-tensor
        c = np.exp(x)  # pylint: disable=third-party-call-on-tensor
        # mslint: disable-next=MS102
        d = np.exp(x)
        e = np.exp(x)  # mslint: disable=MS101
        f = np.exp(x)  # pylint: disable=E8102
        g = np.exp(x)
        return a, b, c, d, e, f, g
'''

BLOCK = '''
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        # pylint: disable=third-party-call-on-tensor
        a = np.exp(x)
        b = np.exp(x)
        return a, b

    def bprop(self, x, out, dout):
        return (np.exp(dout),)
'''


def test_line_and_next_line_suppressions(project):
    findings = project.lint_source(SOURCE)
    assert codes_by_line(findings) == {12: ["MS102"], 14: ["MS102"]}


def test_block_suppression_ends_with_the_block(project):
    findings = project.lint_source(BLOCK)
    assert codes_by_line(findings) == {13: ["MS102"]}


def test_enable_ends_a_block_suppression(project):
    findings = project.lint_source('''
        import numpy as np
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                # mslint: disable=MS102
                a = np.exp(x)
                # mslint: enable=MS102
                b = np.exp(x)
                return a, b
    ''')
    assert codes_by_line(findings) == {9: ["MS102"]}


def test_disable_all(project):
    findings = project.lint_source('''
        import numpy as np
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                return np.exp(x.asnumpy())  # mslint: disable=all
    ''')
    assert findings == []
