"""scripts/recall_candidates.py: issue 30's syntactic candidates, their subtraction from findings
written with tree-relative paths, and the per-pattern recall review that records them."""
from __future__ import annotations

import importlib
import json
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NEW30 = (r"^(range non-constant bound|divmod\(\)|set\(\) call|comprehension 2\+ for|raise unaccepted type|"
         r"truth of tensor-op name|self container changed|self container item set|"
         r"self\.<argument copy> assigned|return dict)$")

ERRORS = """
class BadInput(ValueError):
    pass
"""

NET = """
from mindspore import nn, ops
from .errors import BadInput


class Net(nn.Cell):
    def __init__(self, scale, n):
        super().__init__()
        self.scale = scale
        self.n = n
        self.hist = []
        self.other = 0

    def construct(self, x, k):
        for i in range(k):
            x = x + i
        for i in range(self.n):
            x = x + i
        for i in range(x.shape[0] * 2):
            x = x + i
        for i in range(len(x)):
            x = x + i
        pairs = [a * b for a in x for b in x]
        singles = [a for a in x if a]
        mask = x > 0
        if mask:
            x = x * 2
        total = ops.sum(x)
        if total.item():
            x = x * 3
        if not total:
            raise BadInput("bad")
        if k is None:
            raise ValueError("accepted type")
        q = divmod(x, 2)
        self.hist.append(x)
        self.hist[0] = x
        self.scale = x
        self.other = x
        labels = set(singles)
        self.helper()
        return {"x": x}

    def helper(self):
        return {"a": 1}
"""


@pytest.fixture(scope="module")
def recall():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        yield importlib.import_module("recall_candidates")
    finally:
        sys.path.remove(str(REPO / "scripts"))


@pytest.fixture()
def project(tmp_path):
    package = tmp_path / "corpus" / "proj" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "errors.py").write_text(textwrap.dedent(ERRORS))
    (package / "net.py").write_text(textwrap.dedent(NET))
    return tmp_path / "corpus"


def _line(text: str) -> int:
    """The 1-based line of net.py whose stripped text is `text`."""
    return next(number for number, line in enumerate(NET.splitlines(), 1) if line.strip() == text)


def test_issue30_forms_are_listed_where_they_are(recall, project):
    found, _ = recall.candidates_of("proj", str(project / "proj"), NEW30)
    got = {(c["line"], c["family"], c["pattern"]) for c in found}
    expected = {
        (_line("for i in range(k):"), "MS8", "range non-constant bound"),
        (_line("pairs = [a * b for a in x for b in x]"), "MS8", "comprehension 2+ for"),
        (_line("if mask:"), "MS8", "truth of tensor-op name"),
        (_line("if not total:"), "MS8", "truth of tensor-op name"),
        (_line('raise BadInput("bad")'), "MS8", "raise unaccepted type"),
        (_line("q = divmod(x, 2)"), "MS8", "divmod()"),
        (_line("self.hist.append(x)"), "MS2", "self container changed"),
        (_line("self.hist[0] = x"), "MS2", "self container item set"),
        (_line("self.scale = x"), "MS7", "self.<argument copy> assigned"),
        (_line("labels = set(singles)"), "MS2", "set() call"),
        (_line('return {"x": x}'), "MS2", "return dict"),
    }
    assert got == expected  # nothing else: static bounds, one-clause comprehensions, accepted raises, .item()


def test_findings_with_tree_relative_paths_count_as_reported(recall, project):
    found, _ = recall.candidates_of("proj", str(project / "proj"), NEW30)
    line = _line("pairs = [a * b for a in x for b in x]")
    findings = [{"path": "pkg/net.py", "line": line, "code": "MS809", "message": "two for clauses"}]
    recall.subtract(found, findings, str(project / "proj"))
    reported = {(c["line"], c["pattern"]) for c in found if c["reported"]}
    assert reported == {(line, "comprehension 2+ for")}


def test_per_pattern_estimate_uses_each_patterns_share(recall):
    cands = [{"family": "MS8", "pattern": "range", "reported": False} for _ in range(10)]
    cands += [{"family": "MS8", "pattern": "divmod", "reported": False} for _ in range(2)]
    cands += [{"family": "MS8", "pattern": "divmod", "reported": True}]
    sample = [{"family": "MS8", "pattern": "range", "verdict": v} for v in ("MISSED", "NOT A PROBLEM")]
    sample += [{"family": "MS8", "pattern": "divmod", "verdict": "MISSED"} for _ in range(2)]
    findings = {"c": [{"code": "MS812"}, {"code": "MS808"}, {"code": "MS101"}]}
    row, = recall.estimate_by_pattern(cands, findings, sample, {"MS8": {"MS808", "MS812"}})
    assert row["missed_estimate"] == 7.0  # 10 * 1/2 + 2 * 2/2 (divmod reviewed completely)
    assert row["findings"] == 2 and row["reported"] == 1
    assert row["recall"] == round(2 / 9, 3)


def test_recorded_review_is_complete():
    review = json.loads((REPO / "benchmarks" / "review" / "recall-30.json").read_text(encoding="utf-8"))
    assert review["seed"] == 2030 and review["sample"]
    for entry in review["sample"]:
        assert entry["verdict"] in ("MISSED", "NOT A PROBLEM")
        assert entry["reason"] and entry["family"] in ("MS2", "MS7", "MS8")
        assert "\n" not in entry["snippet"] and len(entry["snippet"]) <= 100
        assert entry["half"].startswith(("batch 1 ", "batch 2 "))
