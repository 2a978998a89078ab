"""The `mslint` command as ruff users expect it, round two (issue 29), run as a real process:
subcommands, broken pipes, globs, words, empty runs, suppression and selection habits, stdin."""
from __future__ import annotations

import json
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
