"""MS7xx: migration pitfalls (constructor arguments anywhere; cells, Parameters and APIs in graph code)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import codes_by_line, only
from mslint import data
from mslint.rules import registry


def lines(findings, code):
    return [f.line for f in only(findings, code)]


# -- MS701 conv-padding-without-pad-mode ------------------------------------------------------
CONV_BAD = """
import mindspore as ms
from mindspore import nn
import mindspore.nn as msnn
from mindspore.nn import Conv2dTranspose


class Net(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.a = nn.Conv2d(3, 12, 3, padding=1)
        self.b = ms.nn.Conv1d(3, 12, 3, 1, "same", 1)
        self.c = msnn.Conv3d(3, 12, 3, pad_mode="valid", padding=(1, 1, 1, 1, 1, 1))
        self.d = Conv2dTranspose(3, 12, 3, padding=k // 2)

    def construct(self, x):
        return self.a(x)


def make():
    return nn.Conv2d(3, 12, 3, padding=2)
"""


def test_conv_padding_without_pad_mode_is_found_in_every_spelling(project):
    findings = only(project.lint_source(CONV_BAD, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [10, 11, 12, 13, 20]
    assert "pad_mode (default 'same')" in findings[0].message
    assert "ValueError: For 'Conv2D', the 'pad' must be zero" in findings[0].message
    assert "pad_mode='valid'" in findings[2].message and "'Conv3D'" in findings[2].message
    assert "unless it is 0" in findings[3].message and "Conv2DTranspose" in findings[3].message


def test_conv_padding_quiet_on_idiomatic_and_pytorch_style_layers(project):
    findings = project.lint_source("""
        from mindspore import nn, mint


        class Net(nn.Cell):
            def __init__(self, mode, **kwargs):
                super().__init__()
                self.a = nn.Conv2d(3, 12, 3, pad_mode="pad", padding=1)
                self.b = nn.Conv2d(3, 12, 3, 1, "pad", 1)
                self.c = nn.Conv2d(3, 12, 3, padding=0)
                self.d = nn.Conv2d(3, 12, 3, padding=(0, 0, 0, 0))
                self.e = mint.nn.Conv2d(3, 12, 3, padding=1)
                self.f = nn.Conv2d(3, 12, 3, pad_mode=mode, padding=1)
                self.g = nn.Conv2d(3, 12, 3, padding=1, **kwargs)
                self.h = nn.Conv2d(3, 12, 3)

            def construct(self, x):
                return self.a(x)
    """, select=["MS701"])
    assert findings == []


def test_conv_padding_read_through_names(project):
    # issue 14 item 16: a padding given through a parameter's default, a class attribute or a string
    findings = only(project.lint_source("""
        from mindspore import nn

        PAD = 1
        NO_PAD = 0


        class Block(nn.Cell):
            pad = 2

            def __init__(self, c, padding=1, zero=0, k=None):
                super().__init__()
                self.a = nn.Conv2d(c, c, 3, padding=padding)
                self.b = nn.Conv2d(c, c, 3, padding=self.pad)
                self.c = nn.Conv2d(c, c, 3, padding=PAD)
                self.d = nn.Conv2d(c, c, 3, padding="same")
                self.e = nn.Conv1d(c, c, 3, padding="valid")
                self.f = nn.Conv2d(c, c, 3, padding=zero)
                self.g = nn.Conv2d(c, c, 3, padding=NO_PAD)
                self.h = nn.Conv2d(c, c, 3, pad_mode="pad", padding=padding)
                self.i = nn.Conv2d(c, c, 3, padding=k)

            def construct(self, x):
                return self.a(x)
    """, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [12, 13, 14, 15, 16]
    assert findings[0].message.startswith("'nn.Conv2d' gets padding=padding with no pad_mode (default 'same'). "
                                          "Construction fails when the caller leaves it at 1 (the default of the "
                                          "parameter 'padding', line 10)")
    assert "(padding is 2: Block.pad = 2, line 8)" in findings[1].message
    assert "(padding is 1: PAD = 1, line 3)" in findings[2].message
    assert findings[3].message.startswith(
        "'nn.Conv2d' gets padding='same', PyTorch's spelling of a padding mode. Construction fails (TypeError: For "
        "'Conv2d', the type of 'padding' must be int or tuple(int), but got str.). Write pad_mode='same'")
    assert "For 'Conv1d', the type of 'padding' should be 'int', but got type 'str'." in findings[4].message
    assert findings[3].fix is None  # (which padding mode PyTorch's string means is the user's to confirm)


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_string_padding_errors_are_mindspores(tmp_path):
    from mslint.checkers.migration import STRING_PADDING_ERRORS

    builds = {name: f"nn.{name}(3, 8, 3, padding='same')" for name in STRING_PADDING_ERRORS}
    builds.update({f"{name} as pad_mode": f"nn.{name}(3, 8, 3, pad_mode='same')" for name in STRING_PADDING_ERRORS})
    found = _construction_outcomes(tmp_path, builds)
    for name, error in STRING_PADDING_ERRORS.items():
        assert found[name] == f"TypeError: {error}" and found[f"{name} as pad_mode"] == "built", name


def _printed_json(tmp_path, program: str):
    """Run a program with MindSpore in its own process; the JSON its last line prints."""
    result = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _construction_outcomes(tmp_path, builds, setup: str = ""):
    """Each expression of `builds` (key -> code) evaluated with MindSpore, in one process: 'built'
    for a layer, the value for a shape, or 'TypeError: <message>' (or ValueError) for what it raises."""
    program = (
        "import json\nimport numpy as np\nimport mindspore as ms\nfrom mindspore import nn\n" + setup +
        f"found = {{}}\nfor key, code in {sorted(builds.items())!r}:\n"
        "    try:\n        value = eval(code)\n"
        "        found[key] = list(value) if isinstance(value, tuple) else 'built'\n"
        "    except (TypeError, ValueError) as error:\n"
        "        found[key] = type(error).__name__ + ': ' + str(error)\n"
        "print(json.dumps(found))\n")
    return _printed_json(tmp_path, program)

TUPLE_PADDING = """
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 12, 3, padding=(1, 0))
        self.b = nn.Conv2d(3, 12, 3, padding=(1, 0), pad_mode="pad")
        self.c = nn.Conv3d(3, 12, 3, padding=(1, 0, 2))
        self.d = nn.Conv1d(3, 12, 3, padding=(1,), pad_mode="pad")
        self.e = nn.Conv2dTranspose(3, 12, 3, padding=(1, 0, 0))
        self.f = nn.Conv2d(3, 12, 3, padding=(0, 0))
        self.g = nn.Conv2d(3, 12, 3, padding=(1, 1, 0, 0), pad_mode="pad")
        self.h = nn.Conv3d(3, 12, 3, padding=(1, 1, 0, 0, 2, 2), pad_mode="pad")
"""


def test_tuple_padding_of_the_wrong_size_quotes_its_own_error_and_a_fix_that_builds(project):
    # heldout2: `padding=(1, 0)` is not the 'pad must be zero' case; pad_mode="pad" alone does not cure it
    findings = only(project.lint_source(TUPLE_PADDING, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [7, 8, 9, 10, 11, 12]
    a, b, c, d, e, f = (finding.message for finding in findings)
    assert a == ("'nn.Conv2d' gets padding=(1, 0), 2 values; it takes 4. Construction fails whatever pad_mode is "
                 "(ValueError: For 'Conv2D', the 'pad size' must be int and must = 4, but got '2' with type 'int'.). "
                 "Write padding=(1, 1, 0, 0), pad_mode=\"pad\", which pads as PyTorch's (1, 0) does (MindSpore's "
                 "order: top, bottom, left, right).")
    assert b.endswith("Write padding=(1, 1, 0, 0), which pads as PyTorch's (1, 0) does (MindSpore's order: top, "
                      "bottom, left, right).")
    assert "'padding size' must be int and must = 6, but got '3'" in c
    assert "Write padding=(1, 1, 0, 0, 2, 2), pad_mode=\"pad\"" in c
    assert "TypeError: For 'Conv1d', the type of 'padding' should be 'int', but got type 'tuple'." in d
    assert d.endswith("Write padding=1.")
    assert e.endswith("Give 4 values (top, bottom, left, right) and pad_mode=\"pad\".")
    assert f.endswith("Leave padding out: it is all zero.")
    assert "'pad' must be zero" not in a and all(finding.fix is None for finding in findings)


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_tuple_padding_errors_and_the_suggested_padding_are_mindspores(tmp_path):
    from mslint.checkers.migration import TUPLE_PADDING_ERRORS

    wrong = {"Conv1d": (1,), "Conv2d": (1, 0), "Conv3d": (1, 0, 2), "Conv1dTranspose": (1,),
             "Conv2dTranspose": (1, 0, 0), "Conv3dTranspose": (1, 0, 0)}
    builds = {f"{name} {mode}": f"nn.{name}(1, 1, 3, padding={padding!r}, pad_mode={mode!r})"
              for name, padding in wrong.items() for mode in ("same", "pad")}
    # the suggested padding pads as PyTorch's (1, 0) and (1, 0, 2) do: height by 1 each side, width by 0
    builds["2d shape"] = "nn.Conv2d(1, 1, 3, padding=(1, 1, 0, 0), pad_mode='pad')(x2).shape"
    builds["3d shape"] = "nn.Conv3d(1, 1, 3, padding=(1, 1, 0, 0, 2, 2), pad_mode='pad')(x3).shape"
    found = _construction_outcomes(tmp_path, builds, setup=(
        "x2 = ms.Tensor(np.ones((1, 1, 4, 4), np.float32))\nx3 = ms.Tensor(np.ones((1, 1, 4, 4, 6), np.float32))\n"))
    for name, padding in wrong.items():
        expected = TUPLE_PADDING_ERRORS[name].format(n=len(padding))
        assert found[f"{name} same"] == expected and found[f"{name} pad"] == expected, name
    assert found["2d shape"] == [1, 1, 4, 2] and found["3d shape"] == [1, 1, 4, 2, 8]


LIST_PADDING = """
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 12, 3, padding=[1, 1, 0, 0], pad_mode="pad")
        self.b = nn.Conv2d(3, 12, 3, padding=[1, 0])
        self.c = nn.Conv1d(3, 12, 3, padding=[1])
        self.d = nn.Conv3dTranspose(3, 12, 3, padding=[0, 0, 0, 0, 0, 0])
        self.e = nn.Conv2d(3, 12, 3, padding=(1, 1, 0, 0), pad_mode="pad")
