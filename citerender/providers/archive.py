"""A chat export's file (``conversations.json``, the export's ``.zip`` or its folder) read as a
stream of conversations (``ijson``); ChatGPT's shards (``conversations-000.json`` …) in number order
as one list (:mod:`.shards`). A zip inflates to at most ``max_bytes`` (its members together) and 200
times its size; a damaged or lying zip is an input error naming the file. Strings are read as
``json`` reads them, lone surrogates kept for :func:`~citerender.sources.clean.clean_data` to
report: ijson's C backend misreads them, so a stream holding one is read again by its Python one."""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Generator, Iterator, Mapping
from itertools import accumulate
from pathlib import Path
from typing import IO, Any

from ..errors import CiterenderError
from ..sources.files import regular_file
from .common import Note
from .shards import Noted, export_members, shard_notes

__all__ = [
    "MAX_INFLATED_BYTES",
    "MAX_INFLATE_RATIO",
    "ZIP_ERRORS",
    "export_members",
    "export_notes",
    "head",
    "is_export_folder",
    "is_zip",
    "is_zipped_export",
    "read_raw",
]

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


#: the most a zipped export may inflate to, and per compressed byte (see SECURITY.md)
MAX_INFLATED_BYTES = 4 * 1024**3
MAX_INFLATE_RATIO = 200


#: what the folder of an unzipped ChatGPT export holds beside its conversations
_EXPORT_SIGNS = ("chat.html", "export_manifest.json", "user.json", "user_settings.json")


def is_export_folder(path: str | Path) -> bool:
    """Is ``path`` a folder holding an export's conversations or the files that come with them?"""
    p = Path(path)
    try:
        if not p.is_dir():
            return False
        names = [c.name for c in p.iterdir() if c.is_file()]
    except OSError:
        return False
    signs = sum(n in names for n in _EXPORT_SIGNS)  # one alone (a user.json) may be an answer's file
    return bool(export_members(names)) or "export_manifest.json" in names or signs >= 2


def _folder_members(p: Path) -> list[Path]:
    names = export_members([c.name for c in p.iterdir() if c.is_file()])
    linked = next((n for n in names if (p / n).is_symlink()), None)
    if linked is not None:  # read through, it could publish any file; skipped, its conversations would vanish
        raise CiterenderError(
            f"{linked} is a symbolic link: refused (an export is read only from its own files)",
            path=str(p),
            hint="copy the file into the folder in place of the link",
        )
    if not names:
        raise CiterenderError(
            "the folder holds no conversations: no conversations.json and no conversations-NNN.json",
            path=str(p),
            hint="pass the folder the export was unzipped to, or the export's .zip",
        )
    return [p / n for n in names]


