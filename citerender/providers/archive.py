"""A chat export's file: ``conversations.json`` or the export's ``.zip``, read as a stream of
conversations (``ijson``), a zip inflating to at most ``max_bytes`` and 200 times its size.

ChatGPT's and Claude's exports are both a JSON array of conversation objects, zipped with the same
member name; what each object holds is read by :mod:`.chatgpt` or :mod:`.claude`.

A damaged or lying zip (a CRC or size that does not match, a truncated stream, encryption, an
unknown compression method) is an input error naming the file. Strings are read as Python's
``json`` reads them, lone surrogates (``"\\udc00"``) kept, so that every input has the same
surrogate handling (:func:`~citerender.sources.clean.clean_data` replaces and reports them): ijson's
C backend cannot decode a lone low surrogate and turns a lone high one into ``?``, so a stream that
holds one is read again with ijson's Python backend."""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import CiterenderError

__all__ = ["MAX_INFLATED_BYTES", "MAX_INFLATE_RATIO", "ZIP_ERRORS", "head", "is_zipped_export", "read_raw"]

#: what reading a damaged or lying zip raises (zipfile's own checks, the decompressors', encryption)
ZIP_ERRORS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    OSError,
)
try:
    import lzma

    ZIP_ERRORS += (lzma.LZMAError,)
except ImportError:  # pragma: no cover - a Python built without lzma reads no LZMA member either
    pass


#: the most a zipped export may inflate to, and the most it may inflate per compressed byte: an
#: 800 KB zip inflating to 800 MB ran for minutes (see SECURITY.md); ``max_bytes`` changes the first
MAX_INFLATED_BYTES = 4 * 1024**3
MAX_INFLATE_RATIO = 200


@contextmanager
def _open(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[IO[bytes]]:
    p = Path(path)
    if not p.is_file():
        raise CiterenderError("export not found (or not a regular file)", path=str(path))
    if _is_zip(p):
        try:
            z = zipfile.ZipFile(p)
            members = [i for i in z.infolist() if i.filename.rsplit("/", 1)[-1] == "conversations.json"]
            if not members:
                raise CiterenderError("the zip holds no conversations.json", path=str(path))
            info = members[0]
            _check_inflation(info.file_size, info.compress_size, max_bytes, str(path))
            member = z.open(info)
        except ZIP_ERRORS as e:
            raise _damaged(e, str(path)) from None
        with z, member:
            # the header's sizes may lie: the stream itself is bounded
            yield io.BufferedReader(_Bounded(member, max_bytes, info.compress_size, str(path)))
    else:
        with p.open("rb") as f:
            yield f


def _check_inflation(size: int, compressed: int, max_bytes: int, path: str) -> None:
    if size > max_bytes:
        raise CiterenderError(
            f"the zip's conversations.json inflates to {size:,} bytes, over the limit of {max_bytes:,}",
            path=path,
            hint="unzip it and build conversations.json, or raise the limit with --max-export-bytes",
        )
    if size > 1024 * 1024 and size > MAX_INFLATE_RATIO * max(compressed, 1):
        raise CiterenderError(
            f"the zip's conversations.json inflates {size // max(compressed, 1):,} times (over {MAX_INFLATE_RATIO}): "
            "refused as a zip bomb",
            path=path,
            hint="unzip it and build conversations.json",
        )


class _Bounded(io.RawIOBase):
    """A zip member read as a stream, stopped once it inflates past the limits whatever its header said."""

    def __init__(self, f: IO[bytes], max_bytes: int, compressed: int, path: str) -> None:
        self.f, self.max_bytes, self.compressed, self.path, self.read_so_far = f, max_bytes, compressed, path, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.f.read(len(buffer))
        except ZIP_ERRORS as e:  # a CRC that does not match (a header that understates the size)…
            raise _damaged(e, self.path) from None
        self.read_so_far += len(data)
        _check_inflation(self.read_so_far, self.compressed, self.max_bytes, self.path)
        buffer[: len(data)] = data
        return len(data)


def _damaged(e: Exception, path: str) -> CiterenderError:
    return CiterenderError(
        f"the zip is damaged or does not match its headers ({type(e).__name__}: {str(e)[:200]})",
        path=path,
        hint="download the export again, or unzip it and build its conversations.json",
    )


def is_zipped_export(path: str | Path) -> bool:
    """Is the file a zip holding a ``conversations.json``, or a zip too damaged to tell? Either is
    read as an export: its size, and what is wrong with it, are judged when it is read."""
    if not _is_zip(path):
        return False
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.rsplit("/", 1)[-1] == "conversations.json" for n in z.namelist())
    except ZIP_ERRORS:
        return True


