"""Facts kept per module object go with the module (mslint.project.module_memo)."""
import weakref

import astroid

from mslint.analysis import mentions, parent_cells
from mslint.project.module_memo import memo

SOURCE = '''
class Head(Cell):
    def construct(self, x):
        return x.asnumpy()


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def construct(self, x):
        return self.head(x)
'''


def test_a_memo_is_computed_once_per_module_object():
    module = astroid.parse("x = 1\n")
    calls = []
    assert memo(module, "answer", lambda: calls.append(1) or 42) == 42
    assert memo(module, "answer", lambda: calls.append(1) or 43) == 42
    assert calls == [1]
    assert memo(astroid.parse("x = 1\n"), "answer", lambda: 7) == 7  # another object, its own memo


def test_the_names_and_converting_classes_of_a_module_are_kept_on_the_module():
    # they were kept in module-level WeakKeyDictionaries whose values held the module's own
    # nodes, so each entry kept its key alive: every module a long run evicted from its store
    # stayed in memory (mindone, one process: 855 trees alive with 192 in the store, 5 GiB)
    module = astroid.parse(SOURCE, module_name="memo_probe")
    astroid.MANAGER.astroid_cache.pop("memo_probe", None)
    assert [node.lineno for node in mentions.mentions(module, "Head")] == [10]
    assert [cls.name for cls, _ in parent_cells._converting_classes(module, SOURCE.encode())] == ["Head"]
    assert set(module.__dict__["_mslint_memo"]) == {"mentions", "converting classes"}
    for table_owner in (mentions, parent_cells):
        for name, value in vars(table_owner).items():
            assert not isinstance(value, (weakref.WeakKeyDictionary, dict)) or not any(
                key is module for key in list(value)), f"{table_owner.__name__}.{name} holds the module"
