"""`mslint --fix` and friends: the edits, the files they write, the formats that carry them.

CLI behaviour runs the real command in a subprocess (`python -m mslint`) on files in a
temporary project; the edit machinery (mslint/fixes.py) is also tested directly.
"""
from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from mslint import rule_pages
from mslint.config import Config
from mslint.findings import Finding
from mslint.fix.apply import SourceFile, _one_pass, fixed_text
from mslint.fixes import FIXABLE, SAFE, UNSAFE, Edit, Fix, apply_fixes
from mslint.rules import INTERNAL_ERROR, registry
from test_migration import KEEP_RATE_SHAPES


def mslint(cwd, *args):
    done = subprocess.run([sys.executable, "-m", "mslint", "--no-cache", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def write(path, text, **kwargs):
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding=kwargs.pop("encoding", "utf-8"), **kwargs)
    return path


def findings_json(cwd, *args):
    done = mslint(cwd, "--format", "json", *args)
    return json.loads(done.stdout)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    return tmp_path


CONV = """
from mindspore import nn


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)
        self.drop = nn.Dropout(keep_prob=0.9)

    def construct(self, x):
        return self.drop(self.conv(x))
"""


# -- the edit machinery -----------------------------------------------------------------------
def test_byte_columns_on_a_line_with_non_ascii_text_edit_the_right_characters():
    text = "x = 'é' ; y = [int]\n"
    start = len("x = 'é' ; y = ".encode("utf-8"))  # astroid's columns count UTF-8 bytes
    fix = Fix(SAFE, "tuple", (Edit(1, start, 1, start + 1, "("), Edit(1, start + 4, 1, start + 5, ",)")))
    new_text, applied, skipped = apply_fixes(text, [fix])
    assert new_text == "x = 'é' ; y = (int,)\n"
    assert (applied, skipped) == ([fix], [])


def test_overlapping_fixes_apply_the_first_and_leave_the_other():
    first = Fix(SAFE, "a", (Edit(1, 0, 1, 3, "abc"),))
    second = Fix(SAFE, "b", (Edit(1, 2, 1, 5, "xyz"),))
    new_text, applied, skipped = apply_fixes("0123456\n", [second, first])
    assert new_text == "abc3456\n"
    assert applied == [first] and skipped == [second]


def test_two_insertions_at_one_point_conflict_and_one_waits_for_the_next_pass():
    one, two = Fix(SAFE, "a", (Edit(1, 1, 1, 1, "A"),)), Fix(SAFE, "b", (Edit(1, 1, 1, 1, "B"),))
    new_text, applied, skipped = apply_fixes("xy\n", [one, two])
    assert new_text == "xAy\n" and applied == [one] and skipped == [two]


def test_an_edit_outside_the_text_is_not_applied():
    fix = Fix(SAFE, "far", (Edit(9, 0, 9, 1, "x"),))
    assert apply_fixes("a = 1\n", [fix]) == ("a = 1\n", [], [fix])


def test_fixes_that_would_break_the_syntax_leave_the_text_and_report_ms003(tmp_path):
    bad = Finding(registry().get("MS709"), str(tmp_path / "m.py"), 1, 0, 1, 1, "m",
                  fix=Fix(SAFE, "oops", (Edit(1, 0, 1, 1, "("),)))
    text, codes, problem = _one_pass("x = 1\n", [bad], "\n", unsafe=False)
    assert text == "x = 1\n" and not codes
    assert problem.rule is INTERNAL_ERROR and "MS709" in problem.message and "unparsable" in problem.message


def test_a_file_changed_on_disk_after_it_was_read_is_not_overwritten(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("a = 1\n")
    source = SourceFile.read(str(path))
    path.write_text("a = 2\n")  # an editor saved while mslint was fixing
    reason = source.write("a = 3\n")
    assert "changed on disk" in reason
    assert path.read_text() == "a = 2\n"


# -- the command ------------------------------------------------------------------------------
def test_fix_applies_safe_fixes_reports_what_remains_and_a_second_run_changes_nothing(root):
    write(root / "net.py", CONV + "\n\nbn = nn.BatchNorm2d(3, momentum=0.1)\n")
    done = mslint(root, "--fix", "net.py")
    text = (root / "net.py").read_text()
    assert 'nn.Conv2d(3, 12, 3, padding=1, pad_mode="pad")' in text
    assert "nn.Dropout(p=0.1)" in text
    assert "momentum=0.1" in text  # MS704's fix is unsafe: not without --unsafe-fixes
    assert done.returncode == 1
    assert "net.py:14:6: MS704 batchnorm-torch-momentum" in done.stdout  # no [*]: not applicable with --fix
    assert "1 fixable with `mslint --fix --unsafe-fixes`" in done.stdout
    assert "Fixed 2 problems in 1 file." in done.stderr
    assert mslint(root, "--fix", "net.py").returncode == 1 and (root / "net.py").read_text() == text

    done = mslint(root, "--fix", "--unsafe-fixes", "net.py")
    assert done.returncode == 0 and "momentum=0.9" in (root / "net.py").read_text()


def test_text_output_marks_fixable_findings_and_counts_them(root):
    write(root / "net.py", CONV)
    done = mslint(root, "net.py")
    assert "net.py:7:21: MS701 [*] conv-padding-without-pad-mode" in done.stdout
    assert "net.py:8:21: MS711 [*] dropout-keep-prob-deprecated" in done.stdout
    assert "[*] 2 fixable with `mslint --fix`." in done.stdout

    write(root / "bn.py", "from mindspore import nn\nbn = nn.BatchNorm2d(3, momentum=0.1)\n")
    done = mslint(root, "bn.py")
    assert "MS704 batchnorm-torch-momentum" in done.stdout  # unsafe: no [*] without --unsafe-fixes
    assert done.stdout.endswith("1 fixable with `mslint --fix --unsafe-fixes` (unsafe fixes: review them).\n")
    assert "MS704 [*] batchnorm-torch-momentum" in mslint(root, "--unsafe-fixes", "bn.py").stdout


def test_diff_prints_the_change_writes_nothing_and_exits_1(root):
    path = write(root / "net.py", CONV)
    before = path.read_bytes()
    done = mslint(root, "--diff", "net.py")
    assert done.returncode == 1
    assert "--- a/net.py\n+++ b/net.py\n" in done.stdout
    lines = done.stdout.splitlines()
    assert '-        self.conv = nn.Conv2d(3, 12, 3, padding=1)' in lines
    assert '+        self.conv = nn.Conv2d(3, 12, 3, padding=1, pad_mode="pad")' in lines
    assert path.read_bytes() == before
    mslint(root, "--fix", "net.py")
    done = mslint(root, "--diff", "net.py")
    assert (done.returncode, done.stdout) == (0, "")


def test_fix_only_reports_nothing_but_the_count_and_exits_0(root):
    write(root / "net.py", CONV + "\n\nbn = nn.BatchNorm2d(3, momentum=0.1)\n")
    done = mslint(root, "--fix-only", "net.py")
    assert (done.returncode, done.stdout) == (0, "")
    assert "Fixed 2 problems in 1 file." in done.stderr


def test_select_limits_which_rules_fix(root):
    write(root / "net.py", CONV)
    mslint(root, "--fix", "--select", "MS711", "net.py")
    text = (root / "net.py").read_text()
    assert "nn.Dropout(p=0.1)" in text and "nn.Conv2d(3, 12, 3, padding=1)\n" in text
    mslint(root, "--fix", "--ignore", "MS711", "net.py")
    assert 'pad_mode="pad"' in (root / "net.py").read_text()


def test_crlf_bom_and_tabs_are_kept(root):
    source = textwrap.dedent(CONV).lstrip("\n").replace("    ", "\t")
    path = root / "net.py"
    path.write_bytes(b"\xef\xbb\xbf" + source.replace("\n", "\r\n").encode("utf-8"))
    done = mslint(root, "--fix", "net.py")
    assert done.returncode == 0, done.stdout
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b'\t\tself.conv = nn.Conv2d(3, 12, 3, padding=1, pad_mode="pad")\r\n' in data
    assert b"\t\tself.drop = nn.Dropout(p=0.1)\r\n" in data


def test_a_coding_cookie_file_is_written_in_its_encoding(root):
    path = root / "net.py"
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + textwrap.dedent(CONV).lstrip("\n")
    path.write_bytes(source.encode("latin-1"))
    assert mslint(root, "--fix", "net.py").returncode == 0
    assert path.read_bytes().decode("latin-1") == source.replace(
        "padding=1)", 'padding=1, pad_mode="pad")').replace("keep_prob=0.9", "p=0.1")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_fix_inside_a_multi_line_call_with_comments_keeps_them(root, newline):
    path = write(root / "net.py", """
        from mindspore import nn

        conv = nn.Conv2d(
            3,  # in
            12,  # out é
            3,
            padding=1,  # keep this comment
        )
        keep = isinstance(conv, [  # types
            nn.Conv2d,
            nn.Dense,  # dense
        ])
        conv2 = nn.Conv2d(
            3, 12, 3,
            padding=1)
        """, newline=newline)
    assert mslint(root, "--fix", "--select", "MS701", "net.py").returncode == 0
    data = path.read_bytes().decode("utf-8")
    assert data.count("\n") == data.count(newline)
    text = data.replace(newline, "\n")
    assert '    padding=1,  # keep this comment\n    pad_mode="pad",\n)' in text  # a new line, as the call is written
    assert '    3, 12, 3,\n    padding=1, pad_mode="pad")' in text


def test_two_fixes_on_one_line(root):
    path = write(root / "net.py", """
        from mindspore import nn, ms_function


        class Net(nn.Cell):
            def construct(self, x):
                if isinstance(x, [int]) or isinstance(x, [float, bool]):
                    return x
                return x
        """)
    assert mslint(root, "--fix", "net.py").returncode == 0
    text = path.read_text()
    assert "if isinstance(x, (int,)) or isinstance(x, (float, bool)):" in text
    assert "from mindspore import nn, jit\n" in text


def test_a_read_only_file_is_reported_and_left_alone(root):
    path = write(root / "net.py", CONV)
    path.chmod(0o444)
    try:
        done = mslint(root, "--fix", "net.py")
        # issue 29: an error of the command (exit 2), not MS002 file-unreadable with help about UTF-8
        assert "MS002" not in done.stdout and "MS711" in done.stdout
        assert done.stderr == "mslint: error: net.py: the file is read-only; not written\n"
        assert done.returncode == 2
        assert path.read_text() == textwrap.dedent(CONV).lstrip("\n")
    finally:
        path.chmod(0o644)


def test_permissions_are_kept(root):
    path = write(root / "net.py", CONV)
    path.chmod(0o750)
    mslint(root, "--fix", "net.py")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert 'pad_mode="pad"' in path.read_text()


def test_a_symlinked_file_is_fixed_through_the_link(root):
    target = write(root / "real.py", CONV)
    (root / "link.py").symlink_to(target)
    mslint(root, "--fix", "link.py")
    assert (root / "link.py").is_symlink() and 'pad_mode="pad"' in target.read_text()


# -- the formats ------------------------------------------------------------------------------
def test_json_fix_object_has_ruffs_shape_with_character_columns(root):
    write(root / "net.py", "from mindspore import nn\nx = 'é'; d = nn.Dropout(keep_prob=0.9)\n")
    [finding] = findings_json(root, "net.py")
    assert finding["fix"] == {
        "applicability": "safe",
        "message": "use p, the drop probability",
        "edits": [{"content": "p=0.1", "location": {"line": 2, "column": 25},
                   "end_location": {"line": 2, "column": 38}}],
    }
    line = "x = 'é'; d = nn.Dropout(keep_prob=0.9)"
    assert line[25 - 1:38 - 1] == "keep_prob=0.9"


def test_sarif_results_carry_fixes_and_validate(root):
    from test_ci_formats import validate

    write(root / "net.py", CONV)
    log = json.loads(mslint(root, "--format", "sarif", "net.py").stdout)
    validate(log)
    fixes = {r["ruleId"]: r["fixes"] for r in log["runs"][0]["results"]}
    [change] = fixes["MS711"][0]["artifactChanges"]
    assert change["replacements"] == [{
        "deletedRegion": {"startLine": 8, "startColumn": 32, "endLine": 8, "endColumn": 45},
        "insertedContent": {"text": "p=0.1"}}]


def test_fixes_survive_the_result_cache(root):
    write(root / "net.py", CONV)
    env = dict(os.environ, MSLINT_CACHE_DIR=str(root / "cache"))
    runs = [subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "net.py"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=300) for _ in range(2)]
    first, second = (json.loads(r.stdout) for r in runs)
    assert os.listdir(root / "cache")
    assert first == second and all(f["fix"] for f in second)


def test_list_rules_shows_fixability(root):
    done = mslint(root, "--list-rules")
    line = next(l for l in done.stdout.splitlines() if l.startswith("MS704"))
    assert "fix:unsafe" in line
    rules = json.loads(mslint(root, "--list-rules", "--format", "json").stdout)
    assert {r["code"]: r["fixable"] for r in rules}["MS701"] == "safe"


# -- every fixable rule's page: the fixed Example is "Use instead", and stays fixed ------------
def _normalized(source: str) -> str:
    """The AST, with keyword arguments sorted (adding pad_mode= appends it where the page puts it first)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            node.keywords.sort(key=lambda k: k.arg or "")
    return ast.dump(tree)


# Fixes whose result is not the page's "Use instead" text but behaves as it does on MindSpore
# (tests/test_mindspore_claims.py runs the fixed Example against the "Use instead" claims):
# MS601's "Use instead" drops amp_level and the loss-scale manager; the fix sets the level to "O0".
BEHAVES_LIKE_USE_INSTEAD = {"MS601": 'amp_level="O0"'}


def _page_examples():
    cases = []
    for code in sorted(FIXABLE):
        page = rule_pages.sections(rule_pages.read_page(code))
        examples = rule_pages.python_blocks(page["Example"])
        use_instead = rule_pages.python_blocks(page["Use instead"])
        for number, example in enumerate(examples):
            cases.append((code, number, example, use_instead[number] if number < len(use_instead) else None))
    return cases


@pytest.mark.parametrize("code, number, example, use_instead", _page_examples(),
                         ids=[f"{c[0]}-{c[1] + 1}" for c in _page_examples()])
def test_the_fixed_example_is_use_instead_and_a_second_fix_changes_nothing(root, code, number, example, use_instead):
    path = root / "example.py"
    path.write_text(example)
    assert code in mslint(root, "example.py").stdout
    mslint(root, "--fix", "--unsafe-fixes", "example.py")
    fixed = path.read_text()
    assert code not in mslint(root, "--select", code, "example.py").stdout
    if code in BEHAVES_LIKE_USE_INSTEAD:  # the MindSpore claim test runs it as "Use instead" claims
        assert BEHAVES_LIKE_USE_INSTEAD[code] in fixed
    elif use_instead is not None:
        assert _normalized(fixed) == _normalized(use_instead)
    else:  # an Example without a "Use instead" of its own: the fix removes what the rule reports
        assert not mslint(root, "--select", code, "example.py").stdout.startswith("example.py")
    done = mslint(root, "--diff", "--unsafe-fixes", "example.py")
    assert (done.returncode, done.stdout) == (0, "")


def test_fixed_text_is_what_the_command_writes(root):
    path = write(root / "net.py", CONV)
    expected = fixed_text(str(path), path.read_text(), Config(root=str(root)))
    mslint(root, "--fix", "--unsafe-fixes", "net.py")
    assert path.read_text() == expected


def test_dropout_fixes_from_the_expression_tree_parse_and_a_second_run_changes_nothing(root):
    # issue 14 item 7: a conditional keep rate becomes p=(the conditional of the complements),
    # `1 - a - b` becomes p=a + b; the unsafe fixes of MS703 keep their parentheses too
    path = write(root / "net.py", KEEP_RATE_SHAPES)
    mslint(root, "--fix", "--unsafe-fixes", "net.py")
    text = path.read_text()
    ast.parse(text)
    assert "self.a = nn.Dropout(p=(rate if rate > 0 else 0.0))\n" in text
    assert "self.b = nn.Dropout(p=(rate if rate > 0 else 0.0))\n" in text
    assert "self.c = nn.Dropout(p=cfg.drop_path + 0.05)\n" in text
    assert "self.d = nn.Dropout(p=rate - 0.1 + cfg.extra)\n" in text
    assert "self.e = nn.Dropout(p=rate + (cfg.extra - 0.1))\n" in text
    assert "self.f = nn.Dropout(p=(cfg.dropout if training else 0.0))\n" in text
    assert "self.g = nn.Dropout(p=(rate if training else 1 - rate))\n" in text
    assert "self.h = nn.Dropout(p=(1 - cfg.dropout if training else 0.0))\n" in text
    done = mslint(root, "--fix", "--unsafe-fixes", "net.py")
    assert path.read_text() == text and "Dropout" not in done.stdout


def test_every_fixable_rule_page_has_a_fix_section():
    for code in FIXABLE:
        assert "Fix" in rule_pages.sections(rule_pages.read_page(code)), code
    assert {FIXABLE[c] for c in FIXABLE} <= {SAFE, UNSAFE, "sometimes"}


def test_the_pylint_plugin_says_which_command_fixes(root):
    write(root / "net.py", CONV + "\n\nbn = nn.BatchNorm2d(3, momentum=0.1)\n")
    done = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all", "--enable=mslint",
                           "--output-format=json", "net.py"], cwd=root, capture_output=True, text=True, timeout=300)
    messages = {m["symbol"]: m["message"] for m in json.loads(done.stdout)}
    assert messages["dropout-keep-prob-deprecated"].endswith("(fixable: mslint --fix)")
    assert messages["batchnorm-torch-momentum"].endswith("(fixable: mslint --fix --unsafe-fixes)")


def test_the_report_after_fix_is_a_plain_run_on_the_fixed_tree(root):
    # issue 29: the re-lint after fixing took only the fixed files as its run, so a helper of another
    # file of the run came back as "a file not in this run" at the fixed file's call sites
    write(root / "attention.py", """
        import numpy as np
        from mindspore import nn


        class Attention(nn.Cell):
            def construct(self, x):
                return np.exp(x)
    """)
    write(root / "model.py", """
        from mindspore import nn
        from attention import Attention


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.attention = Attention()
                self.drop = nn.Dropout(keep_prob=0.9)

            def construct(self, x):
                return self.drop(self.attention(x))
    """)
    fixed = findings_json(root, "--fix", ".")
    assert "nn.Dropout(p=0.1)" in (root / "model.py").read_text()
    assert [(f["path"], f["line"], f["code"]) for f in fixed] == [("attention.py", 7, "MS102")]
    assert fixed == findings_json(root, ".")


def test_fix_writes_no_api_the_target_version_lacks(root):
    # issue 29: on 1.8 nn.Dropout has no p; the safe fix wrote nn.Dropout(p=0.1) there
    write(root / "net.py", CONV)
    done = mslint(root, "--fix", "--target-version", "1.8", "net.py")
    text = (root / "net.py").read_text()
    assert "nn.Dropout(keep_prob=0.9)" in text and 'pad_mode="pad"' in text
    assert "MS711" not in done.stdout
    mslint(root, "--fix", "--target-version", "2.0", "net.py")
    assert "nn.Dropout(p=0.1)" in (root / "net.py").read_text()
