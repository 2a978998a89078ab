"""Module resolution as Python does it, and Cell base classes from libraries.

Each test writes a small project to disk and runs the real `mslint` command and
`pylint --load-plugins=mslint` on it in subprocesses: both must report the same findings.
(Findings in helpers of *other* modules are the project model's business, not tested here:
every finding below is in the construct of the class whose base is elsewhere.)
"""
from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, Optional, Set, Tuple

Finding = Tuple[str, str, int, str]  # code, path, line, message

NUMPY_SUM = "NumPy function 'np.sum' (numpy.sum) is applied to a tensor in graph code."


def write(root: Path, files: Dict[str, str]) -> None:
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")


def _environment(pythonpath: Optional[str]) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def run_mslint(root: Path, *paths: str, pythonpath: Optional[str] = None, select: str = "MS1,MS2,MS4,MS6") -> Set[Finding]:
    done = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "--no-cache", "--select", select,
                           *(paths or ("."))], cwd=root, capture_output=True, text=True, env=_environment(pythonpath),
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return {(f["code"], f["path"], f["line"], f["message"]) for f in json.loads(done.stdout)}


def run_pylint(root: Path, *paths: str, pythonpath: Optional[str] = None) -> Set[Finding]:
    done = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=mslint", "--disable=all", "--enable=mslint",
                           "--output-format=json2", *(paths or ("."))], cwd=root, capture_output=True, text=True,
                          env=_environment(pythonpath), timeout=300)
    assert done.stdout, done.stderr
    # (the plugin's message names the command that fixes a fixable finding; the command's does not)
    return {("MS" + m["messageId"][2:], m["path"], m["line"], re.sub(r" \(fixable: mslint --fix[^)]*\)$", "", m["message"]))
            for m in json.loads(done.stdout)["messages"]}


def both(root: Path, *paths: str, pythonpath: Optional[str] = None) -> Set[Tuple[str, str, int]]:
    """(code, path, line) of every finding, after checking both front-ends agree (messages too)."""
    command = run_mslint(root, *paths, pythonpath=pythonpath)
    plugin = run_pylint(root, *paths, pythonpath=pythonpath)
    assert command == plugin
    return {(code, path, line) for code, path, line, _ in command}


def messages(root: Path, *paths: str, pythonpath: Optional[str] = None) -> Dict[Tuple[str, int], str]:
    return {(path, line): message for _, path, line, message in run_mslint(root, *paths, pythonpath=pythonpath)}


BASE_CELL = """
from mindspore import nn


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2
"""

SUBCLASS = """
import numpy as np
{import_line}


class Net(Base):
    def construct(self, x):
        return np.sum(x)
"""


# -- namespace packages, sibling modules, src layout -------------------------------------------
def test_namespace_src_imported_from_train_py(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "src/base.py": BASE_CELL,
        "src/net.py": SUBCLASS.format(import_line="from .base import Base"),  # relative, inside a namespace package
        "src/models/deep.py": SUBCLASS.format(import_line="from ..base import Base"),
        "train.py": SUBCLASS.format(import_line="from src.base import Base"),
    })
    assert both(tmp_path) == {("MS102", "src/net.py", 7), ("MS102", "src/models/deep.py", 7),
                              ("MS102", "train.py", 7)}
    # each file alone too
    assert both(tmp_path, "train.py") == {("MS102", "train.py", 7)}
    assert both(tmp_path, "src/models/deep.py") == {("MS102", "src/models/deep.py", 7)}


def test_network_factory_across_a_namespace_package(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "src/model.py": """
            import mindspore as ms
            from mindspore import nn


            class Network(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Dense(4, 2)
                    self.head.to_float(ms.float32)

                def construct(self, x):
                    return self.head(x)
        """,
        "train.py": """
            from mindspore import nn
            from mindspore.train import Model
            from src.model import Network

            net = Network()
            model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O2")
        """,
    })
    assert both(tmp_path) == {("MS601", "train.py", 6)}


def test_sibling_module_imported_script_style(tmp_path):
    write(tmp_path, {
        "project/helpers.py": BASE_CELL,
        "project/model.py": SUBCLASS.format(import_line="from helpers import Base"),
    })
    assert both(tmp_path / "project") == {("MS102", "model.py", 7)}


