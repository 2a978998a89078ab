"""Where the report goes: stdout (tolerant of unencodable file names, quiet when the reader
goes away) or a file."""
from __future__ import annotations

import codecs
import os
import sys
from typing import Optional

from mslint.run.discovery import UsageError


def open_output(path: Optional[str]):
    if path is None:
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8", errors="surrogateescape")
    except OSError as error:
        raise UsageError(f"--output-file {path}: cannot write: {error.strerror or error}") from None


class OutputError(UsageError):
    """The report could not be written (a full disk, a quota): the machine's problem, not mslint's."""


def write(render, out, status: int) -> int:
    """Write the report; a reader that went away (`mslint | head -1`) ends the run quietly
    with the status it had; a write that fails otherwise (a full disk) is an OutputError."""
    try:
        try:
            render(out)
            out.flush()
        finally:
            if out is not sys.stdout:
                out.close()
    except BrokenPipeError:
        silence_stdout()
    except OSError as error:
        if out is sys.stdout:
            silence_stdout()  # the interpreter's last flush of what is left would fail again
        where = "standard output" if out is sys.stdout else getattr(out, "name", "the output file")
        raise OutputError(f"cannot write the report to {where}: {error.strerror or error}") from None
    return status


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def is_terminal(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _json_escape(error: UnicodeEncodeError):
    """Codec error handler: unencodable characters as \\uXXXX (UTF-16 units, as JSON writes them)."""
    units = error.object[error.start:error.end].encode("utf-16-be", "surrogatepass")
    escaped = "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2))
    return escaped, error.end


def tolerant_stdout() -> None:
    """A file name that is not valid UTF-8 (a lone surrogate in Python) or a character the terminal's
    encoding lacks is written as a \\uXXXX escape (valid inside JSON strings, readable in text) instead
    of failing the whole report with UnicodeEncodeError."""
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        codecs.register_error("mslint-json-escape", _json_escape)
        sys.stdout.reconfigure(errors="mslint-json-escape")
