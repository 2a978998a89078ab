"""A warm run reads the rules' metadata from a snapshot instead of importing the checkers
(mslint.rule_snapshot); the findings are the same either way, and a bad snapshot is ignored."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import textwrap

from mslint import rule_snapshot
from mslint.checkers import all_family_rules

MODEL = """
import numpy as np
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        return np.sum(x.asnumpy())
"""

# Runs the command in a fresh interpreter and says whether it imported astroid (the checkers' cost).
PROBE = textwrap.dedent("""
    import json, sys
    from mslint.frontends.cli import main
    code = main(sys.argv[1:])
    print(json.dumps({"exit": code, "astroid": "astroid" in sys.modules}), file=sys.stderr)
""")


def run(tmp_path, *args):
    environment = dict(os.environ, MSLINT_CACHE_DIR=str(tmp_path / "cache"))
    process = subprocess.run([sys.executable, "-c", PROBE, "--format", "json", *args], cwd=tmp_path,
                             env=environment, capture_output=True, text=True, timeout=120)
    probe = json.loads(process.stderr.strip().splitlines()[-1])
    return json.loads(process.stdout), probe


def write_project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "model.py").write_text(MODEL.lstrip())
    (tmp_path / "other.py").write_text("import mindspore\n\n\ndef f():\n    return 1\n")


def snapshot_files(tmp_path):
    return glob.glob(str(tmp_path / "cache" / "rules-*.json"))


def test_a_warm_run_does_not_import_the_checkers_and_finds_the_same(tmp_path):
    write_project(tmp_path)
    cold, cold_probe = run(tmp_path, "model.py", "other.py")
    assert cold_probe["astroid"] is True
    assert [(f["code"], f["line"]) for f in cold] == [("MS101", 8)]
    assert len(snapshot_files(tmp_path)) == 1

    warm, warm_probe = run(tmp_path, "model.py", "other.py")
    assert warm_probe["astroid"] is False
    assert warm == cold


def test_a_warm_run_with_one_changed_file_still_runs_every_rule_on_it(tmp_path):
    write_project(tmp_path)
    run(tmp_path, "model.py", "other.py")
    (tmp_path / "other.py").write_text(MODEL.lstrip().replace("np.sum(x.asnumpy())", "np.mean(x.asnumpy())"))
    found, probe = run(tmp_path, "model.py", "other.py")
    assert probe["astroid"] is True  # other.py is analysed: the checks are loaded onto the snapshot's rules
    assert sorted((os.path.basename(f["path"]), f["code"], f["line"]) for f in found) == [
        ("model.py", "MS101", 8), ("other.py", "MS101", 8)]
    assert all(f["symbol"] == "tensor-to-numpy-in-graph" for f in found)


def test_a_damaged_snapshot_is_ignored(tmp_path):
    write_project(tmp_path)
    cold, _ = run(tmp_path, "model.py")
    [snapshot] = snapshot_files(tmp_path)
    with open(snapshot, "w", encoding="utf-8") as handle:
        handle.write('{"format": 1, "rules": [{"code": "MS101"}]')
    again, probe = run(tmp_path, "model.py")
    assert again == cold
    assert probe["astroid"] is True  # read the checkers instead


def test_no_cache_writes_no_snapshot(tmp_path):
    write_project(tmp_path)
    found, _ = run(tmp_path, "--no-cache", "model.py")
    assert [f["code"] for f in found] == ["MS101"]
    assert snapshot_files(tmp_path) == []


def test_the_snapshot_holds_every_rule_as_the_checkers_define_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path))
    rules = list(all_family_rules())
    rule_snapshot.save(rules)
    records = rule_snapshot.load()
    assert [r["code"] for r in records] == [r.code for r in rules]
    for record, rule in zip(records, rules):
        assert record == {"code": rule.code, "symbol": rule.symbol, "severity": rule.severity,
                          "summary": rule.summary, "fix": rule.fix, "default_enabled": rule.default_enabled}