"""


def test_list_padding_quotes_the_type_error_and_writes_a_tuple(project):
    # MindSpore 2.10 takes an int or a tuple: a list fails whatever its size and pad_mode
    findings = only(project.lint_source(LIST_PADDING, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [7, 8, 9, 10]
    a, b, c, d = (finding.message for finding in findings)
    assert a == ("'nn.Conv2d' gets padding=[1, 1, 0, 0], a list; it takes an int or a tuple. Construction fails "
                 "whatever pad_mode is (TypeError: For 'Conv2d', the type of 'padding' must be int or tuple(int), "
                 "but got list.). Write padding=(1, 1, 0, 0).")
    assert b.endswith("Write padding=(1, 1, 0, 0), pad_mode=\"pad\", which pads as PyTorch's [1, 0] does "
                      "(MindSpore's order: top, bottom, left, right).")
    assert "it takes an int." in c and "but got type 'list'" in c and c.endswith("Write padding=1, pad_mode=\"pad\".")
    assert d.endswith("Leave padding out: it is all zero.")
    assert all(finding.fix is None for finding in findings)


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_list_padding_errors_and_the_suggested_tuples_are_mindspores(tmp_path):
    from mslint.checkers.migration import LIST_PADDING_ERRORS, TUPLE_PADDING_SIZES

    builds = {f"{name} pad": f"nn.{name}(1, 1, 3, padding={[1] * TUPLE_PADDING_SIZES[name]!r}, pad_mode='pad')"
              for name in LIST_PADDING_ERRORS}
    builds.update({f"{name} same": f"nn.{name}(1, 1, 3, padding=[1, 0], pad_mode='same')"
                   for name in LIST_PADDING_ERRORS})
    # what the messages of test_list_padding_quotes_the_type_error_and_writes_a_tuple suggest instead
    builds["suggested 2d"] = "nn.Conv2d(3, 12, 3, padding=(1, 1, 0, 0), pad_mode='pad')"
    builds["suggested 1d"] = "nn.Conv1d(3, 12, 3, padding=1, pad_mode='pad')"
    builds["padding left out"] = "nn.Conv3dTranspose(3, 12, 3)"
    found = _construction_outcomes(tmp_path, builds)
    for name, error in LIST_PADDING_ERRORS.items():
        assert found[f"{name} pad"] == error and found[f"{name} same"] == error, name
    assert found["suggested 2d"] == found["suggested 1d"] == found["padding left out"] == "built"


# -- MS702 conv-implicit-same-padding ---------------------------------------------------------
def test_conv_without_pad_mode_is_an_opt_in_hint(project):
    source = """
        from mindspore import nn, mint

        a = nn.Conv2d(3, 12, 3)
        b = nn.Conv2d(3, 12, 3, has_bias=True)
        c = nn.Conv2d(3, 12, 3, pad_mode="same")
        d = nn.Conv2d(3, 12, 3, padding=1)
        e = mint.nn.Conv2d(3, 12, 3)
    """
    findings = only(project.lint_source(source, select=["MS702"]), "MS702")
    assert [f.line for f in findings] == [3, 4]
    assert "pad_mode='same'" in findings[0].message and "has_bias=False" in findings[0].message
    assert "has_bias=False" not in findings[1].message
    assert not registry().get("MS702").default_enabled
    assert only(project.lint("example.py"), "MS702") == []


# -- MS703 dropout-keep-prob ------------------------------------------------------------------
def test_dropout_keep_probability_is_found(project):
    findings = only(project.lint_source("""
        import mindspore
        from mindspore import nn
        from mindspore.nn import Dropout


        class Net(nn.Cell):
            def __init__(self, rate):
                super().__init__()
                self.a = nn.Dropout(0.1)
                self.b = Dropout(keep_prob=0.9)
                self.c = mindspore.nn.Dropout(rate)

            def construct(self, x):
                return self.a(x)
    """, select=["MS703"]), "MS703")
    # (line 10's keep_prob=0.9 is a keep rate, line 11's rate is unknown: MS711 for both)
    assert [f.line for f in findings] == [9]
    assert "keeps 10% and zeroes 90%" in findings[0].message


def test_keep_rates_are_a_deprecation_and_drop_rates_the_bug(project):
    # issue 14 item 7: about 80% of the corpora's findings were keep rates spelled `1 - drop_rate`
    source = """
        from mindspore import nn


        class Head(nn.Cell):
            def __init__(self, dropout, keep_prob, config):
                super().__init__()
                self.a = nn.Dropout(0.1)
                self.b = nn.Dropout(keep_prob=0.9)
                self.c = nn.Dropout(1 - dropout)
                self.d = nn.Dropout(keep_prob=1 - dropout)
                self.e = nn.Dropout(config.hidden_dropout)
                self.f = nn.Dropout(keep_prob)
                self.g = nn.Dropout(keep_prob=dropout)
                self.h = nn.Dropout(0.9)
                self.i = nn.Dropout(keep_prob=1 - (1 - dropout))
                self.j = nn.Dropout(1 - (a + b))
                self.k = nn.Dropout(p=0.1)

            def construct(self, x):
                return x
    """
    found = project.lint_source(source, select=["MS703", "MS711"])
    by_line = {f.line: f for f in found}
    assert {line: f.code for line, f in by_line.items()} == {
        7: "MS703", 8: "MS711", 9: "MS711", 10: "MS711", 11: "MS711", 12: "MS711", 13: "MS711", 14: "MS711",
        15: "MS711", 16: "MS711"}  # 11, 13: a name that says drop, its value unknown: only the deprecation
    assert by_line[11].message.endswith("2.10 still accepts it. Write p=1 - config.hidden_dropout.")
    # fix texts built from the expression: 1 - (1 - d) is d, never "1 - 1 - d"
    assert by_line[9].message.endswith("the behaviour is right. Write p=dropout.")
    assert by_line[10].message.endswith("Write p=dropout.")
    assert by_line[15].message.endswith("Write p=1 - dropout.")
    assert by_line[16].message.endswith("Write p=a + b.")
    assert by_line[14].message.endswith("Write p=0.1.")
    assert by_line[12].message.endswith("Write p=1 - keep_prob.")
    assert "p=1 - 1 -" not in " ".join(f.message for f in found)
    # (13 too: keep_prob=dropout -> p=1 - dropout does what the code does today)
    assert all(by_line[line].fix.applicability == "safe" for line in (8, 9, 10, 12, 13, 14, 15, 16))
    assert by_line[8].rule.severity == "info" and by_line[7].rule.severity == "warning"


KEEP_RATE_SHAPES = """
    from mindspore import nn


    class Block(nn.Cell):
        def __init__(self, rate, cfg, training):
            super().__init__()
            self.a = nn.Dropout(1 - rate if rate > 0 else 1.0)
            self.b = nn.Dropout(keep_prob=1 - rate if rate > 0 else 1.0)
            self.c = nn.Dropout(1 - cfg.drop_path - 0.05)
            self.d = nn.Dropout(1 - (rate - 0.1) - cfg.extra)
            self.e = nn.Dropout(1 - rate - (cfg.extra - 0.1))
            self.f = nn.Dropout(cfg.dropout if training else 0.0)
            self.g = nn.Dropout(1 - rate if training else rate)
            self.h = nn.Dropout(keep_prob=cfg.dropout if training else 1.0)

        def construct(self, x):
            return x
