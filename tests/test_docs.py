"""The user guide stays true: generated rule index, configuration keys, CI recipes, links."""
from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from mslint.frontends.cli import main
from mslint.config import CONFIG_KEYS

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

NET = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = x.asnumpy()
        return ms.Tensor(y)
"""


def _script(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rule_index_is_current():
    index = _script("generate_rule_index")
    assert (DOCS / "rules" / "index.md").read_text(encoding="utf-8") == index.render(), \
        "docs/rules/index.md is stale: run python scripts/generate_rule_index.py"


def test_rule_index_lists_every_rule_with_a_link_to_its_page():
    from mslint.rules import registry

    text = (DOCS / "rules" / "index.md").read_text(encoding="utf-8")
    for rule in registry():
        assert f"| [{rule.code}]({rule.code}.md) | `{rule.symbol}` | {rule.severity} |" in text


def documented_config_keys():
    lines = (DOCS / "configuration.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| key |"))
    keys = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        keys.append(re.match(r"^\| `([^`]+)` \|", line).group(1))
    return keys


def test_configuration_reference_documents_exactly_the_config_keys():
    assert sorted(documented_config_keys()) == sorted(CONFIG_KEYS)


def test_relative_links_in_the_docs_resolve():
    broken = []
    for page in list(DOCS.glob("*.md")) + [DOCS / "rules" / "index.md"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert not broken


def code_blocks(page, language):
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)


def github_workflow():
    (workflow,) = [b for b in code_blocks("ci.md", "yaml") if "upload-sarif" in b]
    return workflow


def workflow_mslint_commands(workflow):
    return [line.split("run:", 1)[1].strip() for line in workflow.splitlines()
            if line.strip().startswith("run: mslint") or line.strip().startswith("- run: mslint")]


def test_github_workflow_uploads_the_sarif_mslint_writes(project, monkeypatch, capsys):
    workflow = github_workflow()
    assert "security-events: write" in workflow
    assert "github/codeql-action/upload-sarif@" in workflow
    sarif_file = re.search(r"sarif_file:\s*(\S+)", workflow).group(1)
    commands = workflow_mslint_commands(workflow)
    (sarif_command,) = [c for c in commands if "--output-format sarif" in c]
    assert sarif_command.endswith(f"> {sarif_file}")
    assert "--exit-zero" in sarif_command  # so the upload step runs when there are findings
    assert any("--output-format github" in c for c in commands)

    project.write("net.py", NET)
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for command in commands:  # the commands as written (output redirection aside) work
        argv = shlex.split(command.split(">")[0])
        assert argv[0] == "mslint"
        status = main(argv[1:])
        out = capsys.readouterr().out
        if "--output-format sarif" in command:
            assert status == 0 and json.loads(out)["runs"][0]["results"][0]["ruleId"] == "MS101"
        else:
            assert status == 1 and out.startswith("::error file=net.py,line=7,")


def test_gitlab_code_quality_recipe_produces_a_report(project, monkeypatch, capsys):
    (converter,) = [b for b in code_blocks("ci.md", "python") if "code quality" in b]
    (gitlab,) = [b for b in code_blocks("ci.md", "yaml") if "codequality:" in b]
    report_name = re.search(r"codequality:\s*(\S+)", gitlab).group(1)
    assert f"> {report_name}" in gitlab
    project.write("net.py", NET)
    monkeypatch.chdir(project.root)

    def gitlab_issues():
        assert main(["--output-format", "sarif", "--exit-zero", "."]) == 0
        result = subprocess.run([sys.executable, "-c", converter], input=capsys.readouterr().out,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    (issue,) = gitlab_issues()
    assert issue["check_name"] == "MS101 tensor-to-numpy-in-graph" and issue["severity"] == "major"
    assert issue["location"] == {"path": "net.py", "lines": {"begin": 7}}
    assert issue["description"].startswith("MS101 'x.asnumpy()'") and len(issue["fingerprint"]) == 32
    project.write("net.py", "import os\n" + NET.lstrip())  # a line added above the finding: the same issue
    (moved,) = gitlab_issues()
    assert moved["location"]["lines"]["begin"] == 8 and moved["fingerprint"] == issue["fingerprint"]


def test_editors_page_covers_each_editor_with_the_server_and_the_plugin():
    text = (DOCS / "editors.md").read_text(encoding="utf-8")
    server, plugin = re.split(r"^## ", text, flags=re.M)[1:]
    assert server.startswith("The language server") and plugin.startswith("The pylint plugin")
    editors = re.split(r"^### ", server, flags=re.M)[1:]
    assert [e.splitlines()[0] for e in editors] == ["VS Code", "Neovim (0.11+)", "Helix (`languages.toml`)",
                                                    "Emacs (eglot)", "Zed", "PyCharm"]
    for editor in editors:
        assert "mslint" in editor and "server" in editor  # each block starts `mslint server`
    sections = re.split(r"^### ", plugin, flags=re.M)[1:]
    assert [s.splitlines()[0] for s in sections] == ["VS Code (pylint plugin)", "PyCharm (pylint plugin)",
                                                     "Vim and Neovim (pylint plugin)"]
    for section in sections:
        assert "--load-plugins=mslint" in section


PRECEDENCE_EXAMPLE = """
import mindspore as ms
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        weight = ms.Tensor(np.ones((3,)), ms.float32)
        axis = int((x > 100).sum())
        return np.exp(x * weight).sum(axis)
