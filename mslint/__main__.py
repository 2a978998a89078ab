"""`python -m mslint`: the `mslint` command."""
import sys

from mslint.frontends.cli import main

sys.exit(main())