def _open(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Generator[tuple[str, IO[bytes]]]:
    """Each file (or zip member) of the export holding conversations, by name, opened in turn."""
    p = Path(path)
    if p.is_dir():
        for file in _folder_members(p):
            if not file.is_file():
                raise CiterenderError("export not found (or not a regular file)", path=str(file))
            with file.open("rb") as f:
                yield file.name, f
        return
    if not p.is_file():
        raise CiterenderError("export not found (or not a regular file)", path=str(path))
    if not is_zip(p):
        with p.open("rb") as f:
            yield p.name, f
        return
    try:
        z = zipfile.ZipFile(p)
        infos = {i.filename: i for i in z.infolist()}
        names = export_members(list(infos))
    except ZIP_ERRORS as e:
        raise _damaged(e, str(path)) from None
    if not names:
        z.close()
        raise CiterenderError(
            "the zip holds no conversations: no conversations.json and no conversations-NNN.json", path=str(path)
        )
    budget = [max_bytes]  # what the members may still inflate to, together
    with z:
        for name in names:
            info = infos[name]
            _check_inflation(info.file_size, info.compress_size, budget[0], str(path))
            try:
                member = z.open(info)
            except ZIP_ERRORS as e:
                raise _damaged(e, str(path)) from None
            with member:  # the header's sizes may lie: the stream itself is bounded
                yield name, io.BufferedReader(_Bounded(member, budget, info.compress_size, str(path)))


def _check_inflation(size: int, compressed: int, max_bytes: int, path: str) -> None:
    if size > max_bytes:
        raise CiterenderError(
            f"the zip's conversations inflate to {size:,} bytes, over the limit of {max_bytes:,}",
            path=path,
            hint="unzip it and build conversations.json, or raise the limit with --max-export-bytes",
        )
    if size > 1024 * 1024 and size > MAX_INFLATE_RATIO * max(compressed, 1):
        raise CiterenderError(
            f"the zip's conversations inflate {size // max(compressed, 1):,} times (over {MAX_INFLATE_RATIO}): "
            "refused as a zip bomb",
            path=path,
            hint="unzip it and build conversations.json",
        )


class _Bounded(io.RawIOBase):
    """A zip member stopped once it inflates past the limits, whatever its header said; ``budget``
    (a one-item list) is what the zip's members may still inflate to."""

    def __init__(self, f: IO[bytes], budget: list[int], compressed: int, path: str) -> None:
        self.f, self.budget, self.compressed, self.path, self.read_so_far = f, budget, compressed, path, 0
        self.max_bytes = budget[0]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.f.read(len(buffer))
        except ZIP_ERRORS as e:  # a CRC that does not match (a header that understates the size)…
            raise _damaged(e, self.path) from None
        self.read_so_far += len(data)
        self.budget[0] = self.max_bytes - self.read_so_far
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
    """Is the file a zip holding an export's conversations, or one too damaged to tell (reading it says why)?"""
    if not is_zip(path):
        return False
    try:
        with zipfile.ZipFile(path) as z:
            return bool(export_members(z.namelist()))
    except ZIP_ERRORS:
        return True


def is_zip(path: str | Path) -> bool:
    """A regular file that starts as a zip does, or that :mod:`zipfile` takes for one."""
    try:
        with regular_file(path) as f:
            if f is None:
                return False
            start = f.read(4)
        return start == b"PK\x03\x04" or zipfile.is_zipfile(path)
    except ZIP_ERRORS:
        return False


def head(path: str | Path) -> str:
    """The first 64 KiB of the export's first file of conversations as text (``""`` if unreadable):
    enough to tell whose export it is."""
    files = _open(path)
    try:
        first = next(files, None)
        return "" if first is None else first[1].read(65536).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    except CiterenderError:
        return ""
    except ZIP_ERRORS:
        return ""
    finally:
        files.close()


def read_raw(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[tuple[int, Any]]:
    """Every conversation of the export as its JSON data, with its position, read as a stream (an
    item that is no object as it is). :func:`export_notes` ride on the first (a :class:`~.shards.Noted`)."""
    notes = export_notes(path)
    for k, data in _raw(path, max_bytes):
        if notes and isinstance(data, Mapping):
            data, notes = Noted.of(data, notes), []
        yield k, data


def export_notes(path: str | Path) -> list[Note]:
    """What is wrong with the export's files as a set (CR516, :func:`~.shards.shard_notes`)."""
    p = Path(path)
    try:
        if p.is_dir():
            return shard_notes([(c.name, None) for c in p.iterdir() if c.is_file()])
        if is_zip(p):
            with zipfile.ZipFile(p) as z:
                return shard_notes([(i.filename, (i.CRC, i.file_size)) for i in z.infolist()])
    except ZIP_ERRORS:
        pass
    return []


def _raw(path: str | Path, max_bytes: int) -> Iterator[tuple[int, Any]]:
    """:func:`read_raw`'s items, by ijson's C backend, or its Python one from a lone surrogate on."""
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


def _items(path: str | Path, max_bytes: int, backend: Any, *, watch: bool) -> Iterator[tuple[int, Any]]:
    """Every conversation of every file of the export, numbered on from file to file."""
    import ijson

    k = 0
    for name, f in _open(path, max_bytes):
        where = f" ({name})" if name != Path(path).name else ""
        _is_list(f, name, path)
        try:
            stream = _DepthGuard(_SurrogateWatch(f) if watch else f)
            for data in backend.items(stream, "item", use_float=True):
                yield k, data
                k += 1
        except _TooDeep:
            raise CiterenderError(
                f"the export{where} is nested more than {MAX_DEPTH:,} levels deep: not a chat export",
                path=str(path),
                hint="export the chats again",
            ) from None
        except ijson.JSONError as e:
            what = " ".join(str(e).split())[:300]  # yajl's message draws an arrow over several lines
            raise CiterenderError(f"invalid JSON in the export{where}: {what}", path=str(path)) from None
        except UnicodeDecodeError as e:
            raise CiterenderError(
                f"the export{where} is not valid UTF-8 ({e.reason})", path=str(path), hint="export it again"
            ) from None


def _is_list(f: IO[bytes], name: str, path: str | Path) -> None:
    """A file of conversations must be a JSON list: an object would give no item, unseen."""
    peek = getattr(f, "peek", None)
    start = peek(4096)[:4096].lstrip(b"\xef\xbb\xbf \t\r\n") if peek is not None else b"["
    if start and not start.startswith(b"["):
        what = "an object" if start.startswith(b"{") else "not a list"
        raise CiterenderError(
            f"{name} holds {what}: an export's conversations are a JSON list",
            path=str(path),
            hint="export the chats again; a shard (conversations-000.json) is a list of conversations",
        )


#: the deepest nesting read from an export (a conversation is about ten levels deep; ijson's key
#: paths grow with the depth at every level)
MAX_DEPTH = 1000
_NOT_BRACKET = bytes(c for c in range(256) if c not in b"[]{}")
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class _TooDeep(Exception):
    """The JSON is nested deeper than :data:`MAX_DEPTH`."""


class _DepthGuard:
    """A JSON byte stream handed on as read, stopped (:class:`_TooDeep`) past :data:`MAX_DEPTH`:
    escapes taken out, the rest cut at its quotes, the brackets between strings counted."""

    def __init__(self, f: Any) -> None:
        self.f, self.depth, self.in_string, self.backslash = f, 0, False, b""

    def read(self, n: int = -1) -> bytes:
        data = bytes(self.f.read(n))
        self._follow(data)
        return data

    def _follow(self, data: bytes) -> None:
        data = self.backslash + data
        bare = data.rstrip(b"\\")  # a backslash at the end escapes what the next chunk starts with
        self.backslash = b"\\" if (len(data) - len(bare)) % 2 else b""
        parts = bare.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        outside = b"".join(parts[1 if self.in_string else 0 :: 2])
        self.in_string ^= len(parts) % 2 == 0
        brackets = outside.translate(None, _NOT_BRACKET)
        if brackets:
            depths = list(accumulate(map(_DEPTH.__getitem__, brackets), initial=self.depth))
            if max(depths) > MAX_DEPTH:
                raise _TooDeep
            self.depth = depths[-1]


class _LoneSurrogate(Exception):
    """The stream holds a lone surrogate escape: ijson's C backend would misread it."""


#: a ``\\uD800``–``\\uDFFF`` escape that is not half of a pair (a false alarm costs the slower backend)
_LONE = re.compile(
    rb"\\u[dD](?:[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|[c-fC-F][0-9a-fA-F]{2}(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
)
_HOLD = 12  # bytes held back: enough to see whether an escape at the end of a chunk is half a pair


class _SurrogateWatch:
    """A JSON byte stream stopped (:class:`_LoneSurrogate`) before the parser sees a lone surrogate."""

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
