"""Hostile input through the real command line: every file is reported, nothing crashes,
nothing the linted project holds is run, the output is deterministic and bounded in time.

Most tests run `python -m mslint` in a subprocess (what a user or CI runs) and check
that stderr holds no traceback; the ones that must patch something (a rule that raises, a
file that vanishes) call `mslint.frontends.cli.main` in-process.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import astroid
import pytest

from mslint.run import budget
from mslint.frontends import cli
from mslint.config import Config
from mslint.rules import registry
from mslint.run.runner import lint_file

GOOD = textwrap.dedent('''\
    import numpy as np
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            return np.exp(x)
''')  # MS102 at line 7, column 16 (1-based)
GOOD_FINDING = ("good.py", 7, 16, "MS102")


def run_cli(cwd, *args, env=None, timeout=120):
    """`python -m mslint ARGS` in `cwd`: (exit status, stdout, stderr); never a traceback."""
    environment = dict(os.environ, **(env or {}))
    result = subprocess.run([sys.executable, "-m", "mslint", *args], cwd=cwd, capture_output=True,
                            timeout=timeout, env=environment)
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    return result.returncode, result.stdout.decode("utf-8"), err


def lint_json(cwd, *args, **kwargs):
    status, out, err = run_cli(cwd, "--format", "json", "--jobs", "1", *args, **kwargs)
    return status, json.loads(out), err


def located(findings):
    return [(f["path"], f["line"], f["column"], f["code"]) for f in findings]


def by_path(findings):
    grouped = {}
    for finding in findings:
        grouped.setdefault(finding["path"], []).append(finding)
    return grouped


# -- malformed files: each gives an MS0xx finding, and good.py next to it is still checked --------
DEEP_PARENS = b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n"
MALFORMED = {
    # name: (content, code, line, fragment of the message)
    "syntax": (b"def f(:\n    pass\n", "MS001", 1, "invalid syntax"),
    "nul": (b"x = 1\x00\ny = 2\n", "MS001", 1, "null bytes"),
    "not_utf8": (b'x = "caf\xe9 \xff"\n', "MS002", 1, "cannot decode the file"),
    "unknown_cookie": (b"# -*- coding: klingon -*-\nx = 1\n", "MS002", 1, "unknown encoding: klingon"),
    "bad_escape": (b'x = "\\N{NO SUCH CHARACTER}"\n', "MS001", 1, "unicode error"),
    "deep_parens_1000": (DEEP_PARENS, "MS001", 1, "too many nested parentheses"),
    # unparenthesised nesting the tokenizer allows: CPython's own parser gives up (MemoryError)
    "deep_unary_100000": (b"x = " + b"-" * 100000 + b"1\n", "MS001", 1, "nested too deeply"),
    # parses, but astroid's tree builder recurses once per level: RecursionError
    "long_chain_100000": (b"x = " + b" + ".join([b"1"] * 100000) + b"\n", "MS004", 1, "nested too deeply"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_file_is_one_ms0xx_finding_and_the_others_are_checked(tmp_path, name):
    content, code, line, fragment = MALFORMED[name]
    (tmp_path / f"{name}.py").write_bytes(content)
    (tmp_path / "good.py").write_text(GOOD)
    status, findings, err = lint_json(tmp_path, ".")
    assert status == 1 and err == ""
    grouped = by_path(findings)
    [broken] = grouped[f"{name}.py"]
    assert (broken["code"], broken["line"]) == (code, line), broken
    assert fragment in broken["message"] and "\n" not in broken["message"]
    assert located(grouped["good.py"]) == [GOOD_FINDING]


def test_a_latin1_coding_cookie_is_honoured_and_the_file_checked(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# caf\u00e9 cr\u00e8me\n" + GOOD.replace("return", "name = 'd\u00e9j\u00e0'\n        return")
    (tmp_path / "good.py").write_bytes(source.encode("latin-1"))
    status, findings, err = lint_json(tmp_path, "good.py")
    assert (status, err) == (1, "")
    assert located(findings) == [("good.py", 10, 16, "MS102")]


def test_a_utf8_bom_is_skipped_and_columns_are_not_shifted(tmp_path):
    (tmp_path / "good.py").write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    status, findings, _ = lint_json(tmp_path, "good.py")
    assert status == 1 and located(findings) == [GOOD_FINDING]


def test_an_empty_file_is_clean(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    status, out, err = run_cli(tmp_path, "empty.py")
    assert (status, err) == (0, "") and "1 file checked" in out


def test_a_10_mb_file_is_linted(tmp_path):
    filler = b"".join(b"# %07d padding padding padding padding padding padding padding padding\n" % i
                      for i in range(140000))
    data = filler + GOOD.encode()
    assert len(data) > 10_000_000
    (tmp_path / "good.py").write_bytes(data)
    status, findings, _ = lint_json(tmp_path, "good.py")
    assert status == 1 and located(findings) == [("good.py", 140007, 16, "MS102")]


def test_a_1000_deep_expression_in_graph_code_is_analysed(tmp_path):
    """1,000 levels of BinOp (no parentheses, so the tokenizer accepts it): the recursion
    limit the runner raises is enough, and the rule still sees the numpy call on it."""
    deep = " + ".join(["x"] * 1000)
    (tmp_path / "good.py").write_text(GOOD.replace("np.exp(x)", f"np.exp({deep})"))
    status, findings, _ = lint_json(tmp_path, "good.py")
    assert status == 1 and located(findings) == [GOOD_FINDING]


def test_symlink_loop_and_dangling_symlink_are_unreadable_files(tmp_path):
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    os.symlink("gone.py", tmp_path / "dangling.py")
    (tmp_path / "good.py").write_text(GOOD)
    status, findings, err = lint_json(tmp_path, ".")
    assert status == 1 and err == ""
    grouped = by_path(findings)
    for name in ("loop_a.py", "loop_b.py"):
        [finding] = grouped[name]
        assert finding["code"] == "MS002" and "Too many levels of symbolic links" in finding["message"]
    [finding] = grouped["dangling.py"]
    assert finding["code"] == "MS002" and "No such file or directory" in finding["message"]
    assert located(grouped["good.py"]) == [GOOD_FINDING]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_named_like_a_module_does_not_hang_the_run(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")  # opening it for reading would block until a writer came
    (tmp_path / "good.py").write_text(GOOD)
    status, findings, _ = lint_json(tmp_path, ".", timeout=60)
    grouped = by_path(findings)
    [finding] = grouped["pipe.py"]
    assert finding["code"] == "MS002" and "not a regular file" in finding["message"]
    assert status == 1 and located(grouped["good.py"]) == [GOOD_FINDING]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root reads a chmod 000 file anyway; test_unreadable_file_simulated covers it")
def test_an_unreadable_file_chmod_000(tmp_path):
    secret = tmp_path / "secret.py"
    secret.write_text(GOOD)
    secret.chmod(0)
    (tmp_path / "good.py").write_text(GOOD)
    try:
        status, findings, _ = lint_json(tmp_path, ".")
    finally:
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
    grouped = by_path(findings)
    [finding] = grouped["secret.py"]
    assert finding["code"] == "MS002" and "Permission denied" in finding["message"]
    assert located(grouped["good.py"]) == [GOOD_FINDING]


def run_main(capsys, *args):
    status = cli.main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def test_unreadable_file_simulated(tmp_path, monkeypatch, capsys):
    """As root chmod 000 does not stop a read, so the operating system's refusal is simulated:
    os.open raises EACCES for that one file, as it would for an ordinary user."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "secret.py").write_text(GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if os.path.basename(os.fspath(path)) == "secret.py":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    status, out, err = run_main(capsys, "--format", "json", "--jobs", "1", ".")
    grouped = by_path(json.loads(out))
    [finding] = grouped["secret.py"]
    assert finding["code"] == "MS002" and finding["message"] == "cannot read the file: Permission denied"
    assert status == 1 and located(grouped["good.py"]) == [GOOD_FINDING]