def _is_zip(path: str | Path) -> bool:
    """A regular file that starts as a zip does, or that :mod:`zipfile` takes for one."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return False
            start = f.read(4)
        return start == b"PK\x03\x04" or zipfile.is_zipfile(path)
    except ZIP_ERRORS:
        return False


def head(path: str | Path) -> str:
    """The first 64 KiB of the export's JSON as text (a zip's ``conversations.json``), ``""`` when
    it cannot be read: enough to tell whose export it is."""
    try:
        with _open(path) as f:
            return f.read(65536).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    except CiterenderError:
        return ""
    except ZIP_ERRORS:
        return ""


def read_raw(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every conversation of the export as its JSON data, with its position, read as a stream
    (a zipped export inflates to at most ``max_bytes``); strings as ``json`` reads them."""
    import ijson

    done = 0
    if ijson.backend != "python":
        try:
            for k, data in _items(path, max_bytes, ijson, watch=True):
                done = k + 1
                yield k, data
            return
        except _LoneSurrogate:
            pass  # read again, from where it stopped, by the backend that keeps lone surrogates
    for k, data in _items(path, max_bytes, ijson.get_backend("python"), watch=False):
        if k >= done:
            yield k, data


def _items(path: str | Path, max_bytes: int, backend: Any, *, watch: bool) -> Iterator[tuple[int, Mapping[str, Any]]]:
    import ijson

    with _open(path, max_bytes) as f:
        try:
            for k, data in enumerate(backend.items(_SurrogateWatch(f) if watch else f, "item", use_float=True)):
                if isinstance(data, Mapping):
                    yield k, data
        except ijson.JSONError as e:
            what = " ".join(str(e).split())[:300]  # yajl's message draws an arrow over several lines
            raise CiterenderError(f"invalid JSON in the export: {what}", path=str(path)) from None
        except UnicodeDecodeError as e:
            raise CiterenderError(
                f"the export is not valid UTF-8 ({e.reason})", path=str(path), hint="export it again"
            ) from None


class _LoneSurrogate(Exception):
    """The stream holds a lone surrogate escape: ijson's C backend would misread it."""


#: a ``\\uD800``–``\\uDFFF`` escape that is not half of a pair (a false alarm, such as an escaped
#: backslash before ``ud800``, only costs reading with the slower backend)
_LONE = re.compile(  # a literal first, so the search skips ahead: linear, and fast on escaped text
    rb"\\u[dD](?:[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|[c-fC-F][0-9a-fA-F]{2}(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
)
_HOLD = 12  # bytes held back: enough to see whether an escape at the end of a chunk is half a pair


class _SurrogateWatch:
    """A JSON byte stream whose bytes are handed on only once looked at, with what follows them:
    a lone surrogate escape stops the stream (:class:`_LoneSurrogate`) before the parser sees it."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f, self.pending, self.before = f, b"", b""

    def read(self, n: int = -1) -> bytes:
        if n == 0:
            return b""
        while True:
            chunk = self.f.read(n if n > 0 else 65536)
            data = self.pending + chunk
            cut = len(data) if not chunk else max(0, len(data) - _HOLD)
            out, self.pending = data[:cut], data[cut:]
            m = _LONE.search(self.before + data, len(self.before))
            if m is not None and m.start() < len(self.before) + cut:
                raise _LoneSurrogate
            self.before = (self.before + out)[-_HOLD:]
            if out or not chunk:
                return out