"""


def test_conditional_and_chained_keep_rates_are_read_from_the_expression_tree(project):
    # issue 14 item 7 (audit): `1 - r if r > 0 else 1.0` is a keep rate in both arms and
    # `1 - a - b` is `1 - (a + b)`: MS711 with p= the complement, not MS703 with p= the keep rate
    project.write("pkg/__init__.py", "")
    project.write("pkg/layers.py", KEEP_RATE_SHAPES)
    found = project.lint("pkg/layers.py", select=["MS703", "MS711"])
    by_line = {f.line: f for f in found}
    # 12: an arm is the drop rate 0.0 (MS703); 13, 14: an arm is a keep rate (1 - rate, 1.0), the other
    # unknown: only the deprecation (issue 26: dropout_ratio of 0.75 in training and 1.0 in eval)
    assert {line: f.code for line, f in by_line.items()} == {
        7: "MS711", 8: "MS711", 9: "MS711", 10: "MS711", 11: "MS711", 12: "MS703", 13: "MS711", 14: "MS711"}
    written = {line: [e.content for e in f.fix.edits] for line, f in by_line.items()}
    assert written == {
        7: ["p=(rate if rate > 0 else 0.0)"],
        8: ["p=(rate if rate > 0 else 0.0)"],
        9: ["p=cfg.drop_path + 0.05"],
        10: ["p=rate - 0.1 + cfg.extra"],
        11: ["p=rate + (cfg.extra - 0.1)"],
        12: ["p=(cfg.dropout if training else 0.0)"],  # both arms drop rates: PyTorch's meaning
        13: ["p=(rate if training else 1 - rate)"],  # what MindSpore does today
        14: ["p=(1 - cfg.dropout if training else 0.0)"],  # what MindSpore does today
    }
    assert all(by_line[line].fix.applicability == "safe" for line in (7, 8, 9, 10, 11, 13, 14))
    assert by_line[12].fix.applicability == "unsafe"
    assert by_line[7].message.startswith("'nn.Dropout(1 - rate if rate > 0 else ...' gives the keep probability "
                                         "through the deprecated keep_prob. MindSpore logs 'For Dropout, this "
                                         "parameter keep_prob will be deprecated, please use p instead' and 2.10 "
                                         "still accepts it")
    assert by_line[7].message.endswith("the behaviour is right. Write p=(rate if rate > 0 else 0.0).")
    assert by_line[9].message.endswith("Write p=cfg.drop_path + 0.05.")
    # issue 26: the argument is quoted once in the problem and once in the fix, not four times
    assert by_line[12].message == (
        "'nn.Dropout(cfg.dropout if training el...' passes keep_prob, not PyTorch's drop probability. "
        "keep_prob is the probability of KEEPING an activation. keep_prob is deprecated ('please use p instead'): "
        "pass the value as p if it is the drop rate, or p=(1 - cfg.dropout if training else 1.0) if it is the keep "
        "rate.")
    # an arm is a keep rate, the other unknown: the deprecation only, and no claim that the behaviour is right
    assert by_line[13].message.endswith("2.10 still accepts it. Write p=(rate if training else 1 - rate).")
    assert all(message.count("cfg.dropout") <= 2 for message in (by_line[12].message, by_line[14].message))


DROPOUT_LAYERS = """
from mindspore import nn


def layers(r, a, b):
    drop = b
    return [
        nn.Dropout(1 - r if r > 0 else 1.0),
        nn.Dropout(keep_prob=1 - r if r > 0 else 1.0),
        nn.Dropout(1 - a - b),
        nn.Dropout(1 - (a - 0.05) - b),
        nn.Dropout(1 - a - (b - 0.05)),
        nn.Dropout(drop if drop > 0.1 else 0.1),
    ]
"""

DROP_FRACTIONS = """
import json
import sys

import numpy as np
import mindspore as ms

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
x = ms.Tensor(np.ones(20000, np.float32))
found = {}
for name, source in (("original", sys.argv[1]), ("fixed", sys.argv[2])):
    scope = {}
    exec(source, scope)
    for r, a, b in ((0.0, 0.0, 0.05), (0.3, 0.2, 0.15)):
        fractions = []
        for layer in scope["layers"](r, a, b):
            layer.set_train()
            fractions.append(float((layer(x).asnumpy() == 0).mean()))
        found[f"{name} {r}"] = fractions
