"""Writing files without ever leaving half of one: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

from ..errors import CiterenderError

__all__ = ["RACY_NS", "linked_part", "refuse_links", "settled", "write_atomic"]


def linked_part(root: Path, path: Path) -> Path | None:
    """The first entry on the way from ``root`` down to ``path`` (``path`` included) that is a
    symbolic link, or that ``path`` does not lie under; None when the way is plain folders. Followed
    with ``lstat``, never resolved: a link inside, wherever it points, is a way out a change can redirect."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return path
    here = root
    for part in rel.parts:
        if part in ("", ".", ".."):
            return here / part
        here = here / part
        try:
            if stat.S_ISLNK(os.lstat(here).st_mode):
                return here
        except OSError:
            return None  # the rest of the way does not exist yet: nothing to follow
    return None


def refuse_links(root: Path, path: Path) -> None:
    """Raise unless ``path`` can be written or deleted without going through a link inside ``root``."""
    linked = linked_part(root, path)
    if linked is None:
        return
    try:
        where = f" (to {linked.readlink()})"
    except OSError:
        where = ""
    raise CiterenderError(
        f"{linked.relative_to(root) if linked.is_relative_to(root) else linked} is a symbolic link{where}: "
        "a build never writes or deletes through a link inside its output folder",
        path=str(linked),
        hint="remove the link, or build into the folder it points to",
    )


#: a file changed this recently may change again without its size or mtime moving (coarse
#: file-system clocks: git's "racy" rule), so its stamp is not trusted yet
RACY_NS = 3_000_000_000


def settled(mtime_ns: int) -> bool:
    """Was a file with this mtime last changed long enough ago for its stamp to be trusted?"""
    return time.time_ns() - mtime_ns > RACY_NS


def _exclusive(p: Path) -> tuple[int, str]:
    """A new temporary file beside ``p``, created exclusively (``O_EXCL``, mode 0600, a link in its
    place refused): ``tempfile.mkstemp`` without its start-up cost for every command that writes a file."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    # most file systems take names of 255 bytes: the temporary one's ".", ".XXXXXXXX.tmp" fit beside the stem
    stem = p.name.encode("utf-8")[: 255 - 15].decode("utf-8", "ignore")
    for _ in range(100):
        name = str(p.parent / f".{stem}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {p.name}")


def write_atomic(path: str | Path, data: str | bytes, *, make_parents: bool = False, root: Path | None = None) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; failures become :class:`CiterenderError`.

    The temporary file is ``.NAME.XXXXXXXX.tmp`` beside the target (a site build removes a killed
    run's leftovers). A target that is not a regular file (``/dev/null``, a named pipe) is written
    in place: a rename would put a regular file where the device was (for ``/dev/null``, breaking
    every program that opens it). With ``root`` (a build's output folder), never in place and never
    through a symbolic link on the way from ``root``: a build writes nothing outside its folder.
    """
    p = Path(path)
    if root is not None:
        refuse_links(root, p)
    if p.is_dir():
        raise CiterenderError("output path is a directory", path=str(p))
    # a lone surrogate (JSON allows "\ud800") cannot be UTF-8: written as "?", never a traceback
    payload = data.encode("utf-8", "replace") if isinstance(data, str) else data
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(p.stat().st_mode):
            if root is not None:
                raise CiterenderError("output path exists and is not a regular file", path=str(p))
            _write_in_place(p, payload)
            return
    if make_parents:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CiterenderError(f"cannot create the output folder: {e.strerror or e}", path=str(p.parent)) from None
    elif not p.parent.is_dir():
        raise CiterenderError("output directory does not exist", path=str(p.parent))
    if root is not None:
        refuse_links(root, p)  # again, the folders made: a link planted meanwhile is refused too
    try:  # created exclusively (O_EXCL, mode 0600): a planted symlink is never followed
        fd, name = _exclusive(p)
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
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p.parent)) from None
        raise


def _write_in_place(p: Path, payload: bytes) -> None:
    try:
        with p.open("wb") as f:
            f.write(payload)
    except OSError as e:
        raise CiterenderError(f"cannot write the output: {e.strerror or e}", path=str(p)) from None
