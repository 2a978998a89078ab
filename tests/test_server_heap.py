"""The language server's collector policy (mslint.frontends.heap): what the first lint left
alive is frozen out of full collections, and a quiet spell frees what has since become
garbage without ever running beside a lint."""
from __future__ import annotations

import gc
import threading
import weakref

import pytest

from mslint.frontends.heap import HeapKeeper
from mslint.run.runner import GC_THRESHOLDS


class Node:
    """A cycle, as astroid's trees are (parent links): only a full collection frees it."""

    def __init__(self):
        self.me = self


@pytest.fixture
def keeper():
    saved = gc.get_threshold()
    keeper = HeapKeeper()
    keeper.start()
    yield keeper
    gc.unfreeze()  # (the test process's heap goes back to normal)
    gc.set_threshold(*saved)


def test_a_keeper_that_was_not_started_changes_nothing():
    saved = gc.get_threshold()
    keeper = HeapKeeper()
    keeper.after_lint()
    keeper.when_idle(threading.Lock())
    assert gc.get_freeze_count() == 0 and not keeper.frozen and keeper.collections == 0
    assert gc.get_threshold() == saved


def test_the_first_lint_freezes_and_a_quiet_spell_frees_what_died_meanwhile(keeper):
    assert gc.get_threshold() == GC_THRESHOLDS
    kept = Node()  # alive at the first lint: the project model, the kept modules
    old_tree = Node()  # alive at the first lint, replaced later (a buffer's old tree)
    gone = weakref.ref(old_tree)
    keeper.after_lint()
    assert keeper.frozen and gc.get_freeze_count() > 0
    frozen = gc.get_freeze_count()
    keeper.after_lint()  # only once
    assert gc.get_freeze_count() == frozen
    del old_tree
    gc.collect()
    assert gone() is not None  # frozen: full collections skip it
    lock = threading.Lock()
    with lock:  # a lint holds the analysis lock: no collection beside it
        keeper.when_idle(lock)
    assert gone() is not None and keeper.collections == 0
    keeper.when_idle(lock)
    assert gone() is None and keeper.collections == 1
    assert isinstance(kept, Node) and gc.get_freeze_count() > 0  # what lives is frozen again