def test_a_file_deleted_after_discovery_is_reported_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vanishing.py").write_text(GOOD)
    (tmp_path / "good.py").write_text(GOOD)
    real_discover = cli.discover

    def discover_then_delete(paths, config, **options):
        files = real_discover(paths, config, **options)
        assert "vanishing.py" in files
        os.remove("vanishing.py")  # gone between discovery and reading
        return files

    monkeypatch.setattr(cli, "discover", discover_then_delete)
    status, out, err = run_main(capsys, "--format", "json", "--jobs", "1", ".")
    grouped = by_path(json.loads(out))
    [finding] = grouped["vanishing.py"]
    assert finding["code"] == "MS002" and "No such file or directory" in finding["message"]
    assert status == 1 and located(grouped["good.py"]) == [GOOD_FINDING]


# -- usage and configuration errors: one line, exit 2 ------------------------------------------
def test_a_nonexistent_path_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    status, out, err = run_cli(tmp_path, "missing.py")
    assert (status, out, err) == (2, "", "mslint: error: missing.py: no such file or directory\n")
    # issue 29: as in ruff, the other paths are still linted, and the run exits 2 at the end
    status, out, err = run_cli(tmp_path, "good.py", "missing.py")
    assert (status, err) == (2, "mslint: error: missing.py: no such file or directory\n")
    assert out.startswith("good.py:") and out.endswith(" in 1 of 1 file.\n")


