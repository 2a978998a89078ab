"""MS006 unused-suppression: `# mslint:` pragmas that suppress nothing."""
from __future__ import annotations

from conftest import codes_by_line, default_and, only
from mslint import rule_pages
from mslint.config import Config, enabled_rules
from mslint.rules import registry

HEAD = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
"""


def lint(project, body, select=None):
    return project.lint_source(HEAD + body, select=select if select is not None else default_and("MS006"))


def test_off_by_default_and_on_when_selected():
    assert registry().get("MS006").default_enabled is False
    assert enabled_rules(Config())["MS006"] is False
    assert enabled_rules(Config())["MS001"] is True  # the other tool rules stay always on
    assert enabled_rules(Config(select=("MS1", "MS006")))["MS006"] is True
    assert enabled_rules(Config(select=("MS1",)))["MS006"] is False


def test_default_run_reports_no_useless_suppression(project):
    findings = project.lint_source(HEAD + "        return x  # mslint: disable=MS101\n")
    assert findings == []


def test_used_suppression_is_not_reported(project):
    findings = lint(project, "        y = x.asnumpy()  # mslint: disable=MS101\n        return ms.Tensor(y)\n")
    assert findings == []


def test_unused_line_pragma_is_reported_at_the_name(project):
    findings = lint(project, "        y = x + 1  # mslint: disable=MS101\n        return y\n")
    (finding,) = findings
    assert (finding.code, finding.line) == ("MS006", 7)
    assert "`# mslint: disable=MS101` suppresses nothing: there is no MS101 finding on this line" in finding.message
    line = (HEAD + "        y = x + 1  # mslint: disable=MS101\n").lstrip("\n").splitlines()[6]
    assert line[finding.column:finding.end_column] == "MS101"


def test_each_name_is_judged_on_its_own(project):
    body = "        y = x.asnumpy()  # mslint: disable=tensor-to-numpy-in-graph, MS999\n        return ms.Tensor(y)\n"
    (finding,) = lint(project, body)
    assert finding.line == 7 and "`# mslint: disable=MS999` names no mslint rule" in finding.message


def test_disable_next_and_block_pragmas(project):
    body = ("        # mslint: disable-next=MS101\n"
            "        y = x + 1\n"
            "        # mslint: disable=MS101\n"
            "        z = y * 2\n"
            "        return z\n")
    findings = lint(project, body)
    assert codes_by_line(findings) == {7: ["MS006"], 9: ["MS006"]}
    assert "on the next line" in findings[0].message and "in this block" in findings[1].message


def test_used_block_pragma_is_not_reported(project):
    body = ("        # mslint: disable=MS101\n"
            "        y = x + 1\n"
            "        z = x.asnumpy()\n"
            "        return ms.Tensor(z) + y\n")
    assert lint(project, body) == []


def test_pragma_for_a_rule_that_did_not_run_is_not_judged(project):
    body = "        y = x + 1  # mslint: disable=MS101\n        return y\n"
    assert only(lint(project, body, select=("MS006",)), "MS006") == []
    assert only(lint(project, body, select=("MS101", "MS006")), "MS006") != []


def test_disable_all_is_one_finding(project):
    (finding,) = lint(project, "        return x  # mslint: disable=all\n")
    assert "`# mslint: disable=all` suppresses nothing: there is no finding on this line" in finding.message


def test_pylint_pragmas_are_left_to_pylint(project):
    assert lint(project, "        return x  # pylint: disable=tensor-to-numpy-in-graph,unused-import\n") == []


def test_a_kept_pragma_can_itself_be_suppressed(project):
    assert lint(project, "        return x  # mslint: disable=MS101,unused-suppression\n") == []


def test_rule_page_examples(project):
    page = rule_pages.sections(rule_pages.read_page("MS006"))
    (bad,) = rule_pages.python_blocks(page["Example"])
    findings = project.lint_source(bad, select=default_and("MS006"))
    assert codes_by_line(findings) == rule_pages.marked_lines(bad)
    (good,) = rule_pages.python_blocks(page["Use instead"])
    assert project.lint_source(good, select=default_and("MS006")) == []


def test_a_keeper_pragma_that_keeps_nothing_is_reported(project):
    (finding,) = lint(project, "        return x  # mslint: disable=unused-suppression\n")
    assert finding.line == 7 and "`# mslint: disable=unused-suppression` suppresses nothing" in finding.message


def test_all_does_not_silence_its_own_report(project):
    (finding,) = lint(project, "        # mslint: disable=all\n        return x\n")
    assert finding.line == 7 and "in this block" in finding.message
