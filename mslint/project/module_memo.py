"""Facts computed once per astroid module object and kept on the object itself, so that
they go when the module goes.

A WeakKeyDictionary keyed by the module cannot do this: its values hold the module's own
nodes, whose parent links lead back to the module, so an entry keeps its key alive and no
entry ever goes.  Two such tables (the names a module spells, its classes that convert
tensors) kept every module a run had evicted from its store: 80 s into a one-process run on
mindone, 855 trees were alive with 192 in the store, and the run peaked at 5,194 MiB; with
the facts kept on the modules, 217 trees and a peak of 743 MiB.
"""
from __future__ import annotations

from typing import Callable, TypeVar

Value = TypeVar("Value")
_ATTRIBUTE = "_mslint_memo"
BUFFER = "_mslint_buffer"  # set on a buffer's module by the module store (mslint.run.runner)


def memo(module, name, compute: Callable[[], Value]) -> Value:
    """`compute()` for this module, once: kept on the module under `name`."""
    store = module.__dict__.get(_ATTRIBUTE)
    if store is None:
        store = module.__dict__[_ATTRIBUTE] = {}
    if name not in store:
        store[name] = compute()
    return store[name]


def statement_memo(statement, name, compute: Callable[[], Value]) -> Value:
    """`compute()` (which may read only the statement's own nodes), kept on the statement when
    it is a top-level statement of a buffer's module, else computed."""
    parent = statement.parent
    if parent is None or not parent.__dict__.get(BUFFER):
        return compute()
    return memo(statement, name, compute)


def top_statement(node):
    """The top-level statement that holds `node` (the node itself if it is one); None for a
    module.  (A top-level statement is the node whose parent has no parent: no isinstance
    check on the way up, which runs for every local lookup.)"""
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    return node if node.parent is not None else None


def buffer_statement(node):
    """The top-level statement of a buffer's module that holds `node`, on which facts about
    its own nodes may be kept; None when `node` is not in a buffer."""
    statement = top_statement(node)
    return statement if statement is not None and statement.parent.__dict__.get(BUFFER) else None


def subtree_memo(node, name: str, compute: Callable[[], Value]) -> Value:
    """statement_memo for a fact about `node`'s own subtree, kept on its top-level statement."""
    statement = buffer_statement(node)
    if statement is None:
        return compute()
    return memo(statement, (name, node), compute)
