"""Programs: which entry script compiles which code.  A module's mode is the union of the modes
of the programs that import it; what no program reaches is library code (graph); a program
that sets no mode runs PyNative (MindSpore 2.x's default); jit code and the functions it
reaches through value_and_grad / GradOperation / partial are compiled in any mode."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_project_model import mslint, places, pylint, pylint_places, write

NET = '''
    import numpy as np
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            order = np.argsort(x.asnumpy())
            return ms.Tensor(order)
'''


def two_programs(root: Path) -> None:
    write(root, {
        "pyn_app/net.py": NET,
        "pyn_app/train.py": '''
            import mindspore as ms
            from net import Net

            ms.set_context(mode=ms.PYNATIVE_MODE)
            net = Net()
            print(net(ms.Tensor([3.0, 1.0])))
        ''',
        "graph_app/net.py": NET,
        "graph_app/train.py": '''
            import mindspore as ms
            from net import Net

            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                print(Net()(ms.Tensor([3.0, 1.0])))
        ''',
    })


@pytest.mark.parametrize("marker", [None, "pyproject.toml", ".git"])
def test_two_programs_in_one_repository_each_decide_their_own_modules(tmp_path, marker):
    two_programs(tmp_path)
    if marker == ".git":
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    elif marker:
        (tmp_path / marker).write_text("[project]\nname = 'both'\n")
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("graph_app/net.py", 8, "MS101")}
    assert "1 more finding withheld" in result.stderr
    # a PyNative-only program's module linted alone is still withheld; the graph one is reported
    alone, _ = mslint(tmp_path, "--no-cache", "pyn_app/net.py")
    assert alone == []
    plugin = pylint_places(pylint(tmp_path, "--recursive=y", "pyn_app", "graph_app"))
    assert plugin == {("graph_app/net.py", 8, "MS101")}


def test_a_model_zoo_src_folder_without_init_belongs_to_the_scripts_beside_it(tmp_path):
    write(tmp_path, {
        "src/network.py": NET,
        "src/export.py": '''
            import mindspore as ms
            from network import Net
            ms.set_context(mode=ms.PYNATIVE_MODE)
            Net()(ms.Tensor([1.0]))
        ''',
        "train.py": '''
            import mindspore as ms
            from src.network import Net
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                Net()(ms.Tensor([1.0]))
        ''',
    })
    findings, _ = mslint(tmp_path, "--no-cache", "src")
    assert places(findings) == {("src/network.py", 8, "MS101")}
    message = findings[0]["message"]
    assert "Compiled by train.py; not by PyNative programs." in message


def test_a_program_that_sets_no_mode_runs_pynative(tmp_path):
    write(tmp_path, {"net.py": NET, "run.py": "from net import Net\nimport mindspore as ms\nNet()(ms.Tensor([1.0]))\n"})
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert findings == []
    assert "1 more finding withheld" in result.stderr
    assert "PyNative" in result.stderr


@pytest.mark.parametrize("files", [
    {"net.py": NET},  # a model file on its own: library code
    {"pkg/__init__.py": "from .net import Net\n", "pkg/net.py": NET.replace("Net", "Net")},  # a library
    {"net.py": NET, "build.py": "from net import Net\n\n\ndef build():\n    return Net()\n"},  # only definitions
], ids=["model-file", "library", "definitions-only"])
def test_code_that_no_program_reaches_is_checked_as_graph_code(tmp_path, files):
    write(tmp_path, files)
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert {(code, line) for _, line, code in places(findings)} == {("MS101", 8)}
    assert "withheld" not in result.stderr


@pytest.mark.parametrize("default, reported", [("GRAPH", True), ("PYNATIVE", False), ("0", True), ("1", False)])
def test_a_program_whose_mode_comes_from_an_argparse_default(tmp_path, default, reported):
    value = default if not default.isdigit() else int(default)
    write(tmp_path, {"net.py": NET, "train.py": f'''
        import argparse
        import mindspore as ms
        from net import Net

        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", default={value!r})
        args = parser.parse_args()
        mode = ms.GRAPH_MODE if args.mode in ("GRAPH", 0) else ms.PYNATIVE_MODE
        ms.set_context(mode={{"GRAPH": ms.GRAPH_MODE, "PYNATIVE": ms.PYNATIVE_MODE, 0: 0, 1: 1}}[args.mode])
        Net()(ms.Tensor([1.0]))
    '''})
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert bool(findings) is reported


# -- the quickstart training loop ------------------------------------------------------------
CLIP_NET = '''
    import numpy as np
    from mindspore import nn, ops


    class ClipNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(4, 2)

        def construct(self, x):
            limit = float(np.percentile(x.asnumpy(), 99))
            return self.dense(ops.clip_by_value(x, -limit, limit))
'''
QUICKSTART = '''
    import mindspore as ms
    from mindspore import nn
    from net import ClipNet

    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = ClipNet()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(net.trainable_params(), 1e-2)


    def forward_fn(data, label):
        logits = net(data)
        return loss_fn(logits, label)


    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)


    {decorator}
    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    {wrap}
    for step in range(3):
        train_step(ms.ops.ones((2, 4), ms.float32), ms.Tensor([0, 1], ms.int32))
'''


@pytest.mark.parametrize("decorator, wrap", [
    ("@ms.jit", ""),
    ("", "train_step = ms.jit(train_step)"),
    ("", "train_step = ms.jit(function=train_step)"),
], ids=["decorator", "call", "keyword"])
def test_the_quickstart_loop_compiles_the_network_in_a_pynative_program(tmp_path, decorator, wrap):
    write(tmp_path, {"net.py": CLIP_NET, "train.py": QUICKSTART.format(decorator=decorator, wrap=wrap)})
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("net.py", 11, "MS101")}
    message = findings[0]["message"]
    assert "train_step" in message and "grad_fn" in message and "forward_fn" in message
    assert "withheld" not in result.stderr
    alone, _ = mslint(tmp_path, "--no-cache", "net.py")  # the importer's analysis runs too
    assert places(alone) == {("net.py", 11, "MS101")}


def test_the_quickstart_loop_without_jit_is_pynative_and_withheld(tmp_path):
    write(tmp_path, {"net.py": CLIP_NET, "train.py": QUICKSTART.format(decorator="", wrap="")})
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert findings == []
    assert "1 more finding withheld" in result.stderr


def test_grad_operation_and_partial_are_followed_from_jit_code(tmp_path):
    train = QUICKSTART.format(decorator="@ms.jit", wrap="").replace(
        "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)",
        "import functools\n    fixed = functools.partial(forward_fn, label=None)\n"
        "    grad_fn = ms.ops.GradOperation(get_by_list=True)(fixed, optimizer.parameters)")
    write(tmp_path, {"net.py": CLIP_NET, "train.py": train})
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == {("net.py", 11, "MS101")}


def test_show_settings_lists_the_programs_that_reach_a_file(tmp_path):
    two_programs(tmp_path)
    result = subprocess.run([sys.executable, "-m", "mslint", "--show-settings", "graph_app/net.py"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "graph_app/train.py (__main__ block): GRAPH" in result.stdout
    assert "pyn_app/train.py" not in result.stdout.split("programs", 1)[-1]


def test_the_program_model_is_reused_from_the_cache_and_follows_edits(tmp_path):
    two_programs(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'both'\n")
    first, _ = mslint(tmp_path, ".")
    assert places(first) == {("graph_app/net.py", 8, "MS101")}
    stores = list((tmp_path / ".mslint_cache").glob("programs-*.pickle"))
    assert len(stores) == 1
    train = tmp_path / "pyn_app" / "train.py"
    train.write_text(train.read_text().replace("PYNATIVE_MODE", "GRAPH_MODE"))
    second, _ = mslint(tmp_path, ".")
    assert places(second) == {("graph_app/net.py", 8, "MS101"), ("pyn_app/net.py", 8, "MS101")}
    shutil.rmtree(tmp_path / "graph_app")
    third, _ = mslint(tmp_path, ".")
    assert places(third) == {("pyn_app/net.py", 8, "MS101")}


def test_one_finding_per_rule_and_site_whatever_the_roots_pass(tmp_path):
    """Two roots pass different values to one helper: the messages differ, the problem is one."""
    write(tmp_path, {
        "helpers.py": '''
            import numpy as np


            def pad(x, n):
                return np.zeros((n, 4)) + x.asnumpy()
        ''',
        "model.py": '''
            from mindspore import nn
            from helpers import pad


            class A(nn.Cell):
                def construct(self, x):
                    return pad(x, 3)


            class B(nn.Cell):
                def construct(self, x):
                    return pad(x, x.shape[0])
        ''',
    })
    findings, _ = mslint(tmp_path, "--no-cache", ".")
    sites = [(f["path"], f["line"], f["column"], f["code"]) for f in findings]
    assert len(sites) == len(set(sites)), sites
    asnumpy = [f for f in findings if f["code"] == "MS101"]
    assert len(asnumpy) == 1


@pytest.mark.parametrize("mode, reported", [("GRAPH_MODE", True), ("PYNATIVE_MODE", False)])
def test_model_train_compiles_the_network_in_a_graph_program_only(tmp_path, mode, reported):
    write(tmp_path, {"net.py": CLIP_NET, "train.py": f'''
        import mindspore as ms
        from mindspore import nn
        from mindspore.train import Model
        from net import ClipNet


        def main(dataset):
            ms.set_context(mode=ms.{mode})
            net = ClipNet()
            model = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 1e-2))
            model.train(1, dataset)


        if __name__ == "__main__":
            main(None)
    '''})
    findings, result = mslint(tmp_path, "--no-cache", ".")
    assert places(findings) == ({("net.py", 11, "MS101")} if reported else set())
    assert ("withheld" in result.stderr) is not reported


# -- branches the compiler decides ------------------------------------------------------------
DECODER = '''
    from mindspore import nn, ops


    class Decoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.top_p = 1
            self.is_first_iteration = True
            self.pad = 1 // 2

        def construct(self, x):
            if self.top_p < 1.0:
                x = x[x > self.top_p]
            if self.pad != 0:
                x = x[x > 0]
            if self.is_first_iteration:
                return x
            return x[x < 1]
'''


def test_comparisons_on_constants_set_in_init_decide_branches(tmp_path):
    write(tmp_path, {"model.py": DECODER})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS401", ".")
    assert findings == []


def test_a_flag_changed_between_compilations_compiles_both_branches(tmp_path):
    write(tmp_path, {"model.py": DECODER, "infer.py": '''
        import mindspore as ms
        from model import Decoder

        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            net = Decoder()
            net.add_flags_recursive(is_first_iteration=False)
    '''})
    findings, _ = mslint(tmp_path, "--no-cache", "--select", "MS401", ".")
    assert places(findings) == {("model.py", 18, "MS401")}