print(json.dumps(found))
"""


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_dropout_fixes_drop_what_the_pages_say(tmp_path):
    # issue 14 item 7, on MindSpore 2.10 (GRAPH_MODE, STRICT): MS711's safe fix of a conditional or
    # `1 - a - b` keep rate keeps what the layer drops (p=(r if r > 0 else 0.0) drops nothing when
    # r == 0, as keep_prob=1.0 does); MS703's unsafe fix of a conditional of drop rates (the last
    # layer) makes it drop what PyTorch's nn.Dropout(drop if drop > 0.1 else 0.1) drops
    import json

    from mslint.config import Config
    from mslint.fix.apply import fixed_text

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    fixed = fixed_text(str(tmp_path / "layers.py"), DROPOUT_LAYERS, Config(root=str(tmp_path)), unsafe=True)
    assert "keep_prob" not in fixed and fixed.count("nn.Dropout(p=") == 6
    assert "nn.Dropout(p=(drop if drop > 0.1 else 0.1))" in fixed
    result = subprocess.run([sys.executable, "-c", DROP_FRACTIONS, DROPOUT_LAYERS, fixed], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    kept = {"0.0": [0.0, 0.0, 0.05, 0.0, 0.0], "0.3": [0.3, 0.3, 0.35, 0.3, 0.3]}
    drop = {"0.0": 0.1, "0.3": 0.15}  # the last layer's conditional
    for rate, fractions in kept.items():
        assert found[f"original {rate}"] == pytest.approx(fractions + [1 - drop[rate]], abs=0.02), (rate, found)
        assert found[f"fixed {rate}"] == pytest.approx(fractions + [drop[rate]], abs=0.02), (rate, fixed, found)


def test_dropout_quiet_on_p_and_pytorch_style_dropouts(project):
    findings = project.lint_source("""
        from mindspore import nn, mint, ops


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.a = nn.Dropout(p=0.1)
                self.b = nn.Dropout()
                self.c = mint.nn.Dropout(0.1)
                self.d = nn.Dropout2d(0.1)
                self.e = nn.Dropout1d(0.2)

            def construct(self, x):
                return ops.dropout(self.a(x), p=0.1)
    """, select=["MS703"])
    assert findings == []


# -- MS704 batchnorm-torch-momentum -----------------------------------------------------------
def test_batchnorm_pytorch_momentum_is_found(project):
    findings = only(project.lint_source("""
        from mindspore import nn

        a = nn.BatchNorm2d(16, momentum=0.1)
        b = nn.BatchNorm1d(16, 1e-5, 0.01)
        c = nn.BatchNorm3d(16, momentum=0.9)
        d = nn.BatchNorm2d(16, momentum=0.5)
        e = nn.BatchNorm2d(16)
    """, select=["MS704"]), "MS704")
    assert [f.line for f in findings] == [3, 4]
    assert "momentum=0.9" in findings[0].message and "PyTorch's 0.1" in findings[0].message
    assert "momentum=0.99" in findings[1].message


def test_batchnorm_momentum_read_through_names(project):
    findings = only(project.lint_source("""
        from mindspore import nn

        BN_MOMENTUM = 0.1


        class Block(nn.Cell):
            def __init__(self, c, momentum=0.1, kept=0.9):
                super().__init__()
                self.a = nn.BatchNorm2d(c, momentum=BN_MOMENTUM)
                self.b = nn.BatchNorm2d(c, momentum=momentum)
                self.c = nn.BatchNorm2d(c, momentum=kept)

            def construct(self, x):
                return self.a(x)
    """, select=["MS704"]), "MS704")
    assert [f.line for f in findings] == [9, 10]
    assert findings[0].message.startswith("'nn.BatchNorm2d(..., momentum=0.1)' looks like PyTorch's momentum. "
                                          "momentum=BN_MOMENTUM is 0.1 (BN_MOMENTUM = 0.1, line 3). ")
    assert "momentum=momentum is 0.1 (the default of the parameter 'momentum', line 7)." in findings[1].message
    assert all(f.fix is None for f in findings)  # the number is not at the call: nothing there to replace


def test_constants_imported_from_the_projects_config_are_read(project):
    # issue 14 item 16 (audit): BN_MOMENTUM / CONV_PAD kept in config.py, the usual model-zoo layout
    project.write("pkg/__init__.py", "")
    project.write("pkg/config.py", """
        BN_MOMENTUM = 0.1
        CONV_PAD = 1
        KEPT = 0.9
        SMALL = 0.01
        MOMENTUM = BN_MOMENTUM
    """)
    project.write("pkg/utils.py", """
        from mindspore import nn

        from .config import BN_MOMENTUM, CONV_PAD


        def bn(c, momentum=BN_MOMENTUM):
            return nn.BatchNorm2d(c, momentum=momentum)


        def conv(c):
            return nn.Conv2d(c, c, 3, padding=CONV_PAD)
    """)
    project.write("pkg/model.py", """
        from mindspore import nn

        from . import config
        from .config import BN_MOMENTUM, KEPT
        from .config import SMALL as TINY
        from .config import MOMENTUM


        class Stem(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.a = nn.BatchNorm2d(c, momentum=BN_MOMENTUM)
                self.b = nn.BatchNorm2d(c, momentum=config.BN_MOMENTUM)
                self.c = nn.BatchNorm2d(c, momentum=TINY)
                self.d = nn.BatchNorm2d(c, momentum=MOMENTUM)
                self.e = nn.BatchNorm2d(c, momentum=KEPT)
                self.f = nn.BatchNorm2d(c, momentum=config.KEPT)
                self.g = nn.Conv2d(c, c, 3, padding=config.CONV_PAD)

            def construct(self, x):
                return self.a(x)
    """)
    model = project.lint("pkg/model.py", select=["MS704", "MS701"])
    assert [(f.line, f.code) for f in model] == [(12, "MS704"), (13, "MS704"), (14, "MS704"), (15, "MS704"),
                                                 (18, "MS701")]
    assert "momentum=BN_MOMENTUM is 0.1 (BN_MOMENTUM = 0.1 in pkg.config, line 1)." in model[0].message
    assert "momentum=config.BN_MOMENTUM is 0.1 (BN_MOMENTUM = 0.1 in pkg.config, line 1)." in model[1].message
    assert "momentum=TINY is 0.01 (SMALL = 0.01 in pkg.config, line 4)." in model[2].message
    assert "momentum=MOMENTUM is 0.1 (BN_MOMENTUM = 0.1 in pkg.config, line 1)." in model[3].message
    assert "Construction fails (padding is 1: CONV_PAD = 1 in pkg.config, line 2)" in model[4].message
    utils = project.lint("pkg/utils.py", select=["MS704", "MS701"])
    assert [(f.line, f.code) for f in utils] == [(7, "MS704"), (11, "MS701")]
    assert "momentum=momentum is 0.1 (the default of the parameter 'momentum', line 6: BN_MOMENTUM = 0.1 " \
           "in pkg.config, line 1)." in utils[0].message
    assert "(padding is 1: CONV_PAD = 1 in pkg.config, line 2)" in utils[1].message


def test_imported_constants_that_may_change_are_not_read(project):
    # a constant counts only when nothing can give it another value (mslint.project.module_constants)
    project.write("pkg/__init__.py", "")
    project.write("pkg/defaults.py", "STAR_MOMENTUM = 0.9\n")
    project.write("pkg/config.py", """
        import os

        TWICE = 0.1
        if os.environ.get("TORCH_STYLE"):
            TWICE = 0.9
        if os.environ.get("FAST"):
            UNDER_IF = 0.1
        WRITTEN = 0.1
        GLOBAL = 0.1
        COMPUTED = 0.05 * 2


        def configure(value):
            global GLOBAL
            GLOBAL = value
    """)
    project.write("pkg/starred.py", """
        from .defaults import *

        STARRED = 0.1
    """)
    project.write("pkg/train.py", """
        from . import config

        config.WRITTEN = 0.9
    """)
    project.write("pkg/model.py", """
        from mindspore import nn

        from . import config
        from .config import TWICE, UNDER_IF, WRITTEN, GLOBAL, COMPUTED
        from .starred import STARRED

        try:
            from .fast import FALLBACK
        except ImportError:
            FALLBACK = 0.1


        def layers(c):
            return [
                nn.BatchNorm2d(c, momentum=TWICE),
                nn.BatchNorm2d(c, momentum=UNDER_IF),
                nn.BatchNorm2d(c, momentum=WRITTEN),
                nn.BatchNorm2d(c, momentum=config.WRITTEN),
                nn.BatchNorm2d(c, momentum=GLOBAL),
                nn.BatchNorm2d(c, momentum=COMPUTED),
                nn.BatchNorm2d(c, momentum=STARRED),
                nn.BatchNorm2d(c, momentum=FALLBACK),
            ]
    """)
    assert project.lint("pkg/model.py", select=["MS704"]) == []


def test_batchnorm_quiet_on_mint(project):
    assert project.lint_source("""
        from mindspore import mint

        bn = mint.nn.BatchNorm2d(16, momentum=0.1)
    """, select=["MS704"]) == []


# -- MS705 parametric-cell-in-graph -----------------------------------------------------------
def test_parametric_cells_created_in_graph(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/blocks.py", """
        from mindspore import nn


        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 2)

            def construct(self, x):
                return self.fc(x)


        class Act(nn.Cell):
            def construct(self, x):
                return x * 2
    """)
    findings = only(project.lint_source("""
        import mindspore as ms
        from mindspore import nn
        from pkg.blocks import Head, Act


        class Net(nn.Cell):
            def construct(self, x):
                dense = nn.Dense(3, 2)
                out = ms.nn.Dense(x, 2)
                head = Head()
                relu = nn.ReLU()
                act = Act()
                return self.helper(dense(x))

            def helper(self, y):
                return nn.Conv2d(3, 3, 1)(y)
    """, relative="train.py", select=["MS705"]), "MS705")
    assert [f.line for f in findings] == [8, 9, 10, 16]
    assert "never trained" in findings[0].message
    assert "TypeError: When creating an instance of 'Dense'" in findings[1].message
    assert "input 0 is a variable" in findings[1].message
    assert "'Head(...)'" in findings[2].message
    assert "called from Net.construct (line 13)" in findings[3].message


def test_layers_with_constant_parameters_are_a_hint_not_a_bug(project):
    # issue 14 item 8: a non-affine norm or a fixed basis works as intended (MS712, info);
    # random initialisers (MS705) and graph-valued arguments (MS705, compilation fails) stay errors
    found = project.lint_source("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops, Tensor
        from mindspore.common.initializer import Constant

        BASIS = Tensor(np.ones((2, 1, 3), np.float32))


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.c = 4

            def construct(self, x, n):
                a = nn.LayerNorm([4], begin_norm_axis=1, begin_params_axis=1)(x)
                b = nn.Conv1d(1, 2, 3, weight_init=BASIS, has_bias=False, pad_mode="valid")(x)
                c = nn.Dense(4, 4)(x)
                d = nn.Dense(4, n)(x)
                e = nn.LayerNorm([4], gamma_init="normal")(x)
                f = nn.BatchNorm2d(self.c)(x)
                g = nn.Dense(4, 4, weight_init=Constant(0.5), bias_init="zeros")(x)
                h = nn.Dense(4, 4, weight_init="ones")(x)
                return a, b, c, d, e, f, g, h
    """, select=["MS705", "MS712"])
    assert {f.line: f.code for f in found} == {15: "MS712", 16: "MS712", 17: "MS705", 18: "MS705", 19: "MS705",
                                               20: "MS712", 21: "MS712", 22: "MS705"}
    by_line = {f.line: f for f in found}
    assert "with gamma and beta at constant initial values (1 and 0, the defaults)" in by_line[15].message
    assert "ops.LayerNorm(begin_norm_axis, begin_params_axis)(x, gamma, beta)" in by_line[15].message
    assert "with weight_init=BASIS and no bias" in by_line[16].message
    assert "all arguments are required to be constants" in by_line[18].message
    assert by_line[15].rule.severity == "info"


