"""The language server's garbage-collector policy: full collections that skip the project.

After the first lint the server holds the project model and the built modules its analyses
keep (mslint.run.runner.KeptModules): millions of objects that live as long as the server.
With the collector's defaults, every full collection walks all of them, so an edit that
happened to trigger one (parsing a 3,000-line buffer allocates enough) took tens of
milliseconds longer than the next.  So the server:

- collects as rarely as a command run does (runner.GC_THRESHOLDS), for its whole life, not
  only inside a run (the syntax check and the conversion of findings run outside one);
- after its first lint, moves everything alive into the collector's permanent generation
  (`gc.freeze`), which full collections skip;
- when nothing has changed for IDLE_SECONDS, collects everything once (`gc.unfreeze`,
  `gc.collect`, `gc.freeze` again), so what was frozen and has since become garbage (a
  buffer's old tree, modules rebuilt after a change on disk) is freed, and what is new and
  kept is frozen too.  The collection runs with the analysis lock held, never beside a lint.
"""
from __future__ import annotations

import gc
import threading

IDLE_SECONDS = 5.0


class HeapKeeper:
    """When to freeze and when to collect everything (see above)."""

    def __init__(self):
        self.started = False  # only a server process's own policy (not a test's server object)
        self.frozen = False
        self.collections = 0  # full collections made when idle (for tests and logs)

    def start(self) -> None:
        from mslint.run.runner import GC_THRESHOLDS

        gc.set_threshold(*GC_THRESHOLDS)
        self.started = True

    def after_lint(self) -> None:
        """Once: freeze what the first lint left alive (call with the analysis lock held)."""
        if self.started and not self.frozen:
            self.collect_and_freeze()

    def when_idle(self, lock: threading.Lock) -> None:
        """Free what became garbage while frozen, and freeze what is new (skipped if a lint
        holds the lock: the next quiet spell will do it)."""
        if not self.started or not lock.acquire(blocking=False):
            return
        try:
            self.collect_and_freeze()
            self.collections += 1
        finally:
            lock.release()

    def collect_and_freeze(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.frozen = True
