"""Writing a file so that a reader (or a crash) never sees half of it."""
from __future__ import annotations

import os


def write_atomically(path: str, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`, keeping an
    existing file's permissions."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = None
    import tempfile  # (a run that writes nothing does not import it)

    descriptor, temporary = tempfile.mkstemp(prefix=".mslint-", suffix=".tmp",
                                             dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        else:  # a new file: the permissions a plain open() would give (mkstemp's are 0600)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