def test_a_given_filter_is_fixed_and_one_computed_by_ops_fails(project):
    # issue 26 class 9 (MindSpore 2.10: tests/test_mindspore_claims.py, setup-fixed-filter-* and
    # setup-filter-from-ops-*): a tensor given as weight_init, through an attribute or built from NumPy
    # in construct, is the filter (MS712; conv layers have no bias by default); one that ops compute
    # in graph code is a variable, which the constructor rejects (MS705, compilation fails); an
    # initializer that draws, also behind a helper, is random (MS705)
    project.write("src/__init__.py", "")
    project.write("src/init.py", """
from mindspore.common.initializer import TruncatedNormal


def weight_variable():
    return TruncatedNormal(0.02)
""")
    source = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops
from src.init import weight_variable

KERNEL = ms.Tensor(np.full((2, 2, 3), 0.5, np.float32))


class Filters(nn.Cell):
    def __init__(self, c, kernel):
        super().__init__()
        self.c = c
        self.kernel = kernel
        self.window = KERNEL

    def construct(self, x):
        a = nn.Conv1d(self.c, self.c, 3, weight_init=self.kernel)(x)
        eye = ms.Tensor(np.eye(self.c).reshape(self.c, self.c, 1), ms.float32)
        b = nn.Conv1dTranspose(self.c, self.c, 1, weight_init=eye)(x)
        computed = ops.eye(self.c, self.c, ms.float32).reshape(self.c, self.c, 1)
        c = nn.Conv1dTranspose(self.c, self.c, 1, weight_init=computed)(x)
        d = nn.Conv1d(self.c, self.c, 3, weight_init="normal")(x)
        e = nn.Conv1d(self.c, self.c, 3, weight_init=weight_variable())(x)
        f = nn.Conv1d(self.c, self.c, 3, weight_init=self.window, has_bias=True)(x)
        g = nn.Dense(2, 2, weight_init=self.window)(x)
        return a, b, c, d, e, f, g
"""
    project.write("src/filters.py", source)
    found = project.lint("src/filters.py", select=["MS705", "MS712"])
    lines = source.lstrip("\n").splitlines()
    line = {name: next(i for i, text in enumerate(lines, 1) if text.strip().startswith(f"{name} = nn."))
            for name in "abcdefg"}
    assert {f.line: f.code for f in found} == {line["a"]: "MS712", line["b"]: "MS712", line["c"]: "MS705",
                                               line["d"]: "MS705", line["e"]: "MS705", line["f"]: "MS705",
                                               line["g"]: "MS705"}  # f, g: a bias with a random initializer
    by_line = {f.line: f for f in found}
    assert "with weight_init=self.kernel and no bias" in by_line[line["a"]].message
    assert ("Compilation fails (TypeError: When creating an instance of 'Conv1dTranspose', all arguments are "
            "required to be constants, but input 3 is a variable)") in by_line[line["c"]].message
    assert "randomly initialised" in by_line[line["d"]].message


def test_cells_in_init_are_not_reported(project):
    assert project.lint_source("""
        from mindspore import nn, ops


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 2)

            def construct(self, x):
                add = ops.Add()
                return add(self.fc(x), nn.Flatten()(x))
    """, select=["MS705"]) == []


def test_a_layer_built_in_graph_and_stored_on_self_fails_rather_than_freezes(project):
    # issue 26: stored on self, the new layer fails to compile in STRICT and LAX (tests/test_mindspore_claims.py);
    # only called, it runs with untrained parameters
    findings = only(project.lint_source("""
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 2)

            def construct(self, x):
                self.fc = nn.Dense(3, 2)
                y = nn.Dense(2, 2)(x)
                return self.fc(x) + y
    """, select=["MS705"]), "MS705")
    assert [f.line for f in findings] == [10, 11]
    assert findings[0].message == (
        "'nn.Dense(...)' creates a cell with parameters in graph code. Storing it on 'self.fc' fails under STRICT "
        "(TypeError: ... the member attribute must be of the Parameter type) and under LAX (when __init__ set a cell "
        "there: TypeError: Sub cell 'fc' already exists in network, can not assign ...). Create it in __init__.")
    assert "frozen into the graph and never trained" in findings[1].message


# -- MS706 parameter-created-in-graph ---------------------------------------------------------
def test_parameter_created_in_graph(project):
    findings = only(project.lint_source("""
        import mindspore as ms
        from mindspore import nn, Parameter, Tensor


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor([1.0]), name="w")

            def construct(self, x):
                b = ms.Parameter(Tensor([1.0]), name="b")
                return x * self.w * b


        @ms.jit
        def step(x):
            return x + ms.common.parameter.Parameter(x, name="p")
    """, select=["MS706"]), "MS706")
    assert [f.line for f in findings] == [11, 17]
    assert "creating class 'mindspore.common.parameter.Parameter' instances is not supported" in findings[0].message
    assert findings[0].message.startswith("'ms.Parameter(...)' creates a Parameter in graph code, which fails to "
                                          "compile. ")
    assert findings[0].message.endswith(" Create it in __init__.")  # a constant value: it belongs in __init__


def test_a_parameter_shaped_by_the_batch_needs_no_parameter(project):
    # issue 26: Parameter(ops.zeros((L, batch, H))) in a state helper; __init__ cannot know the batch
    findings = only(project.lint_source("""
        import mindspore as ms
        from mindspore import nn, ops


        class Encoder(nn.Cell):
            def init_state(self, batch_size):
                return ms.Parameter(ops.zeros((2, batch_size, 8)), name="h")

            def construct(self, x):
                h = self.init_state(x.shape[0])
                return x + h.sum()
    """, select=["MS706"]), "MS706")
    assert [f.line for f in findings] == [7]
    assert findings[0].message.startswith("'ms.Parameter(...)' creates a Parameter in graph code")
    assert "Its value depends on this call's inputs (a per-call state, such as a batch-sized zeros): use the " \
        "tensor itself, without Parameter(...)." in findings[0].message
    assert "Create it in __init__" not in findings[0].message
    assert "ops.zeros((L, batch, H))" in findings[0].rule.fix


# -- MS707 parameter-set-data-in-graph --------------------------------------------------------
SET_DATA = """
import mindspore as ms
from mindspore import nn, ops, Parameter, Tensor


class Store:
    def set_data(self, value):
        self.value = value


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([1.0]), name="w")
        self.store = Store()

    def construct(self, x):
        self.w.set_data(x)
        self.store.set_data(x)
        ops.assign(self.w, x)
        return x


def outside(net, x):
    net.w.set_data(x)
"""


def test_set_data_in_graph_lax_and_strict(project):
    lax = only(project.lint_source(SET_DATA, select=["MS707"]), "MS707")
    assert [f.line for f in lax] == [17]
    assert "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter' object's method 'set_data'" \
        in lax[0].message
    assert "ops.assign(self.w, value)" in lax[0].message
    strict = only(project.lint("example.py", select=["MS707"], syntax_level="strict"), "MS707")
    assert [f.line for f in strict] == [17]
    assert "AttributeError: In JIT strict mode, cannot get attributes set_data" in strict[0].message


# -- MS708 jit-forbidden-api-in-graph ---------------------------------------------------------
FORBIDDEN = """
import mindspore as ms
from mindspore import nn, context, Tensor
from mindspore.common.initializer import initializer, Normal
from mindspore.common import initializer as init


