"""A progress line on a terminal for long runs: `mslint: 120/8500 files, 14 s`, on stderr,
shown once a run has worked for a second, redrawn at most ten times a second, erased at the
end.  The command turns it off in pipes, with CI formats and with --quiet."""
from __future__ import annotations

import os
import time
from typing import TextIO

from mslint.run import runner

DELAY_VARIABLE = "MSLINT_PROGRESS_AFTER"  # seconds before the line appears (default 1; tests use 0)


class Progress(runner.Progress):
    def __init__(self, stream: TextIO, enabled: bool):
        self.total = 0
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self.started = time.monotonic()
        self.delay = _delay()
        self.drawn_at = None

    def start(self, total: int) -> None:
        self.total = total

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.delay or (self.drawn_at is not None and now - self.drawn_at < 0.1):
            return
        self.drawn_at = now
        self.stream.write(f"\r\x1b[Kmslint: {self.done}/{self.total} files, {now - self.started:.0f} s")
        self.stream.flush()

    def finish(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn_at = None


def _delay() -> float:
    try:
        return max(float(os.environ.get(DELAY_VARIABLE, "1")), 0.0)
    except ValueError:
        return 1.0
