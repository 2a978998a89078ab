"""The module being linted is the one the resolver sees, even when astroid cached an older one."""
from __future__ import annotations

SOURCE = '''
from mindspore import nn


class Helper:
    def apply(self, x):
        return x{suffix}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.h = Helper()

    def construct(self, x):
        return self.h.apply(x)
'''


def test_relinting_a_changed_file_sees_the_new_code(project):
    assert project.lint_source(SOURCE.format(suffix=" * 2"), select=["MS101"]) == []
    findings = project.lint_source(SOURCE.format(suffix=".asnumpy()"), select=["MS101"])
    assert [(f.code, f.line) for f in findings] == [("MS101", 6)]


def test_a_file_loaded_earlier_by_another_files_analysis_is_linted_as_itself(project):
    project.write("net.py", SOURCE.format(suffix=".asnumpy()") + "\n\ndef helper(x):\n    return x\n")
    project.write("a_user.py", '''
        from mindspore import nn
        from net import helper


        class User(nn.Cell):
            def construct(self, x):
                return helper(x)
    ''')
    assert project.lint("a_user.py", select=["MS101"]) == []  # loads net.py through the resolver
    findings = project.lint("net.py", select=["MS101"])
    assert [(f.code, f.line) for f in findings] == [("MS101", 6)]