class Block(nn.Cell):
    def construct(self, x):
        return x


class Own(nn.Cell):
    def trainable_params(self):
        return []

    def construct(self, x):
        return self.trainable_params()


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.block = Block()
        self.params = self.trainable_params()
        self.w = initializer("ones", (3,), ms.float32)

    def construct(self, x):
        a = initializer("ones", (3,), ms.float32)
        b = init.initializer(Normal(0.01), (3,))
        ms.set_context(mode=ms.GRAPH_MODE)
        context.set_context(mode=ms.GRAPH_MODE)
        p = self.trainable_params()
        q = self.fc.trainable_params()
        self.block.register_forward_hook(None)
        super().get_parameters()
        y = x * 2
        y.assign_value(x)
        return self.params, self.w
"""


def test_forbidden_apis_in_graph(project):
    findings = only(project.lint_source(FORBIDDEN, select=["MS708"]), "MS708")
    assert [f.line for f in findings] == [29, 30, 30, 31, 32, 33, 34, 35, 36, 38]
    by_line = {}
    for f in findings:
        by_line.setdefault(f.line, []).append(f.message)
    assert "the method or function 'mindspore.common.initializer.initializer' is not supported" in by_line[29][0]
    assert any("the class 'mindspore.common.initializer.Normal'" in m for m in by_line[30])
    assert "'mindspore.context.set_context'" in by_line[31][0] and "'mindspore.context.set_context'" in by_line[32][0]
    assert "'mindspore.nn.cell.Cell.trainable_params'" in by_line[33][0]
    assert "'self.fc.trainable_params(...)'" in by_line[34][0]
    assert "Cell.register_forward_hook" in by_line[35][0]
    assert "Cell.get_parameters" in by_line[36][0]
    assert "the 'Tensor' object's method 'assign_value'" in by_line[38][0]


def test_forbidden_tensor_method_message_under_strict(project):
    project.write("example.py", FORBIDDEN)
    strict = only(project.lint("example.py", select=["MS708"], syntax_level="strict"), "MS708")
    assert "cannot get attributes assign_value" in [f for f in strict if f.line == 38][0].message


def test_forbidden_api_table_comes_from_mindspores_registry():
    assert "mindspore.nn.cell.Cell.trainable_params" in data.jit_forbidden_methods()
    assert "mindspore.common.initializer" in data.jit_forbidden_modules()
    assert data.jit_forbidden_name("mindspore.set_context") == "mindspore.context.set_context"
    assert data.jit_forbidden_name("mindspore.common.initializer.Tensor") is None  # imported there, not defined


@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_shipped_api_table_matches_the_installed_mindspore(tmp_path):
    script = os.path.join(os.path.dirname(__file__), os.pardir, "scripts", "generate_api_tables.py")
    result = subprocess.run([sys.executable, os.path.abspath(script), "--check"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]


# -- MS709 isinstance-list-arg ----------------------------------------------------------------
def test_isinstance_with_a_list(project):
    findings = only(project.lint_source("""
        from mindspore import nn, Tensor


        class Net(nn.Cell):
            def construct(self, x):
                if isinstance(x, [Tensor, int]):
                    x = x + 1
                if isinstance(x, (Tensor, int)):
                    x = x + 1
                return x


        def outside(x):
            return isinstance(x, [int])
    """, select=["MS709"]), "MS709")
    assert [(f.line, f.column) for f in findings] == [(6, 25)]  # the list itself (0-based column)
    assert "TypeError: isinstance() arg 2 must be a type or tuple of types." in findings[0].message
    assert "(Tensor, int)" in findings[0].message


# -- MS710 non-parameter-attribute-assignment -------------------------------------------------
ATTRIBUTES = """
from mindspore import nn, ops, Parameter, Tensor


class Net(nn.Cell):
    def __init__(self, helper):
        super().__init__()
        self.w = Parameter(Tensor([1.0]), name="w")
        self.cache = None
        self.count = 0
        self.helper = helper

    def construct(self, x):
        self.w = x
        self.cache = x
        self.count += 1
        self.fresh, y = x, x
        self.helper = x
        ops.assign(self.w, x)
        return y


class Plain:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n = 1
"""


def test_attribute_assignment_is_info_under_lax(project):
    findings = only(project.lint_source(ATTRIBUTES, select=["MS710"]), "MS710")
    assert [f.line for f in findings] == [14, 15, 16]  # not the Parameter (13), not an __init__ argument (17)
    assert all(f.rule.severity == "info" for f in findings)
    assert "LAX allows it" in findings[0].message
    assert "with self.cache, the member attribute must be of the Parameter type" in findings[0].message
    assert "AttributeError: The 'Net' object has no attribute 'fresh'" in findings[2].message


def test_attribute_assignment_says_error_under_strict_and_fullgraph(project):
    strict = only(project.lint_source(ATTRIBUTES, select=["MS710"], syntax_level="strict"), "MS710")
    assert [f.line for f in strict] == [14, 15, 16]
    assert "This fails under STRICT (TypeError: In JIT strict mode" in strict[0].message
    # in PyNative the decorator compiles construct, STRICT (in GRAPH_MODE the cell's context level applies)
    fullgraph = only(project.lint_source("""
        import mindspore as ms
        from mindspore import nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last = None

            @ms.jit(fullgraph=True)
            def construct(self, x):
                self.last = x
                return x
    """, select=["MS710"]), "MS710")
    assert [f.line for f in fullgraph] == [14]
    assert "This fails under STRICT" in fullgraph[0].message


def test_migration_rules_metadata():
    rule = registry().get("MS710")
    assert rule.pylint_id == "C8710" and rule.default_enabled
    assert registry().get("MS701").pylint_id == "E8701"
    assert registry().get("MS703").pylint_id == "W8703"


def test_conv_padding_from_a_parameter_defaulting_to_zero_is_not_reported(project):
    # reduced from a real model: the padding is a constructor argument whose default is 0
    findings = project.lint_source("""
from mindspore import nn


class PatchEmbed(nn.Cell):
    def __init__(self, kernel_size=(16, 16), padding=(0, 0, 0, 0), in_chans=3, embed_dim=768):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=kernel_size, stride=kernel_size,
                              padding=padding, has_bias=True)

    def construct(self, x):
        return self.proj(x)
