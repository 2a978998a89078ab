"""mslint: a static linter for MindSpore graph-mode code.

As a pylint plugin: `pylint --load-plugins=mslint`.  As a command: `mslint`.
"""
import os as _os
import sys as _sys

# `python -m mslint` puts the working directory (usually the project being linted) first on
# sys.path, so a project file named typing.py or json.py would be imported, that is run, by mslint's
# own imports.  mslint never needs that entry: drop it before anything else is imported.  (While
# `-m` looks for its module, sys.argv[0] is "-m".)
if _sys.argv[:1] == ["-m"] and _sys.path and _os.path.abspath(_sys.path[0] or _os.curdir) == _os.getcwd():
    del _sys.path[0]

__version__ = "0.1.0"


def register(linter) -> None:
    """pylint's plugin entry point (`--load-plugins=mslint`); the front-end does the work."""
    from mslint.frontends import pylint_plugin

    pylint_plugin.register(linter)
