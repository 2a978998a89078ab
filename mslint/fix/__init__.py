"""Changing the user's files and adopting mslint on existing code: applying fixes
(`--fix`, `--diff`), adding suppression comments (`--add-noqa`), and baselines.  Imports
the run, the reporters and the core; never a front-end."""
