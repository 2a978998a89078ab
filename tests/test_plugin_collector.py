"""Loading the pylint plugin sets the command's collector thresholds for the pylint run
(mslint.frontends.pylint_plugin.collect_rarely), and never lowers one the process set higher."""
from __future__ import annotations

import gc

import pytest

from mslint.frontends.pylint_plugin import collect_rarely
from mslint.run.runner import GC_THRESHOLDS


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_python_defaults_are_raised_to_the_commands(thresholds):
    gc.set_threshold(700, 10, 10)
    collect_rarely()
    assert gc.get_threshold() == GC_THRESHOLDS


def test_a_threshold_the_process_set_higher_is_kept(thresholds):
    higher = GC_THRESHOLDS[0] * 4
    gc.set_threshold(higher, 10, 10)
    collect_rarely()
    assert gc.get_threshold() == (higher, GC_THRESHOLDS[1], GC_THRESHOLDS[2])


def test_loading_the_plugin_in_pylint_sets_them(thresholds, tmp_path):
    from pylint.lint import Run

    gc.set_threshold(700, 10, 10)
    module = tmp_path / "empty_module.py"
    module.write_text('"""Nothing to lint."""\n', encoding="utf-8")
    Run(["--load-plugins=mslint", "--disable=all", "--enable=mslint", str(module)], exit=False)
    assert gc.get_threshold() == GC_THRESHOLDS