def test_src_layout(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'layout'\n",
        "src/layout/__init__.py": "",
        "src/layout/base.py": BASE_CELL,
        "tests/test_net.py": SUBCLASS.format(import_line="from layout.base import Base"),
    })
    assert both(tmp_path, "tests") == {("MS102", "tests/test_net.py", 7)}


def test_star_reexports_in_a_package_init(tmp_path):
    # pkg/models/__init__ star-imports common (which defines BaseNet) and then layers, which
    # imports BaseNet back from the package: the name is common's BaseNet, a Cell (a plain
    # class of the same name elsewhere in the project must not be taken for it)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common.py": "class BaseNet:\n    pass\n",
        "pkg/models/__init__.py": "from .common import *\nfrom .layers import *\n",
        "pkg/models/common.py": BASE_CELL.replace("class Base(", "class BaseNet("),
        "pkg/models/layers.py": SUBCLASS.format(import_line="from pkg.models import BaseNet").replace(
            "(Base)", "(BaseNet)"),
        "model.py": SUBCLASS.format(import_line="from pkg.models import BaseNet").replace("(Base)", "(BaseNet)"),
        "plain.py": SUBCLASS.format(import_line="from pkg.common import BaseNet").replace("(Base)", "(BaseNet)"),
    })
    assert both(tmp_path) == {("MS102", "pkg/models/layers.py", 7), ("MS102", "model.py", 7)}


def test_mindspore_numpy_as_np_is_not_numpy(tmp_path):
    write(tmp_path, {
        "project/helpers.py": BASE_CELL,
        "project/model.py": SUBCLASS.format(import_line="from helpers import Base").replace(
            "import numpy as np", "import mindspore.numpy as np"),
    })
    assert both(tmp_path / "project") == set()


# -- library base classes ------------------------------------------------------------------------
PORT = """
import numpy as np
import mindspore
from mindspore import ops
from mindnlp.transformers.modeling_utils import PreTrainedModel
from ...modeling_utils import PreTrainedModel as Relative

AVAILABLE = True


class Bert(PreTrainedModel):
    def construct(self, x):
        return np.sum(x)


class Roberta(Relative):
    def construct(self, x, mask):
        return ops.masked_select(x, mask)


class Quant(mindspore.nn.Cell if AVAILABLE else object):
    def construct(self, x):
        return np.sum(x)


class Pooler(PreTrainedModel):
    def forward(self, x):
        return np.sum(x)


class Tiny(Bert):
    def helper(self, x):
        return x
"""


def test_unresolved_library_base_relative_import_out_of_tree_and_conditional_base(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"models/bert/modeling_bert.py": PORT})
    assert both(tmp_path) == {("MS102", "models/bert/modeling_bert.py", 12),
                              ("MS401", "models/bert/modeling_bert.py", 17),
                              ("MS102", "models/bert/modeling_bert.py", 22)}
    found = messages(tmp_path)
    assert found[("models/bert/modeling_bert.py", 12)].endswith(
        " Bert is taken for a Cell: its base PreTrainedModel could not be resolved.")
    assert found[("models/bert/modeling_bert.py", 17)].endswith(
        " Roberta is taken for a Cell: its base PreTrainedModel could not be resolved.")  # the class's name, not the alias
    assert found[("models/bert/modeling_bert.py", 22)].endswith(
        " Quant is taken for a Cell: its base 'mindspore.nn.Cell if AVAILABLE else object' is a Cell when its "
        "condition holds.")


def test_no_assumption_without_mindspore_or_without_construct(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        # construct, unresolved base, but the module does not import mindspore
        "torch_port.py": """
            import numpy as np
            from transformers.modeling_utils import PreTrainedModel


            class Bert(PreTrainedModel):
                def construct(self, x):
                    return np.sum(x)
        """,
        # imports mindspore, unresolved base, but no construct: nothing is compiled
        "no_construct.py": """
            import numpy as np
            import mindspore
            from mindnlp.transformers.modeling_utils import PreTrainedModel


            class Bert(PreTrainedModel):
                def forward(self, x):
                    return np.sum(x)
        """,
        # a base from the standard library is resolved: not a Cell
        "stdlib_base.py": """
            import abc
            import numpy as np
            import mindspore


            class Scorer(abc.ABC):
                def construct(self, x):
                    return np.sum(x)
        """,
    })
    assert both(tmp_path) == set()


