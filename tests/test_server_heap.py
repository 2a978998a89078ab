"""The language server's collector policy (mslint.frontends.heap): what the first lint left
alive is frozen out of full collections, and a quiet spell frees what has since become
garbage without ever running beside a lint."""
from __future__ import annotations

import gc
import threading
import weakref

import pytest

from mslint.frontends import heap
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


def test_the_first_lint_does_not_wait_for_a_collection(keeper):
    """The first keystroke after opening a file would wait for it: its garbage goes with the
    first quiet spell."""
    garbage = Node()
    gone = weakref.ref(garbage)
    del garbage
    keeper.after_lint()
    assert gone() is not None and keeper.frozen and keeper.collections == 0
    keeper.when_idle(threading.Lock())
    assert gone() is None and keeper.collections == 1


def test_a_later_lint_freezes_what_it_left_without_collecting(keeper):
    keeper.after_lint()
    first_tree = Node()  # the buffer's tree after the first lint, replaced by the next edit's
    gone = weakref.ref(first_tree)
    frozen = gc.get_freeze_count()
    new_tree = Node()
    del first_tree
    keeper.after_lint()
    assert gc.get_freeze_count() > frozen  # the new tree (and the dead one) frozen as they are
    gc.collect()
    assert gone() is not None and keeper.idle_seconds() == heap.IDLE_SECONDS
    keeper.when_idle(threading.Lock())
    assert gone() is None and isinstance(new_tree, Node)


def test_a_heap_that_outgrows_its_bound_is_collected_sooner_then_at_once(keeper, monkeypatch):
    keeper.after_lint()
    alive = keeper.alive
    monkeypatch.setattr(heap, "MIN_GROWTH", 1000)
    trees = [Node() for _ in range(int(0.6 * max(1000, alive)) + 1)]  # past SOFT_GROWTH
    gone = weakref.ref(trees[0])
    del trees
    keeper.after_lint()
    assert gone() is not None and keeper.idle_seconds() == heap.QUICK_IDLE_SECONDS
    more = [Node() for _ in range(int(2 * max(1000, alive)) + 1)]  # alive, and past HARD_GROWTH: collect now
    keeper.after_lint()
    assert gone() is None and keeper.idle_seconds() == heap.IDLE_SECONDS and len(more) > alive
