"""Docs as tests: every rule has a page, and the page's examples do what it says.

The "Example" block must trigger exactly the marked findings (`# [MS101]` on a line),
with every default rule and the page's own rule enabled; the "Use instead" block must
trigger nothing at all.
"""
from __future__ import annotations

import pytest

from conftest import codes_by_line, default_and
from mslint import rule_pages
from mslint.rules import registry

RULES = list(registry())
CHECKED = [r for r in RULES if r.check is not None]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_has_a_page_with_the_required_headings(rule):
    page = rule_pages.read_page(rule.code)
    assert page is not None, f"docs/rules/{rule.code}.md is missing"
    assert page.startswith(f"# {rule.code} {rule.symbol}\n"), "the page title must be '# CODE symbol'"
    missing = [h for h in rule_pages.REQUIRED_HEADINGS if h not in rule_pages.sections(page)]
    assert not missing, f"{rule.code}.md lacks the sections {missing}"


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_example_triggers_exactly_the_marked_findings(rule, project):
    blocks = rule_pages.python_blocks(rule_pages.sections(rule_pages.read_page(rule.code))["Example"])
    assert blocks, f"{rule.code}.md: 'Example' has no python code block"
    for block in blocks:
        expected = rule_pages.marked_lines(block)
        assert any(rule.code in codes for codes in expected.values()), \
            f"{rule.code}.md: the example marks no line with # [{rule.code}]"
        findings = project.lint_source(block, select=default_and(rule.code))
        assert codes_by_line(findings) == {line: sorted(codes) for line, codes in expected.items()}, \
            [f"{f.line}: {f.code} {f.message}" for f in findings]


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_use_instead_is_clean(rule, project):
    blocks = rule_pages.python_blocks(rule_pages.sections(rule_pages.read_page(rule.code))["Use instead"])
    assert blocks, f"{rule.code}.md: 'Use instead' has no python code block"
    for block in blocks:
        assert not rule_pages.marked_lines(block), "the good example must not mark findings"
        findings = project.lint_source(block, select=default_and(rule.code))
        assert findings == [], [f"{f.line}: {f.code} {f.message}" for f in findings]


def test_explain_prints_the_page(capsys):
    from mslint.frontends.cli import main

    assert main(["--explain", "MS101"]) == 0
    out = capsys.readouterr().out
    assert out == rule_pages.for_reading(rule_pages.read_page("MS101"))
    assert "## Use instead" in out and "<!--" not in out


def test_explain_accepts_a_symbol_and_rejects_unknown_codes(capsys):
    from mslint.frontends.cli import main

    assert main(["--explain", "tensor-to-numpy-in-graph"]) == 0
    assert capsys.readouterr().out.startswith("# MS101 tensor-to-numpy-in-graph")
    assert main(["--explain", "MS999"]) == 2
    assert "MS999" in capsys.readouterr().err