""", select=["MS701"])
    assert findings == []


def test_ms711_quiet_in_a_branch_for_mindspore_before_2_0_where_p_does_not_exist(project):
    # mindone models/lora.py: keep_prob is the only spelling MindSpore 1.x has
    source = """
        import mindspore as ms
        from mindspore import nn
        from mindspore import mint

        MS_VERSION = ms.__version__


        class Lora(nn.Cell):
            def __init__(self, dropout_p, keep):
                super().__init__()
                if MS_VERSION <= "1.10.1":
                    self.a = nn.Dropout(keep_prob=1 - dropout_p)
                else:
                    self.a = mint.nn.Dropout(p=dropout_p)
                if ms.__version__ >= "2.0":
                    self.b = nn.Dropout(p=dropout_p)
                else:
                    self.b = nn.Dropout(keep_prob=keep)
                self.c = nn.Dropout(keep_prob=keep) if ms.__version__ < "2.0" else nn.Dropout(p=dropout_p)
                if MS_VERSION >= "2.3":
                    self.d = nn.Dropout(p=dropout_p)
                else:
                    self.d = nn.Dropout(keep_prob=keep)
                if MS_VERSION <= "1.10.1":
                    self.e = nn.Dropout(p=dropout_p)
                else:
                    self.e = nn.Dropout(keep_prob=keep)

            def construct(self, x):
                return x
    """
    found = project.lint_source(source, select=["MS711"])
    # d: the else also holds on 2.0-2.2, which have p; e: the 2.x branch
    assert [(f.code, f.line) for f in found] == [("MS711", 23), ("MS711", 27)]


def test_attribute_only_a_graph_reached_method_sets_is_not_set_in_init(project):
    # mindone's qwenimage VAE: clear_cache() (called from construct) is the only method that
    # sets _conv_idx; before the graph first runs nothing has set it
    findings = only(project.lint_source("""
        from mindspore import nn


        class Vae(nn.Cell):
            def __init__(self):
                super().__init__()
                self.ready = 0

            def clear_cache(self):
                self._conv_idx = 0

            def construct(self, x):
                self.clear_cache()
                self._conv_idx += 1
                self.ready = 1
                return x
    """, select=["MS710"]), "MS710")
    by_line = {f.line: f.message for f in findings}
    assert sorted(by_line) == [10, 14, 15]
    assert "'self._conv_idx' is assigned in graph code and it is not set in __init__" in by_line[14]
    assert "AttributeError: The 'Vae' object has no attribute '_conv_idx'." in by_line[14]
    assert "__init__ does not make it a Parameter" in by_line[15]  # ready is set in __init__


def test_a_keep_rate_named_dropout_is_read_through_its_value(project):
    """`keep_prob=dropout` is a keep rate when dropout resolves to 0.5 or more (a config value):
    only the deprecation applies; a value below 0.5 is the PyTorch drop rate (MS703)."""
    found = project.lint_source("""
        from mindspore import nn

        HIDDEN_DROPOUT = 0.9
        ATTENTION_DROPOUT = 0.1


        class Head(nn.Cell):
            def __init__(self, dropout=0.8):
                super().__init__()
                self.a = nn.Dropout(keep_prob=HIDDEN_DROPOUT)
                self.b = nn.Dropout(keep_prob=ATTENTION_DROPOUT)
                self.c = nn.Dropout(keep_prob=dropout)
                self.d = nn.Dropout(HIDDEN_DROPOUT)
    """, select=["MS703", "MS711"])
    assert {f.line: f.code for f in found} == {10: "MS711", 11: "MS703", 12: "MS711", 13: "MS711"}


def test_momentum_of_a_batchnorm_that_never_updates_its_statistics_is_not_reported(project):
    found = project.lint_source("""
        from mindspore import nn


        def _bn(channels, momentum=0.1, use_batch_statistics=False):
            return nn.BatchNorm2d(channels, momentum=momentum, use_batch_statistics=use_batch_statistics)


        class Body(nn.Cell):
            def __init__(self):
                super().__init__()
                self.frozen = nn.BatchNorm2d(8, momentum=0.1, use_batch_statistics=False)
                self.trained = nn.BatchNorm2d(8, momentum=0.1)
                self.helper = _bn(8)
    """, select=["MS704"])
    assert [f.line for f in found] == [12]


ISSUE_26_DROPOUTS = """
from mindspore import nn


class Attention(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.drop = nn.Dropout(config.transformer_attention_dropout_rate)


class TemporalBlock(nn.Cell):
    def __init__(self, channels, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)


class Head(nn.Cell):
    def __init__(self, dim, dropout_ratio=0.75):
        super().__init__()
        self.drop = nn.Dropout(dropout_ratio)


class Block(nn.Cell):
    def __init__(self, dim, dropout=0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)


class Mixed(nn.Cell):
    def __init__(self, dim, dropout=0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)


def mlp(dim, dropout):
    return nn.SequentialCell([nn.Dense(dim, dim), nn.Dropout(dropout)])


class Encoder(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(dim), Block(dim, dropout=0.2), Mixed(dim), Mixed(dim, 0.9)])
        self.mlp = mlp(dim, 0.1)
        self.out = mlp(dim, dropout=0.2)
        self.torch_style = nn.Dropout(0.1)
"""


def test_ms703_only_for_values_known_to_be_drop_rates(project):
    # issue 26 class 4b: configurations set `dropout` to keep rates (1.0, 0.9, 0.75) as often as to drop
    # rates; MS703 needs the value: a number below 0.5, from a literal, every call in the module or a
    # default nothing overrides; else only the deprecation (MS711), which holds either way
    project.write("src/__init__.py", "")
    project.write("src/layers.py", ISSUE_26_DROPOUTS)
    project.write("train.py", """
from src.layers import Attention, Encoder, TemporalBlock


def build(config):
    return Attention(config), TemporalBlock(64, config.dropout), Encoder(64)
""")
    found = project.lint("src/layers.py", select=["MS703", "MS711"])
    lines = ISSUE_26_DROPOUTS.lstrip("\n").splitlines()
    dropouts = [i for i, text in enumerate(lines, 1) if "nn.Dropout(" in text]
    assert {f.line: f.code for f in found} == {
        dropouts[0]: "MS711",  # config.transformer_attention_dropout_rate: unknown
        dropouts[1]: "MS711",  # TemporalBlock(64, config.dropout) in train.py: unknown
        dropouts[2]: "MS711",  # the default 0.75: a keep rate
        dropouts[3]: "MS703",  # Block(dim) and Block(dim, dropout=0.2): 0.1 and 0.2
        dropouts[4]: "MS711",  # Mixed(dim) and Mixed(dim, 0.9): 0.1 and 0.9 disagree
        dropouts[5]: "MS703",  # every mlp() call passes 0.1 or 0.2
        dropouts[6]: "MS703",  # torch.nn.Dropout(0.1) converted as is
    }
    by_line = {f.line: f for f in found}
    assert by_line[dropouts[0]].message.endswith(
        "2.10 still accepts it. Write p=1 - config.transformer_attention_dropout_rate.")
    assert by_line[dropouts[2]].message.endswith("the behaviour is right. Write p=1 - dropout_ratio.")
    assert by_line[dropouts[0]].fix.applicability == "safe"  # p=1 - x does what the code does today


def test_ms704_frozen_statistics_passed_down_by_every_caller(project):
    # issue 26 class 5: use_batch_statistics=False through a helper's or a class's parameter (MindSpore
    # 2.10: the moving statistics never change, tests/test_mindspore_claims.py setup-frozen-batchnorm-*)
    source = """
from mindspore import nn


def _bn(channels, bn_training):
    return nn.BatchNorm2d(channels, momentum=0.1, use_batch_statistics=bn_training)


def _bn_mixed(channels, bn_training=False):
    return nn.BatchNorm2d(channels, momentum=0.1, use_batch_statistics=bn_training)


class Bottleneck(nn.Cell):
    def __init__(self, c, use_batch_statistics=False):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=0.1, use_batch_statistics=use_batch_statistics)
        self.a = _bn(c, False)
        self.b = _bn(c, bn_training=False)
        self.c = _bn_mixed(c)
        self.d = _bn_mixed(c, True)


class Trained(nn.Cell):
    def __init__(self, c, use_batch_statistics=False):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=0.1, use_batch_statistics=use_batch_statistics)


class ResNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.SequentialCell([Bottleneck(8), Bottleneck(8, False), Trained(8, None)])
        self.stem = self._norm(8, False)

    def _norm(self, c, training):
        return nn.BatchNorm2d(c, momentum=0.1, use_batch_statistics=training)
"""
    project.write("src/__init__.py", "")
    project.write("src/resnet.py", source)
    lines = source.lstrip("\n").splitlines()
    batchnorms = [i for i, text in enumerate(lines, 1) if "nn.BatchNorm2d(" in text]
    found = only(project.lint("src/resnet.py", select=["MS704"]), "MS704")
    # _bn: every call passes False; Bottleneck: its default and False; _bn_mixed: one call passes True;
    # Trained(8, None): None is not False (the layer then follows the training flag); self._norm(8, False)
    assert [f.line for f in found] == [batchnorms[1], batchnorms[3]]
    assert len(batchnorms) == 5


DROPOUTS_AND_VERSION_TESTS = """
    import mindspore as ms
    from mindspore import nn
    from mindformers.tools.utils import is_version_ge


    class Head(nn.Cell):
        def __init__(self, keep, drop):
            super().__init__()
            self.a = nn.Dropout(keep_prob=0.9)
            self.b = nn.Dropout(keep_prob=0.1)
            if is_version_ge(ms.__version__, "1.11"):
                self.c = nn.Dropout(keep_prob=keep)
            else:
                self.c = nn.Dropout(keep_prob=keep)
            if not is_version_ge(ms.__version__, "2.0"):
                self.d = nn.Dropout(keep_prob=0.1)
            if is_version_ge(ms.__version__, "2.1"):
                self.e = nn.Dropout(keep_prob=keep)

        def construct(self, x):
            return x
