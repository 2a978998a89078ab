"""mslint: a static linter for MindSpore graph-mode code.

As a pylint plugin: `pylint --load-plugins=mslint`.  As a command: `mslint`.
"""
__version__ = "0.1.0"


def register(linter) -> None:
    """pylint's plugin entry point."""
    from mslint.checkers import register_checkers

    register_checkers(linter)
