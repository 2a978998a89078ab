"""benchmarks/practice_corpus.py and mirror_trees.py: the recorded split is the seed's split,
the review sample is stratified and reproducible, and extraction skips what a snapshot lacks."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        yield importlib.import_module("practice_corpus")
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


def test_recorded_split_is_the_seeded_draw(corpus):
    entries = corpus.read_manifest()
    assert len(entries) >= 12
    drawn = corpus.draw_split([e["name"] for e in entries])
    assert {e["name"]: e["half"] for e in entries} == drawn
    halves = [e["half"] for e in entries]
    assert abs(halves.count("tuning") - halves.count("held-out")) <= 1
    assert all(len(e["commit"]) == 40 for e in entries)


def test_split_depends_on_the_names_not_their_order(corpus):
    names = ["b/two", "a/one", "c/three", "d/four"]
    assert corpus.draw_split(names) == corpus.draw_split(list(reversed(names)))
    assert list(corpus.draw_split(names).values()).count("tuning") == 2


def _finding(code, line, repo="o/r"):
    return {"code": code, "repository": repo, "path": "m.py", "line": line, "column": 1,
            "message": f"{code} at {line}", "severity": "error"}


def test_sample_takes_at_most_per_rule_of_each_rule_and_repeats(corpus):
    findings = [_finding("MS101", n) for n in range(1, 31)] + [_finding("MS703", n) for n in range(1, 4)]
    sample = corpus.draw_sample(findings, per_rule=10, seed=7)
    assert [f["code"] for f in sample].count("MS101") == 10
    assert [f["code"] for f in sample].count("MS703") == 3
    assert {f["rule_total"] for f in sample if f["code"] == "MS101"} == {30}
    again = corpus.draw_sample(list(reversed(findings)), per_rule=10, seed=7)
    assert [(f["code"], f["line"]) for f in again] == [(f["code"], f["line"]) for f in sample]


def test_extract_skips_blobs_the_snapshot_lacks_and_links(corpus, tmp_path):
    mirror_trees = sys.modules["mirror_trees"]
    work = tmp_path / "work"
    work.mkdir()
    (work / "pkg").mkdir()
    (work / "pkg" / "a.py").write_text("x = 1\ny = 2\n")
    (work / "big.py").write_text("z = 3\n")
    os.symlink("/etc/passwd", work / "link")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "c"], check=True)
    gitdir = str(work / ".git")
    big = subprocess.run(["git", "--git-dir", gitdir, "rev-parse", "HEAD:big.py"], check=True,
                         capture_output=True, text=True).stdout.strip()
    os.remove(os.path.join(gitdir, "objects", big[:2], big[2:]))  # as a snapshot without files >= 4 MiB

    dest = tmp_path / "tree"
    missing = mirror_trees.extract(gitdir, mirror_trees.head_commit(gitdir), str(dest))
    assert missing == 1
    assert (dest / "pkg" / "a.py").read_text() == "x = 1\ny = 2\n"
    assert not (dest / "big.py").exists()
    assert not (dest / "link").exists() and not (dest / "link").is_symlink()
    assert mirror_trees.count_python(str(dest)) == (1, 2)


def test_run_refuses_an_output_folder_inside_the_repository(corpus, capsys):
    assert corpus.main(["run", "--half", "tuning", "--out", str(REPO / "results")]) == 2
    assert "outside the repository" in capsys.readouterr().err
    assert not (REPO / "results").exists()


def test_missing_manifest_is_a_clear_error(corpus, capsys, tmp_path):
    assert corpus.main(["--manifest", str(tmp_path / "none.toml"), "extract"]) == 2
    assert "none.toml" in capsys.readouterr().err