BAD_CONFIGS = {
    "toml_syntax": ('[tool.mslint\nselect = ["MS1"]\n', "invalid TOML: Expected ']' at the end of a table "
                                                          "declaration (at line 1, column 13)"),
    "select_not_a_list": ("[tool.mslint]\nselect = 1\n", "[tool.mslint] select: expected a list of strings, got 1"),
    # issue 29: a string where a list belongs was split silently
    "select_a_string": ('[tool.mslint]\nselect = "MS101"\n',
                        '[tool.mslint] select: expected a list of strings, got the string "MS101": write ["MS101"]'),
    "exclude_a_string": ('[tool.mslint]\nexclude = "build"\n',
                         '[tool.mslint] exclude: expected a list of strings, got the string "build": write ["build"]'),
    "exclude_not_strings": ("[tool.mslint]\nexclude = [1, 2]\n",
                            "[tool.mslint] exclude: expected a list of strings, got [1, 2]"),
    "graph_mode_wrong_type": ("[tool.mslint]\ngraph-mode = true\n",
                              "[tool.mslint] graph-mode: expected one of auto, always, never, got True"),
    "per_file_ignores_not_a_table": ('[tool.mslint]\nper-file-ignores = "tests/*"\n',
                                     "[tool.mslint] per-file-ignores: expected a table of glob = [rule codes]"),
    "per_file_ignores_value": ('[tool.mslint]\nper-file-ignores = {"tests/*" = 3}\n',
                               "[tool.mslint] per-file-ignores.'tests/*': expected a list of strings, got 3"),
    "table_not_a_table": ("tool.mslint = 3\n", "[tool.mslint] must be a table"),
    "not_utf8": (b'[tool.mslint]\nselect = ["MS1"] # caf\xe9\n', "invalid TOML: not UTF-8 (invalid continuation byte at byte 36)"),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_a_bad_configuration_is_one_line_naming_file_and_key(tmp_path, name):
    content, expected = BAD_CONFIGS[name]
    config = tmp_path / "pyproject.toml"
    config.write_bytes(content if isinstance(content, bytes) else content.encode())
    (tmp_path / "good.py").write_text(GOOD)
    status, out, err = run_cli(tmp_path, "good.py")
    assert status == 2 and out == ""
    assert err.startswith(f"mslint: error: {config}: ") and expected in err, err
    assert err.count("\n") == 1


# -- never run the linted code ------------------------------------------------------------------
def marker_code(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('ran')\n"


def test_linting_never_runs_the_project_code(tmp_path):
    """Module-level code, a package __init__, conftest.py, setup.py, sitecustomize.py, a .pth file,
    __main__.py, and files that shadow modules mslint itself imports (with `python -m`, the
    working directory comes first on sys.path): none of them may run."""
    marker = tmp_path / "MARKER"
    code = marker_code(marker)
    shadowing = ("typing", "json", "argparse", "dataclasses", "astroid", "pylint", "tomllib", "re", "enum",
                 "functools", "concurrent", "mindspore", "numpy")
    for name in shadowing + ("conftest", "setup", "sitecustomize", "usercustomize", "__main__", "helpers"):
        (tmp_path / f"{name}.py").write_text(code + "def f(x):\n    return x\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(code + "from .impl import g\n")
    (tmp_path / "pkg" / "impl.py").write_text(code + "def g(x):\n    return x\n")
    (tmp_path / "evil.pth").write_text(f"import os; {code}")
    (tmp_path / "train.py").write_text(code + textwrap.dedent('''\
        import helpers
        import pkg
        from pkg.impl import g
        from conftest import f
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                return helpers.f(pkg.g(g(f(x))))
    '''))
    for args in (["train.py"], ["--jobs", "2", "."]):
        status, _, err = run_cli(tmp_path, *args)
        assert status in (0, 1) and err == "", err
        assert not marker.exists(), f"mslint ran project code with {args}"
    # the check can fail: importing the project does write the marker
    subprocess.run([sys.executable, "-c", "import pkg"], cwd=tmp_path, check=True)
    assert marker.exists()


EXTENSION_C = r'''
#include <Python.h>
#include <stdio.h>
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "native", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_native(void) {
    FILE *marker = fopen(MARKER, "w");
    if (marker) { fputs("loaded", marker); fclose(marker); }
    return PyModule_Create(&module);
}
'''


def build_extension(directory: Path, marker: Path) -> Path:
    import sysconfig

    compiler = shutil.which("cc") or shutil.which("gcc")
    include = sysconfig.get_paths().get("include")
    if compiler is None or not include or not os.path.isfile(os.path.join(include, "Python.h")):
        pytest.skip("no C compiler or Python headers to build a test extension")
    source = directory / "native.c"
    source.write_text(EXTENSION_C)
    target = directory / ("native" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([compiler, "-shared", "-fPIC", f"-I{include}", f'-DMARKER="{marker}"', str(source),
                    "-o", str(target)], check=True, capture_output=True)
    source.unlink()
    return target


def test_astroid_never_loads_a_c_extension_of_the_project(tmp_path, capsys, monkeypatch):
    marker = tmp_path / "MARKER"
    build_extension(tmp_path, marker)
    (tmp_path / "train.py").write_text(textwrap.dedent('''\
        import native
        from native import helper
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                return native.compute(helper(x))
    '''))
    status, _, err = run_cli(tmp_path, "train.py")
    assert status in (0, 1) and not marker.exists()
    # in-process as well, and astroid's settings that would allow it stay off
    monkeypatch.chdir(tmp_path)
    run_main(capsys, "--jobs", "1", "train.py")
    assert not marker.exists()
    assert astroid.MANAGER.always_load_extensions is False
    assert not astroid.MANAGER.extension_package_whitelist
    # the check can fail: importing the extension does write the marker
    subprocess.run([sys.executable, "-c", "import native"], cwd=tmp_path, check=True)
    assert marker.read_text() == "loaded"


# -- determinism --------------------------------------------------------------------------------
def test_output_is_sorted_and_byte_identical_across_runs_and_jobs(tmp_path):
    from mslint import rule_pages

    index = 0
    for code in ("MS101", "MS102", "MS401", "MS701", "MS801", "MS802", "MS201", "MS501"):
        page = rule_pages.sections(rule_pages.read_page(code))
        for block in rule_pages.python_blocks(page["Example"]) + rule_pages.python_blocks(page["Use instead"]):
            # each its own project: a page's PyNative example must not decide the others' mode
            (tmp_path / f"p{index:02d}").mkdir()
            (tmp_path / f"p{index:02d}" / "pyproject.toml").write_text("")
            (tmp_path / f"p{index:02d}" / "m.py").write_text(block)
            index += 1
    (tmp_path / "broken.py").write_bytes(b"def f(:\n")
    outputs = {}
    for fmt in ("json", "text", "sarif"):
        runs = [run_cli(tmp_path, "--format", fmt, "--jobs", jobs, ".") for jobs in ("1", "1", "2")]
        assert runs[0] == runs[1] == runs[2], fmt
        outputs[fmt] = runs[0][1]
    findings = json.loads(outputs["json"])
    assert len(findings) >= 8
    keys = [(f["path"], f["line"], f["column"], f["code"]) for f in findings]
    assert keys == sorted(keys)


# -- internal errors and the time budget --------------------------------------------------------
@pytest.fixture
def patch_rule():
    """Replace a rule's check for one test (rules are frozen records: patch and restore by hand)."""
    saved = []

    def patch(code, check):
        rule = registry().get(code)
        saved.append((rule, rule.check))
        object.__setattr__(rule, "check", check)

    yield patch
    for rule, check in reversed(saved):
        object.__setattr__(rule, "check", check)


def two_projects(tmp_path, monkeypatch, count=2):
    monkeypatch.chdir(tmp_path)
    for index in range(count):
        (tmp_path / f"net{index}.py").write_text(GOOD)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_internal_error_in_one_rule_is_ms003_the_run_goes_on_and_exits_2(
        tmp_path, monkeypatch, capsys, patch_rule, jobs):
    two_projects(tmp_path, monkeypatch, count=9)  # 9 files: --jobs 2 really uses worker processes

    def broken_rule(context):
        yield from ()
        raise ValueError("boom\nwith a second line")

    patch_rule("MS801", broken_rule)
    status, out, err = run_main(capsys, "--format", "json", "--jobs", jobs, ".")
    assert status == 2 and err == ""
    grouped = by_path(json.loads(out))
    assert len(grouped) == 9
    for index in range(9):
        codes = sorted(f["code"] for f in grouped[f"net{index}.py"])
        assert codes == ["MS003", "MS102"]  # the other rules still ran on the file
        [error] = [f for f in grouped[f"net{index}.py"] if f["code"] == "MS003"]
        assert error["message"].startswith("internal error in rule MS801 (legacy-jit-api). ValueError: ")
        assert "ValueError: boom with a second line at test_hardening.py:" in error["message"]
    status, _, _ = run_main(capsys, "--exit-zero", "--jobs", jobs, ".")
    assert status == 0


def test_a_recursion_error_in_a_rule_is_ms004(tmp_path, monkeypatch, capsys, patch_rule):
    two_projects(tmp_path, monkeypatch)

    def recursing_rule(context):
        def down(n):
            return down(n + 1)

        yield from ()
        down(0)

    patch_rule("MS801", recursing_rule)
    status, out, _ = run_main(capsys, "--format", "json", "--jobs", "1", ".")
    findings = json.loads(out)
    assert status == 1
    assert sorted(located(findings)) == sorted([("net0.py", 1, 1, "MS004"), ("net0.py", 7, 16, "MS102"),
                                                ("net1.py", 1, 1, "MS004"), ("net1.py", 7, 16, "MS102")])
    assert all("rule MS801" in f["message"] for f in findings if f["code"] == "MS004")


@pytest.mark.skipif(not budget.available(), reason="no SIGALRM: the budget is off on this platform")
def test_a_rule_that_never_ends_is_stopped_by_the_file_budget(tmp_path, monkeypatch, capsys, patch_rule):
    two_projects(tmp_path, monkeypatch)
    monkeypatch.setenv(budget.ENVIRONMENT, "1.5")  # ample for the rules before MS801 on a tiny file

    def endless_rule(context):
        yield from ()
        while True:
            pass

    patch_rule("MS801", endless_rule)
    status, out, err = run_main(capsys, "--format", "json", "--jobs", "1", ".")
    findings = json.loads(out)
    assert status == 1 and err == ""
    for name in ("net0.py", "net1.py"):
        [incomplete] = [f for f in findings if f["path"] == name and f["code"] == "MS004"]
        assert incomplete["message"] == (
            "analysis incomplete: the per-file time budget (1.5 s, MSLINT_FILE_BUDGET) ran out in rule MS801 "
            "(legacy-jit-api); it and the rules after it did not finish; findings may be missing")
        # MS102 ran before MS801: its finding is kept
        assert (name, 7, 16, "MS102") in located(findings)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None) or \
        signal.getsignal(signal.SIGALRM) is not budget._expire
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.skipif(not budget.available(), reason="no SIGALRM: the budget is off on this platform")
def test_a_pathological_file_is_bounded_through_the_cli(tmp_path):
    """A 3,000-function call chain from construct: seconds of graph-scope analysis.  With a
    budget of a hundredth of a second it is one MS004 finding, and the file next to it is still
    reported.  Independent of the machine's speed and load: the chain needs hundreds of times the
    budget, and good.py's findings come from the result cache (filled by a first run without a
    budget; a cached file is not analysed, so it cannot run out of time)."""
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x) + 1\n" for i in range(3000))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # the cache goes here
    (tmp_path / "good.py").write_text(GOOD)
    status, findings, _ = lint_json(tmp_path, "good.py")
    assert located(findings) == [GOOD_FINDING]
    (tmp_path / "slow.py").write_text("import numpy as np\nfrom mindspore import nn\n" + chain +
                                      "def f3000(x):\n    return np.exp(x)\n\n\nclass Net(nn.Cell):\n"
                                      "    def construct(self, x):\n        return f0(x)\n")
    status, findings, err = lint_json(tmp_path, ".", env={budget.ENVIRONMENT: "0.01"})
    grouped = by_path(findings)
    [slow] = [f for f in grouped["slow.py"] if f["code"] == "MS004"]
    assert "per-file time budget (0.01 s, MSLINT_FILE_BUDGET) ran out" in slow["message"]
    # where it stopped depends on the machine: the rules that finished keep their findings
    assert {(f["code"], f["line"]) for f in grouped["slow.py"]} <= {("MS004", 1), ("MS102", 6004)}
    assert located(grouped["good.py"]) == [GOOD_FINDING]


def test_without_sigalrm_or_off_the_main_thread_files_run_unbounded(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text(GOOD)
    config = Config(root=str(tmp_path))
    monkeypatch.delattr(signal, "setitimer")
    assert not budget.available()
    assert [(f.line, f.code) for f in lint_file(str(tmp_path / "good.py"), config)] == [(7, "MS102")]
    monkeypatch.undo()
    results = []
    worker = threading.Thread(target=lambda: results.append(lint_file(str(tmp_path / "good.py"), config)))
    worker.start()
    worker.join()
    assert [(f.line, f.code) for f in results[0]] == [(7, "MS102")]


@pytest.mark.skipif(not budget.available(), reason="no SIGALRM: the budget is off on this platform")
def test_the_budget_gives_back_an_outer_timer_and_handler(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 60)
        lint_file(str(tmp_path / "good.py"), Config(root=str(tmp_path)))
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 50 < remaining <= 60 and not fired
        assert signal.getsignal(signal.SIGALRM) is not budget._expire
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("text, expected", [("", budget.DEFAULT_SECONDS), ("2.5", 2.5), ("0", 0.0),
                                            ("-1", 0.0), ("nan", 0.0), ("soon", budget.DEFAULT_SECONDS)])
def test_budget_setting(monkeypatch, text, expected):
    monkeypatch.setenv(budget.ENVIRONMENT, text)
    assert budget.seconds() == expected


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="the file system must accept non-UTF-8 names")
@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii"])
def test_file_names_that_are_not_utf8_or_not_encodable_do_not_break_any_format(tmp_path, encoding):
    """A lone surrogate (an undecodable byte of a file name) or a character the output encoding
    lacks used to end the run with 'internal error: UnicodeEncodeError' and no report."""
    (tmp_path / "good.py").write_text(GOOD)
    os.link(tmp_path / "good.py", os.path.join(os.fsencode(tmp_path), b"caf\xe9.py"))
    os.link(tmp_path / "good.py", tmp_path / "\u00fcn\u00ef.py")
    for fmt in ("text", "json", "sarif", "github"):
        status, out, err = run_cli(tmp_path, "--format", fmt, "--jobs", "1", ".",
                                   env={"PYTHONIOENCODING": encoding})
        assert (status, err) == (1, ""), fmt
        if fmt == "json":
            assert sorted(f["path"] for f in json.loads(out)) == ["caf\udce9.py", "good.py", "\u00fcn\u00ef.py"]
        if fmt == "sarif":
            assert len(json.loads(out)["runs"][0]["results"]) == 3
