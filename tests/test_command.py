"""The `mslint` command as a Python user expects it (issue 17), run as a real process:
configuration values, selection, discovery, exit status, adoption and output for people."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from test_cli import BAD, CLEAN

TWO_FINDINGS = '''
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = np.exp(x)  # keep this note
        z = np.log(x)  # mslint: disable=MS103
        return y + z
'''


class Tree:
    def __init__(self, root):
        self.root = root

    def write(self, relative, source):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return path

    def mslint(self, *args, env=None, cwd=None, **kwargs):
        environment = dict(os.environ, MSLINT_CACHE_DIR=str(self.root / ".cache-for-tests"))
        environment.pop("NO_COLOR", None)
        environment.pop("FORCE_COLOR", None)
        environment.update(env or {})
        return subprocess.run([sys.executable, "-m", "mslint", *args], cwd=cwd or self.root, env=environment,
                              capture_output=True, text=True, **kwargs)

    def codes(self, *args, **kwargs):
        result = self.mslint("--output-format", "json", *args, **kwargs)
        assert result.returncode in (0, 1), result.stderr
        return [(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)]


@pytest.fixture
def tree(tmp_path):
    return Tree(tmp_path)


# -- 1. target-version -------------------------------------------------------------------------
def test_a_target_version_written_as_a_number_is_an_error_that_says_to_quote_it(tree):
    tree.write("net.py", BAD)
    config = tree.write("pyproject.toml", "[tool.mslint]\ntarget-version = 2.10\n")
    result = tree.mslint("net.py")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"mslint: error: {config}: [tool.mslint] target-version: expected a string")
    assert "got the number 2.1: quote it" in result.stderr and result.stderr.count("\n") == 1


def test_a_target_version_newer_than_mslint_knows_is_accepted_with_one_warning(tree):
    tree.write("net.py", BAD)
    config = tree.write("pyproject.toml", '[tool.mslint]\ntarget-version = "2.11"\n')
    result = tree.mslint("net.py")
    assert result.returncode == 1 and "MS102" in result.stdout
    assert result.stderr == (f"mslint: warning: {config}: [tool.mslint] target-version: MindSpore 2.11 is newer "
                             "than the newest version mslint knows (2.10); checking as for 2.10\n")
    result = tree.mslint("--target-version", "3.0", "--config", str(config), "net.py")
    assert result.returncode == 1 and result.stderr.startswith("mslint: warning: --target-version: MindSpore 3.0")
    result = tree.mslint("--target-version", "1.2", "net.py")
    assert result.returncode == 2 and "expected a MindSpore version from \"1.6\" on" in result.stderr


# -- 2 and 3. selection ----------------------------------------------------------------------------
def test_the_command_line_select_wins_over_the_files_ignore(tree):
    tree.write("net.py", BAD)
    tree.write("pyproject.toml", '[tool.mslint]\nignore = ["MS102"]\n')
    assert tree.codes("net.py") == []
    assert tree.codes("--select", "MS102", "net.py") == [("net.py", 7, "MS102")]
    assert tree.codes("--extend-select", "MS102", "net.py") == [("net.py", 7, "MS102")]


def test_repeated_selection_flags_add_up(tree):
    tree.write("net.py", TWO_FINDINGS)
    both = [("net.py", 7, "MS102"), ("net.py", 8, "MS102")]
    assert tree.codes("--select", "MS103", "--select", "MS102", "net.py") == both
    assert tree.codes("--ignore", "MS103", "--ignore", "MS102", "net.py") == []


def test_extend_select_in_the_file_adds_an_off_by_default_rule(tree):
    tree.write("net.py", BAD + "\n\n# mslint: disable=MS999\n")
    tree.write("pyproject.toml", '[tool.mslint]\nextend-select = ["unused-suppression"]\n')
    assert tree.codes("net.py") == [("net.py", 7, "MS102"), ("net.py", 10, "MS006")]


def test_pylint_ids_work_wherever_a_code_does(tree):
    tree.write("net.py", BAD)
    assert tree.codes("--select", "E8102", "net.py") == [("net.py", 7, "MS102")]
    assert tree.codes("--ignore", "e8102", "net.py") == []
    tree.write("pyproject.toml", '[tool.mslint]\nignore = ["E8102"]\n')
    assert tree.codes("net.py") == []
    explained = tree.mslint("--explain", "E8101")
    assert explained.returncode == 0 and explained.stdout.startswith("# MS101")


def test_list_rules_shows_the_state_the_configuration_gives_and_the_default(tree):
    tree.write("pyproject.toml", '[tool.mslint]\nignore = ["MS101"]\nextend-select = ["MS404"]\n')
    lines = {line.split()[0]: line.split() for line in tree.mslint("--list-rules").stdout.splitlines()[1:]}
    assert lines["MS101"][3:5] == ["off", "on"]
    assert lines["MS404"][3:5] == ["on", "off"]
    assert lines["MS102"][3:5] == ["on", "on"]
    rules = json.loads(tree.mslint("--list-rules", "--output-format", "json", "--select", "MS1").stdout)
    assert {r["code"] for r in rules if r["enabled"]} == {"MS001", "MS002", "MS003", "MS004", "MS005", "MS101",
                                                           "MS102", "MS103", "MS104"}


# -- 4. discovery ------------------------------------------------------------------------------------
def test_gitignore_is_respected_without_git(tree):
    tree.write(".gitignore", "generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\n")
    tree.write("pyproject.toml", "[project]\nname = 'x'\n")
    for name in ("src/net.py", "generated/net.py", "src/model_pb2.py", "src/keep_pb2.py", "top_only.py",
                 "src/top_only.py"):
        tree.write(name, BAD)
    linted = {path for path, _, _ in tree.codes()}
    assert linted == {"src/net.py", "src/keep_pb2.py", "src/top_only.py"}
    assert {path for path, _, _ in tree.codes("src")} == {"src/net.py", "src/keep_pb2.py", "src/top_only.py"}
    everything = {path for path, _, _ in tree.codes("--no-respect-gitignore")}
    assert "generated/net.py" in everything and "top_only.py" in everything


def test_exclude_flags_and_force_exclude(tree):
    tree.write("pyproject.toml", '[tool.mslint]\nexclude = ["legacy"]\n')
    for name in ("src/net.py", "legacy/net.py", "vendor/net.py"):
        tree.write(name, BAD)
    assert {p for p, _, _ in tree.codes()} == {"src/net.py", "vendor/net.py"}
    assert {p for p, _, _ in tree.codes("--extend-exclude", "vendor")} == {"src/net.py"}
    assert {p for p, _, _ in tree.codes("--exclude", "vendor")} == {"src/net.py", "legacy/net.py"}
    # a path named on the command line is linted, unless --force-exclude (as pre-commit passes files)
    assert tree.codes("legacy/net.py") == [("legacy/net.py", 7, "MS102")]
    result = tree.mslint("--force-exclude", "legacy/net.py", "src/net.py")
    assert result.returncode == 1 and "legacy" not in result.stdout and "src/net.py:7" in result.stdout
    only_excluded = tree.mslint("--force-exclude", "legacy/net.py")  # pre-commit, a commit touching only those
    assert (only_excluded.returncode, only_excluded.stderr) == (0, "")


# -- 5. nothing to lint --------------------------------------------------------------------------------
def test_a_path_without_python_files_warns_and_exits_2(tree):
    (tree.root / "empty").mkdir()
    tree.write("docs/readme.txt", "text")
    result = tree.mslint("empty", "docs")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("mslint: warning: no Python files found under empty\n"
                             "mslint: warning: no Python files found under docs\n")
    tree.write("src/net.py", CLEAN)
    result = tree.mslint("src", "empty")
    assert result.returncode == 0 and result.stderr == "mslint: warning: no Python files found under empty\n"


def test_statistics_without_findings_gives_the_total(tree):
    tree.write("a.py", CLEAN)
    tree.write("b.py", CLEAN)
    result = tree.mslint("--statistics", ".")
    assert (result.returncode, result.stdout) == (0, "0 findings in 2 files\n")


# -- 6. python -m mslint, pipes -------------------------------------------------------------------------
def test_a_closed_pipe_ends_the_run_quietly_with_its_status(tree):
    for index in range(40):
        tree.write(f"pkg/net{index}.py", BAD)
    command = f"{sys.executable} -m mslint --no-cache pkg | head -1; echo \"status=${{PIPESTATUS[0]}}\""
    result = subprocess.run(["bash", "-c", command], cwd=tree.root, capture_output=True, text=True)
    assert result.stdout.splitlines()[0].startswith("pkg/net0.py:7:16: MS102")
    assert result.stdout.splitlines()[-1] == "status=1"
    assert result.stderr == ""


# -- 7. jobs -------------------------------------------------------------------------------------------
def test_jobs_is_a_configuration_key_checked_like_the_others(tree):
    tree.write("net.py", BAD)
    tree.write("pyproject.toml", "[tool.mslint]\njobs = 2\n")
    assert tree.codes("net.py") == [("net.py", 7, "MS102")]
    config = tree.write("pyproject.toml", '[tool.mslint]\njobs = "many"\n')
    result = tree.mslint("net.py")
    assert result.returncode == 2 and result.stderr.startswith(f"mslint: error: {config}: [tool.mslint] jobs:")


# -- 8. cache location ----------------------------------------------------------------------------------
def test_without_a_configuration_the_cache_goes_to_the_project_root_or_the_user_cache(tree):
    home = tree.root / "home"
    environment = {"XDG_CACHE_HOME": str(home), "MSLINT_CACHE_DIR": ""}
    tree.write("project/setup.py", "")
    tree.write("project/pkg/sub/net.py", BAD)
    assert tree.mslint("pkg/sub", cwd=tree.root / "project", env=environment).returncode == 1
    assert (tree.root / "project" / ".mslint_cache").is_dir()
    assert not (tree.root / "project" / "pkg" / "sub" / ".mslint_cache").exists()
    tree.write("loose/net.py", BAD)
    assert tree.mslint("loose", env=environment).returncode == 1
    assert not (tree.root / "loose" / ".mslint_cache").exists()
    assert list((home / "mslint").glob("results-*.json"))


# -- 9. adoption -------------------------------------------------------------------------------------------
def test_add_noqa_marks_every_finding_keeps_comments_and_is_idempotent(tree):
    source = tree.write("net.py", '''
        import numpy as np
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                y = np.exp(x)  # keep this note
                z = np.log(x)  # mslint: disable=MS103
                w = np.sin(x) + len("""a
        b""") + np.cos(x)
                return y + z + w
        ''')
    result = tree.mslint("--add-noqa", "net.py")
    assert result.returncode == 0
    assert result.stdout == "Added 3 suppression comments to 1 file.\n"
    assert result.stderr == "net.py:9: no comment added: the line ends inside a multi-line string\n"
    lines = source.read_text().splitlines()
    assert lines[6] == "        y = np.exp(x)  # keep this note  # mslint: disable=MS102"
    assert lines[7] == "        z = np.log(x)  # mslint: disable=MS103,MS102"
    # the string's first line stays as it is; its last line can take a comment
    assert lines[8:10] == ['        w = np.sin(x) + len("""a', 'b""") + np.cos(x)  # mslint: disable=MS102']
    before = source.read_text()
    again = tree.mslint("--add-noqa", "net.py")
    assert again.stdout == "Added 0 suppression comments to 0 files.\n" and source.read_text() == before
    assert tree.codes("net.py") == [("net.py", 9, "MS102")]


def test_a_baseline_hides_known_findings_across_unrelated_edits_and_counts_them(tree):
    source = tree.write("net.py", TWO_FINDINGS)
    result = tree.mslint("--write-baseline", "baseline.json", ".")
    assert result.returncode == 0 and result.stderr == "mslint: recorded 2 findings in baseline.json\n"
    assert tree.mslint("--baseline", "baseline.json", ".").returncode == 0
    # code added above the findings moves them; a third identical finding is new
    text = source.read_text().replace("import numpy as np\n", "import numpy as np\nimport os\n\n")
    text = text.replace("        return y + z\n", "        z = np.log(x)  # mslint: disable=MS103\n"
                                                 "        return y + z\n")
    source.write_text(text)
    assert tree.codes("--baseline", "baseline.json", ".") == [("net.py", 11, "MS102")]
    broken = tree.write("broken.json", "[]")
    result = tree.mslint("--baseline", str(broken), ".")
    assert result.returncode == 2 and result.stderr.startswith(f"mslint: error: {broken}: not an mslint baseline")


# -- 10. output for people ----------------------------------------------------------------------------------
def test_output_format_concise_quiet_and_output_file(tree):
    tree.write("b.py", BAD)
    tree.write("a.py", BAD)
    concise = tree.mslint("--output-format", "concise", ".")
    # concise shows the problem only, the message's first sentence; text and json the whole message
    assert concise.stdout.splitlines()[0] == ("a.py:7:16: MS102 third-party-call-on-tensor NumPy function 'np.exp' "
                                              "(numpy.exp) is applied to a tensor in graph code.")
    [finding] = [f for f in json.loads(tree.mslint("--format", "json", "a.py").stdout)]
    assert finding["message"].startswith("NumPy function 'np.exp' (numpy.exp) is applied to a tensor in graph code. "
                                         "STRICT fails")
    assert tree.mslint("a.py").stdout.splitlines()[0] == "a.py:7:16: MS102 third-party-call-on-tensor " + \
        finding["message"]
    assert concise.stdout.splitlines()[1].startswith("b.py:7:16: MS102")
    assert concise.stdout.splitlines()[2] == "Found 2 problems (2 errors) in 2 of 2 files."
    quiet = tree.mslint("--format", "concise", "--quiet", ".")
    assert quiet.stdout == "\n".join(concise.stdout.splitlines()[:2]) + "\n"
    written = tree.mslint("--output-format", "json", "--output-file", "report.json", ".")
    assert written.returncode == 1 and written.stdout == ""
    assert [f["path"] for f in json.loads((tree.root / "report.json").read_text())] == ["a.py", "b.py"]


def test_columns_count_characters_and_the_caret_sits_under_the_call(tree):
    tree.write("net.py", BAD.replace("        return np.exp(x)", "        s = 'ü→'; return np.exp(x)"))
    result = tree.mslint("net.py")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("net.py:7:26: MS102")  # 29 in UTF-8 bytes
    assert lines[1] == "     7 |         s = 'ü→'; return np.exp(x)"
    assert lines[2] == "       | " + " " * 25 + "^" * 9
    [finding] = json.loads(tree.mslint("--output-format", "json", "net.py").stdout)
    assert (finding["column"], finding["end_column"]) == (26, 35)


def test_colour_follows_the_flag_and_no_color(tree):
    tree.write("net.py", BAD)
    assert "\x1b[" not in tree.mslint("net.py").stdout  # a pipe
    assert "\x1b[31mMS102\x1b[0m" in tree.mslint("--color", "always", "net.py").stdout
    assert "\x1b[" in tree.mslint("net.py", env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in tree.mslint("--color", "auto", "net.py", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert "\x1b[" not in tree.mslint("--output-format", "json", "--color", "always", "net.py").stdout


def test_sarif_rule_help_is_the_page_without_its_claim_blocks(tree):
    tree.write("net.py", BAD)
    log = json.loads(tree.mslint("--output-format", "sarif", "net.py").stdout)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    explained = tree.mslint("--explain", "MS102").stdout
    assert rules["MS102"]["help"]["markdown"] == explained.split("\n", 1)[1].strip() + "\n"
    assert not any("<!--" in rule["help"]["markdown"] for rule in rules.values())


# -- 11. progress --------------------------------------------------------------------------------------------
def _on_a_terminal(tree, *args):
    import pty

    main, secondary = pty.openpty()
    environment = dict(os.environ, MSLINT_PROGRESS_AFTER="0", MSLINT_CACHE_DIR=str(tree.root / ".c"))
    process = subprocess.Popen([sys.executable, "-m", "mslint", *args], cwd=tree.root, env=environment,
                               stdout=secondary, stderr=secondary)
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(main)
    return process.wait(), output.decode()


def test_progress_shows_on_a_terminal_is_erased_and_never_in_pipes_or_ci_formats(tree):
    for index in range(3):
        tree.write(f"net{index}.py", BAD)
    status, output = _on_a_terminal(tree, "--no-cache", ".")
    assert status == 1
    assert re.search(r"mslint: [123]/3 files, \d+ s", output) and "\r\x1b[K" in output
    shown = output.split("\r\x1b[K")[-1]  # what remains on the screen after the last erase
    assert shown.startswith("\x1b[1mnet0.py:7:16:") and "files, " not in shown  # a terminal: in colour
    assert "files, " not in _on_a_terminal(tree, "--no-cache", "--quiet", ".")[1]
    assert "files, " not in _on_a_terminal(tree, "--no-cache", "--output-format", "github", ".")[1]
    piped = tree.mslint("--no-cache", ".", env={"MSLINT_PROGRESS_AFTER": "0"})
    assert piped.stderr == ""


def test_server_without_the_server_extra_says_how_to_install_it(tmp_path):
    # lsprotocol and pygls made unimportable, as in `pip install mslint` without [server]
    hide = ("import sys; sys.modules['lsprotocol'] = sys.modules['pygls'] = None; "
            "from mslint.frontends.cli import main; sys.exit(main(['server']))")
    result = subprocess.run([sys.executable, "-c", hide], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stderr.strip() == ('mslint server: error: the language server needs pygls and lsprotocol: '
                                     'pip install "mslint[server]"')