def test_extra_cell_bases_names_a_library_class(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "pyproject.toml": "[tool.mslint]\nextra-cell-bases = ['mindformers.models.base_model.BaseModel']\n",
        "model.py": """
            import numpy as np
            from mindformers.models.base_model import BaseModel


            class Llama(BaseModel):
                def construct(self, x):
                    return np.sum(x)
        """,
    })
    # the module never imports mindspore: only the configuration makes BaseModel a Cell
    found = messages(tmp_path)
    assert list(found) == [("model.py", 7)] and "taken for a Cell" not in found[("model.py", 7)]
    assert both(tmp_path) == {("MS102", "model.py", 7)}


def test_bad_extra_cell_bases_is_a_one_line_error(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.mslint]\nextra-cell-bases = [3]\n", "model.py": "x = 1\n"})
    done = subprocess.run([sys.executable, "-m", "mslint", "."], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mslint: error: {tmp_path / 'pyproject.toml'}: [tool.mslint] extra-cell-bases: expected a list of strings, got [3]"]


INSTALLED = {
    "site/fakelib/__init__.py": "",
    "site/fakelib/mixins.py": "class Mixin:\n    pass\n",
    "site/fakelib/models/__init__.py": "from .base import *\n",
    "site/fakelib/models/base.py": """
        from mindspore import nn
        from ..mixins import Mixin


        class LibCell(Mixin, nn.Cell):
            pass


        class NotACell(Mixin):
            pass
    """,
    "project/model.py": """
        import numpy as np
        import mindspore
        from fakelib.models import LibCell, NotACell


        class Net(LibCell):
            def construct(self, x):
                return np.sum(x)


        class Other(NotACell):
            def construct(self, x):
                return np.sum(x)
    """,
}


def test_installed_library_is_read_for_real(tmp_path):
    write(tmp_path, INSTALLED)
    (tmp_path / "project" / ".git").mkdir()
    site = str(tmp_path / "site")
    # installed: LibCell is a Cell (no assumption), NotACell is not one
    assert both(tmp_path / "project", pythonpath=site) == {("MS102", "model.py", 8)}
    assert "taken for a Cell" not in messages(tmp_path / "project", pythonpath=site)[("model.py", 8)]
    # not installed: both are assumed Cells
    found = messages(tmp_path / "project")
    assert set(found) == {("model.py", 8), ("model.py", 13)}
    assert found[("model.py", 13)].endswith(" Other is taken for a Cell: its base NotACell could not be resolved.")


def test_helper_reached_through_a_namespace_package(tmp_path):
    # (reported at the helper by the project model's routing; reaching it is resolution's part)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "src/utils.py": "def to_host(x):\n    return x.asnumpy()\n",
        "src/net.py": """
            from mindspore import nn
            from .utils import to_host


            class Net(nn.Cell):
                def construct(self, x):
                    return to_host(x)
        """,
        "train.py": "from src.net import Net\n\nnet = Net()\n",
    })
    assert both(tmp_path) == {("MS101", "src/utils.py", 2)}
    assert "called from Net.construct (net.py, line 7)" in messages(tmp_path)[("src/utils.py", 2)]


def test_a_regular_package_wins_over_a_module_of_the_same_name(project):
    # Python imports lib/utils/__init__.py, not lib/utils.py (its path finder checks the package first)
    from mslint.project.module_files import clear_file_caches, find_project_file

    project.write("lib/__init__.py", "")
    project.write("lib/utils.py", 'def require(flag):\n    raise ValueError("never imported")\n')
    project.write("lib/utils/__init__.py", "def require(flag):\n    pass\n")
    project.write("lib/model.py", '''
import numpy as np
from mindspore import nn
from .utils import require


class Net(nn.Cell):
    def construct(self, x):
        require(False)
        return np.cos(x)
''')
    clear_file_caches()
    assert find_project_file("lib.utils", str(project.root / "lib")) == str(project.root / "lib/utils/__init__.py")
    assert [f.line for f in project.lint("lib/model.py", select=["MS102"]) if f.code == "MS102"] == [9]
