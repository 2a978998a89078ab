"""`python -m mslint`: the `mslint` command."""
import sys

from mslint.cli import main

sys.exit(main())