"""


def precedence_rows():
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    table = text.split("## Which rules run", 1)[1].split("| `[tool.mslint]` | command line | reported |", 1)[1]
    rows = []
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        toml, command, reported = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append(("\n".join(re.findall(r"`([^`]+)`", toml)), shlex.split(command.strip("`")),
                     [code.strip() for code in reported.split(",")]))
    return rows


def test_the_precedence_table_in_the_configuration_reference_is_what_mslint_does(tmp_path):
    rows = precedence_rows()
    assert len(rows) >= 10
    (tmp_path / "net.py").write_text(PRECEDENCE_EXAMPLE)
    for toml, command, reported in rows:
        (tmp_path / "pyproject.toml").write_text("[tool.mslint]\n" + toml + "\n")
        result = subprocess.run([sys.executable, "-m", "mslint", "--output-format", "json", "--no-cache", *command,
                                 "net.py"], cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 1, (toml, command, result.stderr)
        assert sorted({f["code"] for f in json.loads(result.stdout)}) == reported, (toml, command)


def test_pre_commit_revs_in_the_docs_are_commits_or_tags_the_repository_has():
    # issue 29: `rev: v0.1.0` failed ("pathspec 'v0.1.0' did not match"): the repository has no tags
    tags = subprocess.run(["git", "-C", str(REPO), "tag", "--list"], capture_output=True, text=True)
    if tags.returncode != 0:
        import pytest

        pytest.skip("not a git checkout")
    pages = [REPO / "README.md", REPO / ".pre-commit-hooks.yaml"] + sorted(DOCS.glob("*.md"))
    revs = [(page.name, rev) for page in pages
            for rev in re.findall(r"^[#\s-]*rev:\s*(\S+)", page.read_text(encoding="utf-8"), re.M)]
    assert revs, "no pre-commit rev in the docs"
    for page, rev in revs:
        assert re.fullmatch(r"[0-9a-f]{40}|<.*", rev) or rev in tags.stdout.split(), (page, rev)


def test_fix_markers_and_the_fixable_list_in_the_docs_match_the_rules():
    # issue 29: README and getting-started showed `MS703 [*] ...` (MS711's line; MS703's fixes are
    # unsafe only), and README's "Fixable today" left out five fixable rules
    from mslint.fixes import FIXABLE, SAFE
    from mslint.rules import registry

    pages = [REPO / "README.md"] + sorted(DOCS.glob("*.md"))
    shown = [(page.name, code, symbol) for page in pages
             for code, symbol in re.findall(r"\b(MS\d{3}) \[\*\] ([a-z0-9-]+)", page.read_text(encoding="utf-8"))]
    assert shown
    for page, code, symbol in shown:  # `[*]` without --unsafe-fixes: a safe fix
        assert (registry().get(code).symbol, FIXABLE.get(code)) == (symbol, SAFE), (page, code)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    fixable_today = readme.split("Fixable today", 1)[1].split("`mslint --list-rules`", 1)[0]
    assert sorted(set(re.findall(r"MS\d{3}", fixable_today))) == sorted(FIXABLE)


def ruff_habit_rows():
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    table = text.split("## Coming from ruff", 1)[1].split("| habit | comment | command line | reported | exit | ruff |",
                                                          1)[1]
    rows = []
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        habit, comment, command, reported, status, _ = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((habit, comment.strip("`"), shlex.split(command.strip("`")),
                     sorted(code.strip() for code in reported.split(",") if code.strip()), int(status)))
    return rows


def test_the_ruff_habits_table_in_the_configuration_reference_is_what_mslint_does(tmp_path):
    rows = ruff_habit_rows()
    assert len(rows) >= 10
    lines = PRECEDENCE_EXAMPLE.splitlines()
    target = next(i for i, line in enumerate(lines) if "return np.exp" in line)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    for habit, comment, command, reported, status in rows:
        source = "\n".join(lines[:target] + [f"{lines[target]}  {comment}".rstrip()] + lines[target + 1:]) + "\n"
        (tmp_path / "net.py").write_text(source)
        flags = ["--output-format", "json", "--no-cache"]
        files = [] if "-" in command else ["net.py"]
        arguments = (["check"] + flags + command[1:] if command[:1] == ["check"] else flags + command) + files
        result = subprocess.run([sys.executable, "-m", "mslint", *arguments], cwd=tmp_path, capture_output=True,
                                text=True, input=source if "-" in command else None)
        assert result.returncode == status, (habit, result.stderr)
        assert sorted({f["code"] for f in json.loads(result.stdout)}) == reported, habit
        assert "Traceback" not in result.stderr
