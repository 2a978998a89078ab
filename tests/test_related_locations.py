"""MS101's related locations: the NumPy/SciPy calls on the data a `.asnumpy()` converted, each
with its own replacement, in every output format (the migration guide's MySampler in GRAPH_MODE)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_project_model import write

SAMPLER = '''
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    from helpers import keep_some


    class MySampler(nn.Cell):
        def __init__(self, max_num):
            super().__init__()
            self.max_num = max_num

        def random_positive(self, pos_inds):
            pos = np.where(pos_inds > 0.5)[0]
            return np.random.choice(pos, self.max_num)

        def construct(self, x):
            data = x.asnumpy()
            picked = self.random_positive(data)
            return ms.Tensor(keep_some(picked))


    if __name__ == "__main__":
        ms.set_context(mode=ms.GRAPH_MODE)
        MySampler(2)(ms.Tensor(np.ones(4, np.float32)))
'''
HELPERS = '''
    from scipy.optimize import linear_sum_assignment


    def keep_some(cost):
        return linear_sum_assignment(cost)[0]
'''


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mslint", "--no-cache", *args], cwd=root, capture_output=True,
                          text=True)


def test_one_ms101_at_the_conversion_lists_the_downstream_calls_with_their_replacements(tmp_path):
    write(tmp_path, {"sampler.py": SAMPLER, "helpers.py": HELPERS})
    findings = json.loads(run(tmp_path, "--format", "json", ".").stdout)
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [("sampler.py", 18, "MS101")]
    related = [(r["path"], r["line"], r["column"], r["message"]) for r in findings[0]["related"]]
    assert related == [
        ("helpers.py", 5, 12, "'linear_sum_assignment' (scipy.optimize.linear_sum_assignment) works on the "
                              "converted data: use mindspore.scipy.optimize.linear_sum_assignment"),
        ("sampler.py", 14, 15, "'np.where' (numpy.where) works on the converted data: use mindspore.ops.where or "
                               "mindspore.numpy.where"),
        ("sampler.py", 15, 16, "'np.random.choice' (numpy.random.choice) works on the converted data: use "
                               "mindspore.ops.RandomChoiceWithMask"),
    ]


def test_related_locations_in_sarif_and_text(tmp_path):
    write(tmp_path, {"sampler.py": SAMPLER, "helpers.py": HELPERS})
    sarif = json.loads(run(tmp_path, "--format", "sarif", ".").stdout)
    result, = sarif["runs"][0]["results"]
    places = [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
              for r in result["relatedLocations"]]
    assert places == [("helpers.py", 5), ("sampler.py", 14), ("sampler.py", 15)]
    assert [r["id"] for r in result["relatedLocations"]] == [1, 2, 3]
    text = run(tmp_path, ".").stdout.splitlines()
    assert "    related: sampler.py:14:15: 'np.where' (numpy.where) works on the converted data: use " \
           "mindspore.ops.where or mindspore.numpy.where" in text


def test_no_related_locations_without_downstream_numpy(tmp_path):
    write(tmp_path, {"net.py": '''
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                return ms.Tensor(x.asnumpy() * 2)
    '''})
    findings = json.loads(run(tmp_path, "--format", "json", ".").stdout)
    assert [f["code"] for f in findings] == ["MS101"] and findings[0]["related"] == []
