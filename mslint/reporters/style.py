"""Colour for people reading a terminal: whether to use it, and how to paint text with it."""
from __future__ import annotations

import os

_CODES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "cyan": "36", "blue": "34", "green": "32"}
SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def use_color(choice: str, stream) -> bool:
    """--color always|never decide; auto follows NO_COLOR / FORCE_COLOR (no-color.org,
    force-color.org), then whether the stream is a terminal."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def paint(text: str, style: str, enabled: bool) -> str:
    return f"\x1b[{_CODES[style]}m{text}\x1b[0m" if enabled and text else text
