"""File discovery: .gitignore precedence and per-folder configurations, through `discover`
and `PerFile` directly (the command's tests cover the same through `mslint`)."""
import os

from mslint import config as config_module
from mslint.run.discovery import discover
from mslint.run.gitignore import Gitignore


def _write(root, relative, text=""):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _found(root, **options):
    return sorted(os.path.relpath(path, root).replace(os.sep, "/")
                  for path in discover([str(root)], config_module.PerFile(), **options))


def test_a_deeper_gitignore_overrides_a_shallower_one_and_the_last_pattern_wins(tmp_path):
    (tmp_path / ".git" / "info").mkdir(parents=True)
    _write(tmp_path, ".git/info/exclude", "local_*.py\n")
    _write(tmp_path, ".gitignore", "*_pb2.py\ngen/\n!gen_keep.py\nlogs\n")
    _write(tmp_path, "pkg/.gitignore", "!kept_pb2.py\ndropped.py\n!dropped.py\ndropped.py\n")
    for name in ("a.py", "a_pb2.py", "local_x.py", "gen/b.py", "gen_keep.py", "logs/c.py", "pkg/kept_pb2.py",
                 "pkg/other_pb2.py", "pkg/dropped.py", "pkg/sub/kept_pb2.py", "pkg/sub/d.py"):
        _write(tmp_path, name)

    assert _found(tmp_path) == ["a.py", "gen_keep.py", "pkg/kept_pb2.py", "pkg/sub/d.py", "pkg/sub/kept_pb2.py"]
    everything = _found(tmp_path, respect_gitignore=False)
    assert len(everything) == 11


def test_a_directory_only_pattern_leaves_a_file_of_that_name(tmp_path):
    _write(tmp_path, ".gitignore", "cache/\n")
    _write(tmp_path, "cache/a.py")
    _write(tmp_path, "b/cache.py")
    matcher = Gitignore(str(tmp_path))

    assert _found(tmp_path) == ["b/cache.py"]
    assert matcher.is_ignored(str(tmp_path / "cache" / "a.py"))
    assert not matcher.is_ignored(str(tmp_path / "b" / "cache.py"))


def test_each_folder_takes_the_nearest_configuration_and_its_excludes(tmp_path):
    _write(tmp_path, "pyproject.toml", '[tool.mslint]\nexclude = ["legacy"]\n')
    _write(tmp_path, "sub/pyproject.toml", '[tool.mslint]\nexclude = ["old_*.py"]\n')
    _write(tmp_path, "plain/pyproject.toml", "[project]\nname = 'plain'\n")  # no [tool.mslint]: the one above
    for name in ("a.py", "old_a.py", "legacy/b.py", "sub/old_c.py", "sub/legacy/d.py", "sub/deep/er/old_e.py",
                 "plain/legacy/f.py", "plain/g.py"):
        _write(tmp_path, name)
    config_for = config_module.PerFile()

    assert _found(tmp_path) == ["a.py", "old_a.py", "plain/g.py", "sub/legacy/d.py"]
    top, sub = config_for(str(tmp_path / "a.py")), config_for(str(tmp_path / "sub" / "deep" / "er" / "old_e.py"))
    assert top.source == str(tmp_path / "pyproject.toml") and top.exclude == ("legacy",)
    assert sub.source == str(tmp_path / "sub" / "pyproject.toml") and sub.root == str(tmp_path / "sub")
    assert config_for(str(tmp_path / "plain" / "g.py")) is top  # one object per configuration file


def test_without_a_configuration_the_root_is_the_nearest_project_marker(tmp_path):
    _write(tmp_path, "repo/setup.py")
    _write(tmp_path, "repo/pkg/deep/a.py")
    _write(tmp_path, "loose/b.py")
    config_for = config_module.PerFile()

    assert config_for(str(tmp_path / "repo" / "pkg" / "deep" / "a.py")).root == str(tmp_path / "repo")
    assert config_for(str(tmp_path / "loose" / "b.py")).root in (str(tmp_path / "loose"),
                                                                config_module.find_project_root(str(tmp_path)))
    assert config_for(str(tmp_path / "repo" / "pkg" / "deep" / "a.py")) == \
        config_module.discover(str(tmp_path / "repo" / "pkg" / "deep"))
