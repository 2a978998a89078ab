"""The shipped MindSpore API tables match the installed MindSpore (when the extra is installed)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from mslint import data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_mindspore = pytest.mark.skipif(importlib.util.find_spec("mindspore") is None,
                                     reason="needs the mindspore extra")


def test_shipped_tables_are_present_and_sane():
    tables = data.api_tables()
    assert tables["mindspore_version"].startswith("2.")
    assert {"numpy", "scipy", "math", "random"} <= data.third_party_whitelist()
    assert "mindspore.nn.Cell" in data.cell_classes() and "mindspore.nn.Dense" in data.cell_classes()
    assert data.replacements_for("numpy.where") == ["mindspore.ops.where", "mindspore.numpy.where"]
    assert "mindspore.nn.cell.Cell.trainable_params" in data.jit_forbidden_methods()


@pytest.mark.mindspore
@needs_mindspore
def test_shipped_tables_match_the_installed_mindspore(tmp_path):
    # the generator imports MindSpore, which writes rank_0/ logs into the working directory
    result = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_api_tables.py"), "--check"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