"""


def test_dropout_findings_and_fixes_hold_for_the_target_version_and_version_tests(project):
    # issue 29: with target-version 1.8, MS711's safe fix wrote nn.Dropout(p=0.1), an argument 1.8 lacks
    by_line = {f.line: f for f in project.lint_source(DROPOUTS_AND_VERSION_TESTS, select=["MS703", "MS711"],
                                                      target_version="1.8")}
    # a and c (1.11 or later still includes 1.x): keep_prob is 1.8's only spelling; b reads as a drop rate
    # (MS703) but may not be fixed to p; d: the pre-2.0 branch; e: a branch only 2.1+ takes, where p exists
    assert {line: f.code for line, f in by_line.items()} == {10: "MS703", 16: "MS703", 18: "MS711"}
    assert by_line[10].fix is None and by_line[16].fix is None
    assert by_line[10].message.endswith("If the value is the drop rate, write keep_prob=0.9.")
    assert "p=" not in by_line[10].message
    assert by_line[18].fix is not None and by_line[18].fix.edits[0].content == "p=1 - keep"
    on_2_10 = {f.line: f for f in project.lint("example.py", select=["MS703", "MS711"])}
    # 2.10: only d's branch (before 2.0) keeps keep_prob; c's else (before 1.11) too
    assert {line: f.code for line, f in on_2_10.items()} == {9: "MS711", 10: "MS703", 16: "MS703", 18: "MS711",
                                                             12: "MS711"}
    assert on_2_10[16].fix is None and on_2_10[10].fix is not None


VERSION_GATED_DROPOUTS = """
import mindspore as ms
from mindspore import nn
from mindformers.tools.utils import is_version_ge


def dropouts(config, dropout=0.1):
    if is_version_ge(ms.__version__, "1.11"):
        return nn.Dropout(p=config.dropout), nn.Dropout(p=dropout)
    else:
        return nn.Dropout(keep_prob=1 - config.dropout), nn.Dropout(config.hidden_dropout), nn.Dropout(dropout)
"""


def test_the_pre_1_11_branch_of_a_version_gate_is_neither_reported_nor_rewritten(tmp_path, project):
    # issue 26 "Version gates": the else branch runs only before 1.11, where nn.Dropout has no p; on
    # 2.x it never runs: MS711 stays quiet there and --fix leaves it alone (the drop rate 0.1 that
    # 1.x would keep is MS703's, without a fix: keep_prob is that version's only spelling)
    from mslint.config import Config
    from mslint.fix.apply import fixed_text

    found = project.lint_source(VERSION_GATED_DROPOUTS, select=["MS703", "MS711"])
    assert [(f.code, f.line, f.fix) for f in found] == [("MS703", 10, None)]
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    assert fixed_text(str(tmp_path / "gate.py"), VERSION_GATED_DROPOUTS, Config(root=str(tmp_path)),
                      unsafe=True) == VERSION_GATED_DROPOUTS


# -- MS713 (issue 30) ---------------------------------------------------------------------------------
ARGUMENT_ATTRIBUTES = '''
    from mindspore import nn, Parameter


    class Net(nn.Cell):
        def __init__(self, a, scale, w: Parameter, count=0):
            super().__init__()
            self.a = a
            self.scale = scale
            self.w = w
            self.count = count

        def construct(self, x):
            self.a = x
            self.w = x
            self.count += 1
            return x * self.scale
'''


def test_ms713_strict_only(project):
    assert only(project.lint_source(ARGUMENT_ATTRIBUTES, select=["MS713"]), "MS713") == []
    findings = only(project.lint_source(ARGUMENT_ATTRIBUTES, select=["MS713"], syntax_level="strict"), "MS713")
    assert [f.line for f in findings] == [13, 15]
    assert findings[0].message.startswith("'self.a' is assigned in STRICT graph code but __init__ copied it "
                                          "from an argument. That fails unless it is a Parameter.")


def test_ms713_and_ms710_do_not_overlap(project):
    findings = project.lint_source(ARGUMENT_ATTRIBUTES.replace("self.a = a", "self.a = None"),
                                   select=["MS710", "MS713"], syntax_level="strict")
    assert codes_by_line(findings) == {13: ["MS710"], 15: ["MS713"]}


# -- MS701: positional pad_mode and padding forwarded by a helper (issue 30) ---------------------------
CONV_HELPERS = '''
    from mindspore import nn


    def conv_bn(cin, cout, kernel, stride, padding):
        return nn.SequentialCell([nn.Conv2d(cin, cout, kernel, stride, padding=padding), nn.BatchNorm2d(cout)])


    def conv_free(cin, cout, padding):
        return nn.Conv2d(cin, cout, 3, padding=padding)


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(3, 8, 3, 1, 1)
            self.b = conv_bn(3, 8, 3, 1, 1)
            self.c = conv_bn(8, 8, 3, 1, padding=1)
            self.d = conv_free(8, 8, 0)
            self.e = conv_free(8, 8, 1)
            self.f = nn.Conv2d(3, 8, 3, 1, "pad", 1)
            self.g = nn.Conv2d(3, 8, 3, 1, "same")

        def construct(self, x):
            return self.a(x)
'''


def test_ms701_positional_pad_mode_and_traced_padding(project):
    findings = only(project.lint_source(CONV_HELPERS, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [5, 15]
    assert "every call of conv_bn() in this module passes padding=1" in findings[0].message
    assert findings[1].message.startswith("'nn.Conv2d' gets 1 as its fifth positional argument, which is pad_mode")
    assert "the type of 'pad_mode' should be 'str', but got type 'int'." in findings[1].message


def test_ms701_traced_padding_needs_every_caller(project):
    source = CONV_HELPERS.replace("self.c = conv_bn(8, 8, 3, 1, padding=1)", "self.c = conv_bn(8, 8, 1, 1, 0)")
    assert [f.line for f in only(project.lint_source(source, select=["MS701"]), "MS701")] == [15]


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_positional_pad_mode_error_is_mindspores(tmp_path, project):
    """The layer MS701 reports for a fifth positional number fails with the TypeError its message quotes."""
    message = only(project.lint_source(CONV_HELPERS, select=["MS701"]), "MS701")[1].message
    program = ("from mindspore import nn\n"
               "try:\n    nn.Conv2d(3, 8, 3, 1, 1)\n    print('built')\n"
               "except TypeError as error:\n    print(str(error).splitlines()[0])\n")
    result = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    error = result.stdout.strip().splitlines()[-1]
    assert error == "For 'Conv2D', the type of 'pad_mode' should be 'str', but got type 'int'."
    assert f"(TypeError: {error})" in message


def test_positional_pad_mode_is_quoted_per_layer(project):
    # the independent review of issue 30's forms: an nn.Conv1d built the same way raises its own ValueError
    findings = only(project.lint_source("""
        from mindspore import nn

        a = nn.Conv1d(4, 8, 3, 1, 1)
        b = nn.Conv2dTranspose(4, 8, 3, 1, 0)
        c = nn.Conv3d(4, 8, 3, 1, (1, 1))
    """, select=["MS701"]), "MS701")
    assert [f.line for f in findings] == [3, 4, 5]
    assert "(ValueError: For 'Conv1d', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', " \
           "but got '1'.)" in findings[0].message
    assert "For 'Conv2dTranspose', the 'pad_mode' must be str" in findings[1].message
    assert "(TypeError: For 'Conv3D', the type of 'pad_mode' should be 'str', but got type 'tuple'.)" \
           in findings[2].message


@pytest.mark.mindspore
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="needs the mindspore extra")
def test_positional_pad_mode_errors_per_layer_are_mindspores(tmp_path):
    from mslint.checkers.migration import POSITIONAL_PAD_MODE_ERRORS

    builds = {f"{name} {value}": f"nn.{name}(4, 8, 3, 1, {value!r})"
              for name in POSITIONAL_PAD_MODE_ERRORS for value in (1, (1, 1))}
    found = _construction_outcomes(tmp_path, builds)
    for name, error in POSITIONAL_PAD_MODE_ERRORS.items():
        assert found[f"{name} 1"] == error.format(value=1, type="int"), name
        assert found[f"{name} (1, 1)"] == error.format(value=(1, 1), type="tuple"), name


def test_a_keep_rate_wrapped_in_float_is_still_a_keep_rate(project):
    found = project.lint_source("""
        from mindspore import nn


        class Cell(nn.Cell):
            def __init__(self, dropout):
                super().__init__()
                self.a = nn.Dropout(float(1 - dropout))
                self.b = nn.Dropout(float(dropout))
    """, select=["MS703", "MS711"])
    assert {f.line: f.code for f in found} == {7: "MS711", 8: "MS711"}  # (8: dropout's value is unknown)
