"""The language server's garbage-collector policy: full collections that skip the project.

After the first lint the server holds the project model and the built modules its analyses
keep (mslint.run.runner.KeptModules): millions of objects that live as long as the server.
With the collector's defaults, every full collection walks all of them, so an edit that
happened to trigger one (parsing a 3,000-line buffer allocates enough) took tens of
milliseconds longer than the next.  So the server:

- collects as rarely as a command run does (runner.GC_THRESHOLDS), for its whole life, not
  only inside a run (the syntax check and the conversion of findings run outside one);
- after its first lint, moves everything into the collector's permanent generation
  (`gc.freeze`), which full collections skip.  It does not collect first: that full
  collection took about 0.1-0.5 s, which the user's first keystroke after opening a file
  waited for (the garbage goes with the first quiet spell's collection, below);
- after every later lint, freezes what that lint left (a buffer's new tree and its analysis).
  `gc.freeze` costs nothing, and the next edit's collections then walk only that edit's own
  objects.  Without it, every edit of a 3,000-line buffer paid about 15 ms for a young
  collection that walked the last edit's tree, and one edit in twenty about 300 ms for a
  middle-generation one (measured in-process: median 219 -> 193 ms an edit, p95 226 -> 206);
- when nothing has changed for IDLE_SECONDS, collects everything once (`gc.unfreeze`,
  `gc.collect`, `gc.freeze` again), so what was frozen and has since become garbage (a
  buffer's old tree, modules rebuilt after a change on disk) is freed, and what is new and
  kept is frozen too.  The collection runs with the analysis lock held, never beside a lint;
- with a heap grown past SOFT_GROWTH since the last full collection (objects frozen since,
  against those alive then, or MIN_GROWTH if more), waits only QUICK_IDLE_SECONDS of quiet for
  that collection; past HARD_GROWTH, collects right after a lint.  One who types for minutes
  without a pause gets a slower edit now and then, not an unbounded heap.

The collector's work is moved, not saved: on the 2,996-line benchmark file a check leaves
about 25,000 objects behind; forty checks in a row without a quiet second reach HARD_GROWTH
(the process then holds about 210 MiB; 370 MiB with twice the bound), and that collection
takes about 0.75 s, some 19 ms a check, against about 30 ms a check that the young and
middle-generation collections took before.  A quiet second or five usually does it first.
"""
from __future__ import annotations

import gc
import threading

IDLE_SECONDS = 5.0
QUICK_IDLE_SECONDS = 1.0
SOFT_GROWTH = 0.5
HARD_GROWTH = 1.0
MIN_GROWTH = 1_000_000


class HeapKeeper:
    """When to freeze and when to collect everything (see above)."""

    def __init__(self):
        self.started = False  # only a server process's own policy (not a test's server object)
        self.frozen = False
        self.collections = 0  # full collections made when idle (for tests and logs)
        self.alive = 0  # objects frozen by the last full collection (alive then)
        self.since = 0  # objects frozen after lints since then

    def start(self) -> None:
        from mslint.run.runner import GC_THRESHOLDS

        gc.set_threshold(*GC_THRESHOLDS)
        self.started = True

    def after_lint(self) -> None:
        """Freeze what a lint left, as it is, unless the heap outgrew its bound (see above).
        Call with the analysis lock held."""
        if not self.started:
            return
        if not self.frozen:  # the first: what it counts, garbage too, stands for those alive
            self.alive = _tracked()
            gc.freeze()
            self.frozen = True
            return
        self.since += _tracked()
        gc.freeze()
        if self.grown_past(HARD_GROWTH):
            self.collect_and_freeze()

    def grown_past(self, share: float) -> bool:
        """Whether the objects frozen since the last full collection outgrew `share` of those
        alive then (and MIN_GROWTH times that share)."""
        return self.since > share * max(MIN_GROWTH, self.alive)

    def idle_seconds(self) -> float:
        """How long to wait for quiet before collecting everything."""
        return QUICK_IDLE_SECONDS if self.grown_past(SOFT_GROWTH) else IDLE_SECONDS

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
        self.alive = _tracked()
        self.since = 0
        gc.freeze()
        self.frozen = True


def _tracked() -> int:
    """How many objects the collector's generations hold (not the frozen ones): what the next
    freeze moves.  (gc.get_freeze_count() would walk every frozen object: far slower.)"""
    return sum(len(gc.get_objects(generation)) for generation in range(3))
