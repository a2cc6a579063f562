"""Writing files without ever leaving half of one: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import CiterenderError

__all__ = ["write_atomic"]


def write_atomic(path: str | Path, data: str | bytes, *, make_parents: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; failures become :class:`CiterenderError`.

    The temporary file is ``.NAME.PID.tmp`` next to the target, so a site build can recognise and
    remove the leftovers of a run that was killed.
    """
    p = Path(path)
    if p.is_dir():
        raise CiterenderError("output path is a directory", path=str(p))
    if make_parents:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CiterenderError(f"cannot create the output folder: {e.strerror or e}", path=str(p.parent)) from None
    elif not p.parent.is_dir():
        raise CiterenderError("output directory does not exist", path=str(p.parent))
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with open(tmp, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p.parent)) from None
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
