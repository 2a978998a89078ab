"""`python -m mslint`: the `mslint` command."""
from mslint.frontends.cli import run

run()
