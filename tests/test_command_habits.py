"""The `mslint` command as ruff users expect it, round two (issue 29), run as a real process:
subcommands, broken pipes, globs, words, empty runs, suppression and selection habits, stdin."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from test_cli import BAD
from test_command import Tree


@pytest.fixture
def tree(tmp_path):
    return Tree(tmp_path)


# -- subcommands -------------------------------------------------------------------------------
def test_server_is_the_subcommand_even_where_a_file_or_folder_is_named_server(tree):
    tree.write("server.py", BAD)
    tree.write("server/__init__.py", BAD)
    for arguments in (["server"], ["server", "--stdio"]):
        # the client closes stdin at once: the server starts, reads the end of its input and stops
        result = tree.mslint(*arguments, stdin=subprocess.DEVNULL, timeout=120)
        assert (result.returncode, result.stdout) == (0, ""), result.stderr
        assert "unrecognized arguments" not in result.stderr
    linted = tree.mslint("./server")
    assert linted.returncode == 1 and "MS102" in linted.stdout


def test_check_is_the_same_as_the_bare_command_and_help_lists_both_commands(tree):
    tree.write("net.py", BAD)
    bare, check = tree.mslint("net.py"), tree.mslint("check", "net.py")
    assert (check.returncode, check.stdout) == (bare.returncode, bare.stdout) == (1, bare.stdout)
    assert "MS102" in check.stdout
    assert tree.mslint("check").stdout == tree.mslint().stdout
    shown = tree.mslint("--help").stdout
    assert shown.startswith("usage: mslint [check] [options] [PATH ...]\n       mslint server [--stdio]\n")
    assert "\n  server        a language server" in shown and "\n  check         lint PATHs" in shown


# -- broken pipe ---------------------------------------------------------------------------------
@pytest.mark.parametrize("arguments", [["--list-rules"], ["--show-settings", "net.py"], ["--explain", "MS101"],
                                       ["--help"], ["--list-rules", "--output-format", "json"]])
def test_information_commands_exit_0_when_the_reader_goes_away(tree, arguments):
    tree.write("net.py", BAD)
    # the reader is gone before mslint writes a byte (as `| head -1` may be): every write gets EPIPE
    process = subprocess.Popen([sys.executable, "-m", "mslint", *arguments], cwd=tree.root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    _, error = process.communicate(timeout=120)
    assert (process.returncode, error) == (0, b"")


# -- words -----------------------------------------------------------------------------------------
@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_an_error_of_the_machine_not_an_internal_error(tree):
    tree.write("net.py", BAD)
    with open("/dev/full", "w") as full:
        for arguments in (["net.py"], ["--list-rules"]):
            result = subprocess.run([sys.executable, "-m", "mslint", "--no-cache", *arguments], cwd=tree.root,
                                    stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
            assert result.returncode == 2
            assert result.stderr == "mslint: error: cannot write the report to standard output: " \
                                    "No space left on device\n"
    result = tree.mslint("--no-cache", "--output-file", "/dev/full", "net.py")
    assert (result.returncode, result.stderr) == (2, "mslint: error: cannot write the report to /dev/full: "
                                                     "No space left on device\n")


def test_fix_only_and_diff_say_the_same_when_there_is_nothing_to_fix(tree):
    tree.write("net.py", "x = 1\n")
    for flag in ("--fix-only", "--diff"):
        result = tree.mslint("--no-cache", flag, "net.py")
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "No fixes to apply.\n")


# -- globs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", ["tests/**/*.py", "**/tests/*", "./tests/*", "tests/", "tests/**"])
def test_ruff_and_gitignore_glob_spellings_match_a_file_under_tests(tree, pattern):
    tree.write("tests/test_model.py", BAD)
    tree.write("src/model.py", BAD)
    tree.write("pyproject.toml", f'[tool.mslint]\nper-file-ignores = {{"{pattern}" = ["MS102"]}}\n')
    assert tree.codes("--no-cache") == [("src/model.py", 7, "MS102")]
    tree.write("pyproject.toml", f'[tool.mslint]\nexclude = ["{pattern}"]\n')
    assert tree.codes("--no-cache") == [("src/model.py", 7, "MS102")]


def test_globs_keep_their_directory_and_name_meanings(tree):
    for name in ("out/a.py", "src/out/b.py", "src/gen/x_pb2.py", "src/tests/t.py", "tests/t.py"):
        tree.write(name, BAD)
    tree.write("pyproject.toml", '[tool.mslint]\nexclude = ["/out", "*_pb2.py", "**/tests/*"]\n')
    # /out: this directory's only; *_pb2.py: a name at any depth; **/tests/*: tests at any depth
    assert [path for path, _, _ in tree.codes("--no-cache")] == ["src/out/b.py"]


# -- empty runs and missing paths ------------------------------------------------------------------
def test_a_run_whose_files_are_all_excluded_is_clean_however_they_were_excluded(tree):
    tree.write("pyproject.toml", '[tool.mslint]\nexclude = ["legacy"]\n')
    tree.write("legacy/net.py", BAD)
    searched = tree.mslint("--no-cache", "legacy")
    named = tree.mslint("--no-cache", "--force-exclude", "legacy/net.py")
    assert (searched.returncode, searched.stdout) == (named.returncode, named.stdout) == \
        (0, "All checks passed (0 files checked).\n")
    assert searched.stderr == "mslint: warning: no Python files found under legacy (exclude or .gitignore " \
                              "left out every one)\n"
    tree.write("empty/README.md", "nothing to lint\n")
    nothing = tree.mslint("--no-cache", "empty")  # no Python file at all: a mistyped or empty directory
    assert (nothing.returncode, nothing.stderr) == (2, "mslint: warning: no Python files found under empty\n")


def test_a_missing_path_is_reported_and_the_others_are_still_linted(tree):
    tree.write("pkg/net.py", BAD)
    result = tree.mslint("--no-cache", "--output-format", "json", "missing.py", "pkg")
    assert result.returncode == 2
    assert result.stderr == "mslint: error: missing.py: no such file or directory\n"
    assert [(f["path"], f["code"]) for f in json.loads(result.stdout)] == [("pkg/net.py", "MS102")]


# -- suppression habits ----------------------------------------------------------------------------
NOQA_SHAPES = '''
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        a = np.exp(x)  # noqa: MS102
        b = np.exp(x)  # noqa
        c = np.exp(x)  # noqa: E501
        d = np.exp(x)  # NOQA:E501,MS102
        e = np.exp(x)  # mslint: disable=MS1
        f = np.exp(x)  # mslint: disable=MS999
        g = np.exp(x)  # noqa: MS999
        return a + b + c + d + e + f + g
'''


def test_noqa_bare_noqa_and_prefixes_suppress_as_in_ruff(tree):
    tree.write("net.py", NOQA_SHAPES)
    # `# noqa: MS102` and bare `# noqa` as ruff reads them; E501 is another tool's code; MS1 a prefix
    assert tree.codes("--no-cache", "net.py") == [("net.py", 9, "MS102"), ("net.py", 12, "MS102"),
                                                  ("net.py", 13, "MS102")]


def test_a_comment_naming_no_rule_is_a_warning_even_when_ms006_is_off(tree):
    tree.write("net.py", NOQA_SHAPES)
    result = tree.mslint("--no-cache", "net.py")
    assert result.stderr == (
        "mslint: warning: net.py:12: `# mslint: disable=MS999` names no mslint rule (see mslint --list-rules)\n"
        "mslint: warning: net.py:13: `# noqa: MS999` names no mslint rule (see mslint --list-rules)\n")
    selected = tree.mslint("--no-cache", "--output-format", "json", "--extend-select", "MS006", "net.py")
    assert selected.stderr == ""  # MS006 says it, once
    unused = [(f["line"], f["message"]) for f in json.loads(selected.stdout) if f["code"] == "MS006"]
    assert unused == [(12, "`# mslint: disable=MS999` names no mslint rule: it suppresses nothing"),
                      (13, "`# noqa: MS999` names no mslint rule: it suppresses nothing")]


def test_add_noqa_puts_disable_next_above_a_line_that_continues_with_a_backslash(tree):
    source = tree.write("net.py", '''
        import numpy as np
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                y = np.exp(x) + \\
                    x
                z = x + \\
                    np.log(x) + \\
                    x
                return y + z
    ''')
    result = tree.mslint("--no-cache", "--add-noqa", "net.py")
    assert result.stdout == "Added 1 suppression comment to 1 file.\n"
    # line 10 is inside a backslash continuation: a comment line above it would split the statement
    assert result.stderr == "net.py:10: no comment added: the line continues with a backslash\n"
    lines = source.read_text().splitlines()
    assert lines[6:9] == ["        # mslint: disable-next=MS102", "        y = np.exp(x) + \\", "            x"]
    assert tree.codes("--no-cache", "net.py") == [("net.py", 11, "MS102")]
    again = tree.mslint("--no-cache", "--add-noqa", "net.py")
    assert again.stdout == "Added 0 suppression comments to 0 files.\n"


# -- standard input --------------------------------------------------------------------------------
def test_stdin_is_linted_as_the_named_file_of_its_project(tree):
    tree.write("pyproject.toml", '[tool.mslint]\nper-file-ignores = {"tests/*" = ["MS102"]}\n')
    tree.write("pkg/__init__.py", "")
    tree.write("pkg/utils.py", "def helper(x):\n    return x\n")  # on disk: clean
    tree.write("pkg/model.py", '''
        from mindspore import nn
        from pkg.utils import helper


        class Net(nn.Cell):
            def construct(self, x):
                return helper(x)
    ''')
    unsaved = "import numpy as np\n\n\ndef helper(x):\n    return np.exp(x)\n"
    result = tree.mslint("-", "--stdin-filename", "pkg/utils.py", "--output-format", "json", input=unsaved)
    # the buffer's helper is graph code because model.py (on disk) reaches it
    assert result.returncode == 1, result.stderr
    [finding] = json.loads(result.stdout)
    assert (finding["path"], finding["line"], finding["code"]) == ("pkg/utils.py", 5, "MS102")
    assert "called from Net.construct (model.py, line 7)" in finding["message"]
    # its configuration is the named file's: per-file-ignores apply
    ignored = tree.mslint("-", "--stdin-filename", "tests/test_x.py", input=BAD)
    assert (ignored.returncode, ignored.stdout) == (0, "All checks passed (1 file checked).\n")
    assert tree.mslint("-", "--stdin-filename", "net.py", input=BAD).stdout.startswith("net.py:8:16: MS102")


def test_stdin_fix_prints_the_fixed_text_and_writes_nothing(tree):
    source = "from mindspore import nn\ndrop = nn.Dropout(keep_prob=0.9)\n"
    path = tree.write("net.py", source)
    result = tree.mslint("-", "--stdin-filename", "net.py", "--fix", input=source)
    assert (result.returncode, result.stdout) == (0, "from mindspore import nn\ndrop = nn.Dropout(p=0.1)\n")
    assert result.stderr == "Fixed 1 problem.\n" and path.read_text() == source
    mixed = tree.mslint("-", "net.py", input=source)
    assert mixed.returncode == 2 and "standard input is linted alone" in mixed.stderr


# -- --config FILE ---------------------------------------------------------------------------------
def test_config_file_globs_are_relative_to_its_folder_and_a_glob_matching_nothing_is_a_warning(tree):
    tree.write("conf/pyproject.toml", '[tool.mslint]\nexclude = ["legacy"]\n'
                                      'per-file-ignores = {"proj/tests/*" = ["MS102"], "tests/*" = ["MS102"]}\n')
    tree.write("proj/tests/test_net.py", BAD)
    tree.write("proj/legacy/net.py", BAD)
    result = tree.mslint("--no-cache", "--output-format", "json", "--config", "conf/pyproject.toml", "proj")
    # proj/tests/* is written against the working directory, not conf/: it matches nothing
    assert [(f["path"], f["code"]) for f in json.loads(result.stdout)] == [("proj/tests/test_net.py", "MS102")]
    assert result.stderr == (
        "mslint: warning: --config conf/pyproject.toml: per-file-ignores 'proj/tests/*' matches nothing in this "
        "run (globs are relative to conf, the folder of the configuration file)\n"
        "mslint: warning: --config conf/pyproject.toml: per-file-ignores 'tests/*' matches nothing in this "
        "run (globs are relative to conf, the folder of the configuration file)\n")


# -- docs links ------------------------------------------------------------------------------------
def test_finding_urls_are_the_installed_rule_page_or_the_configured_docs_url(tree):
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    tree.write("net.py", BAD)
    [finding] = json.loads(tree.mslint("--no-cache", "--output-format", "json", "net.py").stdout)
    # issue 29: it pointed at https://github.com/mslint/mslint/..., a repository that does not exist
    assert finding["url"].startswith("file://") and finding["url"].endswith("/MS102.md")
    page = url2pathname(urlparse(finding["url"]).path)
    with open(page, encoding="utf-8") as handle:
        assert handle.readline() == tree.mslint("--explain", "MS102").stdout.splitlines(keepends=True)[0]
    tree.write("pyproject.toml", '[tool.mslint]\ndocs-url = "https://docs.example.org/rules/{code}.html"\n')
    [finding] = json.loads(tree.mslint("--no-cache", "--output-format", "json", "net.py").stdout)
    assert finding["url"] == "https://docs.example.org/rules/MS102.html"
    sarif = json.loads(tree.mslint("--no-cache", "--output-format", "sarif", "net.py").stdout)
    helps = {rule["id"]: rule["helpUri"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert helps["MS102"] == "https://docs.example.org/rules/MS102.html"
    tree.write("pyproject.toml", '[tool.mslint]\ndocs-url = "https://docs.example.org/rules/"\n')
    [finding] = json.loads(tree.mslint("--no-cache", "--output-format", "json", "net.py").stdout)
    assert finding["url"] == "https://docs.example.org/rules/MS102.md"


# -- long output -----------------------------------------------------------------------------------
def test_list_rules_has_a_header_for_every_column(tree):
    lines = tree.mslint("--list-rules").stdout.splitlines()
    header = lines[0]
    assert header.split() == ["code", "symbol", "severity", "now", "default", "fix", "summary"]
    [dropout] = [line for line in lines if line.startswith("MS711 ")]
    assert dropout.index("fix:safe") == header.index("fix")
    assert dropout.index("nn.Dropout is given") == header.index("summary")


def test_statistics_shows_progress_on_a_terminal(tree):
    from test_command import _on_a_terminal

    for index in range(3):
        tree.write(f"net{index}.py", BAD)
    status, shown = _on_a_terminal(tree, "--no-cache", "--statistics", ".")
    assert status == 1
    assert re.search(r"mslint: [123]/3 files, \d+ s", shown) and "\r\x1b[K" in shown
    assert "MS102" in shown.split("\r\x1b[K")[-1]  # the table, after the progress line is erased


@pytest.mark.parametrize("comment", ["# mslint: disable=MS999", "# MSLint : disable=MS999", "# NOQA: ms999",
                                     "# noqa: E501, MS999", "# mſlint: disable=MS999", "# noqa: E501",
                                     "# not a pragma: mslint", "# no qa: MS999", ""])
def test_the_quick_test_for_comments_naming_rules_agrees_with_the_pattern(comment):
    """unknown_suppressions turns a file away on a case-folded substring test before the
    case-insensitive pattern: it must never turn away a text the pattern matches."""
    from mslint.run import runner

    text = f"x = 1  {comment}\n"
    assert runner._may_name_our_rules(text) == (runner._MAY_NAME_OUR_RULES.search(text) is not None)
