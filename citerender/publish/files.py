"""Writing files without ever leaving half of one: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from ..errors import CiterenderError

__all__ = ["write_atomic"]


def write_atomic(path: str | Path, data: str | bytes, *, make_parents: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; failures become :class:`CiterenderError`.

    The temporary file is ``.NAME.XXXXXXXX.tmp`` next to the target, created exclusively, so a site
    build can recognise and remove the leftovers of a run that was killed. A target that is not a
    regular file (``-o /dev/null``, ``/dev/stdout``, a named pipe) is written in place: a rename
    would put a regular file where the device was — for ``/dev/null``, breaking every program on
    the machine that opens it.
    """
    p = Path(path)
    if p.is_dir():
        raise CiterenderError("output path is a directory", path=str(p))
    # a lone surrogate (JSON allows "\ud800") cannot be UTF-8: written as "?", never a traceback
    payload = data.encode("utf-8", "replace") if isinstance(data, str) else data
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(p.stat().st_mode):
            _write_in_place(p, payload)
            return
    if make_parents:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CiterenderError(f"cannot create the output folder: {e.strerror or e}", path=str(p.parent)) from None
    elif not p.parent.is_dir():
        raise CiterenderError("output directory does not exist", path=str(p.parent))
    try:  # created exclusively (O_EXCL, mode 0600): a planted symlink is never followed
        fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as e:
        raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p.parent)) from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        tmp.chmod(0o644)
        tmp.replace(p)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p.parent)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _write_in_place(p: Path, payload: bytes) -> None:
    try:
        with p.open("wb") as f:
            f.write(payload)
    except OSError as e:
        raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p)) from None
