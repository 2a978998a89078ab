"""A branch on a class's `__init__` default that every call of the class in the project keeps.

`if self.use_np:` with `use_np=False` is compiled only for a cell built with another value
(MindSpore 2.10: tests/test_parameter_defaults.py).  When the project builds the class itself,
with the default everywhere, and nothing else can build it, no program of the project compiles
that branch: mslint does not report it.  Whenever a use of the class cannot be read (a string,
a re-export, `**config`, a subclass, a registry), the branch stays reachable, and its findings
say when it is compiled.  The answer depends on other files, which the result cache tracks.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

from mslint import instantiations
from mslint.project import Project

BLOCKS = '''
    import numpy as np
    from mindspore import nn


    def embed(x, output_type="np"):
        if output_type == "np":
            return np.einsum("m,d->md", x, x)
        return x


    class Head(nn.Cell):
        """A head; Head(4) builds one."""

        def __init__(self, dim, output_type="ms", use_np=False):
            super().__init__()
            self.output_type = output_type
            self.use_np = use_np

        def construct(self, x):
            if self.use_np:
                x = np.tanh(x)
            return embed(x, output_type=self.output_type)
'''
MODEL = '''
    from mindspore import nn

    from pkg.blocks import Head


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = {head}  # a Head, built with what the project passes

        def construct(self, x):
            return self.head(x)
'''
TANH = ("pkg/blocks.py", 21, "MS102")  # behind `if self.use_np:`
EINSUM = ("pkg/blocks.py", 7, "MS102")  # in the helper, behind output_type == "np"


def write(root: Path, files: Dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def project(root: Path, head: str = "Head(4)", **more: str) -> Path:
    write(root, {"pyproject.toml": "[project]\nname = 'heads'\n", "pkg/__init__.py": "",
                 "pkg/blocks.py": BLOCKS, "pkg/model.py": MODEL.format(head=head), **more})
    return root


def mslint(root: Path, *args: str) -> List[dict]:
    result = subprocess.run([sys.executable, "-m", "mslint.cli", "--format", "json", *args], cwd=root,
                            capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def places(findings: List[dict]) -> set:
    return {(f["path"], f["line"], f["code"]) for f in findings}


def test_a_branch_every_call_of_the_class_leaves_out_is_not_reported(tmp_path):
    project(tmp_path)
    assert mslint(tmp_path, "--no-cache", "pkg") == []
    assert mslint(tmp_path, "--no-cache", "pkg/blocks.py") == []  # the file alone: its importers are read


def test_the_plugin_agrees(tmp_path):
    project(tmp_path, head='Head(4, output_type="np")')
    result = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all",
                             "--enable=mslint", "--output-format=json2", "pkg"],
                            cwd=tmp_path, capture_output=True, text=True)
    messages = json.loads(result.stdout)["messages"]
    assert {(m["path"], m["line"], "MS" + m["messageId"][2:]) for m in messages} == {EINSUM}
    assert places(mslint(tmp_path, "--no-cache", "pkg")) == {EINSUM}


@pytest.mark.parametrize("head, found", [
    ("Head(4, use_np=True)", {TANH}),  # every call passes the other value: compiled
    ('Head(4, "np")', {EINSUM}),  # positionally
    ("Head(4, use_np=False)", set()),  # the default, spelled out
    ('Head(4, output_type="ms", use_np=0)', {TANH}),  # 0 is not False to this check: reachable
])
def test_what_the_calls_pass_decides(tmp_path, head, found):
    project(tmp_path, head=head)
    assert places(mslint(tmp_path, "--no-cache", "pkg")) == found


def test_calls_that_disagree_leave_the_branch_reachable_and_say_when_it_is_compiled(tmp_path):
    project(tmp_path, **{"pkg/train.py": "from pkg.blocks import Head\n\nhead = Head(8, use_np=True)\n"})
    [finding] = mslint(tmp_path, "--no-cache", "pkg")
    assert (finding["path"], finding["line"], finding["code"]) == TANH
    assert finding["message"].endswith("(only compiled when the caller passes use_np to Head() other than its "
                                       "default False)")


@pytest.mark.parametrize("extra", [
    {"pkg/__init__.py": "from pkg.blocks import Head\n"},  # re-exported by the package
    {"pkg/__init__.py": "from pkg.blocks import *\n"},  # every public name exported
    {"pkg/api.py": '__all__ = ["Head"]\n'},  # named in a string
    {"pkg/train.py": "from pkg.blocks import Head\n\nconfig = {}\nhead = Head(8, **config)\n"},
    {"pkg/train.py": "from pkg.blocks import Head\n\nHEADS = {'h': Head}\n"},  # a registry
    {"pkg/train.py": "from pkg.blocks import Head\n\n\nclass Wide(Head):\n    pass\n"},  # a subclass
    {"pkg/train.py": "from pkg.blocks import Head as H\n\nhead = H(8, use_np=True)\n"},  # another name
    {"pkg/other.py": "class Head:\n    pass\n"},  # two classes of that name
])
def test_a_use_that_cannot_be_read_leaves_the_branch_reachable(tmp_path, extra):
    project(tmp_path, **extra)
    assert places(mslint(tmp_path, "--no-cache", "pkg")) == {TANH, EINSUM}


def test_a_class_the_project_never_builds_is_a_librarys_whose_users_choose(tmp_path):
    project(tmp_path, head="None")
    findings = mslint(tmp_path, "--no-cache", "pkg")
    assert places(findings) == {TANH, EINSUM}
    assert all("only compiled when the caller passes" in f["message"] for f in findings)


def test_mentions_that_build_nothing_do_not_count(tmp_path):
    train = '''
        from typing import Optional

        from pkg.blocks import Head  # Head("np") would compile the NumPy branch


        def size(head: Optional[Head] = None) -> int:
            """Say `Head(4, use_np=True)` to get the NumPy one."""
            return 1 if isinstance(head, Head) else 0


        head = Head(2)
    '''
    project(tmp_path, **{"pkg/train.py": train})
    assert mslint(tmp_path, "--no-cache", "pkg") == []


def test_a_new_file_that_builds_the_class_otherwise_invalidates_the_cache(tmp_path):
    project(tmp_path)
    assert mslint(tmp_path, "pkg/blocks.py") == []
    assert mslint(tmp_path, "pkg/blocks.py") == []  # from the cache
    (tmp_path / "pkg" / "train.py").write_text('from pkg.blocks import Head\n\nhead = Head(2, output_type="np")\n')
    assert places(mslint(tmp_path, "pkg/blocks.py")) == {EINSUM}
    (tmp_path / "pkg" / "train.py").unlink()
    assert mslint(tmp_path, "pkg/blocks.py") == []
    (tmp_path / "pkg" / "model.py").write_text(textwrap.dedent(MODEL.format(head="Head(4, use_np=True)")))
    assert places(mslint(tmp_path, "pkg")) == {TANH}


# -- the reading of the calls, on its own -------------------------------------------------
SIGNATURE = (("dim", "output_type", "use_np"), ("scale",))


def keeps(tmp_path, calls: str, parameter: str, default) -> bool:
    project(tmp_path, **{"pkg/train.py": "from pkg.blocks import Head\n\n" + calls})
    model = Project(str(tmp_path))
    return instantiations.keeps_default(model, str(tmp_path / "pkg" / "blocks.py"), "Head", parameter, SIGNATURE,
                                        default)


@pytest.mark.parametrize("calls, parameter, default, kept", [
    ("a = Head(1)\n", "use_np", False, True),
    ("a = Head(1, 'ms', False)\n", "use_np", False, True),
    ("a = Head(1, 'ms', True)\n", "use_np", False, False),
    ("a = Head(1, use_np=flag)\n", "use_np", False, False),  # not a literal
    ("a = Head(1, scale=2.0)\n", "scale", 1.0, False),  # keyword-only
    ("a = Head(1)\n", "scale", 1.0, True),
    ("a = Head(1, output_type='ms' if x else 'np')\n", "output_type", "ms", False),
])
def test_keeps_default_reads_positional_keyword_and_left_out_arguments(tmp_path, calls, parameter, default, kept):
    assert keeps(tmp_path, calls, parameter, default) is kept


def test_keeps_default_is_about_the_class_of_that_file(tmp_path):
    project(tmp_path)
    model = Project(str(tmp_path))
    assert instantiations.keeps_default(model, str(tmp_path / "pkg" / "blocks.py"), "Head", "use_np", SIGNATURE, False)
    assert not instantiations.keeps_default(model, str(tmp_path / "pkg" / "model.py"), "Head", "use_np", SIGNATURE,
                                            False)
