"""The `mslint` command: output formats, exit codes, discovery, configuration errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from mslint.frontends.cli import main
from mslint.rules import registry

BAD = '''
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        return np.exp(x)
'''
CLEAN = '''
from mindspore import nn, ops


class Net(nn.Cell):
    def construct(self, x):
        return ops.exp(x)
'''


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def write(relative, source):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"))
        return path

    return write


def run(capsys, *args):
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_output_has_the_documented_keys_and_one_based_columns(tree, capsys):
    tree("net.py", BAD)
    status, out, _ = run(capsys, "--format", "json", "net.py")
    assert status == 1
    [finding] = json.loads(out)
    assert list(finding) == ["code", "symbol", "message", "severity", "path", "line", "column", "end_line",
                             "end_column", "help", "fix", "reach", "related", "fingerprint", "url"]
    assert (finding["code"], finding["symbol"], finding["severity"]) == ("MS102", "third-party-call-on-tensor", "error")
    assert (finding["path"], finding["line"], finding["column"]) == ("net.py", 7, 16)
    assert (finding["end_line"], finding["end_column"]) == (7, 25)
    assert finding["url"].endswith("/docs/rules/MS102.md")
    assert finding["help"] and finding["fix"] is None and finding["reach"] == []
    assert len(finding["fingerprint"]) == 32


def test_text_output_has_location_code_symbol_and_a_help_line(tree, capsys):
    tree("net.py", BAD)
    status, out, _ = run(capsys, "net.py")
    lines = out.splitlines()
    assert status == 1
    assert lines[0].startswith("net.py:7:16: MS102 third-party-call-on-tensor NumPy function 'np.exp'")
    assert lines[1:3] == ["     7 |         return np.exp(x)", "       |                ^^^^^^^^^"]
    assert lines[3].startswith("    help: Use the MindSpore function")
    assert lines[-1] == "Found 1 problem (1 error) in 1 of 1 file."


def test_clean_project_exits_zero(tree, capsys):
    tree("net.py", CLEAN)
    status, out, _ = run(capsys, ".")
    assert status == 0
    assert out.strip() == "All checks passed (1 file checked)."


def test_exit_zero_reports_but_exits_zero(tree, capsys):
    tree("net.py", BAD)
    status, out, _ = run(capsys, "--exit-zero", "net.py")
    assert status == 0 and "MS102" in out


def test_a_syntax_error_file_and_a_finding_file_both_reported(tree, capsys):
    tree("src/broken.py", "def construct(self, x:\n    return x\n")
    tree("src/net.py", BAD)
    status, out, _ = run(capsys, "--format", "json", "src")
    findings = json.loads(out)
    assert status == 1
    assert [(f["path"], f["code"]) for f in findings] == [
        (os.path.join("src", "broken.py"), "MS001"), (os.path.join("src", "net.py"), "MS102")]
    assert findings[0]["line"] == 1 and "cannot parse" in findings[0]["message"]


def test_discovery_skips_vcs_virtualenvs_builds_and_excludes(tree, capsys):
    tree("pkg/net.py", BAD)
    tree(".git/hooks/x.py", BAD)
    tree("env/pyvenv.cfg", "home = /usr\n")
    tree("env/lib/site.py", BAD)
    tree("build/lib/net.py", BAD)
    tree("generated/net.py", BAD)
    tree("pyproject.toml", '[tool.mslint]\nexclude = ["generated"]\n')
    status, out, _ = run(capsys, "--format", "json")
    assert [f["path"] for f in json.loads(out)] == [os.path.join("pkg", "net.py")]


def test_select_and_ignore_with_prefixes_and_symbols(tree, capsys):
    tree("net.py", BAD)
    assert run(capsys, "--select", "MS1", "net.py")[0] == 1
    assert run(capsys, "--select", "MS10", "--ignore", "third-party-call-on-tensor", "net.py")[0] == 0
    assert run(capsys, "--ignore", "MS102", "net.py")[0] == 0


def test_unknown_selector_is_a_usage_error(tree, capsys):
    tree("net.py", BAD)
    status, out, err = run(capsys, "--select", "MS9999", "net.py")
    assert status == 2 and out == ""
    assert err.strip() == "mslint: error: --select: 'MS9999' is not a rule code, code prefix, rule symbol or pylint id"


def test_nonexistent_path_is_one_line_and_exit_2(tree, capsys):
    status, out, err = run(capsys, "missing.py")
    assert status == 2
    assert err == "mslint: error: missing.py: no such file or directory\n"


def test_bad_config_key_names_the_file_and_the_key(tree, capsys):
    tree("net.py", BAD)
    config = tree("pyproject.toml", '[tool.mslint]\nselct = ["MS1"]\n')
    status, out, err = run(capsys, "net.py")
    assert status == 2 and out == ""
    assert err.startswith(f"mslint: error: {config}: [tool.mslint] selct: unknown key")
    assert err.count("\n") == 1


def test_bad_config_value_and_toml_syntax_errors(tree, capsys):
    tree("net.py", BAD)
    config = tree("pyproject.toml", '[tool.mslint]\ngraph-mode = "sometimes"\n')
    status, _, err = run(capsys, "net.py")
    assert status == 2
    assert err == (f"mslint: error: {config}: [tool.mslint] graph-mode: expected one of auto, always, never, "
                   "got 'sometimes'\n")
    tree("pyproject.toml", '[tool.mslint\nselect = 1\n')
    status, _, err = run(capsys, "net.py")
    assert status == 2 and "invalid TOML" in err and err.count("\n") == 1


def test_config_is_found_from_the_linted_path_and_can_be_named(tree, capsys):
    tree("proj/pyproject.toml", '[tool.mslint]\nignore = ["MS102"]\n')
    tree("proj/net.py", BAD)
    assert run(capsys, "proj")[0] == 0
    other = tree("strict.toml", '[tool.mslint]\nselect = ["MS102"]\n')
    assert run(capsys, "--config", str(other), "proj")[0] == 1


def test_per_file_ignores(tree, capsys):
    tree("pyproject.toml", '[tool.mslint]\nper-file-ignores = { "tests/*" = ["MS1"] }\n')
    tree("tests/test_net.py", BAD)
    tree("src/net.py", BAD)
    status, out, _ = run(capsys, "--format", "json")
    assert [f["path"] for f in json.loads(out)] == [os.path.join("src", "net.py")]


def test_list_rules_json_lists_every_rule_with_its_metadata(capsys):
    status, out, _ = run(capsys, "--list-rules", "--format", "json")
    rules = json.loads(out)
    assert status == 0
    assert [r["code"] for r in rules] == [r.code for r in registry()]
    for rule in rules:
        assert {"code", "symbol", "severity", "fix", "url", "pylint_id", "default_enabled"} <= set(rule)
        assert rule["fix"] and rule["url"].endswith(f"{rule['code']}.md")


def test_list_rules_text(capsys):
    status, out, _ = run(capsys, "--list-rules")
    assert status == 0
    assert any(line.startswith("MS101  tensor-to-numpy-in-graph") for line in out.splitlines())


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("mslint 0.")


def test_unknown_option_is_exit_2_without_traceback(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--frobnicate"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --frobnicate" in err and "Traceback" not in err


def test_jobs_give_the_same_output(tree, capsys):
    for index in range(12):
        tree(f"pkg/net{index}.py", BAD if index % 2 else CLEAN)
    serial = run(capsys, "--format", "json", "--jobs", "1", "pkg")
    parallel = run(capsys, "--format", "json", "--jobs", "2", "pkg")
    assert serial == parallel
    assert len(json.loads(serial[1])) == 6


def test_jobs_give_the_same_output_for_findings_reached_across_packages(tree, capsys):
    # each worker owns a contiguous run of the sorted files, so a helper and the cell that
    # reaches it land in different workers; the helper's finding must still be reported once
    for index in range(6):
        tree(f"app{index}/__init__.py", "")
        tree(f"app{index}/host.py", "def to_host(x):\n    return x.asnumpy()\n")
        tree(f"zoo{index}/__init__.py", "")
        tree(f"zoo{index}/net.py", f"from mindspore import nn\nfrom app{index}.host import to_host\n\n\n"
                                   "class Net(nn.Cell):\n    def construct(self, x):\n        return to_host(x)\n")
    names = [f"app{index}" for index in range(6)] + [f"zoo{index}" for index in range(6)]
    serial = run(capsys, "--format", "json", "--jobs", "1", *names)
    found = json.loads(serial[1])
    assert sorted((os.path.normpath(f["path"]), f["line"], f["code"]) for f in found) == \
        sorted((os.path.join(f"app{index}", "host.py"), 2, "MS101") for index in range(6))
    for jobs in ("2", "3"):
        assert run(capsys, "--format", "json", "--jobs", jobs, *names) == serial


def test_console_script_runs_as_a_module(tree):
    tree("net.py", BAD)
    result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "net.py"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert json.loads(result.stdout)[0]["code"] == "MS102"


def test_every_rule_survives_pickling_for_worker_processes():
    import pickle

    for rule in registry():
        assert pickle.loads(pickle.dumps(rule)) is rule
