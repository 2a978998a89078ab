"""A per-file time budget: a pathological file becomes one MS004 finding, not a hung run.

The budget is a one-shot SIGALRM timer (``signal.setitimer``) armed around each file's
analysis in the main thread of the process that lints it (the `mslint` process, or each
``--jobs`` worker).  When it runs out, `BudgetExceeded` is raised wherever the analysis is;
the engine turns it into MS004 (keeping the findings of the rules that finished) and, if it
happens while the file is read or parsed, `bounded` does.

Where there is no SIGALRM (Windows) or off the main thread (an editor running pylint in a
thread), files run without a time budget: the recursion and call-graph size limits still apply.

The budget is ``DEFAULT_SECONDS`` per file; the environment variable ``MSLINT_FILE_BUDGET``
sets another number of seconds (``0`` turns the budget off).
"""
from __future__ import annotations

import functools
import os
import signal
import threading
import time
from typing import Optional, Tuple

DEFAULT_SECONDS = 120.0
ENVIRONMENT = "MSLINT_FILE_BUDGET"


class BudgetExceeded(BaseException):
    """The file's time budget ran out.  A BaseException, like KeyboardInterrupt, so that the
    broad ``except Exception`` in astroid or in a rule cannot swallow it."""


def seconds() -> float:
    """The per-file budget in seconds; 0 means none."""
    text = os.environ.get(ENVIRONMENT, "").strip()
    if not text:
        return DEFAULT_SECONDS
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_SECONDS
    return value if value > 0 and value == value else 0.0  # negative or NaN: off


def available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def describe(budget: float) -> str:
    return f"the per-file time budget ({budget:g} s, {ENVIRONMENT})"


_State = Tuple[object, float, float]


def _expire(signum, frame):
    raise BudgetExceeded()


def _arm(budget: float) -> _State:
    previous = signal.signal(signal.SIGALRM, _expire)
    outer_delay, _ = signal.setitimer(signal.ITIMER_REAL, budget)
    return previous, outer_delay, time.monotonic()


def _disarm(state: Optional[_State]) -> None:
    """Idempotent: stop our timer, give back the previous handler and any outer timer's remaining time."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    previous, outer_delay, started = state
    signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
    if outer_delay > 0:
        signal.setitimer(signal.ITIMER_REAL, max(outer_delay - (time.monotonic() - started), 0.001))


def bounded(on_timeout):
    """Decorator factory: run ``analyse(path, ...)`` under the per-file budget; when it runs out
    before the engine could report it (while the file was read or parsed), return
    ``on_timeout(path, description of the budget)`` instead."""

    def decorate(analyse):
        @functools.wraps(analyse)
        def run(path, *args, **kwargs):
            budget = seconds()
            if budget <= 0 or not available():
                return analyse(path, *args, **kwargs)
            state = _arm(budget)
            try:
                try:
                    return analyse(path, *args, **kwargs)
                finally:
                    _disarm(state)
            except BudgetExceeded:  # also when the timer fired just before the inner finally disarmed it
                _disarm(state)
                return on_timeout(path, describe(budget))

        return run

    return decorate
