"""A snapshot of the rules' metadata, so that a run with nothing to analyse never imports
the checkers (and astroid with them).

A warm run reads every result from the cache; it still needs each rule's code, symbol,
severity and texts (to select rules, read suppression comments and print findings), and
those live next to the checks in `mslint.checkers`, whose import costs more than the
rest of such a run.  The first run that imports the checkers writes their metadata to
`rules-<digest>.json` in $MSLINT_CACHE_DIR or the user's cache directory (never a
project's .mslint_cache/); later runs of the same mslint code (the
digest covers all of it) read that instead.  A snapshot that is missing, unreadable or
from other code is ignored: the checkers are imported, as always.
"""
from __future__ import annotations

import glob
import json
import os
import time
from typing import List, Optional

from mslint.atomic import write_atomically
from mslint.directories import ENVIRONMENT_VARIABLE, user_cache_directory
from mslint.fingerprint import code_digest

SNAPSHOT_FORMAT = 1
STALE_AFTER_SECONDS = 24 * 3600
_FIELDS = ("code", "symbol", "severity", "summary", "fix", "default_enabled")


def snapshot_path() -> str:
    directory = os.environ.get(ENVIRONMENT_VARIABLE) or os.path.join(user_cache_directory(), "mslint")
    return os.path.join(directory, f"rules-{code_digest()[:20]}.json")


def load() -> Optional[List[dict]]:
    """The family rules' metadata as saved by this very mslint code, or None."""
    try:
        with open(snapshot_path(), encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("format") != SNAPSHOT_FORMAT:
        return None
    records = document.get("rules")
    if not isinstance(records, list) or not all(isinstance(r, dict) and set(r) == set(_FIELDS) for r in records):
        return None
    return records


def save(rules) -> None:
    """Write the metadata of these (family) rules; a directory that cannot be written is skipped."""
    path = snapshot_path()
    document = {"format": SNAPSHOT_FORMAT, "rules": [{name: getattr(rule, name) for name in _FIELDS}
                                                     for rule in rules]}
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        write_atomically(path, json.dumps(document, separators=(",", ":")).encode("utf-8"))
        for stale in glob.glob(os.path.join(directory, "rules-*.json")):
            # other mslint code's, unused for a day (another installation may still read a newer one)
            try:
                if stale != path and time.time() - os.path.getmtime(stale) > STALE_AFTER_SECONDS:
                    os.unlink(stale)
            except OSError:
                pass
    except OSError:
        return
